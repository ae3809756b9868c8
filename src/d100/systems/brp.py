"""Basic Roleplaying's percentile roll: fractions of effective skill, fumbles on 96-100,
bonus/penalty dice, aiming, Luck (BRP1-BRP8)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..dice import read_digits, show_roll
from ..errors import D100Error
from ..fields import BIG, Field, read
from ..machine import Given, Machine, Need, Then, d100
from ..results import CheckResult, ContestResult, Winner
from ..system import Plan, Record
from .common import DICE, dice_stream, modifiers_field, plain, rolls, system_field

NAME = "brp"
LEVELS = ("critical", "special", "success", "failure", "fumble")
FAILED = frozenset({"failure", "fumble"})
RANK = {"critical": 4, "special": 3, "success": 2, "failure": 1}
DIFFICULTIES = {  # BRP2
    "routine": 20,
    "standard": 0,
    "difficult": -20,
    "hard": -40,
    "extreme": -60,
    "near-impossible": -80,
}
FUMBLE_FROM = 96
AIM_STEP, AIM_CAP = 20, 60  # BRP5
LUCK_BOOST = 20  # BRP7
MAX_EXTRA_DICE = 2
MAX_LUCK = 100

MEANINGS = {  # BRP8
    "critical": "accomplishes more: faster, quieter, more complete, or reveals a useful extra fact",
    "special": "notably effective",
    "success": "it works",
    "failure": "the situation moves forward with a cost, complication, lost time or new danger",
    "fumble": "failure with an added complication",
}

HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (BRP3, BRP4, BRP7)",
    default={},
    fields=(
        Field(
            "threshold_rounding",
            "choice",
            "how 5% and 20% of skill round (BRP3)",
            choices=("floor", "nearest", "ceil"),
            default="floor",
        ),
        Field(
            "bonus_dice_method",
            "choice",
            "d100: roll whole d100s; tens: share a units die (BRP4)",
            choices=("d100", "tens"),
            default="d100",
        ),
        Field(
            "max_luck_rerolls",
            "int",
            "the most Luck rerolls one check may take (BRP7)",
            low=0,
            high=MAX_LUCK,
        ),
    ),
)
_COMMON = (
    Field("skill", "int", "trained skill %, may exceed 100 (BRP1)", low=0, high=BIG, required=True),
    Field(
        "difficulty",
        "preset",
        "difficulty grade (BRP2)",
        low=-BIG,
        high=BIG,
        default=0,
        presets=DIFFICULTIES,
    ),
    modifiers_field("other modifiers: situation and the like (BRP1)"),
    Field("bonus_dice", "int", "bonus dice (BRP4)", low=0, high=MAX_EXTRA_DICE, default=0),
    Field("penalty_dice", "int", "penalty dice (BRP4)", low=0, high=MAX_EXTRA_DICE, default=0),
    Field(
        "aim_rounds",
        "int",
        "full rounds aimed, +20 each up to +60 (BRP5)",
        low=0,
        high=BIG,
        default=0,
    ),
    Field("luck_boost", "bool", "spend 1 Luck for +20 before rolling (BRP7)", default=False),
)
SIDE_FIELDS = (*_COMMON, DICE)
CHECK_FIELDS = (
    system_field(NAME),
    *_COMMON,
    Field(
        "luck_rerolls",
        "int",
        "at most this many Luck rerolls, spent only on failure (BRP7)",
        low=0,
        high=MAX_LUCK,
        default=0,
    ),
    HOUSE_RULES,
    DICE,
)
CONTEST_FIELDS = (
    system_field(NAME),
    Field("actor", "object", "the acting side", required=True, fields=SIDE_FIELDS),
    Field("opponent", "object", "the opposing side", required=True, fields=SIDE_FIELDS),
    HOUSE_RULES,
)


@dataclass(frozen=True)
class HouseRules:
    threshold_rounding: str = "floor"
    bonus_dice_method: str = "d100"
    max_luck_rerolls: int | None = None


@dataclass(frozen=True)
class BrpCheck:
    skill: int
    difficulty: int = 0
    modifiers: tuple[int, ...] = ()
    bonus_dice: int = 0
    penalty_dice: int = 0
    aim_rounds: int = 0
    luck_boost: bool = False
    luck_rerolls: int = 0
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    @property
    def aim_bonus(self) -> int:
        return min(AIM_STEP * self.aim_rounds, AIM_CAP)

    @property
    def effective(self) -> int:  # BRP1: everything first, then the clamp to 1..100
        raw = self.skill + self.difficulty + sum(self.modifiers) + self.aim_bonus
        return min(max(raw + (LUCK_BOOST if self.luck_boost else 0), 1), 100)

    @property
    def net_dice(self) -> int:  # BRP4: bonus and penalty dice cancel one for one
        return self.bonus_dice - self.penalty_dice

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = plain(self)
        del out["house_rules"]
        return {**out, **_house_dict(self.house_rules)}


@dataclass(frozen=True)
class BrpContest:
    actor: BrpCheck
    opponent: BrpCheck
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def to_dict(self) -> dict[str, Any]:
        sides = {}
        for name, side in (("actor", self.actor), ("opponent", self.opponent)):
            values: dict[str, Any] = plain(side)
            sides[name] = {k: v for k, v in values.items() if k in _SIDE_NAMES}
        return {"system": NAME, **sides, **_house_dict(self.house_rules)}


_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)


def _house_dict(house: HouseRules) -> dict[str, Any]:
    """The house rules that differ from the defaults, as the request would say them."""
    changed = {k: v for k, v in plain(house).items() if v != getattr(HouseRules, k)}
    return {"house_rules": changed} if changed else {}


def _rnd(n: int, d: int, mode: str) -> int:
    if mode == "nearest":  # half up
        return (2 * n + d) // (2 * d)
    if mode == "ceil":
        return -(-n // d)
    return n // d


@lru_cache(maxsize=1024)  # a level asks for the same skill's bands at every roll
def thresholds(effective: int, rounding: str = "floor") -> tuple[int, int]:
    """(critical, special) thresholds: 5% with a minimum of 1, and 20% (BRP3)."""
    return max(1, _rnd(effective, 20, rounding)), _rnd(effective, 5, rounding)


def level(roll: int, effective: int, rounding: str = "floor") -> str:
    """BRP3, checked in order: a fumble first, even under the skill."""
    critical, special = thresholds(effective, rounding)
    if roll >= FUMBLE_FROM:
        return "fumble"
    if roll <= critical:
        return "critical"
    if roll <= special:
        return "special"
    if roll <= effective:
        return "success"
    return "failure"


def bands(effective: int, rounding: str = "floor") -> str:
    critical, special = thresholds(effective, rounding)
    return f"criticals {_span(1, critical)}, specials {_span(critical + 1, special)}"


def _span(lo: int, hi: int) -> str:
    if lo > hi:
        return "none"
    return show_roll(lo) if lo == hi else f"{show_roll(lo)}-{show_roll(hi)}"


class Attempts:
    """Rolls until a check stands: each attempt keeps the lowest (bonus) or highest (penalty) of
    its dice; a failed attempt is rerolled while Luck rerolls remain (BRP4, BRP7).

    Rolling states are (attempt, dice taken, kept so far); a final state is (attempt, -1, kept).
    Under the tens method one draw is a whole attempt: a units digit and k+1 tens digits.
    """

    def __init__(self, check: BrpCheck, stream: str, rerolls: int) -> None:
        self.stream = stream
        self.effective = check.effective
        self.rounding = check.house_rules.threshold_rounding
        self.lower = check.net_dice >= 0
        self.count = abs(check.net_dice) + 1
        self.tens = check.house_rules.bonus_dice_method == "tens" and self.count > 1
        self.rerolls = rerolls

    def start(self) -> tuple[int, int, int]:
        return (0, 0, 0)

    def need(self, state: tuple[int, int, int]) -> Need | None:
        if state[1] < 0:
            return None
        if self.tens:
            return Need(self.stream, 0, 10 ** (self.count + 1) - 1)
        return d100(self.stream)

    def keep(self, values: list[int] | tuple[int, ...]) -> int:
        return min(values) if self.lower else max(values)

    def values(self, draw: int) -> tuple[int, ...]:
        """The d100 values one draw stands for: itself, or a tens-method group."""
        if not self.tens:
            return (draw,)
        units, tens = draw % 10, draw // 10
        return tuple(read_digits((tens // 10**i) % 10, units) for i in range(self.count))

    def advance(self, state: tuple[int, int, int], value: int) -> tuple[int, int, int]:
        attempt, taken, kept = state
        if self.tens:
            kept, taken = self.keep(self.values(value)), self.count
        elif taken == 0:
            kept, taken = value, 1
        else:
            if self.lower:  # as ``keep``: min and max, written out for the hot path
                kept = kept if kept <= value else value
            else:
                kept = kept if kept >= value else value
            taken += 1
        if taken < self.count:
            return (attempt, taken, kept)
        # The reroll test first: without rerolls left, no level is needed (the hot path of
        # enumeration); the level decides exactly as before when one is.
        if attempt < self.rerolls and level(kept, self.effective, self.rounding) in FAILED:
            return (attempt + 1, 0, 0)
        return (attempt, -1, kept)

    def encode(self, given: tuple[int, ...], field_name: str) -> Given:
        """Given dice as draws; under tens each group of k+1 values must share its units."""
        if not self.tens:
            return Given(given)
        k = self.count
        if len(given) % k:
            raise D100Error(
                field_name,
                list(given),
                f"groups of {k} values, one group per roll",
                f"{len(given)} values do not make whole groups of {k}",
            )
        draws = []
        for i in range(0, len(given), k):
            group = given[i : i + k]
            if len({v % 10 for v in group}) != 1:
                raise D100Error(
                    field_name,
                    list(group),
                    "under bonus_dice_method tens, the values of one roll share their units digit",
                    f"values {rolls(group)} do not share a units digit",
                )
            tens = sum(((v // 10) % 10) * 10**j for j, v in enumerate(group))
            draws.append(group[0] % 10 + 10 * tens)
        return Given(tuple(draws), per_draw=k)


def luck_cost(check: BrpCheck, rerolls: int) -> int:
    """BRP7: one point for the boost, one per reroll taken."""
    return rerolls + (1 if check.luck_boost else 0)


def _check(values: Mapping[str, Any], house: HouseRules, rerolls: int = 0) -> BrpCheck:
    return BrpCheck(
        skill=values["skill"],
        difficulty=values["difficulty"],
        modifiers=values["modifiers"],
        bonus_dice=values["bonus_dice"],
        penalty_dice=values["penalty_dice"],
        aim_rounds=values["aim_rounds"],
        luck_boost=values["luck_boost"],
        luck_rerolls=rerolls,
        dice=values["dice"],
        house_rules=house,
    )


class Brp:
    name: str = NAME
    title: str = "Basic Roleplaying"
    levels: tuple[str, ...] = LEVELS
    success_levels: frozenset[str] = frozenset({"critical", "special", "success"})
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS

    def meaning(self, lvl: str) -> str:
        return MEANINGS[lvl]

    def parse_check(self, data: Mapping[str, Any]) -> BrpCheck:
        values = read(data, CHECK_FIELDS)
        house = HouseRules(**{k: v for k, v in values["house_rules"].items() if v is not None})
        limit = house.max_luck_rerolls
        if limit is not None and values["luck_rerolls"] > limit:
            raise D100Error(
                "luck_rerolls",
                values["luck_rerolls"],
                f"at most {limit} (house rule max_luck_rerolls)",
                "too many rerolls",
            )
        return _check(values, house, values["luck_rerolls"])

    def parse_contest(self, data: Mapping[str, Any]) -> BrpContest:
        values = read(data, CONTEST_FIELDS)
        house = HouseRules(**{k: v for k, v in values["house_rules"].items() if v is not None})
        return BrpContest(_check(values["actor"], house), _check(values["opponent"], house), house)

    def _side(self, check: BrpCheck, where: str) -> tuple[Attempts, dict[str, Given]]:
        stream = dice_stream(where)
        machine = Attempts(check, stream, check.luck_rerolls)
        given = {} if check.dice is None else {stream: machine.encode(check.dice, stream)}
        return machine, given

    def _result(
        self, check: BrpCheck, machine: Attempts, state: tuple[int, int, int], record: Record
    ) -> CheckResult:
        attempt, _, kept = state
        draws = record.get(machine.stream, [])
        dice = tuple(v for d in draws for v in machine.values(d))
        per = machine.count
        groups = [dice[i : i + per] for i in range(0, len(dice), per)]
        kept_each = tuple(machine.keep(g) for g in groups)
        e = check.effective
        rounding = check.house_rules.threshold_rounding
        lvl = level(kept, e, rounding)
        how = ""
        if per > 1:
            how = f" ({'lower' if machine.lower else 'higher'} of {rolls(groups[-1])})"
        why = f"rolled {show_roll(kept)}{how} vs {e}: {lvl} ({bands(e, rounding)})"
        if attempt:
            why += f"; after {attempt} Luck reroll{'s' if attempt > 1 else ''} of " + rolls(
                kept_each[:-1]
            )
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in self.success_levels,
            roll=kept,
            dice=dice,
            target=e,
            margin=e - kept,
            explanation=why,
            request=check.to_dict(),
            luck_spent=luck_cost(check, attempt),
            attempts=kept_each,
            bands=bands(e, rounding),
        )

    def check_plan(self, check: BrpCheck) -> Plan[Any, CheckResult]:
        machine, given = self._side(check, "")
        e, rounding = check.effective, check.house_rules.threshold_rounding  # read once
        return Plan(
            machine=machine,
            given=given,
            outcome=lambda s: level(s[2], e, rounding),
            build=lambda s, rec: self._result(check, machine, s, rec),
            luck_spent=lambda s: luck_cost(check, s[0]),
        )

    def contest_plan(self, contest: BrpContest) -> Plan[Any, ContestResult]:
        a_machine, a_given = self._side(contest.actor, "actor")
        o_machine, o_given = self._side(contest.opponent, "opponent")
        machine: Machine[Any] = Then(a_machine, lambda _: o_machine)
        rounding = contest.house_rules.threshold_rounding

        def decide(state: Any) -> Winner:
            _, (_, _, a), (_, _, o) = state
            ea, eo = contest.actor.effective, contest.opponent.effective
            return opposed(level(a, ea, rounding), a, ea, level(o, eo, rounding), o, eo)

        def build(state: Any, record: Record) -> ContestResult:
            winner = decide(state)
            a = self._result(contest.actor, a_machine, state[1], record)
            o = self._result(contest.opponent, o_machine, state[2], record)
            verdict = "tie" if winner == "tie" else f"{winner} wins"
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                explanation=f"{verdict} — actor {a.explanation}; opponent {o.explanation}",
                request=contest.to_dict(),
            )

        return Plan(machine=machine, given={**a_given, **o_given}, outcome=decide, build=build)


def opposed(a: str, a_roll: int, a_e: int, o: str, o_roll: int, o_e: int) -> Winner:
    """BRP6: a fumble loses to anything but a fumble; then the higher level; then the lower
    roll among successes, or the roll closest to its own target among failures."""
    if (a == "fumble") != (o == "fumble"):
        return "opponent" if a == "fumble" else "actor"
    ra, ro = RANK.get(a, 1), RANK.get(o, 1)
    if ra != ro:
        return "actor" if ra > ro else "opponent"
    if ra >= RANK["success"]:
        key_a, key_o = a_roll, o_roll
    else:
        key_a, key_o = abs(a_roll - a_e), abs(o_roll - o_e)
    if key_a == key_o:
        return "tie"
    return "actor" if key_a < key_o else "opponent"
