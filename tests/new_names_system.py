"""A made-up system whose every name is new: the system, its levels, its target and presets,
its fields, flags, quick words, house rules and the tie-break of its contests. No reader of
d100 knows any of them, so everything that works with it works from its declaration alone.

Omens: roll d100 <= skill + peril + modifiers + 5 per favour (+10 for reading the omen, one
Luck). ``doom`` on ``doom_from`` or more, else ``triumph`` on <= 1/share of the target,
``boon`` on <= half, ``scrape`` on <= the target, else ``miss``. ``second_sight`` rerolls a miss
or a doom, one Luck each; a ``stake`` is a value taken instead of rolling. In a contest the
better level wins, and equal levels are settled by drawing lots. Load it with
``D100_SYSTEMS=tests.new_names_system``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from d100.declarations import (
    Cover,
    Declaration,
    LevelSpec,
    Luck,
    Option,
    Roller,
    Take,
    Target,
    TieBreak,
    Words,
)
from d100.dice import show_roll
from d100.errors import RuleRefusal
from d100.fields import Field, read
from d100.machine import Fixed, Given, Machine, Repeat, Then
from d100.results import CheckResult, ContestResult, Winner
from d100.system import Plan, Record, replay
from d100.systems.common import DICE, Roll, modifiers_field, system_field

NAME = "omens"
RECORDS = (  # best first: name, meaning, mark, style, success
    LevelSpec("triumph", "the omens sing: more than was hoped", "☼", "best", True),
    LevelSpec("boon", "a clear yes", "◎", "good", True),
    LevelSpec("scrape", "just enough", "○", "ok", True),
    LevelSpec("miss", "not this time", "◌", "bad", False),
    LevelSpec("doom", "the omens turn: a miss, and worse follows", "✝", "worst", False),
)
LEVELS = tuple(r.name for r in RECORDS)
FAILED = frozenset(r.name for r in RECORDS if not r.success)
PERILS = {"calm": 10, "stormy": 0, "dire": -20, "cursed": -40}
FAVOUR, OMEN = 5, 10
LOTS = ("actor", "opponent")

HOUSE = Field(
    "house_rules",
    "object",
    "the table's options",
    default={},
    fields=(
        Field("doom_from", "int", "doom on this roll or more", low=90, high=100, default=96),
        Field("triumph_share", "choice", "triumph on 1/share", choices=(10, 5), default=10),
    ),
)
_SIDE = (
    Field("skill", "int", "how good at it, in %", low=0, high=200, required=True),
    Field("peril", "preset", "how dangerous", low=-100, high=100, default=0, presets=PERILS),
    modifiers_field("anything else that helps or hinders"),
    Field(
        "favour",
        "int",
        "favours owed, +5 each",
        low=0,
        high=3,
        default=0,
        flags=("--favour", "-F"),
        words=("fav", "fav#", "favour#"),
    ),
)
STAKE = Field(
    "stake",
    "choice",
    "a value staked instead of rolling",
    choices=(None, 25, 75),
    words=("stake#",),
)
CHECK_FIELDS = (
    system_field(NAME),
    *_SIDE,
    Field(
        "omen",
        "bool",
        "read the omen: 1 Luck for +10",
        default=False,
        flags=("--read-omen",),
        words=("omen",),
    ),
    Field(
        "second_sight",
        "int",
        "rerolls of a miss or a doom, 1 Luck each",
        low=0,
        high=3,
        default=0,
        words=("sight", "sight#"),
    ),
    STAKE,
    DICE,
    HOUSE,
)
SIDE_FIELDS = (*_SIDE, STAKE, DICE)
CONTEST_FIELDS = (
    system_field(NAME),
    *(Field(n, "object", f"the {n}", required=True, fields=SIDE_FIELDS) for n in LOTS),
    Field("lots", "choice", "the lots drawn on equal levels", choices=(None, *LOTS)),
    Field(
        "yield_to",
        "choice",
        "the side equal levels go to, no lots drawn; absent: lots are drawn",
        choices=(None, *LOTS),
    ),
    HOUSE,
)


@dataclass(frozen=True)
class Check:
    skill: int
    peril: int = 0
    modifiers: tuple[int, ...] = ()
    favour: int = 0
    omen: bool = False
    second_sight: int = 0
    stake: int | None = None
    dice: tuple[int, ...] | None = None
    house: tuple[int, int] = (96, 10)  # doom_from, triumph_share
    system: str = NAME

    @property
    def target(self) -> int:
        return (
            self.skill + self.peril + sum(self.modifiers) + FAVOUR * self.favour + OMEN * self.omen
        )

    def side(self) -> dict[str, Any]:
        out: dict[str, Any] = {"skill": self.skill, "peril": self.peril}
        out.update(modifiers=list(self.modifiers), favour=self.favour)
        if self.stake is not None:
            out["stake"] = self.stake
        return out if self.dice is None else {**out, "dice": list(self.dice)}

    def house_dict(self) -> dict[str, Any]:
        rules = dict(zip(("doom_from", "triumph_share"), self.house, strict=True))
        changed = {k: v for k, v in rules.items() if v != {"doom_from": 96}.get(k, 10)}
        return {"house_rules": changed} if changed else {}

    def to_dict(self) -> dict[str, Any]:
        out = {"system": NAME, **self.side(), "omen": self.omen}
        return {**out, "second_sight": self.second_sight, **self.house_dict()}


@dataclass(frozen=True)
class Contest:
    actor: Check
    opponent: Check
    lots: str | None = None
    yield_to: str | None = None
    system: str = NAME

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"system": NAME, "actor": self.actor.side()}
        out["opponent"] = self.opponent.side()
        own = {k: v for k, v in (("lots", self.lots), ("yield_to", self.yield_to)) if v}
        return {**out, **own, **self.actor.house_dict()}


def level(roll: int, target: int, house: tuple[int, int]) -> str:
    doom_from, share = house
    if roll >= doom_from:
        return "doom"
    if roll <= target // share:
        return "triumph"
    return "boon" if roll <= target // 2 else "scrape" if roll <= target else "miss"


def _check(v: Mapping[str, Any], house: Mapping[str, Any], where: str = "") -> Check:
    stake = v["stake"]
    if stake is not None and (v["dice"] is not None or v.get("second_sight")):
        raise RuleRefusal(f"{where}stake", stake, "no dice and no second sight", "staked")
    rules = (house.get("doom_from") or 96, house.get("triumph_share") or 10)
    return Check(
        v["skill"], v["peril"], v["modifiers"], v["favour"], v.get("omen", False),
        v.get("second_sight", 0), stake, v["dice"], rules,
    )  # fmt: skip


class Omens:
    name, title, levels = NAME, "Omens", LEVELS
    success_levels = frozenset(LEVELS) - FAILED
    check_fields, contest_fields = CHECK_FIELDS, CONTEST_FIELDS
    meaning = staticmethod({r.name: r.meaning for r in RECORDS}.__getitem__)

    def parse_check(self, data: Mapping[str, Any]) -> Check:
        values = read(data, CHECK_FIELDS)
        return _check(values, values["house_rules"])

    def parse_contest(self, data: Mapping[str, Any]) -> Contest:
        v = read(data, CONTEST_FIELDS)
        if any(v[s]["stake"] == 75 for s in LOTS):
            raise RuleRefusal("stake", 75, "25 in a contest", "staked 75 in a contest")
        sides = (_check(v[s], v["house_rules"], f"{s}.") for s in LOTS)
        return Contest(*sides, lots=v["lots"], yield_to=v["yield_to"])

    def _machine(self, check: Check, stream: str) -> Machine[Any]:
        """Final state: (rerolls taken, roll, True)."""
        one: Machine[Any] = Fixed(check.stake) if check.stake else Roll(stream)
        t = check.target
        return Repeat(one, check.second_sight, lambda r: level(r, t, check.house) in FAILED)

    def _result(self, check: Check, state: Any, record: Record, stream: str) -> CheckResult:
        taken, roll, _ = state
        lvl, t = level(roll, check.target, check.house), check.target
        dice = tuple(record.get(stream, ()))
        why = f"{'staked' if check.stake else 'rolled'} {show_roll(roll)} vs {t}: {lvl}"
        spent = taken + (1 if check.omen else 0)
        return CheckResult(
            NAME, lvl, lvl not in FAILED, roll, dice, t, t - roll, why, check.to_dict(),
            luck_spent=spent, attempts=dice if len(dice) > 1 else (),
        )  # fmt: skip

    def check_plan(self, check: Check) -> Plan[Any, CheckResult]:
        given = {} if check.dice is None else {"dice": Given(check.dice)}
        return Plan(
            machine=self._machine(check, "dice"),
            given=given,
            outcome=lambda s: level(s[1], check.target, check.house),
            build=lambda s, rec: self._result(check, s, rec, "dice"),
            luck_spent=lambda s: s[0] + (1 if check.omen else 0),
            cost=100 * (check.second_sight + 1),
        )

    def contest_plan(self, contest: Contest) -> Plan[Any, ContestResult]:
        a, o = contest.actor, contest.opponent
        a_m, o_m = self._machine(a, "actor.dice"), self._machine(o, "opponent.dice")

        def rank(check: Check, state: Any) -> int:
            return LEVELS.index(level(state[1], check.target, check.house))

        def tied(pair: Any) -> bool:
            return rank(a, pair[1]) == rank(o, pair[2])

        sides: Machine[Any] = Then(a_m, lambda _: o_m)
        lots = Roll("lots", high=len(LOTS))
        drawn = contest.yield_to is None  # else equal levels go to the side named
        machine = Then(sides, lambda tie: lots if tie and drawn else Fixed(None), route=tied)

        def decide(state: Any) -> Winner:
            ra, ro = rank(a, state[1][1]), rank(o, state[1][2])
            if ra != ro:
                return "actor" if ra < ro else "opponent"
            if contest.yield_to is not None:
                return "actor" if contest.yield_to == "actor" else "opponent"
            return "actor" if state[2] == 1 else "opponent"

        def build(state: Any, rec: Record) -> ContestResult:
            actor = self._result(a, replay(a_m, rec), rec, "actor.dice")
            opponent = self._result(o, replay(o_m, rec), rec, "opponent.dice")
            drawn = None if state[2] is None else LOTS[state[2] - 1]
            why = f"{decide(state)} wins" + (f" by lots ({drawn})" if drawn else "")
            return ContestResult(
                NAME, decide(state), actor, opponent, why, contest.to_dict(), coin=drawn
            )

        given = {
            f"{w}.dice": Given(c.dice)
            for w, c in zip(LOTS, (a, o), strict=True)
            if c.dice is not None
        }
        if contest.lots is not None:
            given["lots"] = Given((LOTS.index(contest.lots) + 1,), spare=True)
        return Plan(machine=machine, given=given, outcome=decide, build=build, cost=20_200)


def _options(base: dict[str, Any], luck: int | None, helpers: Any) -> list[Option]:
    out = []
    if not base.get("omen"):
        out.append(Option("read the omen", "1 Luck", lambda r: {**r, "omen": True}, LUCK.cost_of))
    if base.get("stake") is None and not base.get("second_sight"):
        out.append(Option("stake 25", "no roll", lambda r: {**r, "stake": 25}, LUCK.cost_of))
    return out


def _roller(check: Check) -> Roller | None:
    plain = check.dice is None and not check.second_sight and check.stake is None
    return Roller() if plain else None


def commands(text: str) -> dict[str, Any] | None:
    """The chat-bot form ``OMEN<=60`` or ``OMEN<=60/dire``: a skill, then a peril."""
    found = re.fullmatch(r"omen<=(\d+)(?:/([a-z]+))?", text.strip().lower())
    if found is None:
        return None
    return {"system": NAME, "skill": int(found[1]), **({"peril": found[2]} if found[2] else {})}


LUCK = Luck("omen", OMEN, "second_sight", None, 20, "1 Luck to read the omen (+10) or per reroll")
DECLARATION = Declaration(
    target=Target("peril", "Peril", PERILS, "stormy", -1, "dire, or -20"),
    skill_range=(0, 200),
    words=Words("target", "points short", lambda r: f"triumph <= {r.target // 10}"),
    options=_options,
    sampler=_roller,
    luck=LUCK,
    take=Take("stake", (25, 75), (25,), {25: "a small stake", 75: "a bold stake"}),
    levels=RECORDS,
    tie_break=TieBreak("lots", LOTS),
    commands=commands,
    cover=Cover("a ward's strength: a miss by fewer points strikes the ward", lambda r, n: (
        not r.success and -(r.margin or 0) < n
    )),
)  # fmt: skip
Omens.declares = DECLARATION  # type: ignore[attr-defined]
SYSTEM = Omens()
