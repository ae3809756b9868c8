"""Exact distributions of dice expressions as integer counts, their cost known first.

A distribution is the number of ways each total comes up, over ``sides ** dice`` equally likely
rolls (``Counts``). Each kind of term has its own count, and terms are joined by convolution:

* ``NdM``: one die at a time, each step a sliding window over the totals so far (a running
  sum), so a die costs the width of the totals plus its faces, never their product;
* ``NdMkhK`` (and ``klK``): order statistics. Faces are visited from the best kept down; a state
  is how many dice show faces already visited (fewer than K) and the sum of those, and
  ``comb(rest, j)`` counts the ways ``j`` of the remaining dice show the face. Once K dice are
  placed, the rest may show any lower face: ``lower ** rest`` ways, counted at once. Keeping the
  lowest is keeping the highest of the faces read upside down (``M + 1 - f``);
* a constant moves the totals, a minus sign turns them round.

``cost`` bounds the inner steps of all of it from the expression alone (``terms``' widths and
dice), and ``distribution`` refuses, before any work, an expression whose cost is over the
engine's budget (``tallies.BUDGET``) with ``TooMuchWork``. The tests hold every count to icepool.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import accumulate
from math import comb

from .. import tallies
from ..errors import TooMuchWork
from ..memo import memoised
from .grammar import Constant, Expression, Rolled


@dataclass(frozen=True, slots=True)
class Counts:
    """``counts[i]`` ways of the total ``low + i``, out of ``denominator``."""

    low: int
    counts: tuple[int, ...]
    # summed once: a sum over every total, asked for each total, made reading the odds of a
    # 10d1000 quadratic (10,000 sums of 10,000 counts: seconds past the budget's estimate)
    denominator: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "denominator", sum(self.counts))

    @property
    def high(self) -> int:
        return self.low + len(self.counts) - 1

    def ways(self) -> dict[int, int]:
        """Each possible total (nonzero ways) with its ways, lowest first."""
        return {self.low + i: c for i, c in enumerate(self.counts) if c}

    def mean(self) -> Fraction:
        total = sum((self.low + i) * c for i, c in enumerate(self.counts))
        return Fraction(total, self.denominator)

    def at_least(self, total: int) -> Fraction:
        """The chance of ``total`` or more."""
        start = min(max(total - self.low, 0), len(self.counts))
        return Fraction(sum(self.counts[start:]), self.denominator)


def plain(count: int, sides: int) -> Counts:
    """``count`` dice of ``sides`` faces added up."""
    counts = [1]
    for _ in range(count):
        prefix = [0, *accumulate(counts)]
        width = len(counts)
        counts = [
            prefix[min(i, width - 1) + 1] - prefix[max(0, i - sides + 1)]
            for i in range(width + sides - 1)
        ]
    return Counts(count, tuple(counts))


def highest(count: int, sides: int, keep: int) -> Counts:
    """The sum of the ``keep`` highest of ``count`` dice of ``sides`` faces."""
    found: defaultdict[int, int] = defaultdict(int)
    states: dict[tuple[int, int], int] = {(0, 0): 1}  # (dice placed, their kept sum): ways
    for face in range(sides, 0, -1):
        after: defaultdict[tuple[int, int], int] = defaultdict(int)
        for (placed, total), ways in states.items():
            rest = count - placed
            for j in range(rest + 1):
                w = ways * comb(rest, j)
                now = placed + j
                summed = total + min(j, keep - placed) * face
                if now >= keep:  # every kept die placed: the rest lie below this face
                    found[summed] += w * (face - 1) ** (count - now)
                else:
                    after[(now, summed)] += w
        states = after
    low = keep
    return Counts(low, tuple(found.get(t, 0) for t in range(low, keep * sides + 1)))


def term(t: Rolled) -> Counts:
    """One term's totals, signed."""
    if isinstance(t, Constant):
        return Counts(t.value, (1,))
    if t.keep is None:
        found = plain(t.count, t.sides)
    else:
        found = highest(t.count, t.sides, t.keep)
        if not t.highest:  # the lowest K read f as M + 1 - f: total K(M + 1) - highest
            found = Counts(t.keep * (t.sides + 1) - found.high, found.counts[::-1])
    if t.sign < 0:
        found = Counts(-found.high, found.counts[::-1])
    return found


def joined(a: Counts, b: Counts) -> Counts:
    """The totals of two independent parts added (convolution)."""
    out = [0] * (len(a.counts) + len(b.counts) - 1)
    for i, x in enumerate(a.counts):
        if x:
            for j, y in enumerate(b.counts):
                out[i + j] += x * y
    return Counts(a.low + b.low, tuple(out))


def term_cost(t: Rolled) -> int:
    """An upper bound of the inner steps ``term`` takes."""
    if isinstance(t, Constant):
        return 1
    if t.keep is None:  # each die: the totals so far, widened by its faces
        return sum(i * (t.sides - 1) + 1 + t.sides for i in range(t.count))
    return t.sides * t.keep * (t.keep * t.sides + 1) * (t.count + 1)


def cost(expression: Expression) -> int:
    """An upper bound of the inner steps of ``distribution``, from the expression alone."""
    terms = expression.rolled()
    total = sum(term_cost(t) for t in terms)
    width = 1
    for t in terms:
        size = t.high - t.low + 1
        total += width * size
        width += size - 1
    return total


def distribution(expression: Expression, field: str = "expression") -> Counts:
    """The exact totals of an expression (no DB left in it), refused with ``TooMuchWork``
    naming ``field`` before any work when ``cost`` is over the budget."""
    dear = cost(expression)
    if dear > tallies.BUDGET:
        raise TooMuchWork(field, dear, tallies.BUDGET)
    return _distribution(expression)


@memoised(1 << 10)
def _distribution(expression: Expression) -> Counts:
    found = Counts(0, (1,))
    for t in expression.rolled():
        found = joined(found, term(t))
    return found
