"""Views of odds: one request's levels, odds tables over a range of skills, advice, and
simulated frequencies beside the exact ones."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from ..advise import Option
from ..results import CheckOdds, ContestOdds
from .view import View, frac, level_seg, line, pct, seg, table


def odds_view(title: str, chance: CheckOdds) -> View:
    """Every level's exact probability, as a percentage and as a fraction."""
    rows = [
        [level_seg(k, chance.system, upper=False), seg(pct(p)), seg(frac(p))]
        for k, p in chance.levels.items()
    ]
    rows.append(
        [
            seg("any success", "bold"),
            seg(pct(chance.success), "bold"),
            seg(frac(chance.success), "bold"),
        ]
    )
    if chance.luck_spent is not None:
        rows.append(
            [
                seg("Luck spent (mean)"),
                seg(f"{float(chance.luck_spent):.3f}"),
                seg(frac(chance.luck_spent)),
            ]
        )
    return View((line(seg(title, "title")),)) + table(["level", "chance", "exact"], rows)


def contest_odds_view(title: str, chance: ContestOdds, names: Sequence[str]) -> View:
    """Who wins a contest: each side, a tie (BRP6) and nobody (OQ7, OQ9), exactly."""
    shown = {
        "actor": f"{names[0]} wins",
        "opponent": f"{names[1]} wins",
        "tie": "tie",
        "none": "nobody wins",
    }
    rows = [[seg(shown[k]), seg(pct(p)), seg(frac(p))] for k, p in chance.winner.items()]
    return View((line(seg(title, "title")),)) + table(["outcome", "chance", "exact"], rows)


def odds_table_view(
    title: str, skills: Sequence[int], levels: Sequence[str], rows: Sequence[CheckOdds]
) -> View:
    """P(level) per skill, in percent, with P(success) last."""
    body = [
        [
            seg(str(skill), "bold"),
            *(seg(f"{float(o.levels[k]) * 100:.2f}") for k in levels),
            seg(f"{float(o.success) * 100:.2f}", "bold"),
        ]
        for skill, o in zip(skills, rows, strict=True)
    ]
    header = ["skill", *levels, "any success"]
    return View((line(seg(title, "title")),)) + table(header, body)


def advice_view(title: str, options: Sequence[Option], base: CheckOdds) -> View:
    """The options best first: chance of success, gain over the check as asked, each level, cost."""
    levels = list(base.levels)
    rows = []
    for i, o in enumerate(options, 1):
        gain = f"{float(o.gain) * 100:+.2f}" if o.gain else "0"
        rows.append(
            [
                seg(str(i)),
                seg(o.name, "bold" if i == 1 else ""),
                seg(pct(o.odds.success), "good" if i == 1 else ""),
                seg(frac(o.odds.success)),
                seg(gain),
                *(seg(f"{float(o.odds.levels[k]) * 100:.1f}") for k in levels),
                seg(o.cost, "dim"),
            ]
        )
    header = ["#", "option", "success", "exact", "gain", *levels, "cost"]
    return View((line(seg(title, "title")),)) + table(header, rows)


def simulate_view(
    title: str,
    counts: Mapping[str, int],
    exact: Mapping[str, Fraction],
    system: str | None = None,
) -> View:
    """Observed frequencies beside the exact odds, with the difference in percentage points
    (``system``: the levels' system, for their styles; None for a contest's winners)."""
    n = sum(counts.values())
    rows = []
    for key, p in exact.items():
        seen = counts.get(key, 0)
        observed = seen / n if n else 0.0
        rows.append(
            [
                level_seg(key, system, upper=False),
                seg(str(seen)),
                seg(pct(observed)),
                seg(pct(p)),
                seg(frac(p)),
                seg(f"{(observed - float(p)) * 100:+.2f}"),
            ]
        )
    return View((line(seg(title, "title")),)) + table(
        ["outcome", "count", "observed", "exact", "fraction", "diff (pts)"], rows
    )
