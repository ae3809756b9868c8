"""The damage of the hits of several shots and of full auto's bullets (S7-6): a hit rolls the
weapon's damage; an impale (an extreme hit, a bullet being an impaling weapon) rolls it and adds
its maximum; a firearm adds no damage bonus. Rolled through the random source as every die is;
its exact distribution is the mixture, over the chances of each number of hits and impales, of
the sums of their damage."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from .. import expressions, tallies
from ..dice import RandomSource
from ..errors import D100Error, TooMuchWork
from ..expressions import Counts, DiceRequest
from ..expressions.exact import joined
from ..memo import memoised
from .coc7_firing import fraction_text


def weapon(expression: str) -> DiceRequest:
    """A weapon's damage per bullet, a dice expression without ``DB``."""
    try:
        return DiceRequest(expression)
    except D100Error as err:
        raise err.at("damage") from None


def roll(damage: DiceRequest, extreme: bool, rng: RandomSource | None) -> tuple[int, ...]:
    """One hit's damage dice and total last: the weapon rolled, plus its maximum when the hit
    is extreme (S7-6's impale)."""
    rolled = expressions.roll(damage, rng)
    return (*rolled.dice, rolled.total + (damage.rolled.high if extreme else 0))


@memoised(512)
def _power(damage: DiceRequest, times: int, extreme: bool) -> Counts:
    """The damage of ``times`` hits, all extreme or none, each count built on the one before."""
    if times == 0:
        return Counts(0, (1,))
    one = expressions.distribution(damage.rolled)
    part = Counts(one.low + damage.rolled.high, one.counts) if extreme else one
    return joined(_power(damage, times - 1, extreme), part)


def cost(width: int, hits: Iterable[tuple[int, int]]) -> int:
    """A bound of the steps of ``odds``, known before it runs: each power of the weapon's
    totals (``width`` of them) built once, then each (hits, extreme hits) joined once."""
    pairs = list(hits)
    most = max((h for h, _ in pairs), default=0)
    powers = 2 * sum(k * width * width for k in range(most + 1))
    return powers + sum(((h - e) * width + 1) * (e * width + 1) for h, e in pairs)


def odds(damage: DiceRequest, hits: Mapping[tuple[int, int], Fraction]) -> dict[int, Fraction]:
    """The chance of each total damage, from the chance of each (hits, extreme hits); refused
    before any work when the sums would cost more than the engine's budget."""
    dear = cost(len(expressions.distribution(damage.rolled).counts), hits)
    if dear > tallies.BUDGET:
        raise TooMuchWork("damage", dear, tallies.BUDGET)
    out: dict[int, Fraction] = {}
    for (h, e), p in hits.items():
        counts = joined(_power(damage, h - e, False), _power(damage, e, True))
        for total, ways in counts.ways().items():
            out[total] = out.get(total, Fraction(0)) + p * Fraction(ways, counts.denominator)
    return dict(sorted(out.items()))


def shown(chances: Callable[[], dict[int, Fraction] | None]) -> dict[str, Any] | None:
    """Damage odds as contract JSON, or why they were not worked out (over the budget: the
    roll stands, as a dice expression's does); None where no damage is named."""
    try:
        found = chances()
    except TooMuchWork as err:
        return {"not_worked_out": err.to_dict()}
    return None if found is None else {str(t): fraction_text(p) for t, p in found.items()}
