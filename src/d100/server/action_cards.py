"""How a system's action reads on its card (every door draws it), and what a viewer who may
not read the sheet it was made against is shown of it (``Facing.kept``): made once, for a
declared roll and for what follows it (``followups``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..actions import Action, Report
from ..declared import ACTION_UNLOGGED


def action_reading(action: Action, report: Report) -> dict[str, Any]:
    """How an action reads, as its report puts it (every door draws it): its title, rows,
    notes and exact odds; ``heading`` and ``outcome`` are what a view withholding the
    roller's numbers keeps (an NPC's, to players: no skill, no DB)."""
    return {
        "title": report.title,
        "heading": action.title,
        "outcome": report.outcome,
        "rows": [
            {"label": r.label, "text": r.text, **({"level": r.level} if r.level else {})}
            for r in report.rows
        ],
        "notes": list(report.notes),
        "odds": [
            {"what": w, "chance": f"{p.numerator}/{p.denominator}"} for w, p in report.chances
        ],
    }


def action_card(action: Action, done: Any, odds: Mapping[str, Any], faced: bool) -> dict[str, Any]:
    """An action's reading with its odds; made against a character (``faced``), with what a
    viewer who may not read that sheet is shown (``kept``, chosen by ``access``)."""
    reading = action_reading(action, action.report(done, odds))
    if faced and action.facing is not None:
        report, kept = action.facing.kept(done)
        reading["kept"] = action_reading(action, report) | {"result": kept}
    return reading


def logged_action_odds(odds: Mapping[str, Any]) -> dict[str, Any]:
    """An action's odds as its event keeps them (``ACTION_UNLOGGED`` left out)."""
    return {k: v for k, v in odds.items() if k not in ACTION_UNLOGGED}
