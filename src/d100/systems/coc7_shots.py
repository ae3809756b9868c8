"""Call of Cthulhu 7th multiple handgun shots (S7-13): each shot a roll of its own, the first
included, with one penalty die when more than one is fired; an aim's bonus die on the first
only; the pool clamped to two dice, each penalty die beyond raising the difficulty a step; a
malfunction ends the shots and that shot fails. Rolled and counted by one run
(``coc7_firing``): the exact chance of each number of hits and of extreme ones (S7-6: extreme
damage or an impale; at extreme range only a critical)."""

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
from .coc7_firing import (
    Run,
    aimed,
    at_least,
    check_ranges,
    clamped,
    explained,
    fraction_text,
    kept_weights,
    mean,
    totals,
    within,
)
from .coc7_rules import LEVELS

MAX_SHOTS = 10  # more than any weapon's uses per round


@dataclass(frozen=True)
class Shots:
    """Shots fired in one round by a weapon without full auto: the skill, how many, the pool
    (bonus or penalty dice, net), an aim's bonus die on the first, each shot's range (one for
    all, or one per shot) and the malfunction number (a roll at or over it), if any."""

    skill: int
    shots: int
    bonus_dice: int = 0
    penalty_dice: int = 0
    aimed: bool = False
    ranges: tuple[str, ...] = ("normal",)
    malfunction: int | None = None
    dice: tuple[int, ...] | None = None
    damage: str | None = None  # the weapon's damage per bullet (S7-6), rolled for each hit
    # a Pulp hero's Luck: 10 of it cancels a malfunction's consequence, the weapon not
    # jammed; the shot still fails (P-6). None: no Pulp hero
    pulp_luck: int | None = None

    def __post_init__(self) -> None:
        within("skill", self.skill, 0, BIG)
        if self.damage is not None:
            weapon(self.damage)
        within("shots", self.shots, 1, MAX_SHOTS)
        within("bonus_dice", self.bonus_dice, 0, MAX_EXTRA_DICE)
        within("penalty_dice", self.penalty_dice, 0, MAX_EXTRA_DICE)
        check_ranges(self.ranges, self.shots, "shot")
        if self.malfunction is not None:
            within("malfunction", self.malfunction, 1, 100)
        if self.dice is not None:
            for v in self.dice:
                within("dice", v, 1, 100)
        if self.pulp_luck is not None:
            within("pulp_luck", self.pulp_luck, 0, BIG)

    def range_of(self, i: int) -> str:
        return self.ranges[0] if len(self.ranges) == 1 else self.ranges[i]

    def pool(self, i: int) -> tuple[int, str]:
        """Shot ``i``'s net dice and difficulty (S7-13): the base pool, the aim's bonus die on
        the first shot, a penalty die on each when more than one is fired; clamped to two
        dice, each penalty die beyond raising the range's difficulty one step."""
        net = self.bonus_dice - self.penalty_dice
        net += 1 if self.aimed and i == 0 else 0
        net -= 1 if self.shots > 1 else 0
        return clamped(net, self.range_of(i))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"skill": self.skill, "shots": self.shots}
        for name in ("bonus_dice", "penalty_dice"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.aimed:
            out["aimed"] = True
        out["ranges"] = list(self.ranges)
        if self.malfunction is not None:
            out["malfunction"] = self.malfunction
        if self.dice is not None:
            out["dice"] = list(self.dice)
        if self.damage is not None:
            out["damage"] = self.damage
        if self.pulp_luck is not None:
            out["pulp_luck"] = self.pulp_luck
        return out


@dataclass(frozen=True)
class Shot:
    """One shot: its range and difficulty, net dice, the values rolled, the kept die, its
    level, and whether it hit, hit for extreme damage or malfunctioned."""

    range: str
    difficulty: str
    net: int
    dice: tuple[int, ...]
    roll: int
    level: str
    hit: bool
    extreme: bool
    malfunction: bool
    damage: tuple[int, ...] = ()  # a hit's damage dice, its total last (S7-6)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "range": self.range,
            "difficulty": self.difficulty,
            "net_dice": self.net,
            "dice": list(self.dice),
            "roll": self.roll,
            "level": self.level,
            "hit": self.hit,
            "extreme": self.extreme,
            "malfunction": self.malfunction,
        }
        if self.damage:
            out |= {"damage": self.damage[-1], "damage_dice": list(self.damage[:-1])}
        return out


def judge(request: Shots, i: int, kept: int) -> Shot:
    """Shot ``i`` with kept die ``kept`` (S7-13, S7-6): the level with the fumble range of the
    required value (C7-2; an impossible shot fumbles as a critical one); a hit when it reaches
    the difficulty, extreme at a critical, or an extreme success short of extreme range; a
    malfunction fails it."""
    net, difficulty = request.pool(i)
    lvl, success = aimed(kept, request.skill, difficulty)
    jammed = request.malfunction is not None and kept >= request.malfunction
    hit = success and not jammed
    far = request.range_of(i) == "extreme"
    extreme = hit and (lvl == "critical" or (lvl == "extreme" and not far))
    return Shot(request.range_of(i), difficulty, net, (), kept, lvl, hit, extreme, jammed)


# A state: (shot index, hits, extreme hits, "malfunction" or "done" at the end, else "")
State = tuple[int, int, int, str]


def machine(request: Shots) -> Run[State]:
    def pool(state: State) -> int | None:
        return None if state[3] else request.pool(state[0])[0]

    def step(state: State, kept: int) -> State:
        i, hits, extreme, _ = state
        shot = judge(request, i, kept)
        ended = "malfunction" if shot.malfunction else "done" if i + 1 == request.shots else ""
        return (i + 1, hits + shot.hit, extreme + shot.extreme, ended)

    scoring = [request.pool(i)[1] != "impossible" for i in range(request.shots)]
    return Run((0, 0, 0, ""), pool, step, scoring, "shots")


@dataclass(frozen=True)
class ShotsResult:
    request: Shots
    shots: tuple[Shot, ...]
    hits: int
    extreme: int
    malfunction: bool
    explanation: str

    @property
    def damage(self) -> int | None:
        """The damage of every hit, where the request names the weapon's."""
        if self.request.damage is None:
            return None
        return sum(s.damage[-1] for s in self.shots if s.damage)

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": NAME,
            "shots": self.request.to_dict(),
            "fired": [s.to_dict() for s in self.shots],
            "hits": self.hits,
            "extreme": self.extreme,
            "malfunction": self.malfunction,
            "explanation": self.explanation,
            **({} if self.damage is None else {"damage": self.damage}),
            **self.pulp(),
        }

    @property
    def luck_spent(self) -> int:
        """P-6: the Luck a Pulp hero spends cancelling the malfunction (0: none)."""
        return coc7_pulp.lucked_away(self.malfunction, self.request.pulp_luck)

    def pulp(self) -> dict[str, Any]:
        """A Pulp hero's Luck spent on the malfunction, and whether the weapon is jammed."""
        if self.request.pulp_luck is None:
            return {}
        return {"luck_spent": self.luck_spent, "jammed": self.malfunction and not self.luck_spent}


def roll(request: Shots, rng: RandomSource | None = None) -> ShotsResult:
    """Fire the shots: the request's dice first, else the random source's."""
    nets = [request.pool(i)[0] for i in range(request.shots)]
    end, rolled = machine(request).fire(nets, request.dice, rng)
    shots = [
        replace(judge(request, before[0], kept), dice=values) for before, values, kept in rolled
    ]
    if request.damage is not None:  # the shots first, then each hit's damage
        hurt = weapon(request.damage)
        shots = [
            replace(s, damage=damage.roll(hurt, s.extreme, rng)) if s.hit else s for s in shots
        ]
    parts = [
        explained(
            s,
            "malfunction"
            if s.malfunction
            else "extreme hit"
            if s.extreme
            else "hit"
            if s.hit
            else "miss",
        )
        for s in shots
    ]
    why = "; ".join(parts) + f"; {end[1]} hit, {end[2]} extreme"
    return ShotsResult(request, tuple(shots), end[1], end[2], end[3] == "malfunction", why)


@dataclass(frozen=True)
class ShotsOdds:
    """Exact chances: of each (hits, extreme hits) pair, of a malfunction, and of each shot's
    level, a shot not fired (after a malfunction) as ``unfired``."""

    request: Shots
    outcomes: Mapping[tuple[int, int], Fraction]
    malfunction: Fraction
    per_shot: tuple[Mapping[str, Fraction], ...]

    @property
    def hits(self) -> dict[int, Fraction]:
        return totals(self.outcomes, lambda h, e: h)

    @property
    def mean_hits(self) -> Fraction:
        return mean(self.hits)

    def at_least(self, hits: int) -> Fraction:
        return at_least(self.hits, hits)

    @property
    def damage(self) -> dict[int, Fraction] | None:
        """The chance of each total damage of the hits (S7-6), where the request names it."""
        if self.request.damage is None:
            return None
        return damage.odds(weapon(self.request.damage), self.outcomes)

    @property
    def luck_spent(self) -> Fraction:
        """P-6: the chance a Pulp hero spends 10 Luck cancelling a malfunction."""
        return coc7_pulp.malfunction_luck(self.malfunction, self.request.pulp_luck)

    def pulp(self) -> dict[str, str]:
        return coc7_pulp.luck_odds(self.malfunction, self.request.pulp_luck)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hits": {str(h): fraction_text(p) for h, p in self.hits.items()},
            "outcomes": [
                {"hits": h, "extreme": e, "chance": fraction_text(p)}
                for (h, e), p in self.outcomes.items()
            ],
            "malfunction": fraction_text(self.malfunction),
            **self.pulp(),
            "mean_hits": fraction_text(self.mean_hits),
            "per_shot": [{k: fraction_text(p) for k, p in s.items()} for s in self.per_shot],
        }
        hurt = damage.shown(lambda: self.damage)
        if hurt is not None:
            out["damage"] = hurt
        return out


def odds(request: Shots) -> ShotsOdds:
    """The exact odds of the shots, whatever dice the request gives."""
    outcomes, jam = machine(request).outcomes(
        lambda e: (e[1], e[2]), lambda e: e[3] == "malfunction"
    )
    per_shot = []
    fired = Fraction(1)  # the shots are independent until a malfunction
    for i in range(request.shots):
        levels: dict[str, Fraction] = {lv: Fraction(0) for lv in LEVELS}
        stops = Fraction(0)
        for kept, q in kept_weights(request.pool(i)[0]):
            shot = judge(request, i, kept)
            levels[shot.level] += fired * q
            stops += q if shot.malfunction else 0
        chances: dict[str, Fraction] = {k: v for k, v in levels.items() if v}
        per_shot.append({**chances, "unfired": 1 - fired})
        fired *= 1 - stops
    return ShotsOdds(request, outcomes, jam, tuple(per_shot))


__all__ = ["Shot", "Shots", "ShotsOdds", "ShotsResult", "odds", "roll"]
