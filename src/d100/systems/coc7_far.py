"""Call of Cthulhu 7th full auto as BCDice's ``FAR(w,x,y[,z[,d[,v]]])`` plays it (S7-14,
decision S5): the request, its volleys rolled one after another through ``machine.Dice``,
and the exact odds of hits, impales and a jam from the same run (``coc7_firing``).

The steps, as SESSION.md S7-14 reads ``full_auto.rb``: volleys at regular difficulty with the
pool z, z-1, ... down to two penalty dice, then one volley each at hard, extreme and critical
(two penalty dice), stopping after the step ``d`` names; a roll at or over the malfunction
number jams and ends it, spending nothing; levels against the whole skill, fumbling from 96
after the first step; what hits at each step, and the bullets of each volley."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from ..dice import RandomSource, show_roll
from ..errors import D100Error
from ..fields import BIG
from .coc7_check import MAX_EXTRA_DICE, NAME
from .coc7_firing import Run, at_least, fraction_text, mean, totals, within
from .coc7_rules import level
from .common import rolls

MAX_BULLETS = 100  # FAR's cap on bullets loaded (``full_auto.rb``: ``bullet_count_limit``)
MIN_VOLLEY = 3  # the least a volley fires (S7-14 step 1)
STEPS = ("regular", "hard", "extreme", "critical")  # k = 0..3
STOPS = {"r": "regular", "h": "hard", "e": "extreme"}  # FAR's d
Hit = Literal["miss", "hit", "impale", "jam"]
# S7-14 step 5: the levels that hit, and those that impale, at each step
HITS: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    (frozenset({"regular", "hard"}), frozenset({"extreme", "critical"})),
    (frozenset({"hard"}), frozenset({"extreme", "critical"})),
    (frozenset(), frozenset({"extreme", "critical"})),
    (frozenset({"critical"}), frozenset()),
)


@dataclass(frozen=True)
class Far:
    """``FAR(bullets, skill, malfunction, bonus, stop, volley)``, checked when built; ``notes``
    are BCDice's own changes to what was typed (``far`` makes them and says so)."""

    bullets: int
    skill: int
    malfunction: int
    bonus: int = 0
    stop: str | None = None
    volley: int | None = None
    dice: tuple[int, ...] | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        within("bullets", self.bullets, 1, MAX_BULLETS)
        within("skill", self.skill, 1, BIG)
        within("malfunction", self.malfunction, 0, BIG)
        within("bonus", self.bonus, -MAX_EXTRA_DICE, MAX_EXTRA_DICE)
        if self.stop is not None and self.stop not in STEPS[:3]:
            raise D100Error("stop", self.stop, "regular, hard or extreme (FAR's r, h, e)")
        if self.volley is not None:
            within("volley", self.volley, MIN_VOLLEY, max(MIN_VOLLEY, self.skill // 10))
        if self.dice is not None:
            for v in self.dice:
                within("dice", v, 1, 100)

    @property
    def size(self) -> int:
        """Bullets a volley fires: a tenth of the skill, at most the cap, at least 3."""
        cap = self.skill // 10 if self.volley is None else self.volley
        return max(MIN_VOLLEY, min(self.skill // 10, cap))

    @property
    def series(self) -> tuple[tuple[int, int], ...]:
        """(net dice, step) of every volley the run may fire, in order (S7-14 step 2)."""
        out = [(b, 0) for b in range(self.bonus, -MAX_EXTRA_DICE - 1, -1)]
        out += [(-MAX_EXTRA_DICE, k) for k in (1, 2, 3)]
        last = 3 if self.stop is None else STEPS.index(self.stop)
        return tuple((b, k) for b, k in out if k <= last)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bullets": self.bullets, "skill": self.skill}
        out["malfunction"] = self.malfunction
        out["bonus"] = self.bonus
        for name in ("stop", "volley"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.dice is not None:
            out["dice"] = list(self.dice)
        if self.notes:
            out["notes"] = list(self.notes)
        return out


# -- BCDice's command form ---------------------------------------------------------------------

_FAR = re.compile(
    r"far\((-?\d+),(-?\d+),(-?\d+)(?:,(-?\d+)?)?(?:,(-?\w+)?)?(?:,(-?\d+)?)?\)", re.IGNORECASE
)


def far(text: str) -> Far | None:
    """``FAR(w,x,y[,z[,d[,v]]])`` read as BCDice reads it (``full_auto.rb`` 36-90), else None:
    more than 100 bullets loaded are 100, a negative malfunction number is made positive and a
    volley cap is brought within 3 and a tenth of the skill, each said in ``notes``; BCDice's
    refusals (no bullets, a skill or volley cap of 0 or less, a bonus beyond 2) are errors."""
    m = _FAR.fullmatch(text.strip())
    if m is None:
        return None
    w, x, y = int(m[1]), int(m[2]), int(m[3])
    z = int(m[4]) if m[4] else 0
    notes: list[str] = []
    if w > MAX_BULLETS:
        notes.append(f"{w} bullets loaded: FAR fires at most {MAX_BULLETS}")
        w = MAX_BULLETS
    volley = None if m[6] is None else int(m[6])
    if volley is not None:
        top = x // 10 if x > 39 else MIN_VOLLEY
        if volley <= 0:
            raise D100Error("volley", volley, f"an integer {MIN_VOLLEY}..{max(top, 3)}")
        if volley > top or volley < MIN_VOLLEY:
            fixed = min(max(volley, MIN_VOLLEY), top)
            notes.append(f"a volley of {volley}: FAR's volleys are {MIN_VOLLEY}..{top}, so {fixed}")
            volley = fixed
    if w <= 0:
        raise D100Error("bullets", w, f"an integer 1..{MAX_BULLETS}", "no bullets loaded")
    if x <= 0:
        raise D100Error("skill", x, f"an integer 1..{BIG}", "a skill of 0 or less")
    if y < 0:
        notes.append(f"malfunction {y}: taken as {-y}")
        y = -y
    stop = None
    if m[5]:
        stop = STOPS.get(m[5].lower())
        if stop is None:
            raise D100Error("stop", m[5], "r, h or e: stop after regular, hard or extreme")
    return Far(w, x, y, z, stop, volley, notes=tuple(notes))


# -- the run -----------------------------------------------------------------------------------

# A state: (volley index, bullets left, normal hits, impaling hits, how it ended or "")
State = tuple[int, int, int, int, str]


@dataclass(frozen=True)
class Volley:
    """One volley: its step, its net dice, the d100 values rolled, the kept die and its level,
    and what it did (``hit`` as ``Hit``) with the normal and impaling hits it scored."""

    step: str
    net: int
    dice: tuple[int, ...]
    roll: int
    level: str
    hit: Hit
    normal: int
    impaling: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "net_dice": self.net,
            "dice": list(self.dice),
            "roll": self.roll,
            "level": self.level,
            "hit": self.hit,
            "normal": self.normal,
            "impaling": self.impaling,
        }


@dataclass(frozen=True)
class FarResult:
    request: Far
    volleys: tuple[Volley, ...]
    normal: int
    impaling: int
    bullets_left: int
    ended: str  # "jam", "empty" (no bullets left), "stop" (the step asked) or "done"
    explanation: str

    @property
    def hits(self) -> int:
        return self.normal + self.impaling

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": NAME,
            "far": self.request.to_dict(),
            "volley_size": self.request.size,
            "volleys": [v.to_dict() for v in self.volleys],
            "normal": self.normal,
            "impaling": self.impaling,
            "hits": self.hits,
            "bullets_left": self.bullets_left,
            "ended": self.ended,
            "notes": list(self.request.notes),
            "explanation": self.explanation,
        }


def judge(request: Far, step: int, kept: int) -> tuple[str, Hit]:
    """A volley's level and what it does (S7-14 steps 3-5): the level against the whole skill,
    fumbling from 96 after the first step or under 50; a jam at the malfunction number."""
    fumbles = 96 if step >= 1 or request.skill < 50 else 100
    lvl = level(kept, request.skill, fumbles)
    if kept >= request.malfunction:
        return lvl, "jam"
    hits, impales = HITS[step]
    return lvl, "hit" if lvl in hits else "impale" if lvl in impales else "miss"


def bullets(request: Far, left: int, hit: Hit) -> tuple[int, int, int]:
    """(normal, impaling, spent) of a volley that fired (S7-14 step 6)."""
    s = request.size
    if left >= s:
        if hit == "hit":
            return s // 2, 0, s
        if hit == "impale":
            return (s + 1) // 2, s // 2, s
        return 0, 0, s
    part = 1 if left == 1 else left // 2  # the last volley: what is left
    if hit == "hit":
        return part, 0, left
    if hit == "impale":
        return left - part, part, left
    return 0, 0, left


def machine(request: Far) -> Run[State]:
    series = request.series

    def pool(state: State) -> int | None:
        return None if state[4] else series[state[0]][0]

    def step(state: State, kept: int) -> State:
        i, left, normal, impaling, _ = state
        _, hit = judge(request, series[i][1], kept)
        if hit == "jam":
            return (i + 1, left, normal, impaling, "jam")
        n, imp, spent = bullets(request, left, hit)
        left -= spent
        ended = "empty" if left <= 0 else ""
        if not ended and i + 1 == len(series):
            ended = "stop" if request.stop is not None else "done"
        return (i + 1, left, normal + n, impaling + imp, ended)

    return Run((0, request.bullets, 0, 0, ""), pool, step, [True] * len(series), "bullets")


def roll(request: Far, rng: RandomSource | None = None) -> FarResult:
    """Fire the run: the request's dice first, else the random source's."""
    end, rolled = machine(request).fire([b for b, _ in request.series], request.dice, rng)
    volleys = []
    for before, values, kept in rolled:
        i, left = before[0], before[1]
        net, k = request.series[i]
        lvl, hit = judge(request, k, kept)
        n, imp, _ = (0, 0, 0) if hit == "jam" else bullets(request, left, hit)
        volleys.append(Volley(STEPS[k], net, values, kept, lvl, hit, n, imp))
    return FarResult(
        request,
        tuple(volleys),
        end[2],
        end[3],
        end[1],
        end[4],
        _explain(request, tuple(volleys), end),
    )


def _explain(request: Far, volleys: tuple[Volley, ...], end: State) -> str:
    parts = []
    for v in volleys:
        said = f"{rolls(v.dice)} -> {show_roll(v.roll)} {v.level}"
        if v.hit == "jam":
            said += ": jam"
        elif v.hit != "miss":
            said += f": {v.normal} hit, {v.impaling} impaling"
        parts.append(f"{v.step} ({v.net:+d}) {said}")
    ending = {"jam": "jammed", "empty": "out of bullets", "stop": "stopped", "done": "done"}
    return (
        f"volleys of {request.size}: "
        + "; ".join(parts)
        + f"; {ending[end[4]]}: {end[2]} normal, {end[3]} impaling, {end[1]} left"
    )


# -- the odds ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FarOdds:
    """Exact chances of a run: of each number of bullets hitting, of impaling ones, of each
    (normal, impaling) pair, and of a jam."""

    request: Far
    outcomes: Mapping[tuple[int, int], Fraction]  # (normal, impaling) -> chance
    jam: Fraction

    @property
    def hits(self) -> dict[int, Fraction]:
        return totals(self.outcomes, lambda n, i: n + i)

    @property
    def impaling(self) -> dict[int, Fraction]:
        return totals(self.outcomes, lambda n, i: i)

    @property
    def mean_hits(self) -> Fraction:
        return mean(self.hits)

    def at_least(self, hits: int) -> Fraction:
        return at_least(self.hits, hits)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": {str(h): fraction_text(p) for h, p in self.hits.items()},
            "impaling": {str(h): fraction_text(p) for h, p in self.impaling.items()},
            "jam": fraction_text(self.jam),
            "mean_hits": fraction_text(self.mean_hits),
        }


def odds(request: Far) -> FarOdds:
    """The exact odds of the run, whatever dice the request gives."""
    outcomes, jam = machine(request).outcomes(lambda e: (e[2], e[3]), lambda e: e[4] == "jam")
    return FarOdds(request, outcomes, jam)


__all__ = ["Far", "FarOdds", "FarResult", "Volley", "far", "odds", "roll"]
