"""Dice expressions on the command line: ``d100 roll 1d6+1d4`` rolls one, ``d100 odds 3d6``
prints every total; ``--db`` gives what ``DB`` stands for (``d100 roll 1d8+DB --db +1d4``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from fractions import Fraction

from .. import expressions, quick
from ..errors import D100Error, TooMuchWork
from ..expressions import DiceOdds, DiceRequest
from ..quick import DiceWords
from ..render.dice_views import SECRET, odds_view, roll_view
from ..systems import REGISTRY
from .output import show


def add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        "--damage-bonus",
        dest="damage_bonus",
        metavar="EXPR",
        help="what DB stands for in a dice expression: +1d4, -1, 0 (S7-11); --db=-1 for a "
        "negative one",
    )


def refuse_lookalike(ns: argparse.Namespace, words: Sequence[str]) -> None:
    """A first word (after a system's name) that looks like dice, names no character on the
    sheet and is no form, refused by the grammar where it breaks (``1d6x``: position 4), not
    as a name without a sheet."""
    said = list(words)
    if len(said) > 1 and said[0].lower() in REGISTRY:
        said.pop(0)
    if not said or quick.is_number(said[0]) or not expressions.looks_like(said[0]):
        return
    if _character(ns, said[0]):
        return
    expressions.parse(said[0])  # a broken expression raises here
    raise D100Error(
        "SKILL",
        said[0],
        "a skill %, a check's form, or d100 roll EXPRESSION for dice",
        "a dice expression, not a check",
    )


def _character(ns: argparse.Namespace, word: str) -> bool:
    """Whether a sheet is at hand and names a character ``word``."""
    from . import flags

    if not flags.sheet_path(ns):
        return False
    try:
        flags.open_sheet(ns).get(word)
    except D100Error:
        return False
    return True


def request(ns: argparse.Namespace, asked: DiceWords) -> DiceRequest:
    return DiceRequest(asked.text, ns.damage_bonus, label=asked.label)


def run_roll(ns: argparse.Namespace, asked: DiceWords) -> int:
    from .roll import rng_of

    wanted = request(ns, asked)
    result = expressions.roll(wanted, rng_of(ns))
    chance: DiceOdds | TooMuchWork
    try:
        chance = expressions.odds(wanted)
    except TooMuchWork as err:  # rolling costs little; counting every total may cost more
        chance = err
    data = result.to_dict()
    if isinstance(chance, DiceOdds):
        data["odds"] = {
            "mean": _text(chance.mean),
            "at_least": _text(chance.at_least(result.total)),
        }
    if asked.secret:
        data["secret"] = SECRET
    show(ns, roll_view(wanted, result, chance, asked.secret), data)
    return 0


def run_odds(ns: argparse.Namespace, asked: DiceWords) -> int:
    wanted = request(ns, asked)
    chance = expressions.odds(wanted)
    show(ns, odds_view(wanted, chance), chance.to_dict())
    return 0


def no_db(ns: argparse.Namespace) -> None:
    """``--db`` belongs to dice expressions: refused beside a check."""
    if getattr(ns, "damage_bonus", None) is not None:
        raise D100Error(
            "--db",
            ns.damage_bonus,
            "with a dice expression that names DB, e.g. d100 roll 1d8+DB --db +1d4",
            "a damage bonus given to a check",
        )


def _text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"
