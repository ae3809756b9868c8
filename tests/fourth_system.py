"""A fourth, made-up percentile system, written as an outside author would: it declares itself
and touches nothing else in d100. Roll d100 <= skill + difficulty + modifiers; great on <= 1/10
of that (house rule ``share``: 10 or 5). Load it with ``D100_SYSTEMS=tests.fourth_system``."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from d100.declarations import Declaration, FastPath, LevelSpec, Option, Roller, Target, Words
from d100.fields import Field, read
from d100.machine import Then
from d100.results import CheckResult, ContestResult, Winner
from d100.system import Plan, Record
from d100.systems.common import DICE, Roll, given, modifiers_field, system_field

NAME = "percent"
LEVELS = ("great", "success", "failure")
PRESETS = {"easy": 10, "plain": 0, "hard": -10}
MEANINGS = {"great": "and then some", "success": "it works", "failure": "it does not"}
STYLES: Any = (("great", "!", "good"), ("success", "+", "ok"), ("failure", "-", "bad"))
SHARE = Field("share", "choice", "great on 1/share", choices=(10, 5), default=10)
HOUSE = Field("house_rules", "object", "house rules", default={}, fields=(SHARE,))
SIDE = (
    Field("skill", "int", "skill %", low=0, high=100, required=True),
    Field("difficulty", "preset", "difficulty", low=-100, high=100, default=0, presets=PRESETS),
    modifiers_field("modifiers"),
    DICE,
)
CHECK_FIELDS = (system_field(NAME), *SIDE, HOUSE)
SIDES = tuple(Field(n, "object", n, required=True, fields=SIDE) for n in ("actor", "opponent"))
CONTEST_FIELDS = (system_field(NAME), *SIDES, HOUSE)


@dataclass(frozen=True)
class Check:
    skill: int
    difficulty: int = 0
    modifiers: tuple[int, ...] = ()
    dice: tuple[int, ...] | None = None
    share: int = 10
    system: str = NAME

    @property
    def target(self) -> int:
        return self.skill + self.difficulty + sum(self.modifiers)

    def side(self) -> dict[str, Any]:
        out = {"skill": self.skill, "difficulty": self.difficulty, "modifiers": [*self.modifiers]}
        return out if self.dice is None else {**out, "dice": list(self.dice)}

    def to_dict(self) -> dict[str, Any]:
        house = {"house_rules": {"share": self.share}} if self.share != 10 else {}
        return {"system": NAME, **self.side(), **house}


@dataclass(frozen=True)
class Contest:
    actor: Check
    opponent: Check
    system: str = NAME

    def to_dict(self) -> dict[str, Any]:
        out = {"system": NAME, "actor": self.actor.side(), "opponent": self.opponent.side()}
        return {**out, **{k: v for k, v in self.actor.to_dict().items() if k == "house_rules"}}


def level(roll: int, target: int, share: int) -> str:
    return "great" if roll <= target // share else "success" if roll <= target else "failure"


def _check(values: Mapping[str, Any], share: int | None) -> Check:
    v = values
    return Check(v["skill"], v["difficulty"], v["modifiers"], v["dice"], share or 10)


class Percent:
    name, title, levels = NAME, "Percent", LEVELS
    success_levels = frozenset({"great", "success"})
    check_fields, contest_fields = CHECK_FIELDS, CONTEST_FIELDS
    meaning = staticmethod(MEANINGS.__getitem__)

    def parse_check(self, data: Mapping[str, Any]) -> Check:
        values = read(data, CHECK_FIELDS)
        return _check(values, values["house_rules"].get("share"))

    def parse_contest(self, data: Mapping[str, Any]) -> Contest:
        values = read(data, CONTEST_FIELDS)
        share = values["house_rules"].get("share")
        return Contest(_check(values["actor"], share), _check(values["opponent"], share))

    def _result(self, check: Check, roll: int, record: Record, where: str) -> CheckResult:
        lvl, t, dice = level(roll, check.target, check.share), check.target, tuple(record[where])
        why, request = f"rolled {roll} vs {t}: {lvl}", check.to_dict()
        return CheckResult(NAME, lvl, lvl != "failure", roll, dice, t, t - roll, why, request)

    def check_plan(self, check: Check) -> Plan[Any, CheckResult]:
        return Plan(
            machine=Roll("dice"),
            given=given("dice", check.dice),
            outcome=lambda s: level(s, check.target, check.share),
            build=lambda s, rec: self._result(check, s, rec, "dice"),
            cost=100,
        )

    def contest_plan(self, contest: Contest) -> Plan[Any, ContestResult]:
        a, o = contest.actor, contest.opponent

        def decide(state: Any) -> Winner:  # the better level, then the lower roll
            ka, ko = (
                (LEVELS.index(level(state[1], a.target, a.share)), state[1]),
                (LEVELS.index(level(state[2], o.target, o.share)), state[2]),
            )
            return "tie" if ka == ko else "actor" if ka < ko else "opponent"

        def build(state: Any, rec: Record) -> ContestResult:
            sides = (
                self._result(a, state[1], rec, "actor.dice"),
                self._result(o, state[2], rec, "opponent.dice"),
            )
            return ContestResult(NAME, decide(state), *sides, "contest", contest.to_dict())

        return Plan(
            machine=Then(Roll("actor.dice"), lambda _: Roll("opponent.dice")),
            given={**given("actor.dice", a.dice), **given("opponent.dice", o.dice)},
            outcome=decide,
            build=build,
            cost=200,
        )


def _options(base: dict[str, Any], luck: int | None, helpers: Any) -> list[Option]:
    easier = {**base, "difficulty": base.get("difficulty", 0) + 10}
    return [Option("take it easy", "twice the time", lambda r: easier)]


Percent.declares = Declaration(  # type: ignore[attr-defined]
    target=Target("difficulty", "Difficulty", PRESETS, "plain", -1, "hard, or -10"),
    skill_range=(0, 100),
    words=Words("target", None, str),
    levels=tuple(LevelSpec(n, MEANINGS[n], m, s, n != "failure") for n, m, s in STYLES),
    options=_options,
    sampler=lambda c: None if c.dice is not None else Roller(),
    fast=FastPath(
        inputs=frozenset({"skill", "difficulty", "modifiers", "dice", "house_rules.share"}),
        shape=lambda c: None if c.dice is not None else (),
        key=lambda c: (c.target, c.share),
    ),
)
SYSTEM = Percent()
