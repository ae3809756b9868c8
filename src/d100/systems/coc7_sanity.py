"""Call of Cthulhu 7th edition's Sanity roll as the edition declares it (S7-1..S7-5): d100
against the current SAN with C7-1's levels and no pool (SealDice's bonus and penalty dice as
the house rule ``sanity_pool``), Luck or push (S7-1); a fumble loses the failure loss at its
maximum (S7-2); a loss of 5 or more calls for an INT roll (S7-3); a
day's losses of a fifth of its first SAN bring indefinite insanity (S7-4); SAN at most 99 less
the Cthulhu Mythos (S7-5); with Pulp Cthulhu's rules, Luck may halve a loss (P-2).
``d100.sanity`` rolls and counts it from these numbers."""

from __future__ import annotations

from ..declarations import Sanity, frozen_map
from ..machine import Given
from ..memo import memoised
from .coc7_check import MAX_EXTRA_DICE, Coc7Check, Pool, attempt_of
from .coc7_rules import fumble_from, level

WORDS = ("sanity", "san", "sc")  # the quick words, and the sheet's names of SAN


def sanity_level(roll: int, value: int) -> str:
    """C7-1 at regular difficulty against the current SAN (S7-1), or INT (S7-3)."""
    return level(roll, value, fumble_from(value))


class SanityDie(Pool):
    """C7-3's roll for a Sanity roll's pool (SealDice's house rule, decision S1), as a check's
    with that pool rolls it; with none, a plain d100."""

    def values(self, draw: int) -> tuple[int, ...]:
        return self.attempt.values(draw)

    def encode(self, given: tuple[int, ...], field_name: str) -> Given:
        return self.attempt.encode(given, field_name)


@memoised(32)
def sanity_die(net: int, stream: str) -> SanityDie:
    pool = Coc7Check(skill=0, bonus_dice=max(net, 0), penalty_dice=max(-net, 0))
    return SanityDie(attempt_of(pool, stream))


def halve_with_luck(loss: int, foundry: bool) -> tuple[int, int]:
    """P-2 (Pulp): lose half the loss, rounded up, for twice the whole loss in Luck (decision
    S6); Foundry's cost, twice the half rounded down, as the house rule."""
    half = loss // 2
    return loss - half, 2 * half if foundry else 2 * loss


SANITY = Sanity(
    words=WORDS,
    level=sanity_level,
    maximised=frozenset({"fumble"}),
    int_roll_from=5,
    daily_divisor=5,
    most=99,
    sheet=frozen_map(
        {
            "sanity": WORDS[:2],
            "intelligence": ("int", "intelligence"),
            "mythos": ("cthulhu mythos",),
        }
    ),
    die=sanity_die,
    luck_halves=halve_with_luck,
    most_pool=MAX_EXTRA_DICE,
    summary="a Sanity roll: d100 against SAN, the loss A/B by its outcome (1/1d6), the "
    "insanity it brings",
)
