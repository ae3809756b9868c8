"""Basic Roleplaying as Chaosium's system for Foundry plays it (EDITIONS BF-1..BF-4): critical
⌈T/20⌉, special T/5 to nearest, success capped at 95, fumbles from 95 + ⌈T/20⌉ on failures only;
multiplicative difficulty; resistance rolls; opposed cards with a crown and level reduction.

Decisions of this module (EDITIONS leaves them to the implementation):

* ``resistance`` is ``{"active": A, "passive": P}`` with an optional ``second``, a second active
  characteristic added to the first (Foundry's ``addStat``): T0 = 5·(A + second). Difficulty and
  ``modifiers`` apply to T0 as they do to a skill, then T = T0 - 5·P + 50, clamped (BF-3). The
  reference computes ((T0/5) - P)·5 + 50 in floats, which lands a hair under the integer when a
  difficulty or modifier leaves T0 off a multiple of 5 (T0 41, P 12: 30.999…); d100 keeps the
  exact integer, as it does everywhere.
* Foundry's dice modifier (``diceMod``) is carried on its cards but never changes the roll, so
  there are no bonus or penalty dice here.
* Opposed (BF-4): each side's ``level`` is the level it rolled; where the card shows a reduced
  level, the side's ``note`` says so, and the contest's ``degree`` is the level the winner's card
  shows. The card order is actor, opponent, so an exact tie (level, roll and raw skill) crowns
  the actor when that is a success. Both sides short of a success: nobody wins (``none``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..declarations import (
    Declaration,
    FastPath,
    LevelSpec,
    Option,
    RankedContest,
    RankedSide,
    Roller,
    Style,
    Target,
    Words,
    frozen_map,
)
from ..dice import show_roll, show_span
from ..errors import D100Error, RuleRefusal
from ..fields import BIG, Field, exactly_one, read, validate
from ..machine import Machine, Then
from ..results import CheckResult, ContestResult, Winner, check_data, contest_data
from ..system import Declared, Plan, Record
from . import brp_experience
from .brp import ICONS, LEVELS, MEANINGS, Level
from .common import (
    DICE,
    Roll,
    check_dict,
    contest_sides,
    dice_stream,
    given,
    house_dict,
    house_from,
    modifiers_field,
    one_of,
    placed,
    plain,
    system_field,
)

NAME = "brp-foundry"
# The card's result levels (check.mjs successLevel): what the opposed card sorts and reduces.
NUMBER: Mapping[str, int] = {"fumble": 0, "failure": 1, "success": 2, "special": 3, "critical": 4}
BY_NUMBER: tuple[Level, ...] = ("fumble", "failure", "success", "special", "critical")
SUCCESS = NUMBER["success"]
# BF-2: T -> ⌈T·n/d⌉, in integers (the reference's floats agree for every T tried, 0..20,000)
SCALES: Mapping[str, tuple[int, int]] = {
    "average": (1, 1),
    "easy": (2, 1),
    "difficult": (1, 2),
    "hard": (2, 5),
    "extreme": (1, 5),
    "tricky": (4, 5),
    "awkward": (3, 5),
}
IMPOSSIBLE = "impossible"  # T = 1, and the flat modifier is not added
DIFFICULTIES = (*SCALES, IMPOSSIBLE)
CAP = 95  # BF-1: success at most 95 (resistance rolls have no cap)
RESIST_BASE, RESIST_STEP = 50, 5  # BF-3
RESIST_RANGE, RESIST_ROLL_RANGE = (0, 100), (1, 99)

HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (Foundry's settings allowImp, resistLevels, resistRoll)",
    default={},
    fields=(
        Field("allow_impossible", "bool", "allow the impossible difficulty (BF-2)", default=False),
        Field(
            "resist_levels",
            "bool",
            "resistance rolls keep critical, special and fumble; off: success or failure (BF-3)",
            default=False,
        ),
        Field(
            "resist_roll",
            "bool",
            "resistance targets clamp to 1..99 instead of 0..100 (BF-3)",
            default=False,
        ),
    ),
)
RESIST_FIELDS = (
    Field("active", "int", "the active characteristic", low=0, high=BIG, required=True),
    Field("second", "int", "a second active characteristic, added (addStat)", low=0, high=BIG),
    Field(
        "passive", "int", "the passive (resisting) characteristic", low=0, high=BIG, required=True
    ),
)
_DIFFICULTY = Field(
    "difficulty",
    "choice",
    "multiplies the target (BF-2): easy x2, difficult x1/2, hard x2/5, extreme x1/5, tricky "
    "x4/5, awkward x3/5, rounded up; impossible: 1 (house rule allow_impossible)",
    choices=DIFFICULTIES,
    default="average",
)
_MODIFIERS = modifiers_field("flat modifiers, added after the difficulty (BF-2)")
SIDE_FIELDS = (
    Field("skill", "int", "skill %, may exceed 100 (BF-1)", low=0, high=BIG, required=True),
    _DIFFICULTY,
    _MODIFIERS,
    DICE,
)
CHECK_FIELDS = (
    system_field(NAME),
    Field("skill", "int", "skill %, may exceed 100 (BF-1); or a resistance", low=0, high=BIG),
    _DIFFICULTY,
    _MODIFIERS,
    Field(
        "resistance",
        "object",
        "a resistance roll instead of a skill: T = 5·(active + second) - 5·passive + 50 (BF-3)",
        fields=RESIST_FIELDS,
        flags=("--resistance",),
    ),
    HOUSE_RULES,
    DICE,
)
CONTEST_FIELDS = (
    system_field(NAME),
    Field("actor", "object", "the acting side (the first card)", required=True, fields=SIDE_FIELDS),
    Field("opponent", "object", "the opposing side", required=True, fields=SIDE_FIELDS),
    HOUSE_RULES,
)
_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)


@dataclass(frozen=True)
class HouseRules:
    allow_impossible: bool = False
    resist_levels: bool = False
    resist_roll: bool = False

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)


@dataclass(frozen=True)
class Resistance:
    active: int
    passive: int
    second: int | None = None

    def __post_init__(self) -> None:
        validate(self, RESIST_FIELDS)

    @property
    def base(self) -> int:
        """T0: five times the active characteristics."""
        return RESIST_STEP * (self.active + (self.second or 0))


@dataclass(frozen=True)
class FoundryCheck:
    skill: int | None = None
    difficulty: str = "average"
    modifiers: tuple[int, ...] = ()
    resistance: Resistance | None = None
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"house_rules": HouseRules, "resistance": Resistance})
        one_of({"skill": self.skill, "resistance": plain(self.resistance)}, ("skill", "resistance"))
        if self.difficulty == IMPOSSIBLE and not self.house_rules.allow_impossible:
            raise RuleRefusal(
                "difficulty",
                self.difficulty,
                "one of " + ", ".join(SCALES) + " (impossible needs house rule allow_impossible)",
                "impossible difficulty not allowed at this table",
            )

    @property
    def raw(self) -> int:
        """The score before difficulty: the card's raw score (skill, or T0)."""
        if self.resistance is not None:
            return self.resistance.base
        assert self.skill is not None  # exactly one of the two (checked when built)
        return self.skill

    @property
    def target(self) -> int:
        """T: BF-2 on the raw score, then BF-3 for a resistance roll."""
        if self.difficulty == IMPOSSIBLE:  # the flat modifier is not added
            t = 1
        else:
            n, d = SCALES[self.difficulty]
            t = -(-self.raw * n // d) + sum(self.modifiers)
        if self.resistance is None:
            return t
        t = t - RESIST_STEP * self.resistance.passive + RESIST_BASE
        low, high = RESIST_ROLL_RANGE if self.house_rules.resist_roll else RESIST_RANGE
        return min(max(t, low), high)

    @property
    def mode(self) -> tuple[bool, bool]:
        """(success capped at 95, levels collapsed to success or failure)."""
        if self.resistance is None:
            return True, False
        return False, not self.house_rules.resist_levels

    def to_dict(self) -> dict[str, Any]:
        return check_dict(self)


@dataclass(frozen=True)
class FoundryContest:
    actor: FoundryCheck
    opponent: FoundryCheck
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        for name, side in contest_sides(self, CONTEST_FIELDS, FoundryCheck, HouseRules):
            if side.resistance is not None:
                raise D100Error(
                    f"{name}.resistance",
                    plain(side.resistance),
                    "a skill: opposed cards are skill rolls",
                    "a resistance roll in a contest",
                )

    def to_dict(self) -> dict[str, Any]:
        sides = {}
        for name, side in (("actor", self.actor), ("opponent", self.opponent)):
            values: dict[str, Any] = plain(side)
            sides[name] = {k: v for k, v in values.items() if k in _SIDE_NAMES}
        return {"system": NAME, **sides, **house_dict(self.house_rules)}


def _side(values: Mapping[str, Any], house: HouseRules) -> FoundryCheck:
    resist = values.get("resistance")
    return FoundryCheck(
        skill=values["skill"],
        difficulty=values["difficulty"],
        modifiers=values["modifiers"],
        resistance=None if resist is None else Resistance(**resist),
        dice=values["dice"],
        house_rules=house,
    )


def thresholds(t: int) -> tuple[int, int, int]:
    """(critical, special, fumble_from) of BF-1: ⌈T/20⌉, T/5 rounded half up, 95 + ⌈T/20⌉ at
    most 100. Exact for every T, negative ones included (JS Math.round is ⌊x + ½⌋)."""
    critical = -(-t // 20)
    return critical, (2 * t + 5) // 10, min(95 + critical, 100)


def level(roll: int, t: int, capped: bool = True, collapsed: bool = False) -> Level:
    """BF-1 in the reference's order: critical, special, success, then fumble (so a fumble is
    only ever a roll that did not succeed); ``collapsed`` is BF-3 without resist_levels."""
    critical, special, fumble_from = thresholds(t)
    success = min(t, CAP) if capped else t
    if roll <= critical:
        found: Level = "critical"
    elif roll <= special:
        found = "special"
    elif roll <= success:
        found = "success"
    elif roll >= fumble_from:
        found = "fumble"
    else:
        found = "failure"
    if collapsed:
        return "success" if NUMBER[found] >= SUCCESS else "failure"
    return found


def bands(t: int, capped: bool = True, collapsed: bool = False) -> str:
    """Which rolls give which level, for a result's explanation."""
    critical, special, fumble_from = thresholds(t)
    success = max(min(t, CAP) if capped else t, 0)
    if collapsed:
        return f"successes {_span(1, success)}"
    critical, special = max(critical, 0), max(special, 0)
    return (
        f"criticals {_span(1, critical)}, specials {_span(critical + 1, special)}, "
        f"successes {_span(max(critical, special) + 1, success)}, "
        f"fumbles {_span(max(fumble_from, success + 1), 100)}"
    )


def _span(lo: int, hi: int) -> str:
    return show_span(lo, min(hi, 100))  # a target past 100 bands no roll past 00


# -- opposed cards (BF-4) ----------------------------------------------------------------------


def first_card(a: tuple[Level, int, int], o: tuple[Level, int, int]) -> Winner:
    """The side sorted first: level, then roll, then raw score, each descending; the sort is
    stable, so an exact tie leaves the actor's card first. Sides are (level, roll, raw)."""
    ka, ko = (NUMBER[a[0]], a[1], a[2]), (NUMBER[o[0]], o[1], o[2])
    return "actor" if ka >= ko else "opponent"


def opposed(a: tuple[Level, int, int], o: tuple[Level, int, int]) -> Winner:
    """The crown goes to the first card iff its level is a success; otherwise nobody wins."""
    first = first_card(a, o)
    lead = a if first == "actor" else o
    return first if NUMBER[lead[0]] >= SUCCESS else "none"


def shown(a: tuple[Level, int, int], o: tuple[Level, int, int]) -> tuple[Level, Level, int]:
    """The levels the closed card shows: the second card's level less one (at least 0) comes off
    every success, which stays at least a success; and that reduction."""
    second = o if first_card(a, o) == "actor" else a
    cut = max(NUMBER[second[0]] - 1, 0)

    def one(lvl: Level) -> Level:
        n = NUMBER[lvl]
        return BY_NUMBER[max(n - cut, SUCCESS)] if n > 1 else lvl

    return one(a[0]), one(o[0]), cut


class BrpFoundry(Declared):
    name: str = NAME
    title: str = "Basic Roleplaying (Chaosium, Foundry)"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS
    check_rules = (exactly_one(("skill", "resistance")),)  # the target, as the check refuses

    def parse_check(self, data: Mapping[str, Any]) -> FoundryCheck:
        values = read(data, CHECK_FIELDS)
        return _side(values, house_from(values, HouseRules))

    def parse_contest(self, data: Mapping[str, Any]) -> FoundryContest:
        values = read(data, CONTEST_FIELDS)
        house = house_from(values, HouseRules)
        actor, opponent = (
            placed(name, _side, values[name], house) for name in ("actor", "opponent")
        )
        return FoundryContest(actor, opponent, house)

    def _result(
        self, check: FoundryCheck, where: str, roll: int, record: Record, note: str | None = None
    ) -> CheckResult:
        t = check.target
        capped, collapsed = check.mode
        lvl = level(roll, t, capped, collapsed)
        band = bands(t, capped, collapsed)
        why = f"rolled {show_roll(roll)} vs {t}: {lvl} ({band})"
        if check.resistance is not None:
            why += f"; resistance {check.resistance.base} against {check.resistance.passive}"
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in self.success_levels,
            roll=roll,
            dice=tuple(record.get(dice_stream(where), ())),
            target=t,
            margin=t - roll,
            explanation=why,
            request=check_data(check.to_dict()),
            bands=band,
            note=note,
        )

    def check_plan(self, check: FoundryCheck) -> Plan[Any, CheckResult]:
        t = check.target
        capped, collapsed = check.mode
        return Plan(
            machine=Roll(dice_stream("")),
            given=given(dice_stream(""), check.dice),
            outcome=lambda roll: level(roll, t, capped, collapsed),
            build=lambda roll, rec: self._result(check, "", roll, rec),
            cost=100,
        )

    def contest_plan(self, contest: FoundryContest) -> Plan[Any, ContestResult]:
        actor, opponent = contest.actor, contest.opponent
        ta, to = actor.target, opponent.target
        machine: Machine[Any] = Then(Roll("actor.dice"), lambda _: Roll("opponent.dice"))

        def sides(state: Any) -> tuple[tuple[Level, int, int], tuple[Level, int, int]]:
            _, a, o = state
            return (level(a, ta), a, actor.raw), (level(o, to), o, opponent.raw)

        def build(state: Any, record: Record) -> ContestResult:
            a, o = sides(state)
            winner = opposed(a, o)
            a_shown, o_shown, cut = shown(a, o)
            results = (
                self._result(actor, "actor", a[1], record, _shown_note(a[0], a_shown, cut)),
                self._result(opponent, "opponent", o[1], record, _shown_note(o[0], o_shown, cut)),
            )
            degree = None if winner == "none" else (a_shown if winner == "actor" else o_shown)
            verdict = "nobody wins (neither succeeded)" if winner == "none" else f"{winner} wins"
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=results[0],
                opponent=results[1],
                explanation=f"{verdict} — actor {results[0].explanation}; "
                f"opponent {results[1].explanation}",
                request=contest_data(contest.to_dict()),
                degree=degree,
            )

        return Plan(
            machine=machine,
            given={**given("actor.dice", actor.dice), **given("opponent.dice", opponent.dice)},
            outcome=lambda s: opposed(*sides(s)),
            build=build,
            cost=200,
        )


def _shown_note(rolled: Level, shows: Level, cut: int) -> str | None:
    if rolled == shows:
        return None
    steps = "level" if cut == 1 else "levels"
    return f"the opposed card shows {shows}: {cut} {steps} off for the second card (BF-4)"


# -- what the rest of the code reads (declarations.py) -----------------------------------------


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """Nothing a player spends or adds: Foundry's BRP check has no Luck, dice or helpers."""
    return []


def _roller(check: FoundryCheck) -> Roller | None:
    return None if check.dice is not None else Roller()


def _shape(check: FoundryCheck) -> Hashable | None:
    """Every check ends on its one d100, whatever its target."""
    return None if check.dice is not None else ()


def _shown_side(t: int, ahead: int, roll: int) -> tuple[Level, int, int]:
    return (level(roll, t), roll, ahead)


def _results() -> list[Hashable]:
    """Every (level, roll, ahead) a side can show: ``ahead`` is 1 for the side whose raw score
    is the higher, so that the ranking holds for every pair of raw scores."""
    return [(lvl, r, ahead) for lvl in LEVELS for r in range(1, 101) for ahead in (0, 1)]


def _beats(x: tuple[Level, int, int], y: tuple[Level, int, int]) -> tuple[Winner]:
    return (opposed(x, y),)


def _ranking(contest: FoundryContest) -> RankedContest | None:
    a, o = contest.actor, contest.opponent
    if a.dice is not None or o.dice is not None:
        return None
    aheads = (int(a.raw > o.raw), int(o.raw > a.raw))
    sides = [
        RankedSide(check, (), (check.target, ahead), partial(_shown_side, check.target, ahead))
        for check, ahead in zip((a, o), aheads, strict=True)
    ]
    return RankedContest(NAME, _results, _beats, (sides[0], sides[1]))


STYLES: Mapping[str, Style] = {
    "critical": "best",
    "special": "good",
    "success": "ok",
    "failure": "bad",
    "fumble": "worst",
}
LEVEL_SPECS = tuple(
    LevelSpec(lvl, MEANINGS[lvl], ICONS[lvl], STYLES[lvl], NUMBER[lvl] >= SUCCESS) for lvl in LEVELS
)

DECLARATION = Declaration(
    target=Target(
        field="difficulty",
        label="Difficulty",
        # Multiplicative presets, declared as the target a skill of 100 gets under each
        presets=frozen_map(
            {name: -(-100 * n // d) for name, (n, d) in SCALES.items()} | {IMPOSSIBLE: 1}
        ),
        default="average",
        harder=-1,
        example="difficult (half the skill)",
        shown=frozen_map(
            {name: f"x{n}" if d == 1 else f"x{n}/{d}" for name, (n, d) in SCALES.items()}
            | {IMPOSSIBLE: "target 1"}
        ),
    ),
    skill_range=(0, BIG),
    words=Words(
        target="target",
        shortfall=None,
        bands=lambda result: result.bands or "",
    ),
    options=_options,
    sampler=_roller,
    fast=FastPath(
        inputs=frozenset(
            {
                "skill",
                "difficulty",
                "modifiers",
                "resistance",
                "dice",
                "house_rules.allow_impossible",
                "house_rules.resist_levels",
                "house_rules.resist_roll",
            }
        ),
        shape=_shape,
        key=lambda c: (c.target, c.mode),
        ranking=_ranking,
    ),
    levels=LEVEL_SPECS,
    development=brp_experience.BRP_FOUNDRY,  # XP-2: the experience roll
    improvement="success",  # a successful check earns its skill an experience check
)
BrpFoundry.declares = DECLARATION
SYSTEM = BrpFoundry()
