"""``d100 roll`` of a system's actions (``Declaration.actions``): ``d100 roll coc7
FAR(30,62,98)`` or ``d100 roll coc7 55 shots3 long``, rolled and shown with the exact odds
beside, read from what each system declares."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..actions import Action, Found, find, for_character
from ..errors import D100Error
from ..render.action_views import report_view
from ..systems import REGISTRY
from . import flags
from .output import show


def read(said: Sequence[str], ns: argparse.Namespace) -> Found | None:
    """The action the words ask for; a form led by a skill is the chosen system's; with a
    sheet, ``WHO SKILL WORDS`` is the character's, the skill one of its sheet's and DB its
    damage bonus; ``--db`` (``db=+1d4``) says what DB stands for in an attack's damage."""

    def chosen() -> str | None:
        try:
            return flags.system_of(ns)
        except D100Error:
            return None  # no system chosen: the check's own reading says so

    bonus = getattr(ns, "damage_bonus", None)
    if len(said) > 1 and flags.sheet_path(ns):  # WHO SKILL WORDS: a character of the sheet
        try:
            character = flags.open_sheet(ns).get(said[0])
        except D100Error:
            character = None
        if character is not None:
            acts = REGISTRY.get(character.system).declares.actions
            return for_character(acts, said[1:], character, bonus)
    return find(said, chosen(), bonus)


OWN = frozenset(
    {"help", "system", "sheet", "seed", "json", "plain", "color", "words", "damage_bonus"}
)


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


def run(ns: argparse.Namespace, found: Found) -> int:
    from .roll import rng_of

    action, request, label = found.action, found.request, found.label
    refuse_check_flags(ns, action)
    result = action.roll(request, rng_of(ns))
    chance = action.odds(request)
    data = action.to_dict(result, chance)
    if label is not None:
        data["label"] = label
    show(ns, report_view(action.report(result, chance), label), data)
    return 0
