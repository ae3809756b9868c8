"""Dice expressions with exact odds: ``1d6+1d4``, ``4d6kh3``, ``2d20kl1``, ``1d8+DB``.

``roll(request, rng)`` rolls one through the same random-source path as a d100, ``odds(request)``
counts every total exactly; a request is a ``DiceRequest``, its contract dict
(``{"expression": "1d8+DB", "damage_bonus": "+1d4"}``) or the expression's text. The grammar is
``grammar``'s, the counting ``exact``'s, the contract's objects ``rolls``'."""

from .exact import Counts, cost, distribution
from .grammar import Constant, DamageBonus, Dice, Expression, looks_like, parse
from .rolls import (
    DiceOdds,
    DiceRequest,
    DiceResult,
    TermResult,
    odds,
    reading,
    request_of,
    roll,
)

__all__ = [
    "Constant",
    "Counts",
    "DamageBonus",
    "Dice",
    "DiceOdds",
    "DiceRequest",
    "DiceResult",
    "Expression",
    "TermResult",
    "cost",
    "distribution",
    "looks_like",
    "odds",
    "parse",
    "reading",
    "request_of",
    "roll",
]
