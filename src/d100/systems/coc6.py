"""Call of Cthulhu 6th edition as BCDice plays it (EDITIONS.md section 3, C6-1..C6-4).

One d100 against the target T = skill + modifiers, unbounded above: a success on r <= T (never
on 00), special within a fifth of T, critical on 01 (01-05 under the 5% rule, house rule
``fives``); a failure fumbles on 00 (96-00 under ``fives``) (C6-1). A malfunction number breaks
every roll from it up (C6-2). A resistance roll is 50 + 5 x (active - passive): above 95 it
succeeds and below 5 it fails, both without a roll (C6-3). A combined roll judges several
skills on one die (C6-4).

Decisions (this module's):

* T <= 0 is BCDice's bare roll (``CC<=0`` rolls 1D100 and judges nothing): it is reported as a
  ``failure``, never a fumble or a malfunction, since no roll is <= T; its explanation says so;
* a combined roll's ``level`` is the worst of its skills' levels, so that it is a success iff
  every skill succeeds; ``combined`` in the result lists every skill with its level, the
  ``skill`` of the request first. Each is judged by C6-1 as BCDice's ``CBR`` judges it, a
  target of 0 included (no bare roll there); ``modifiers`` move the ``skill`` only, and a
  malfunction number breaks the roll for every skill;
* a resistance roll's modifiers move its target before the automatic thresholds;
* contests: BCDice has none for CoC6, which is Basic Roleplaying underneath, so they follow the
  seed's BRP6 on CoC6's levels: a fumble loses to anything but a fumble, then the higher level,
  then the lower roll among successes, or the roll closest to its target among failures.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
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
from ..fields import BIG, Field, exactly_one, read, validate
from ..machine import Fixed, Machine, Then
from ..memo import memoised
from ..results import CheckResult, ContestResult, Winner, check_data, contest_data
from ..system import Declared, Plan, Record
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
    first_word,
    preprocess,
    resistance,
    resistance_field,
    skill_and_modifiers,
)

NAME = "coc6"
Level = Literal[
    "critical_special",
    "critical",
    "special",
    "success",
    "failure",
    "fumble",
    "broken",
    "fumble_broken",
]  # best first
LEVELS: tuple[Level, ...] = get_args(Level)
SUCCESSES = frozenset({"critical_special", "critical", "special", "success"})
FUMBLES = frozenset({"fumble", "fumble_broken"})
ORDER = {lvl: i for i, lvl in enumerate(LEVELS)}
# BRP6's ladder on CoC6's levels; a fumble or a malfunction counts as a failure once
# fumbles are set apart
RANK = {"critical_special": 5, "critical": 4, "special": 3, "success": 2}
AUTO_SUCCESS, AUTO_FAILURE = 95, 5  # C6-3: above and below these a resistance does not roll
RANKED_TARGETS = 1000  # contests with targets beyond +-this take the reference enumeration

MEANINGS = {
    "critical_special": "a critical that is also a special: the best result",
    "critical": "a critical success: the best the skill can do",
    "special": "a special success: notably effective",
    "success": "it works",
    "failure": "it does not work",
    "fumble": "a failure with an added mishap",
    "broken": "the roll reached the malfunction number: the weapon or device malfunctions",
    "fumble_broken": "a fumble, and the weapon or device malfunctions",
}
ICONS = {
    "critical_special": "★✦",
    "critical": "★",
    "special": "✦",
    "success": "✓",
    "failure": "✗",
    "fumble": "☠",
    "broken": "⚙",
    "fumble_broken": "☠⚙",
}
STYLES: dict[str, Literal["best", "good", "ok", "bad", "worst"]] = {
    "critical_special": "best",
    "critical": "best",
    "special": "good",
    "success": "ok",
    "failure": "bad",
    "fumble": "worst",
    "broken": "bad",
    "fumble_broken": "worst",
}

HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (C6-1)",
    default={},
    fields=(
        Field(
            "fives",
            "bool",
            "the 5% rule of BCDice's CCB: criticals 01-05, fumbles 96-00 (default: the 1% rule"
            " of CC, critical 01, fumble 00) (C6-1)",
            default=False,
        ),
    ),
)
SKILL = Field("skill", "int", "skill %, may exceed 100 (C6-1)", low=0, high=BIG)
MODIFIERS = modifiers_field("modifiers added to the skill (C6-1)")
CHECK_FIELDS = (
    system_field(NAME),
    SKILL,
    resistance_field(
        "instead of skill: active against passive characteristic, target 50 + 5 x (active -"
        " passive); above 95 an automatic success, below 5 an automatic failure (C6-3)"
    ),
    MODIFIERS,
    Field(
        "malfunction",
        "int",
        "malfunction number: a roll of it or more is broken, never a success (C6-2)",
        low=1,
        high=BIG,
    ),
    Field(
        "combined",
        "int_list",
        "other skills judged on the same roll; a success needs every one (C6-4)",
        low=0,
        high=BIG,
        default=(),
    ),
    HOUSE_RULES,
    DICE,
)
SIDE_FIELDS = (
    Field("skill", "int", "skill %, may exceed 100 (C6-1)", low=0, high=BIG, required=True),
    MODIFIERS,
    DICE,
)
CONTEST_FIELDS = (
    system_field(NAME),
    Field("actor", "object", "the acting side", required=True, fields=SIDE_FIELDS),
    Field("opponent", "object", "the opposing side", required=True, fields=SIDE_FIELDS),
    HOUSE_RULES,
)
_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)


@dataclass(frozen=True)
class HouseRules:
    fives: bool = False

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)


# -- C6-1, C6-2: the level of one roll against one target ------------------------------------


def level(roll: int, target: int, fives: bool = False, malfunction: int | None = None) -> Level:
    """BCDice's ``compare``: success or failure first, then critical and special within a
    success, a fumble within a failure, and a malfunction over either."""
    edge = 5 if fives else 1  # c = f: 1 (CC) or 5 (CCB)
    fumble = False
    lvl: Level
    if roll <= target and roll < 100:
        special = roll <= min(max(target * 20 // 100, 1), 100)
        if roll <= edge:
            lvl = "critical_special" if special else "critical"
        else:
            lvl = "special" if special else "success"
    else:
        fumble = roll >= 101 - edge
        lvl = "fumble" if fumble else "failure"
    if malfunction is not None and roll >= malfunction:
        return "fumble_broken" if fumble else "broken"
    return lvl


def worst(levels: list[Level]) -> Level:
    return max(levels, key=ORDER.__getitem__)


@dataclass(frozen=True)
class Judge:
    """Everything a check's level reads: the targets judged on the roll (the skill's first),
    and either an automatic level (C6-3, no roll) or whether the roll is a bare one."""

    targets: tuple[int, ...]
    fives: bool = False
    malfunction: int | None = None
    bare: bool = False
    automatic: Level | None = None

    @property
    def rolls(self) -> bool:
        return self.automatic is None

    def each(self, roll: int) -> list[Level]:
        return [level(roll, t, self.fives, self.malfunction) for t in self.targets]

    def level(self, state: int | None) -> Level:
        if self.automatic is not None:
            return self.automatic
        if self.bare or not state:
            return "failure"
        if len(self.targets) == 1:
            return level(state, self.targets[0], self.fives, self.malfunction)
        return worst(self.each(state))

    def shown(self, state: int) -> tuple[Level, int]:
        """A contest side's result for BRP6: its level, and its roll among successes or its
        distance from the target among failures."""
        lvl = self.level(state)
        return lvl, state if lvl in SUCCESSES else abs(state - self.targets[0])


# -- requests --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Coc6Check:
    skill: int | None = None
    resistance: Resistance | None = None
    modifiers: tuple[int, ...] = ()
    malfunction: int | None = None
    combined: tuple[int, ...] = ()
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"house_rules": HouseRules, "resistance": Resistance})
        check_shape(plain(self))

    @property
    def target(self) -> int:
        mods = sum(self.modifiers)
        if self.resistance is not None:
            return 50 + 5 * self.resistance.difference + mods
        assert self.skill is not None
        return self.skill + mods

    def judge(self) -> Judge:
        t, fives = self.target, self.house_rules.fives
        if self.resistance is not None:
            auto: Level | None = (
                "success" if t > AUTO_SUCCESS else "failure" if t < AUTO_FAILURE else None
            )
            return Judge((t,), fives, automatic=auto)
        bare = t <= 0 and not self.combined
        return Judge((t, *self.combined), fives, self.malfunction, bare)

    def to_dict(self) -> dict[str, Any]:
        return check_dict(self)


# What ``check_shape`` refuses, as JSON Schema.
CHECK_RULES = (
    exactly_one(("skill", "resistance")),
    {
        "if": {"required": ["resistance"]},
        "then": {"properties": {"malfunction": {"const": 0}, "combined": {"maxItems": 0}}},
    },
)


def check_shape(values: Mapping[str, Any]) -> None:
    """Skill or resistance, one of them; a resistance roll has no malfunction number and no
    other skills."""
    if one_of(values, ("skill", "resistance")) == "resistance":
        for name in ("malfunction", "combined"):
            if values.get(name):
                raise D100Error(
                    name, values[name], "only with skill", f"a resistance roll has no {name}"
                )


@dataclass(frozen=True)
class Coc6Contest:
    actor: Coc6Check
    opponent: Coc6Check
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        for name, side in contest_sides(self, CONTEST_FIELDS, Coc6Check, HouseRules):
            for extra in ("resistance", "malfunction", "combined"):
                value = getattr(side, extra)
                if value:
                    raise D100Error(
                        f"{name}.{extra}",
                        plain(value),
                        "skill, modifiers and dice: a side of a contest rolls one skill",
                        f"{extra} in a contest",
                    )

    def to_dict(self) -> dict[str, Any]:
        sides = {}
        for name, side in (("actor", self.actor), ("opponent", self.opponent)):
            values: dict[str, Any] = plain(side)
            sides[name] = {k: v for k, v in values.items() if k in _SIDE_NAMES}
        return {"system": NAME, **sides, **house_dict(self.house_rules)}


def _check(values: Mapping[str, Any], house: HouseRules) -> Coc6Check:
    return Coc6Check(
        skill=values["skill"],
        resistance=resistance(values.get("resistance")),
        modifiers=values["modifiers"],
        malfunction=values.get("malfunction"),
        combined=values.get("combined", ()),
        dice=values["dice"],
        house_rules=house,
    )


def opposed(a: tuple[Level, int], o: tuple[Level, int]) -> Winner:
    """BRP6 on CoC6's levels, from each side's ``Judge.shown``: a fumble loses to anything but
    a fumble; then the higher level; then the lower roll (successes) or the smaller distance
    from the target (failures); equal, a tie."""
    fa, fo = a[0] in FUMBLES, o[0] in FUMBLES
    if fa != fo:
        return "opponent" if fa else "actor"
    ra, ro = RANK.get(a[0], 1), RANK.get(o[0], 1)
    if ra != ro:
        return "actor" if ra > ro else "opponent"
    if a[1] == o[1]:
        return "tie"
    return "actor" if a[1] < o[1] else "opponent"


# -- the system ----------------------------------------------------------------------------------


@memoised(4096)
def band_text(target: int, fives: bool, malfunction: int | None) -> str:
    """Which rolls give which level against one target: runs read off ``level``."""
    runs: list[tuple[str, int, int]] = []
    for roll in range(1, 101):
        lvl = level(roll, target, fives, malfunction)
        if runs and runs[-1][0] == lvl:
            runs[-1] = (lvl, runs[-1][1], roll)
        else:
            runs.append((lvl, roll, roll))
    return ", ".join(f"{lvl} {show_span(lo, hi)}" for lvl, lo, hi in runs)


def _source(check: Coc6Check) -> str:
    mods = "".join(f" {m:+d}" for m in check.modifiers)
    if check.resistance is not None:
        r = check.resistance
        return f"resistance {r.active} vs {r.passive}: 50 + 5 x {r.difference}{mods}"
    return f"skill {check.skill}{mods}"


def _explain(check: Coc6Check, j: Judge, roll: int, lvl: Level) -> tuple[str, str]:
    """The explanation and the bands of a resolved check."""
    t, how = j.targets[0], _source(check)
    rule = "5% rule" if j.fives else "1% rule"
    if j.automatic is not None:
        side = f"above {AUTO_SUCCESS}" if lvl == "success" else f"below {AUTO_FAILURE}"
        band = f"target {side}: an automatic {lvl}, no roll"
        return f"{how} = {t}: {band} (C6-3)", band
    if j.bare:
        band = "a target of 0 or less: a bare roll, judged by nothing"
        return f"rolled {show_roll(roll)} vs {t} ({how}): {band}, counted as a failure", band
    band = band_text(t, j.fives, j.malfunction)
    broken = f"; malfunction {j.malfunction}" if j.malfunction is not None else ""
    if len(j.targets) == 1:
        return f"rolled {show_roll(roll)} vs {t} ({how}, {rule}{broken}): {lvl} ({band})", band
    each = ", ".join(f"{x} {y}" for x, y in zip(j.targets, j.each(roll), strict=True))
    why = (
        f"rolled {show_roll(roll)} vs {', '.join(map(str, j.targets))} ({how} and"
        f" {len(j.targets) - 1} more, {rule}{broken}): {each}; combined {lvl}"
        " (a success needs every skill)"
    )
    return why, band


class Coc6(Declared):
    name: str = NAME
    title: str = "Call of Cthulhu 6th edition"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS
    check_rules = CHECK_RULES

    def parse_check(self, data: Mapping[str, Any]) -> Coc6Check:
        values = read(data, CHECK_FIELDS)
        check_shape(values)
        return _check(values, house_from(values, HouseRules))

    def parse_contest(self, data: Mapping[str, Any]) -> Coc6Contest:
        values = read(data, CONTEST_FIELDS)
        house = house_from(values, HouseRules)
        return Coc6Contest(_check(values["actor"], house), _check(values["opponent"], house), house)

    def _result(
        self, check: Coc6Check, j: Judge, state: int, record: Record, stream: str
    ) -> CheckResult:
        lvl: Any = j.level(state)  # CoC6's levels are not in ``systems.Level`` yet
        why, band = _explain(check, j, state, lvl)
        each: list[Any] = j.each(state) if len(j.targets) > 1 else []
        combined = tuple(
            CheckResult(
                system=NAME,
                level=x,
                success=x in SUCCESSES,
                roll=state,
                dice=(),
                target=t,
                margin=t - state,
                explanation=f"{show_roll(state)} vs {t}: {x}",
                bands=band_text(t, j.fives, j.malfunction),
            )
            for t, x in zip(j.targets, each, strict=False)
        )
        t = j.targets[0]
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in SUCCESSES,
            roll=state if j.rolls else None,
            dice=tuple(record.get(stream, ())),
            target=t,
            margin=t - state if j.rolls else None,
            explanation=why,
            request=check_data(check.to_dict()),
            bands=band,
            combined=combined,
        )

    def check_plan(self, check: Coc6Check) -> Plan[Any, CheckResult]:
        j = check.judge()
        stream = dice_stream("")
        return Plan(
            machine=_machine(j, stream),
            given=given(stream, check.dice),
            outcome=j.level,
            build=lambda s, rec: self._result(check, j, s, rec, stream),
            cost=100,
        )

    def contest_plan(self, contest: Coc6Contest) -> Plan[Any, ContestResult]:
        actor, opponent = contest.actor, contest.opponent
        ja, jo = actor.judge(), opponent.judge()
        sa, so = dice_stream("actor"), dice_stream("opponent")
        machine: Machine[Any] = Then(_machine(ja, sa), lambda _: _machine(jo, so))

        def outcome(state: Any) -> Winner:
            return opposed(ja.shown(state[1]), jo.shown(state[2]))

        def build(state: Any, record: Record) -> ContestResult:
            winner = outcome(state)
            a = self._result(actor, ja, state[1], record, sa)
            o = self._result(opponent, jo, state[2], record, so)
            verdict = "tie" if winner == "tie" else f"{winner} wins"
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                explanation=f"{verdict} (BRP6) — actor {a.explanation}; opponent {o.explanation}",
                request=contest_data(contest.to_dict()),
            )

        return Plan(
            machine=machine,
            given={**given(sa, actor.dice), **given(so, opponent.dice)},
            outcome=outcome,
            build=build,
            cost=200,
        )


def _machine(j: Judge, stream: str) -> Machine[Any]:
    return Roll(stream) if j.rolls else Fixed(0)


# -- BCDice's command forms (Cthulhu.rb) -----------------------------------------------------

_CC = re.compile(rf"CC(B)?(\d+)?(?:<=({EXPR}))?")
_RES_SIDES = re.compile(r"RES(B)?\((\d+)-(\d+)\)")
_RES = re.compile(r"RES(B)?(-?\d+)")
_CBR = re.compile(r"CBR(B)?\((\d+),(\d+)\)")


def commands(text: str) -> dict[str, Any] | None:
    """BCDice's forms as a request: ``CC<=65`` (the 1% rule) and ``CCB<=65`` (the 5% rule, house
    rule ``fives``), ``CC(90)<=65`` (malfunction number 90), ``RES(13-10)`` and ``RESB(...)``,
    ``CBR(60,45)`` and ``CBRB(...)``. Each form names its rule, so ``house_rules.fives`` is
    always set. BCDice's arithmetic: parentheses and divisions round down. ``CC`` or
    ``CC<=0`` is the bare roll (skill 0). Secret rolls and targets with no value (``CC<=5+``,
    which BCDice rolls bare) are not recognised: None.

    coc7 reads ``CC<=65`` too (and ``CC1<=65`` as a bonus die, where CoC6 reads a malfunction
    number 1): the forms are read for the system a player names or a table plays."""
    word = first_word(text).upper()
    sides = _RES_SIDES.fullmatch(word)
    if sides:
        return _request(sides[1], resistance={"active": int(sides[2]), "passive": int(sides[3])})
    word = preprocess(word)
    if cc := _CC.fullmatch(word):
        target = {"skill": 0} if cc[3] is None else skill_and_modifiers(cc[3], "floor")
        if target is None:
            return None
        broken = int(cc[2] or 0)  # CC(0) has none
        return _request(cc[1], **target, **({"malfunction": broken} if broken else {}))
    if res := _RES.fullmatch(word):
        return _request(res[1], resistance=difference_sides(int(res[2])))
    if cbr := _CBR.fullmatch(word):
        return _request(cbr[1], skill=int(cbr[2]), combined=[int(cbr[3])])
    return None


def _request(five: str | None, **fields: Any) -> dict[str, Any]:
    return {"system": NAME, **fields, "house_rules": {"fives": five is not None}}


# -- what the rest of the code reads (declarations.py) -----------------------------------------


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """CoC6 as BCDice plays it leaves a player nothing to spend or add to one roll."""
    return []


def _roller(check: Coc6Check) -> Roller | None:
    return None if check.dice is not None or not check.judge().rolls else Roller()


def _shape(check: Coc6Check) -> Hashable | None:
    """A check ends on its roll, or on no roll (an automatic resistance, C6-3)."""
    return None if check.dice is not None else check.judge().rolls


def _ranking(contest: Coc6Contest) -> RankedContest | None:
    sides = []
    for check in (contest.actor, contest.opponent):
        shape, j = _shape(check), check.judge()
        if shape is None or abs(j.targets[0]) > RANKED_TARGETS:
            return None
        sides.append(RankedSide(check, shape, j, j.shown))
    return RankedContest(NAME, _results, _beats, (sides[0], sides[1]))


def _results() -> list[Hashable]:
    """Every (level, roll or distance) a side of a contest can show: successes on 01-99,
    failures and fumbles up to the largest distance a ranked target allows."""
    wins = [(lvl, r) for lvl in LEVELS if lvl in SUCCESSES for r in range(1, 100)]
    far = RANKED_TARGETS + 100
    return [*wins, *((lvl, d) for lvl in ("failure", "fumble") for d in range(far + 1))]


def _beats(x: tuple[Level, int], y: tuple[Level, int]) -> tuple[Winner]:
    return (opposed(x, y),)


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
        example="+10, or -20",
    ),
    skill_range=(0, None),
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
                "resistance",
                "modifiers",
                "malfunction",
                "combined",
                "dice",
                "house_rules.fives",
            }
        ),
        shape=_shape,
        key=lambda c: c.judge(),
        ranking=_ranking,
    ),
    commands=commands,
    levels=LEVEL_SPECS,
    sides_stand_alone=True,
)
Coc6.declares = DECLARATION
SYSTEM = Coc6()
