"""OpenQuest as the oq-system plays it (EDITIONS OQS-1, OQS-2): total = clamp(0, 100, value +
difficulty + modifiers) on oq-system's own difficulty table, the seed's roll-under with doubles,
and a master who does not roll where value and total both reach 100.

Built on the seed's ``openquest``: the levels, their meanings and the resolution of a roll
(``openquest.level``, which on a total held to 0..100 is exactly OQS-2). oq-system has no
opposed rolls of its own, so **its contests are the seed openquest's** (OQ7 matrix, OQ8 one
side's difficulty, OQ9 masters, decided by ``openquest._decide``), with the master read by this
edition's house rule. Nor has it assistance (the seed's OQ11): there is no ``assist`` here.

House rule ``master``: ``value`` (the default, OQS-2) makes a master of value >= 100 with total
>= 100, so a penalised master rolls like anyone; ``unmodified`` is the seed's OQ3, value >= 100
whatever the modifiers (the seed's skill stops at 100; here it may go to 1000).
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
from ..dice import show_roll
from ..errors import RuleRefusal
from ..fields import BIG, Field, read, validate
from ..machine import Fixed, Machine, Then
from ..results import CheckResult, ContestResult, Winner, check_data, contest_data
from ..system import Declared, Plan, Record
from . import openquest
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
    plain,
    system_field,
)
from .openquest import ICONS, LEVELS, MEANINGS, Level, OpenQuestCheck, level

NAME = "oq-system"
DIFFICULTIES = {"easy": 50, "simple": 20, "normal": 0, "difficult": -20, "hard": -50}  # OQS-1
LOW, HIGH = 0, 100  # OQS-1: the total is held to 0..100
MASTERY = 100
MASTER_RULES = ("value", "unmodified")
# Stand-ins for the seed's contest decision, which reads only who is a master (OQ9)
_MASTER, _ROLLER = OpenQuestCheck(skill=MASTERY), OpenQuestCheck(skill=0)

HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (OQS-2)",
    default={},
    fields=(
        Field(
            "master",
            "choice",
            "who does not roll: value (value and total both >= 100, OQS-2) or unmodified "
            "(value >= 100 whatever the modifiers, the seed's OQ3)",
            choices=MASTER_RULES,
            default="value",
        ),
    ),
)
SIDE_FIELDS = (
    Field(
        "skill",
        "int",
        "the skill's value %, may exceed 100 (OQS-1)",
        low=0,
        high=BIG,
        required=True,
    ),
    Field(
        "difficulty",
        "preset",
        "oq-system's difficulty: easy +50, simple +20, normal 0, difficult -20, hard -50 (OQS-1)",
        low=-BIG,
        high=BIG,
        default=0,
        presets=DIFFICULTIES,
    ),
    modifiers_field("other modifiers (OQS-1)"),
    DICE,
)
CHECK_FIELDS = (system_field(NAME), *SIDE_FIELDS, HOUSE_RULES)
CONTEST_FIELDS = (
    system_field(NAME),
    Field(
        "actor", "object", "the acting side (the seed's player)", required=True, fields=SIDE_FIELDS
    ),
    Field("opponent", "object", "the opposing side", required=True, fields=SIDE_FIELDS),
    HOUSE_RULES,
)
_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)


@dataclass(frozen=True)
class HouseRules:
    master: str = "value"

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)


@dataclass(frozen=True)
class OqsCheck:
    skill: int
    difficulty: int = 0
    modifiers: tuple[int, ...] = ()
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"house_rules": HouseRules})

    @property
    def total(self) -> int:  # OQS-1
        return min(max(self.skill + self.difficulty + sum(self.modifiers), LOW), HIGH)

    @property
    def master(self) -> bool:  # OQS-2, or the seed's OQ3 by house rule
        if self.house_rules.master == "unmodified":
            return self.skill >= MASTERY
        return self.skill >= MASTERY and self.total >= MASTERY

    def to_dict(self) -> dict[str, Any]:
        return check_dict(self)


@dataclass(frozen=True)
class OqsContest:
    actor: OqsCheck
    opponent: OqsCheck
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        contest_sides(self, CONTEST_FIELDS, OqsCheck, HouseRules)
        if self.actor.difficulty and self.opponent.difficulty:  # the seed's OQ8
            raise RuleRefusal(
                "opponent.difficulty",
                self.opponent.difficulty,
                "0 when actor.difficulty is set: only one side of an opposed test is modified",
                "difficulty set on both sides",
            )

    def to_dict(self) -> dict[str, Any]:
        sides = {}
        for name, side in (("actor", self.actor), ("opponent", self.opponent)):
            values: dict[str, Any] = plain(side)
            sides[name] = {k: v for k, v in values.items() if k in _SIDE_NAMES}
        return {"system": NAME, **sides, **house_dict(self.house_rules)}


def _side(values: Mapping[str, Any], house: HouseRules) -> OqsCheck:
    return OqsCheck(
        skill=values["skill"],
        difficulty=values["difficulty"],
        modifiers=values["modifiers"],
        dice=values["dice"],
        house_rules=house,
    )


def _why(check: OqsCheck, roll: int | None, lvl: str) -> str:
    if roll is None:
        return f"master (value {check.skill}, total {check.total}): {lvl} without rolling"
    raw = check.skill + check.difficulty + sum(check.modifiers)
    held = f" (held from {raw})" if raw != check.total else ""
    text = f"rolled {show_roll(roll)} vs {check.total}{held}: {lvl}"
    natural = level(roll, check.total, False)
    if lvl != natural:  # OQ9: a roller beaten by a master
        return f"{text} (a {natural} beaten by a master is a {lvl})"
    if roll == 100:
        return f"{text} (00 always fumbles)"
    if lvl in ("critical", "fumble"):
        return f"{text} (doubles)"
    return text


def _bands(total: int) -> str:
    if total >= MASTERY:
        return "every roll but 00 succeeds, doubles 11-99 critical, 00 fumbles"
    if total <= 0:
        return "every roll fails, doubles and 00 fumble"
    return (
        f"success 01-{show_roll(total)}, doubles critical under it and fumble over it, 00 fumbles"
    )


class OqSystem(Declared):
    name: str = NAME
    title: str = "OpenQuest (oq-system)"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS

    def parse_check(self, data: Mapping[str, Any]) -> OqsCheck:
        values = read(data, CHECK_FIELDS)
        return _side(values, house_from(values, HouseRules))

    def parse_contest(self, data: Mapping[str, Any]) -> OqsContest:
        values = read(data, CONTEST_FIELDS)
        house = house_from(values, HouseRules)
        return OqsContest(_side(values["actor"], house), _side(values["opponent"], house), house)

    def _result(
        self, check: OqsCheck, where: str, roll: int, record: Record, lvl: Level | None = None
    ) -> CheckResult:
        """``roll`` 0: the check was not rolled (a master)."""
        total = check.total
        lvl = lvl or level(roll or None, total, not roll)
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in self.success_levels,
            roll=roll or None,
            dice=tuple(record.get(dice_stream(where), ())),
            target=total,
            margin=total - roll if roll else None,
            explanation=_why(check, roll or None, lvl),
            request=check_data(check.to_dict()),
            bands=None if not roll else _bands(total),
        )

    def check_plan(self, check: OqsCheck) -> Plan[Any, CheckResult]:
        total, master = check.total, check.master
        machine: Machine[Any] = Fixed(0) if master else Roll(dice_stream(""))
        return Plan(
            machine=machine,
            given=given(dice_stream(""), check.dice),
            outcome=lambda roll: level(roll or None, total, master),
            build=lambda roll, rec: self._result(check, "", roll, rec),
            cost=100,
        )

    def contest_plan(self, contest: OqsContest) -> Plan[Any, ContestResult]:
        """The seed's OQ7-OQ9: a lone master does not roll; two masters, the actor rolls."""
        actor, opponent = contest.actor, contest.opponent
        both = actor.master and opponent.master
        actor_rolls, opponent_rolls = both or not actor.master, not opponent.master
        ta, to = actor.total, opponent.total
        a_machine: Machine[Any] = Roll("actor.dice") if actor_rolls else Fixed(0)
        o_machine: Machine[Any] = Roll("opponent.dice") if opponent_rolls else Fixed(0)
        a_stand = _MASTER if actor.master else _ROLLER
        o_stand = _MASTER if opponent.master else _ROLLER

        def decide(state: Any) -> tuple[Winner, Level, Level]:
            _, a, o = state
            a_lvl = level(a or None, ta, not actor_rolls)
            o_lvl = level(o or None, to, not opponent_rolls)
            return openquest._decide(a_stand, o_stand, a_lvl, a, o_lvl, o)

        def build(state: Any, record: Record) -> ContestResult:
            winner, a_lvl, o_lvl = decide(state)
            a = self._result(actor, "actor", state[1], record, a_lvl)
            o = self._result(opponent, "opponent", state[2], record, o_lvl)
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                explanation=openquest._contest_why(winner, a, o, both),
                request=contest_data(contest.to_dict()),
            )

        return Plan(
            machine=Then(a_machine, lambda _: o_machine),
            given={**given("actor.dice", actor.dice), **given("opponent.dice", opponent.dice)},
            outcome=lambda s: decide(s)[0],
            build=build,
            cost=200,
        )


# -- what the rest of the code reads (declarations.py) -----------------------------------------


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """oq-system offers a player nothing to add to a test."""
    return []


def _roller(check: OqsCheck) -> Roller | None:
    return None if check.dice is not None else Roller()


def _shape(check: OqsCheck) -> Hashable | None:
    """A check ends on its roll, or on none for a master."""
    return None if check.dice is not None else (check.master,)


def _shown(total: int, roll: int) -> tuple[Level, int]:
    return (level(roll, total, False), roll)


def _ranking(contest: OqsContest) -> RankedContest | None:
    """Two rolling sides are ranked as the seed ranks them (``openquest._beats``)."""
    sides = []
    for check in (contest.actor, contest.opponent):
        shape = _shape(check)
        if shape is None or check.master:  # masters (OQ9) are few and cheap: the reference
            return None
        sides.append(RankedSide(check, shape, check.total, partial(_shown, check.total)))
    return RankedContest(NAME, openquest._results, openquest._beats, (sides[0], sides[1]))


STYLES: Mapping[str, Style] = {
    "critical": "best",
    "success": "ok",
    "failure": "bad",
    "fumble": "worst",
}

DECLARATION = Declaration(
    target=Target(
        field="difficulty",
        label="Difficulty",
        presets=frozen_map(DIFFICULTIES),
        default="normal",
        harder=-1,
        example="difficult, or -20",
    ),
    skill_range=(0, BIG),
    words=Words(
        target="total",
        shortfall=None,
        bands=lambda result: result.bands or "a master does not roll",
    ),
    options=_options,
    sampler=_roller,
    fast=FastPath(
        inputs=frozenset({"skill", "difficulty", "modifiers", "dice", "house_rules.master"}),
        shape=_shape,
        key=lambda c: (c.total, c.master),
        ranking=_ranking,
    ),
    levels=tuple(
        LevelSpec(lvl, MEANINGS[lvl], ICONS[lvl], STYLES[lvl], lvl in ("critical", "success"))
        for lvl in LEVELS
    ),
)
OqSystem.declares = DECLARATION
SYSTEM = OqSystem()
