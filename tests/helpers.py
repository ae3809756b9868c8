"""Test helpers: a naive enumerator over every dice outcome, run through the public API, and
requests more than one test needs."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import d100
from d100.results import CheckResult

# BRP's dearest request, a chain of a hundred Luck rerolls of two bonus dice rolled by tens:
# once seconds per odds call and minutes per chart (the work budget and the cost tests).
EXPENSIVE = {
    "system": "brp",
    "skill": 1,
    "bonus_dice": 2,
    "luck_rerolls": 100,
    "house_rules": {"bonus_dice_method": "tens"},
}


class _More(Exception):
    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high


class _Prefix:
    """A random source that plays a fixed prefix, then asks for the next die's range."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.i = 0

    def randint(self, a: int, b: int) -> int:
        if self.i == len(self.prefix):
            raise _More(a, b)
        value = self.prefix[self.i]
        self.i += 1
        return value


def outcome(result: d100.Result) -> str:
    return result.level if isinstance(result, CheckResult) else result.winner


def brute_force(request: dict[str, Any]) -> dict[str, Fraction]:
    """Resolve ``request`` once per possible dice sequence, each with its exact weight: the
    naive count the engine's odds must equal (G4). Exponential: small requests only."""
    parsed = d100.parse(request)
    counts: Counter[str] = Counter()
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        try:
            result = d100.resolve(parsed, _Prefix(prefix))
        except _More as more:
            share = weight / (more.high - more.low + 1)
            stack.extend(((*prefix, v), share) for v in range(more.low, more.high + 1))
            continue
        counts[outcome(result)] += weight
    return dict(counts)


def nonzero(probabilities: dict[str, Fraction]) -> dict[str, Fraction]:
    return {k: v for k, v in probabilities.items() if v}


def odds_map(request: dict[str, Any]) -> dict[str, Fraction]:
    odds = d100.odds(request)
    return dict(odds.levels if isinstance(odds, d100.CheckOdds) else odds.winner)
