"""Call of Cthulhu 7th full auto, d100's own request (S7-14, decision S5: Foundry's reading in
every step, ``chat-combat-ranged.js``): as many volleys as asked, or until the bullets run
out; the pool one die worse each volley (an aim's bonus die on the first), held to two dice
with each penalty die beyond raising the range's difficulty a step; success as C7-2 with the
fumble range of the required value; a malfunction ends it and spends its volley; a hit scores
half the volley's bullets (at least 1), an extreme success or better every bullet, half of
them (at least 1) impaling, but at extreme range only a critical impales. BCDice's ``FAR``
is ``coc7_far``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..dice import RandomSource
from ..fields import BIG
from . import coc7_damage as damage
from . import coc7_pulp
from .coc7_check import MAX_EXTRA_DICE, NAME
from .coc7_damage import weapon
from .coc7_far import MAX_BULLETS, MIN_VOLLEY
from .coc7_firing import (
    Run,
    aimed,
    at_least,
    check_ranges,
    clamped,
    explained,
    fraction_text,
    mean,
    totals,
    within,
)
from .coc7_rules import RANK

MAX_VOLLEYS = -(-MAX_BULLETS // MIN_VOLLEY)  # every bullet fired three at a time


@dataclass(frozen=True)
class FullAuto:
    """Full auto: the skill, the bullets loaded, the bullets a volley fires (a tenth of the
    skill unless fewer are asked, never under 3), how many volleys (None: until the bullets run
    out), the pool, an aim, each volley's range (one for all, or one per volley) and the
    malfunction number (a roll at or over it), if any."""

    skill: int
    bullets: int
    volley: int | None = None
    volleys: int | None = None
    bonus_dice: int = 0
    penalty_dice: int = 0
    aimed: bool = False
    ranges: tuple[str, ...] = ("normal",)
    malfunction: int | None = None
    dice: tuple[int, ...] | None = None
    damage: str | None = None  # a bullet's damage (S7-6), rolled for each bullet that hits
    # a Pulp hero's Luck: 10 of it cancels a malfunction's consequence, the weapon not
    # jammed; the shot still fails (P-6). None: no Pulp hero
    pulp_luck: int | None = None

    def __post_init__(self) -> None:
        within("skill", self.skill, 0, BIG)
        if self.damage is not None:
            weapon(self.damage)
        within("bullets", self.bullets, 1, MAX_BULLETS)
        if self.volley is not None:
            within("volley", self.volley, MIN_VOLLEY, max(MIN_VOLLEY, self.skill // 10))
        if self.volleys is not None:
            within("volleys", self.volleys, 1, MAX_VOLLEYS)
        within("bonus_dice", self.bonus_dice, 0, MAX_EXTRA_DICE)
        within("penalty_dice", self.penalty_dice, 0, MAX_EXTRA_DICE)
        check_ranges(self.ranges, self.count, "volley")
        if self.malfunction is not None:
            within("malfunction", self.malfunction, 1, 100)
        if self.dice is not None:
            for v in self.dice:
                within("dice", v, 1, 100)
        if self.pulp_luck is not None:
            within("pulp_luck", self.pulp_luck, 0, BIG)

    @property
    def size(self) -> int:
        """Bullets a volley fires (Foundry 78, 239): the volley asked, within 3 and a tenth of
        the skill."""
        most = max(MIN_VOLLEY, self.skill // 10)
        return most if self.volley is None else min(max(MIN_VOLLEY, self.volley), most)

    @property
    def count(self) -> int:
        """The volleys fired at most: as asked, else until the bullets run out."""
        return self.volleys if self.volleys is not None else -(-self.bullets // self.size)

    def pool(self, i: int) -> tuple[int, str]:
        """Volley ``i``'s net dice and difficulty: one die worse each volley, the aim's bonus
        die on the first, held to two dice (each penalty die beyond: a step harder)."""
        net = self.bonus_dice - self.penalty_dice - i + (1 if self.aimed and i == 0 else 0)
        return clamped(net, self.range_of(i))

    def range_of(self, i: int) -> str:
        return self.ranges[0] if len(self.ranges) == 1 else self.ranges[i]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"skill": self.skill, "bullets": self.bullets}
        for name in ("volley", "volleys", "malfunction"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        for name in ("bonus_dice", "penalty_dice", "aimed"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        out["ranges"] = list(self.ranges)
        if self.dice is not None:
            out["dice"] = list(self.dice)
        if self.damage is not None:
            out["damage"] = self.damage
        if self.pulp_luck is not None:
            out["pulp_luck"] = self.pulp_luck
        return out


@dataclass(frozen=True)
class Burst:
    """One volley: its range, difficulty and net dice, the values rolled and the kept die, its
    level, the bullets it fired, its normal and impaling hits, and whether it malfunctioned."""

    range: str
    difficulty: str
    net: int
    dice: tuple[int, ...]
    roll: int
    level: str
    fired: int
    normal: int
    impaling: int
    malfunction: bool
    damage: tuple[int, ...] = ()  # each hitting bullet's damage: the normal ones, then impaling

    def to_dict(self) -> dict[str, Any]:
        out = {
            "range": self.range,
            "difficulty": self.difficulty,
            "net_dice": self.net,
            "dice": list(self.dice),
            "roll": self.roll,
            "level": self.level,
            "fired": self.fired,
            "normal": self.normal,
            "impaling": self.impaling,
            "malfunction": self.malfunction,
        }
        if self.damage:
            out["damage"] = list(self.damage)
        return out


def judge(request: FullAuto, i: int, left: int, kept: int) -> Burst:
    """Volley ``i`` with ``left`` bullets loaded and kept die ``kept`` (Foundry 261-280,
    324-353): it fires a volley's bullets or what is left; a malfunction fails it (spending
    them); a success hits with half (at least 1), an extreme one or better with all, half
    (at least 1) impaling, save an extreme success at extreme range, which impales none."""
    net, difficulty = request.pool(i)
    lvl, success = aimed(kept, request.skill, difficulty)
    fired = min(request.size, left)
    jammed = request.malfunction is not None and kept >= request.malfunction
    normal = impaling = 0
    if success and not jammed:
        half = max(1, fired // 2)
        if RANK[lvl] < RANK["extreme"]:
            normal = half
        elif lvl == "critical" or request.range_of(i) != "extreme":
            impaling, normal = half, fired - half
        else:
            normal = fired
    return Burst(
        request.range_of(i), difficulty, net, (), kept, lvl, fired, normal, impaling, jammed
    )


# A state: (volley index, bullets left, normal hits, impaling hits, how it ended or "")
State = tuple[int, int, int, int, str]


def machine(request: FullAuto) -> Run[State]:
    def pool(state: State) -> int | None:
        return None if state[4] else request.pool(state[0])[0]

    def step(state: State, kept: int) -> State:
        i, left, normal, impaling, _ = state
        b = judge(request, i, left, kept)
        left -= b.fired
        ended = (
            "malfunction"
            if b.malfunction
            else "empty"
            if left == 0
            else "done"
            if i + 1 == request.count
            else ""
        )
        return (i + 1, left, normal + b.normal, impaling + b.impaling, ended)

    scoring = [request.pool(i)[1] != "impossible" for i in range(request.count)]
    return Run((0, request.bullets, 0, 0, ""), pool, step, scoring, "bullets")


@dataclass(frozen=True)
class FullAutoResult:
    request: FullAuto
    volleys: tuple[Burst, ...]
    normal: int
    impaling: int
    bullets_left: int
    ended: str  # "malfunction", "empty" (no bullets left) or "done" (the volleys asked)
    explanation: str

    @property
    def hits(self) -> int:
        return self.normal + self.impaling

    @property
    def damage(self) -> int | None:
        """The damage of every bullet that hit, where the request names a bullet's."""
        if self.request.damage is None:
            return None
        return sum(sum(v.damage) for v in self.volleys)

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": NAME,
            "full_auto": self.request.to_dict(),
            "volley_size": self.request.size,
            "volleys": [v.to_dict() for v in self.volleys],
            "normal": self.normal,
            "impaling": self.impaling,
            "hits": self.hits,
            "bullets_left": self.bullets_left,
            "ended": self.ended,
            "explanation": self.explanation,
            **({} if self.damage is None else {"damage": self.damage}),
            **self.pulp(),
        }

    @property
    def luck_spent(self) -> int:
        """P-6: the Luck a Pulp hero spends cancelling the malfunction (0: none)."""
        return coc7_pulp.lucked_away(self.ended == "malfunction", self.request.pulp_luck)

    def pulp(self) -> dict[str, Any]:
        """A Pulp hero's Luck spent on the malfunction, and whether the weapon is jammed."""
        if self.request.pulp_luck is None:
            return {}
        return {
            "luck_spent": self.luck_spent,
            "jammed": self.ended == "malfunction" and not self.luck_spent,
        }


def roll(request: FullAuto, rng: RandomSource | None = None) -> FullAutoResult:
    """Fire the volleys: the request's dice first, else the random source's."""
    nets = [request.pool(i)[0] for i in range(request.count)]
    end, rolled = machine(request).fire(nets, request.dice, rng)
    volleys = [
        replace(judge(request, before[0], before[1], kept), dice=values)
        for before, values, kept in rolled
    ]
    if request.damage is not None:  # the volleys first, then each hitting bullet's damage
        hurt = weapon(request.damage)
        volleys = [
            replace(
                v,
                damage=tuple(
                    damage.roll(hurt, extreme, rng)[-1]
                    for extreme in [False] * v.normal + [True] * v.impaling
                ),
            )
            for v in volleys
        ]
    parts = [
        explained(v, "malfunction" if v.malfunction else f"{v.normal} hit, {v.impaling} impaling")
        for v in volleys
    ]
    why = f"volleys of {request.size}: " + "; ".join(parts)
    why += f"; {end[2]} normal, {end[3]} impaling, {end[1]} left"
    return FullAutoResult(request, tuple(volleys), end[2], end[3], end[1], end[4], why)


@dataclass(frozen=True)
class FullAutoOdds:
    """Exact chances of each (normal, impaling) pair, of hits in all and of a malfunction."""

    request: FullAuto
    outcomes: Mapping[tuple[int, int], Fraction]
    malfunction: Fraction

    @property
    def hits(self) -> dict[int, Fraction]:
        return totals(self.outcomes, lambda n, i: n + i)

    @property
    def impaling(self) -> dict[int, Fraction]:
        return totals(self.outcomes, lambda n, i: i)

    def at_least(self, hits: int) -> Fraction:
        return at_least(self.hits, hits)

    @property
    def damage(self) -> dict[int, Fraction] | None:
        """The chance of each total damage (S7-6), where the request names a bullet's."""
        if self.request.damage is None:
            return None
        hits = {(n + i, i): p for (n, i), p in self.outcomes.items()}
        return damage.odds(weapon(self.request.damage), hits)

    @property
    def luck_spent(self) -> Fraction:
        """P-6: the chance a Pulp hero spends 10 Luck cancelling a malfunction."""
        return coc7_pulp.malfunction_luck(self.malfunction, self.request.pulp_luck)

    def pulp(self) -> dict[str, str]:
        return coc7_pulp.luck_odds(self.malfunction, self.request.pulp_luck)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hits": {str(h): fraction_text(p) for h, p in self.hits.items()},
            "impaling": {str(h): fraction_text(p) for h, p in self.impaling.items()},
            "malfunction": fraction_text(self.malfunction),
            **self.pulp(),
            "mean_hits": fraction_text(mean(self.hits)),
        }
        hurt = damage.shown(lambda: self.damage)
        if hurt is not None:
            out["damage"] = hurt
        return out


def odds(request: FullAuto) -> FullAutoOdds:
    """The exact odds of the volleys, whatever dice the request gives."""
    outcomes, jam = machine(request).outcomes(
        lambda e: (e[2], e[3]), lambda e: e[4] == "malfunction"
    )
    return FullAutoOdds(request, outcomes, jam)


__all__ = ["Burst", "FullAuto", "FullAutoOdds", "FullAutoResult", "odds", "roll"]
