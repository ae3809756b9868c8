"""``d100 roll`` of a system's actions (``Declaration.actions``): ``d100 roll coc7
FAR(30,62,98)`` or ``d100 roll coc7 55 shots3 long``, rolled and shown with the exact odds
beside, read from what each system declares."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from ..actions import Action
from ..errors import D100Error
from ..quick import is_number
from ..render.action_views import report_view
from ..systems import REGISTRY
from . import flags
from .output import show


def read(said: Sequence[str], ns: argparse.Namespace) -> tuple[Action, Any, str | None] | None:
    """The action the words ask for, its request and label; None when they ask for none. A
    form led by a skill is the chosen system's; any other, a named system's or any system's
    in the registry's order."""
    words = list(said)
    named = words.pop(0).lower() if words and words[0].lower() in REGISTRY else None
    if not words:
        return None
    if named is None and is_number(words[0]):
        try:
            named = flags.system_of(ns)
        except D100Error:
            return None  # no system chosen: the check's own reading says so
    systems = [REGISTRY.get(named)] if named is not None else list(REGISTRY)
    for system in systems:
        for action in system.declares.actions:
            found = action.read(words)
            if found is not None:
                return action, found[0], found[1]
    return None


OWN = frozenset({"help", "system", "sheet", "seed", "json", "plain", "color", "words"})


def refuse_check_flags(ns: argparse.Namespace, action: Action) -> None:
    """A check's flag beside an action's words would be dropped: refused, naming it."""
    for option in ns.parser._actions:
        if option.dest in OWN or getattr(ns, option.dest, None) == option.default:
            continue
        raise D100Error(
            option.option_strings[0] if option.option_strings else option.dest,
            getattr(ns, option.dest),
            f"{action.form}: its own words, with --seed, --json, --plain or --color",
            f"a flag of a check, not of {action.name}",
        )


def run(ns: argparse.Namespace, action: Action, request: Any, label: str | None) -> int:
    from .roll import rng_of

    refuse_check_flags(ns, action)
    result = action.roll(request, rng_of(ns))
    chance = action.odds(request)
    data = action.to_dict(result, chance)
    if label is not None:
        data["label"] = label
    show(ns, report_view(action.report(result, chance), label), data)
    return 0
