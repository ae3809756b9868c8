"""RuneQuest: Roleplaying in Glorantha (EDITIONS.md section 4, RQ-1..RQ-3).

One d100 against the chance S, unbounded above: criticals and specials from the whole chance,
01-05 always succeed, 96-00 never do, and the top round((100 - S)/20) rolls fumble (RQ-1). The
chance is an ability (skill), a characteristic times a multiplier, or a resistance (RQ-2).
Contests climb the level ladder, a tie leaves them unresolved, and a rating above 100 takes its
excess off the participants first (RQ-3). Bonus and penalty dice are no RQG rule: no field.

Decisions (EDITIONS.md section 11, 3 and 4, and this module's):

* a chance of 0 or less is resolved as 0 (house rule ``zero_chance: resolve``, RQG for
  Foundry): 01 critical, 02-05 success, 96-00 fumble. ``zero_chance: fail`` is BCDice's
  reading: ``RQG<=0`` fails without a roll (skills and characteristics, which BCDice rolls as
  ``RQG<=``), and a chance below 0 keeps its own fumble range (S -10 fumbles from 95); BCDice's
  ``RES`` judges a chance of 0 like any other, so a resistance of 0 is still rolled;
* critical and special stop at 95, as RQG for Foundry has them: the chance can reach 478
  (special 96) and beyond, and 96-00 never succeed;
* a contest neither side succeeds in has no winner (``none``); the same success level on both
  sides is a ``tie``, the situation unresolved (the Q&A's ruling).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from itertools import repeat
from typing import Any, Literal, get_args

from ..declarations import (
    Declaration,
    FastPath,
    LevelSpec,
    Option,
    RankedContest,
    RankedSide,
    Roller,
    Target,
    Words,
    frozen_map,
)
from ..dice import show_roll, show_span
from ..errors import D100Error
from ..fields import BIG, Field, exactly_one, only_with, read, sides, validate
from ..machine import Fixed, Machine, Then
from ..memo import memoised
from ..results import CheckResult, ContestResult, Winner, check_data, contest_data
from ..system import Declared, Plan, Record
from . import brp_experience
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
    plain,
    system_field,
)
from .rqg_coc6 import (
    EXPR,
    Resistance,
    difference_sides,
    evaluate,
    first_word,
    preprocess,
    resistance,
    resistance_field,
    skill_and_modifiers,
)

NAME = "rqg"
Level = Literal["critical", "special", "success", "failure", "fumble"]  # best first
LEVELS: tuple[Level, ...] = get_args(Level)
SUCCESSES = frozenset({"critical", "special", "success"})
RANK = {"critical": 3, "special": 2, "success": 1}  # RQ-3's ladder of successes
MULTIPLIERS = (0.5, 1, 2, 3, 4, 5, 6)
MULTIPLIER = 5  # a characteristic roll's default: x5
CAP = 95  # RQ-1: 96-00 never succeed
MASTERY = 100  # RQ-3: ratings above this lose their excess in a contest
TARGETS = ("skill", "characteristic", "resistance")
# What ``check_targets`` refuses, as JSON Schema: a check's, and each contest side's.
CHECK_RULES = (exactly_one(TARGETS), only_with("multiplier", "characteristic"))
CONTEST_RULES = (sides((exactly_one(TARGETS[:2]), only_with("multiplier", "characteristic"))),)

MEANINGS = {
    "critical": "the best possible result: the most the ability can do",
    "special": "a notably effective success",
    "success": "it works",
    "failure": "it does not work",
    "fumble": "a failure with an added mishap",
}
ICONS = {"critical": "★", "special": "✦", "success": "✓", "failure": "✗", "fumble": "☠"}
STYLES: dict[Level, Literal["best", "good", "ok", "bad", "worst"]] = {
    "critical": "best",
    "special": "good",
    "success": "ok",
    "failure": "bad",
    "fumble": "worst",
}

HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (RQ-1, RQ-3)",
    default={},
    fields=(
        Field(
            "zero_chance",
            "choice",
            "a chance of 0 or less: resolve it as 0 (01 critical, 02-05 success), or fail a 0"
            " without a roll and fumble wider below 0, as BCDice (RQ-1)",
            choices=("resolve", "fail"),
            default="resolve",
        ),
        Field(
            "over_100",
            "choice",
            "in a contest, the highest rating's excess over 100 comes off everyone's chance,"
            " or only the other side's, as RQG for Foundry (RQ-3)",
            choices=("everyone", "other_side"),
            default="everyone",
        ),
    ),
)
_SIDE = (
    Field("skill", "int", "the ability's chance %, may exceed 100 (RQ-2)", low=0, high=BIG),
    Field(
        "characteristic",
        "int",
        "a characteristic, rolled at multiplier times it (RQ-2)",
        low=0,
        high=BIG,
    ),
    Field(
        "multiplier",
        "choice",
        "with characteristic: 0.5 (nearly impossible) or 1..6, default 5; halves round up (RQ-2)",
        choices=MULTIPLIERS,
    ),
)
RESISTANCE = resistance_field(
    "instead of skill: active against passive characteristic, chance 50 + 5 x (active -"
    " passive), the difference at least -10 (RQ-2)"
)
MODIFIERS = modifiers_field("modifiers and augments, added to the chance (RQ-2)")
SIDE_FIELDS = (*_SIDE, MODIFIERS, DICE)
CHECK_FIELDS = (system_field(NAME), *_SIDE, RESISTANCE, MODIFIERS, HOUSE_RULES, DICE)
CONTEST_FIELDS = (
    system_field(NAME),
    Field("actor", "object", "the acting side", required=True, fields=SIDE_FIELDS),
    Field("opponent", "object", "the opposing side", required=True, fields=SIDE_FIELDS),
    HOUSE_RULES,
)
_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)


@dataclass(frozen=True)
class HouseRules:
    zero_chance: str = "resolve"
    over_100: str = "everyone"

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)


# -- RQ-1: the levels of one roll ----------------------------------------------------------------


def half_up(n: int, d: int) -> int:
    """n/d rounded half up: JavaScript's Math.round, and Ruby's round for n >= 0."""
    return (2 * n + d) // (2 * d)


@memoised(4096)
def bands(chance: int) -> tuple[int, int, int, int]:
    """(critical, special, success, fumble_from) for the chance as judged (RQ-1)."""
    critical = min(CAP, max(1, half_up(chance, 20)))
    special = min(CAP, max(1, half_up(chance, 5)))
    success = min(CAP, max(chance, 5))
    fumble_from = min(100, 101 - half_up(100 - chance, 20))
    return critical, special, success, fumble_from


def level(roll: int, chance: int) -> Level:
    """RQ-1 in BCDice's order: critical, fumble, then the successes. Above a chance of 0 the
    fumble range starts above 95, so the order matters only for BCDice's chances below 0."""
    return _level(roll, *bands(chance))


def _level(roll: int, critical: int, special: int, success: int, fumble_from: int) -> Level:
    if roll <= critical:
        return "critical"
    if roll >= fumble_from:
        return "fumble"
    if roll <= special:
        return "special"
    if roll <= success:
        return "success"
    return "failure"


@memoised(4096)
def band_text(chance: int) -> str:
    """Which rolls give which level: runs of rolls with one level, read off ``level``."""
    runs: list[tuple[str, int, int]] = []
    for roll in range(1, 101):
        lvl = level(roll, chance)
        if runs and runs[-1][0] == lvl:
            runs[-1] = (lvl, runs[-1][1], roll)
        else:
            runs.append((lvl, roll, roll))
    return ", ".join(f"{lvl} {show_span(lo, hi)}" for lvl, lo, hi in runs)


@dataclass(frozen=True)
class Judge:
    """What a roll is judged against: the chance after the zero-chance rule, and whether the
    check rolls at all (BCDice fails ``RQG<=0`` without one)."""

    chance: int
    rolls: bool = True

    def level(self, state: int | None) -> Level:
        return self.named[state or 0]

    @property
    def named(self) -> tuple[Level, ...]:
        """The level of every final state: 0 (no roll) and each roll 1..100."""
        return named(self.chance, self.rolls)


ROLLS = range(1, 101)


@memoised(4096)
def named(chance: int, rolls: bool) -> tuple[Level, ...]:
    """A judge's level at every final state, ``level`` read for each roll 1..100 (one
    lookup for a roll and for the odds' naming of its states); a check that does not roll
    fails, and so does the state 0 of no roll."""
    none: Level = "failure"
    if not rolls:
        return (none,) * (len(ROLLS) + 1)
    critical, special, success, fumble_from = bands(chance)
    cuts = repeat(critical), repeat(special), repeat(success), repeat(fumble_from)
    return (none, *map(_level, ROLLS, *cuts))


def _state_level(critical: int, special: int, success: int, fumble_from: int, roll: int) -> Level:
    """``_level`` with the roll last, so that a plan names a state through ``partial``."""
    return _level(roll, critical, special, success, fumble_from)


def _named(j: Any) -> Callable[[int], Level]:
    """RQ-1, RQ-2: a judged check's final states named by the bands of its chance."""
    return partial(_state_level, *bands(j.chance)) if j.rolls else _no_roll


def _no_roll(state: int) -> Level:
    """A check that does not roll fails (``named``)."""
    return "failure"


def _cuts(check: RqgCheck) -> tuple[int, ...]:
    """RQ-1: the rolls after which the level may change (none where the check does not roll)."""
    j = check.judge()
    if not j.rolls:
        return ()
    critical, special, success, fumble_from = bands(j.chance)
    return (critical, fumble_from - 1, special, success)


def judge(raw: int, rule: str, resisted: bool) -> Judge:
    """RQ-1's choice for a chance of 0 or less (EDITIONS decision 3)."""
    if rule == "resolve":
        return Judge(max(0, raw))
    return Judge(raw, rolls=raw != 0 or resisted)


# -- requests --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RqgCheck:
    skill: int | None = None
    characteristic: int | None = None
    multiplier: float | None = None
    resistance: Resistance | None = None
    modifiers: tuple[int, ...] = ()
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"house_rules": HouseRules, "resistance": Resistance})
        check_targets(plain(self))
        m = self.multiplier
        if isinstance(m, float) and m.is_integer():  # JSON's 5.0 is the multiplier 5
            object.__setattr__(self, "multiplier", int(m))

    @property
    def raw(self) -> int:
        """RQ-2's chance before the zero-chance rule: unbounded either way."""
        mods = sum(self.modifiers)
        if self.characteristic is not None:
            m = MULTIPLIER if self.multiplier is None else self.multiplier
            if type(m) is int:  # a whole multiplier: no rounding to do
                return self.characteristic * m + mods
            return math.ceil(self.characteristic * Fraction(m) + mods)
        if self.resistance is not None:
            return 50 + 5 * max(self.resistance.difference, -10) + mods
        assert self.skill is not None
        return self.skill + mods

    def judge(self, reduction: int = 0) -> Judge:
        return judge(
            self.raw - reduction, self.house_rules.zero_chance, self.resistance is not None
        )

    def to_dict(self) -> dict[str, Any]:
        return check_dict(self)


def check_targets(
    values: Mapping[str, Any], where: str = "", names: tuple[str, ...] = TARGETS
) -> None:
    """Exactly one of skill, characteristic or resistance; a multiplier only with a
    characteristic."""
    one_of(values, names, where)
    if values.get("multiplier") is not None and values.get("characteristic") is None:
        at = f"{where}.multiplier" if where else "multiplier"
        raise D100Error(
            at, values["multiplier"], "a multiplier only with characteristic", "no characteristic"
        )


@dataclass(frozen=True)
class RqgContest:
    actor: RqgCheck
    opponent: RqgCheck
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        for name, side in contest_sides(self, CONTEST_FIELDS, RqgCheck, HouseRules):
            if side.resistance is not None:
                raise D100Error(
                    f"{name}.resistance",
                    side.resistance.to_dict(),
                    "skill or characteristic: a resistance roll is already opposed",
                    "resistance in a contest",
                )

    def reductions(self) -> tuple[int, int]:
        return reductions(self.actor.raw, self.opponent.raw, self.house_rules.over_100)

    def judges(self) -> tuple[Judge, Judge]:
        ra, ro = self.reductions()
        return self.actor.judge(ra), self.opponent.judge(ro)

    def to_dict(self) -> dict[str, Any]:
        sides = {}
        for name, side in (("actor", self.actor), ("opponent", self.opponent)):
            values: dict[str, Any] = plain(side)
            sides[name] = {k: v for k, v in values.items() if k in _SIDE_NAMES}
        return {"system": NAME, **sides, **house_dict(self.house_rules)}


def _check(values: Mapping[str, Any], house: HouseRules) -> RqgCheck:
    return RqgCheck(
        skill=values["skill"],
        characteristic=values["characteristic"],
        multiplier=values["multiplier"],
        resistance=resistance(values.get("resistance")),
        modifiers=values["modifiers"],
        dice=values["dice"],
        house_rules=house,
    )


# -- RQ-3: contests --------------------------------------------------------------------------------


def reductions(actor: int, opponent: int, rule: str) -> tuple[int, int]:
    """What each side's chance loses before the levels (EDITIONS decision 4): the highest
    rating's excess over 100 comes off everyone's (the Q&A), or with ``other_side`` off the
    other side's only, unless both are over 100 (RQG for Foundry). Ratings are the chances
    after modifiers, as Foundry's ``getMasterOpponentModifier`` takes them."""
    over_a, over_o = max(0, actor - MASTERY), max(0, opponent - MASTERY)
    top = max(over_a, over_o)
    if rule == "everyone" or (over_a and over_o):
        return top, top
    return (0, over_a) if over_a else (over_o, 0)


def decide(a: Level, o: Level) -> Winner:
    """RQ-3: the better success wins; the same success level is a tie, the situation left
    unresolved; when neither side succeeds nobody wins."""
    won_a, won_o = a in SUCCESSES, o in SUCCESSES
    if not (won_a or won_o):
        return "none"
    if won_a != won_o:
        return "actor" if won_a else "opponent"
    if a == o:
        return "tie"
    return "actor" if RANK[a] > RANK[o] else "opponent"


# -- the system ----------------------------------------------------------------------------------


def _machine(j: Judge, stream: str) -> Machine[Any]:
    return Roll(stream) if j.rolls else Fixed(0)


def _source(check: RqgCheck) -> str:
    """How the chance was made, in words (RQ-2)."""
    mods = "".join(f" {m:+d}" for m in check.modifiers)
    if check.characteristic is not None:
        m = MULTIPLIER if check.multiplier is None else check.multiplier
        return f"characteristic {check.characteristic} x{m}{mods}"
    if check.resistance is not None:
        r = check.resistance
        return f"resistance {r.active} vs {r.passive}: 50 + 5 x {max(r.difference, -10)}{mods}"
    return f"skill {check.skill}{mods}"


class Rqg(Declared):
    name: str = NAME
    title: str = "RuneQuest: Roleplaying in Glorantha"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS
    check_rules = CHECK_RULES
    contest_rules = CONTEST_RULES

    def parse_check(self, data: Mapping[str, Any]) -> RqgCheck:
        values = read(data, CHECK_FIELDS)
        check_targets(values)
        return _check(values, house_from(values, HouseRules))

    def parse_contest(self, data: Mapping[str, Any]) -> RqgContest:
        values = read(data, CONTEST_FIELDS)
        house = house_from(values, HouseRules)
        for name in ("actor", "opponent"):
            check_targets(values[name], name, TARGETS[:2])
        return RqgContest(_check(values["actor"], house), _check(values["opponent"], house), house)

    def _result(
        self, check: RqgCheck, j: Judge, state: int, record: Record, stream: str, cut: int
    ) -> CheckResult:
        lvl = j.level(state)
        how = _source(check)
        if cut:
            how += f", {-cut:+d} for the highest rating over {MASTERY}"
        raw = check.raw - cut
        if raw != j.chance:
            how += f" = {raw}, resolved as {j.chance}"
        if not j.rolls:
            text = band = f"a chance of {j.chance} fails without a roll (zero_chance: fail)"
            why = f"{how}: {text}"
        else:
            band = band_text(j.chance)
            why = f"rolled {show_roll(state)} vs {j.chance} ({how}): {lvl} ({band})"
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in SUCCESSES,
            roll=state if j.rolls else None,
            dice=tuple(record.get(stream, ())),
            target=j.chance,
            margin=j.chance - state if j.rolls else None,
            explanation=why,
            request=check_data(check.to_dict()),
            bands=band,
        )

    def check_plan(self, check: RqgCheck) -> Plan[Any, CheckResult]:
        j = check.judge()
        stream = dice_stream("")
        return Plan(
            machine=_machine(j, stream),
            given=given(stream, check.dice),
            outcome=_named(j),
            build=lambda s, rec: self._result(check, j, s, rec, stream, 0),
            cost=100,
        )

    def contest_plan(self, contest: RqgContest) -> Plan[Any, ContestResult]:
        actor, opponent = contest.actor, contest.opponent
        ja, jo = contest.judges()
        cut_a, cut_o = contest.reductions()
        sa, so = dice_stream("actor"), dice_stream("opponent")
        machine: Machine[Any] = Then(_machine(ja, sa), lambda _: _machine(jo, so))

        def outcome(state: Any) -> Winner:
            return decide(ja.level(state[1]), jo.level(state[2]))

        def build(state: Any, record: Record) -> ContestResult:
            winner = outcome(state)
            a = self._result(actor, ja, state[1], record, sa, cut_a)
            o = self._result(opponent, jo, state[2], record, so, cut_o)
            verdict = {"tie": "tie, unresolved", "none": "nobody succeeds"}.get(
                winner, f"{winner} wins"
            )
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                explanation=f"{verdict} — actor {a.explanation}; opponent {o.explanation}",
                request=contest_data(contest.to_dict()),
            )

        return Plan(
            machine=machine,
            given={**given(sa, actor.dice), **given(so, opponent.dice)},
            outcome=outcome,
            build=build,
            cost=200,
        )


# -- BCDice's command forms (RuneQuestRoleplayingInGlorantha.rb) --------------------------------

_RQG = re.compile(rf"RQG<=({EXPR})")
_RES_SIDES = re.compile(rf"RES\((\d+)-(\d+)\)(?:M({EXPR}))?")
_RES = re.compile(rf"RES({EXPR})(?:M({EXPR}))?")


def commands(text: str) -> dict[str, Any] | None:
    """BCDice's forms as a request: ``RQG<=80`` (``RQG<=80+20``: skill 80, modifier +20) and
    ``RES(9-11)`` with an optional augment ``m20``. Arithmetic is BCDice's: parentheses first,
    rounded down, the rest rounded half away from zero. A bare ``RQG`` (no judgement), BCDice's
    ``RSA`` (no critical, special or fumble), secret rolls and text with no value are not
    checks of this system: None. ``RQG<=0`` is the chance 0, which the table's house rule
    ``zero_chance`` judges."""
    word = first_word(text).upper()
    sides = _RES_SIDES.fullmatch(word)
    if sides:
        out: dict[str, Any] = {
            "system": NAME,
            "resistance": {"active": int(sides[1]), "passive": int(sides[2])},
        }
        return _augmented(out, sides[3])
    word = preprocess(word)
    ability = _RQG.fullmatch(word)
    if ability:
        target = skill_and_modifiers(ability[1], "round")
        return None if target is None else {"system": NAME, **target}
    res = _RES.fullmatch(word)
    if res:
        difference = evaluate(res[1], "round")
        if difference is None:
            return None
        return _augmented({"system": NAME, "resistance": difference_sides(difference)}, res[2])
    return None


def _augmented(request: dict[str, Any], augment: str | None) -> dict[str, Any] | None:
    if augment is None:
        return request
    value = evaluate(preprocess(augment), "round")
    return None if value is None else {**request, "modifiers": [value]}


# -- what the rest of the code reads (declarations.py) -----------------------------------------


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """RQG's rules here leave a player nothing to spend or add to one roll."""
    return []


def _roller(check: RqgCheck) -> Roller | None:
    return None if check.dice is not None or not check.judge().rolls else Roller()


def _shape(check: RqgCheck) -> Hashable | None:
    """A check ends on its roll, or on no roll (a chance of 0 under ``zero_chance: fail``)."""
    return None if check.dice is not None else check.judge().rolls


def _ranking(contest: RqgContest) -> RankedContest | None:
    sides = []
    for check, j in zip((contest.actor, contest.opponent), contest.judges(), strict=True):
        shape = _shape(check)
        if shape is None or shape != j.rolls:  # a reduction that changes whether it rolls
            return None
        sides.append(RankedSide(check, shape, j, j.level))
    return RankedContest(NAME, lambda: list(LEVELS), _beats, (sides[0], sides[1]))


def _beats(x: Level, y: Level) -> tuple[Winner]:
    return (decide(x, y),)


LEVEL_SPECS = tuple(
    LevelSpec(lvl, MEANINGS[lvl], ICONS[lvl], STYLES[lvl], lvl in SUCCESSES) for lvl in LEVELS
)

DECLARATION = Declaration(
    target=Target(
        field="modifiers",
        label="Modifier",
        presets=frozen_map({}),
        default="0",
        harder=-1,
        example="+20 augment, or -20",
    ),
    skill_range=(0, None),
    words=Words(
        target="chance",
        shortfall=None,
        bands=lambda result: result.bands or "",
    ),
    options=_options,
    sampler=_roller,
    fast=FastPath(
        inputs=frozenset(
            {
                "skill",
                "characteristic",
                "multiplier",
                "resistance",
                "modifiers",
                "dice",
                "house_rules.zero_chance",
                "house_rules.over_100",
            }
        ),
        shape=_shape,
        key=lambda c: c.judge(),
        ranking=_ranking,
        reading=lambda s: s,  # a final state is the roll (0: a check that does not roll)
        cuts=_cuts,
        outcome=lambda c: _named(c.judge()),
    ),
    commands=commands,
    levels=LEVEL_SPECS,
    # RQ-3: the highest rating's excess over 100 comes off each side's chance, so a side's
    # target, its margin, bands and words tell the other's rating
    binds_other_side=frozenset({"target", "margin", "bands", "explanation"}),
    development=brp_experience.RQG,  # XP-3: the experience roll
    improvement="success",  # a successful check earns its skill an experience check
)
Rqg.declares = DECLARATION
SYSTEM = Rqg()
