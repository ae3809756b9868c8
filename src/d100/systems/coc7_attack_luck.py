"""Luck spent on an attack once its result shows (C7-4, decision 7), and why it is never
pushed (C7-5: weapon rolls are never pushable). The attacker's roll may be bought up to a level
C7-4 offers (not on a fumble; the level at least the difficulty and above the roll's own;
"regular" only after a failure; Luck held greater than the cost), from the roll as Luck already
spent on it lowered it, where that level changes what the attack does: a miss made a hit, a
hit extreme damage, a defender's win fighting back undone. Each such spend is a request of the
attack of its own (the roll's dice, ``luck``, ``luck_to``), whose new damage is drawn anew;
beside it, exactly, the damage it deals against the damage dealt now: whether Luck is worth
it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..actions import ActionRolled
from ..declarations import FollowUp
from .coc7_attack import FOUGHT_BACK, Attack, AttackResult, odds, outcome
from .coc7_firing import fraction_text, mean
from .coc7_rules import fumble_from, ladder, luck_offers

WORDS = {"miss": "a miss", "hit": "a hit", "extreme": "extreme damage", FOUGHT_BACK: "fought back"}
DONE = "Luck spent after the roll"
PUSH = FollowUp(
    "push",
    "Push the roll",
    "Pushed roll",
    0,
    {},
    refused="an attack is a weapon roll, and weapon rolls are never pushed (C7-5)",
    allowed="Luck spent on the attacker's roll (C7-4), never a push",
)


@dataclass(frozen=True)
class LuckBuy:
    """One spend of Luck on an attack made: the level it buys, its cost (from the roll as
    already lowered), what the attack then does, the exact chance of each damage it then
    deals, the damage dealt now and the defender's damage to the attacker it undoes; its
    ``request`` is the attack with that Luck spent."""

    level: str
    cost: int
    outcome: str
    damage: Mapping[int, Fraction]
    dealt: int
    spared: int
    request: Attack

    @property
    def mean(self) -> Fraction:
        return mean(self.damage)

    @property
    def gain(self) -> Fraction:
        """The damage it adds, on average, to the damage dealt now."""
        return self.mean - self.dealt

    @property
    def per_luck(self) -> Fraction:
        return self.gain / self.cost

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "level": self.level,
            "cost": self.cost,
            "outcome": self.outcome,
            "damage": {str(t): fraction_text(p) for t, p in self.damage.items()},
            "mean_damage": fraction_text(self.mean),
            "dealt": self.dealt,
            "gain": fraction_text(self.gain),
            "per_luck": fraction_text(self.per_luck),
        }
        if self.spared:
            out["spared"] = self.spared
        return out | {"words": self.words}

    @property
    def words(self) -> str:
        """What it buys in a line, every door's: "damage 2-7, mean 9/2 (4.5) against 0 now:
        3/20 (0.15) more a Luck point"."""
        low, high = min(self.damage), max(self.damage)
        spread = f"{low}" if low == high else f"{low}-{high}"
        said = (
            f"damage {spread}, mean {_shown(self.mean)} against {self.dealt} now: "
            f"{_shown(self.per_luck)} more a Luck point"
        )
        return said + (f"; undoes {self.spared} damage to the attacker" if self.spared else "")


def _shown(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{fraction_text(value)} ({float(value):.3g})"


def advise(result: AttackResult, luck: int | None) -> tuple[LuckBuy, ...]:
    """Every spend of the Luck held (``luck``; None: no Luck, nothing) C7-4 offers on the
    attack made that changes what it does, the cheapest level for each thing it may do,
    lowest first, with its exact damage."""
    r = result.request
    if luck is None:
        return ()
    lowered = result.roll - result.luck_spent
    lad = ladder(r.skill, fumble_from(r.skill, r.difficulty))
    dice = result.dice + (() if result.defence is None else result.defence[0])
    spared = (result.defender_damage or 0) if result.outcome == FOUGHT_BACK else 0
    out: list[LuckBuy] = []
    theirs = None if result.defence is None else result.defence[2]
    for lvl, cost in luck_offers(lowered, lad, r.difficulty, luck).items():
        now = outcome(r, lvl, theirs)
        if now == result.outcome or now in (b.outcome for b in out):
            continue  # it buys nothing the attack does, or what a cheaper level buys
        # the Luck held as the request gives it: the least that buys the whole spend (C7-4
        # wants more than the cost), never the sheet's, which whoever sees the roll may not
        whole = result.luck_spent + cost
        again = replace(r, dice=dice, luck=whole + 1, luck_to=lvl)
        damage = odds(again).damage
        out.append(LuckBuy(lvl, cost, now, damage, result.damage, spared, again))
    return tuple(out)


def follow_ups(rolled: ActionRolled) -> tuple[FollowUp, ...]:
    """What its roller may do about an attack at a table: each Luck spend ``advise`` gives
    (with the sheet's Luck), its exact damage beside; a push, refused (C7-5)."""
    result = rolled.result
    assert isinstance(result, AttackResult)
    out = []
    for buy in advise(result, rolled.luck):
        label = f"Spend {buy.cost} Luck: {buy.level}, {WORDS[buy.outcome]}"
        key = f"luck_{buy.level}"
        made, gives = buy.request.to_dict(), buy.to_dict()
        out.append(FollowUp(key, label, DONE, buy.cost, made, gives=gives, needs=buy.cost + 1))
    return (*out, PUSH)


__all__ = ["LuckBuy", "advise", "follow_ups"]
