"""The damage of the hits of several shots (S7-6): a hit rolls the weapon's damage; an extreme
hit, a bullet being an impaling weapon, rolls it and adds its maximum; a firearm adds no
damage bonus. Rolled through the random source as every die is; its exact distribution is the
mixture, over the chances of each number of hits and extreme hits, of the sums of their
damage."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from .. import expressions, tallies
from ..dice import RandomSource
from ..errors import D100Error, TooMuchWork
from ..expressions import Counts, DiceRequest
from ..expressions.exact import joined
from ..memo import memoised


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


@memoised(256)
def _sum(damage: DiceRequest, normal: int, extreme: int) -> Counts:
    """The damage of ``normal`` hits and ``extreme`` ones, every way counted."""
    one = expressions.distribution(damage.rolled)
    impale = Counts(one.low + damage.rolled.high, one.counts)
    out = Counts(0, (1,))
    for part, times in ((one, normal), (impale, extreme)):
        for _ in range(times):
            out = joined(out, part)
    return out


def odds(damage: DiceRequest, hits: Mapping[tuple[int, int], Fraction]) -> dict[int, Fraction]:
    """The chance of each total damage, from the chance of each (hits, extreme hits); refused
    before any work when the sums would cost more than the engine's budget."""
    width = len(expressions.distribution(damage.rolled).counts)
    most = max((h for h, _ in hits), default=0)
    dear = len(hits) * most * (most * width) * width  # each sum: a hit's totals by the sum's
    if dear > tallies.BUDGET:
        raise TooMuchWork("damage", dear, tallies.BUDGET)
    out: dict[int, Fraction] = {}
    for (h, e), p in hits.items():
        counts = _sum(damage, h - e, e)
        for total, ways in counts.ways().items():
            out[total] = out.get(total, Fraction(0)) + p * Fraction(ways, counts.denominator)
    return dict(sorted(out.items()))
