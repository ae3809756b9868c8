"""Basic Roleplaying's percentile roll: fractions of effective skill, fumbles on 96-100,
bonus/penalty dice, aiming, Luck (BRP1-BRP8)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial
from itertools import repeat
from typing import Any, Literal, get_args

from ..declarations import (
    Aim,
    Declaration,
    ExtraDice,
    FastPath,
    LevelSpec,
    Luck,
    Option,
    RankedContest,
    RankedSide,
    Roller,
    Style,
    Target,
    Words,
    frozen_map,
)
from ..dice import read_digits, show_roll, show_span
from ..errors import D100Error, DiceError, RuleRefusal
from ..fields import BIG, Field, read, validate
from ..machine import Given, Kept, Machine, Need, Repeat, Then, d100
from ..memo import memoised
from ..results import CheckResult, ContestResult, Winner, check_data, contest_data
from ..system import Declared, Plan, Record
from . import brp_experience
from .common import (
    DICE,
    check_dict,
    contest_sides,
    dice_stream,
    house_dict,
    house_from,
    modifiers_field,
    plain,
    rolls,
    system_field,
)

NAME = "brp"
Level = Literal["critical", "special", "success", "failure", "fumble"]  # best first
LEVELS: tuple[Level, ...] = get_args(Level)
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
UNKNOWN_LUCK = 3  # the rerolls advice offers when it does not know a character's Luck

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
        flags=("--difficulty", "-d"),
    ),
    modifiers_field("other modifiers: situation and the like (BRP1)"),
    Field(
        "bonus_dice",
        "int",
        "bonus dice (BRP4)",
        low=0,
        high=MAX_EXTRA_DICE,
        default=0,
        flags=("--bonus", "-b"),
        words=("b", "b#", "bonus", "bonus#"),
    ),
    Field(
        "penalty_dice",
        "int",
        "penalty dice (BRP4)",
        low=0,
        high=MAX_EXTRA_DICE,
        default=0,
        flags=("--penalty", "-p"),
        words=("p", "p#", "penalty", "penalty#"),
    ),
    Field(
        "aim_rounds",
        "int",
        "full rounds aimed, +20 each up to +60 (BRP5)",
        low=0,
        high=BIG,
        default=0,
        flags=("--aim",),
        words=("aim", "aim#"),
    ),
    Field(
        "luck_boost",
        "bool",
        "spend 1 Luck for +20 before rolling (BRP7)",
        default=False,
        flags=("--luck-boost", "--boost"),
        words=("boost", "luck"),
    ),
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
        flags=("--luck-rerolls", "--reroll"),
        words=("reroll", "reroll#"),
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

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)


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

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"house_rules": HouseRules})
        limit = self.house_rules.max_luck_rerolls
        if limit is not None and self.luck_rerolls > limit:
            raise RuleRefusal(
                "luck_rerolls",
                self.luck_rerolls,
                f"at most {limit} (house rule max_luck_rerolls)",
                "too many rerolls",
            )

    @property
    def aim_bonus(self) -> int:
        return min(AIM_STEP * self.aim_rounds, AIM_CAP)

    @cached_property  # read by the odds' key, cuts and plan alike: worked out once
    def effective(self) -> int:  # BRP1: everything first, then the clamp to 1..100
        raw = self.skill + self.difficulty + sum(self.modifiers) + self.aim_bonus
        return min(max(raw + (LUCK_BOOST if self.luck_boost else 0), 1), 100)

    @property
    def net_dice(self) -> int:  # BRP4: bonus and penalty dice cancel one for one
        return self.bonus_dice - self.penalty_dice

    def to_dict(self) -> dict[str, Any]:
        return check_dict(self)


@dataclass(frozen=True)
class BrpContest:
    actor: BrpCheck
    opponent: BrpCheck
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        for name, side in contest_sides(self, CONTEST_FIELDS, BrpCheck, HouseRules):
            if side.luck_rerolls:
                raise D100Error(
                    f"{name}.luck_rerolls",
                    side.luck_rerolls,
                    "0: Luck rerolls are for a single check",
                    "rerolls in a contest",
                )

    def to_dict(self) -> dict[str, Any]:
        sides = {}
        for name, side in (("actor", self.actor), ("opponent", self.opponent)):
            values: dict[str, Any] = plain(side)
            sides[name] = {k: v for k, v in values.items() if k in _SIDE_NAMES}
        return {"system": NAME, **sides, **house_dict(self.house_rules)}


_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)


def _rnd(n: int, d: int, mode: str) -> int:
    if mode == "nearest":  # half up
        return (2 * n + d) // (2 * d)
    if mode == "ceil":
        return -(-n // d)
    return n // d


@memoised(1024)  # a level asks for the same skill's bands at every roll
def thresholds(effective: int, rounding: str = "floor") -> tuple[int, int]:
    """(critical, special) thresholds: 5% with a minimum of 1, and 20% (BRP3)."""
    return max(1, _rnd(effective, 20, rounding)), _rnd(effective, 5, rounding)


def level(roll: int, effective: int, rounding: str = "floor") -> Level:
    """BRP3, checked in order: a fumble first, even under the skill."""
    critical, special = thresholds(effective, rounding)
    return banded(roll, critical, special, effective)


def banded(roll: int, critical: int, special: int, effective: int) -> Level:
    """``level`` with the thresholds already worked out: a plan names every state with it."""
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
    return f"criticals {show_span(1, critical)}, specials {show_span(critical + 1, special)}"


Final = tuple[int, tuple[int, int], bool]  # (Luck rerolls taken, (-1, kept die), True)


@memoised(16)
def tens_kept(count: int, lower: bool) -> tuple[int, ...]:
    """Every tens-method draw's kept value, indexed by the draw: ``count`` tens digits read
    over one units digit (G1), the lowest or highest reading kept (BRP4), as
    ``Attempt.values`` and ``keep`` read a draw. Built a tens die at a time, each reading
    kept against the dice before it, so that a roll and the odds' enumeration of all
    10^(count+1) draws look each one up rather than read it again."""
    pick = min if lower else max
    reads = [read_digits(t, u) for t in range(10) for u in range(10)]  # draw u + 10 t
    kept = reads
    for _ in range(1, count):  # the next digit t: draws t * len(kept) + earlier draw
        more: list[int] = []
        for t in range(10):
            more.extend(map(pick, kept, reads[10 * t : 10 * t + 10] * (len(kept) // 10)))
        kept = more
    return tuple(kept)


@memoised(16)
def tens_ends(count: int, lower: bool) -> tuple[tuple[int, int], ...]:
    """``tens_kept`` as the attempt's final states (-1, kept)."""
    return tuple(zip(repeat(-1), tens_kept(count, lower)))


class Attempt:
    """One roll of a check: each of its dice in turn, keeping the lowest (bonus) or highest
    (penalty) (BRP4). States are (dice taken, kept so far); a final state is (-1, kept). Under
    the tens method one draw is the whole attempt: a units digit and k+1 tens digits."""

    def __init__(self, check: BrpCheck, stream: str) -> None:
        self.stream = stream
        self.lower = check.net_dice >= 0
        self.count = abs(check.net_dice) + 1
        self.tens = check.house_rules.bonus_dice_method == "tens" and self.count > 1
        self._need = Need(stream, 0, 10 ** (self.count + 1) - 1) if self.tens else d100(stream)
        # k whole d100s, the lowest or highest kept: enumerated by counting the draws that keep
        # each value (machine.Kept)
        self.kept = (
            Kept(self._need, self.count, self.lower) if self.count > 1 and not self.tens else None
        )
        self._ends: tuple[tuple[int, int], ...] | None = None  # ``tens_ends``, when first read

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def need(self, state: tuple[int, int]) -> Need | None:
        return None if state[0] < 0 else self._need

    def keep(self, values: list[int] | tuple[int, ...]) -> int:
        return min(values) if self.lower else max(values)

    def values(self, draw: int) -> tuple[int, ...]:
        """The d100 values one draw stands for: itself, or a tens-method group."""
        if not self.tens:
            return (draw,)
        units, tens = draw % 10, draw // 10
        return tuple(read_digits((tens // 10**i) % 10, units) for i in range(self.count))

    def advance(self, state: tuple[int, int], value: int) -> tuple[int, int]:
        if self.tens:  # the kept reading of the draw (``tens_ends``: keep of its values)
            ends = self._ends
            if ends is None:
                ends = self._ends = tens_ends(self.count, self.lower)
            return ends[value]
        taken, kept = state
        if taken == 0:
            kept = value
        elif self.lower:  # as ``keep``: min and max, written out for the hot path
            kept = kept if kept <= value else value
        else:
            kept = kept if kept >= value else value
        taken += 1
        return (taken, kept) if taken < self.count else (-1, kept)

    @property
    def cost(self) -> int:
        """Advances to enumerate one attempt: every face of each die, at most 100 kept values
        apart."""
        return self._need.faces if self.tens else 100 * 100 * self.count

    def encode(self, given: tuple[int, ...], field_name: str) -> Given:
        """Given dice as draws; under tens each group of k+1 values must share its units."""
        if not self.tens:
            return Given(given)
        k = self.count
        if len(given) % k:
            raise DiceError(
                field_name,
                list(given),
                f"groups of {k} values, one group per roll",
                f"{len(given)} values do not make whole groups of {k}",
            )
        draws = []
        for i in range(0, len(given), k):
            group = given[i : i + k]
            if len({v % 10 for v in group}) != 1:
                raise DiceError(
                    field_name,
                    list(group),
                    "under bonus_dice_method tens, the values of one roll share their units digit",
                    f"values {rolls(group)} do not share a units digit",
                )
            tens = sum(((v // 10) % 10) * 10**j for j, v in enumerate(group))
            draws.append(group[0] % 10 + 10 * tens)
        return Given(tuple(draws), per_draw=k)


Attempts = Repeat[tuple[int, int]]


@memoised(64)  # an attempt holds no state of a roll: one per pool and stream serves all
def _attempt(net: int, method: str, stream: str) -> Attempt:
    pool = BrpCheck(
        skill=0,
        bonus_dice=max(net, 0),
        penalty_dice=max(-net, 0),
        house_rules=HouseRules(bonus_dice_method=method),
    )
    return Attempt(pool, stream)


def luck_cost(check: BrpCheck, rerolls: int) -> int:
    """BRP7: one point for the boost, one per reroll taken."""
    return LUCK.cost(check.luck_boost, rerolls)


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


class Brp(Declared):
    name: str = NAME
    title: str = "Basic Roleplaying"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS

    def parse_check(self, data: Mapping[str, Any]) -> BrpCheck:
        values = read(data, CHECK_FIELDS)
        house = house_from(values, HouseRules)
        return _check(values, house, values["luck_rerolls"])

    def parse_contest(self, data: Mapping[str, Any]) -> BrpContest:
        values = read(data, CONTEST_FIELDS)
        house = house_from(values, HouseRules)
        return BrpContest(_check(values["actor"], house), _check(values["opponent"], house), house)

    def _side(self, check: BrpCheck, where: str) -> tuple[Attempt, Attempts, dict[str, Given]]:
        """One attempt, and the attempts a check takes: rerolled after a failure while Luck
        rerolls remain (BRP7)."""
        stream = dice_stream(where)
        attempt = _attempt(check.net_dice, check.house_rules.bonus_dice_method, stream)
        e, rounding = check.effective, check.house_rules.threshold_rounding
        attempts = Repeat(
            attempt, check.luck_rerolls, lambda end: level(end[1], e, rounding) in FAILED
        )
        given = {} if check.dice is None else {stream: attempt.encode(check.dice, stream)}
        return attempt, attempts, given

    def _result(
        self, check: BrpCheck, machine: Attempt, state: Final, record: Record
    ) -> CheckResult:
        attempt, (_, kept), _ = state
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
            request=check_data(check.to_dict()),
            luck_spent=luck_cost(check, attempt),
            attempts=kept_each,
            bands=bands(e, rounding),
        )

    def check_plan(self, check: BrpCheck) -> Plan[Any, CheckResult]:
        attempt, attempts, given = self._side(check, "")
        return Plan(
            machine=attempts,
            given=given,
            outcome=_outcome(check),
            build=lambda s, rec: self._result(check, attempt, s, rec),
            luck_spent=lambda s: luck_cost(check, s[0]),
            cost=_cost(attempt, check),
            dear="bonus_dice",
        )

    def contest_plan(self, contest: BrpContest) -> Plan[Any, ContestResult]:
        a_attempt, a_machine, a_given = self._side(contest.actor, "actor")
        o_attempt, o_machine, o_given = self._side(contest.opponent, "opponent")
        machine: Machine[Any] = Then(a_machine, lambda _: o_machine)
        rounding = contest.house_rules.threshold_rounding

        def decide(state: Any) -> Winner:
            _, (_, (_, a), _), (_, (_, o), _) = state
            ea, eo = contest.actor.effective, contest.opponent.effective
            return opposed(level(a, ea, rounding), a, ea, level(o, eo, rounding), o, eo)

        def build(state: Any, record: Record) -> ContestResult:
            winner = decide(state)
            a = self._result(contest.actor, a_attempt, state[1], record)
            o = self._result(contest.opponent, o_attempt, state[2], record)
            verdict = "tie" if winner == "tie" else f"{winner} wins"
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                explanation=f"{verdict} — actor {a.explanation}; opponent {o.explanation}",
                request=contest_data(contest.to_dict()),
            )

        cost = _cost(a_attempt, contest.actor) + _cost(o_attempt, contest.opponent)
        return Plan(
            machine=machine,
            given={**a_given, **o_given},
            outcome=decide,
            build=build,
            cost=cost,
            dear="bonus_dice",
        )


def _cost(attempt: Attempt, check: BrpCheck) -> int:
    """One attempt's enumeration, then a step per reroll over its kept values (BRP7)."""
    return attempt.cost + 100 * check.luck_rerolls


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


# -- what the rest of the code reads (declarations.py) -----------------------------------------

ICONS = {"critical": "★", "special": "✦", "success": "✓", "failure": "✗", "fumble": "☠"}
STYLES: dict[str, Style] = {
    "critical": "best",
    "special": "good",
    "success": "ok",
    "failure": "bad",
    "fumble": "worst",
}
LEVEL_RECORDS = tuple(
    LevelSpec(lvl, MEANINGS[lvl], ICONS[lvl], STYLES[lvl], lvl not in FAILED) for lvl in LEVELS
)


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """Every combination BRP7 and BRP4 leave a player: the boost or not, and any number of
    rerolls the character's Luck and the house rule's cap allow (3 when the Luck is not known),
    and a bonus die the gamemaster may grant."""
    cap = base.get("house_rules", {}).get("max_luck_rerolls")
    have = UNKNOWN_LUCK if luck is None else luck
    asked_boost, asked_rerolls = bool(base.get("luck_boost")), base.get("luck_rerolls", 0)
    out = []
    for boost in (True,) if asked_boost else (False, True):
        most = have - (1 if boost else 0)
        if cap is not None:
            most = min(most, cap)
        for n in range(asked_rerolls, most + 1):
            if (boost, n) != (asked_boost, asked_rerolls):
                out.append(_luck_option(boost, n, boost and not asked_boost))
    if base.get("bonus_dice", 0) - base.get("penalty_dice", 0) < MAX_EXTRA_DICE:
        out.append(
            Option(
                "a bonus die",
                "if the gamemaster grants one",
                lambda r: {**r, "bonus_dice": r.get("bonus_dice", 0) + 1},
                LUCK.cost_of,
            )
        )
    return out


def _luck_option(boosted: bool, rerolls: int, adds_boost: bool) -> Option:
    if adds_boost:
        again = {0: "", 1: " and a reroll"}.get(rerolls, f" and up to {rerolls} rerolls")
        name = "Luck boost" + again
    else:
        name = "Luck reroll" if rerolls == 1 else f"Luck rerolls (up to {rerolls})"
    cost = []
    if adds_boost:
        cost.append(f"1 Luck before rolling (+{LUCK_BOOST})")
    if rerolls:
        cost.append("1 Luck per failed roll")
    return Option(
        name,
        "; ".join(cost),
        lambda r: {**r, "luck_boost": boosted, "luck_rerolls": rerolls},
        LUCK.cost_of,
    )


def _roller(check: BrpCheck) -> Roller | None:
    if check.dice is not None or check.luck_rerolls:
        return None
    count = abs(check.net_dice) + 1
    return Roller(count, check.net_dice >= 0, check.house_rules.bonus_dice_method == "tens")


def _ranking(contest: BrpContest) -> RankedContest | None:
    sides = []
    for check in (contest.actor, contest.opponent):
        shape = _shape(check)
        if shape is None:
            return None
        e = check.effective
        sides.append(RankedSide(check, shape, e, partial(_shown, e)))
    rounding = contest.house_rules.threshold_rounding
    return RankedContest(
        (NAME, rounding),
        _results,
        partial(_beats, rounding),
        (sides[0], sides[1]),
    )


def _shown(effective: int, state: Final) -> tuple[int, int]:
    """What a side shows the ranking: its kept die, against its effective skill."""
    return (state[1][1], effective)


def _results() -> list[Hashable]:
    """Every (kept roll, effective skill) a side can show."""
    return [(r, e) for r in range(1, 101) for e in range(1, 101)]


def _beats(rounding: str, x: tuple[int, int], y: tuple[int, int]) -> tuple[Winner]:
    return (
        opposed(level(x[0], x[1], rounding), x[0], x[1], level(y[0], y[1], rounding), y[0], y[1]),
    )


def _outcome(check: BrpCheck) -> Callable[[Any], str]:
    """BRP3: a final state's level by its kept die, the thresholds worked out once."""
    e, rounding = check.effective, check.house_rules.threshold_rounding  # read once
    critical, special = thresholds(e, rounding)
    return lambda s: banded(s[1][1], critical, special, e)


def _cuts(check: BrpCheck) -> tuple[int, ...]:
    """BRP3: the kept dice after which ``banded`` may name another level."""
    e = check.effective
    critical, special = thresholds(e, check.house_rules.threshold_rounding)
    return (critical, special, e, FUMBLE_FROM - 1)


def _shape(check: BrpCheck) -> Hashable | None:
    """Without rerolls a check ends on its kept die, whatever the skill."""
    if check.dice is not None or check.luck_rerolls:
        return None
    return (check.net_dice, check.house_rules.bonus_dice_method)


LUCK = Luck(
    boost_field="luck_boost",
    boost=LUCK_BOOST,
    reroll_field="luck_rerolls",
    reroll_cap_rule="max_luck_rerolls",
    most=MAX_LUCK,
    summary=f"spend 1 Luck for +{LUCK_BOOST} before rolling, or 1 to reroll a failed roll",
    rest="a full night's rest restores Luck to its maximum (BRP7)",
)

DECLARATION = Declaration(
    target=Target(
        field="difficulty",
        label="Difficulty",
        presets=frozen_map(DIFFICULTIES),
        default="standard",
        harder=-1,
        example="difficult, or -20",
    ),
    skill_range=(0, None),
    levels=LEVEL_RECORDS,
    words=Words(
        target="effective skill",
        shortfall=None,
        bands=lambda result: result.bands or "",
    ),
    options=_options,
    sampler=_roller,
    aim=Aim("aim_rounds", AIM_STEP, AIM_CAP, ("move", "damage", "act")),
    luck=LUCK,
    extra_dice=ExtraDice(
        "bonus_dice",
        "penalty_dice",
        MAX_EXTRA_DICE,
        "bonus_dice_method",
        "a bonus die keeps the lower of two rolls, a penalty die the higher",
    ),
    improvement="success",
    fast=FastPath(
        inputs=frozenset(
            {
                "skill",
                "difficulty",
                "modifiers",
                "bonus_dice",
                "penalty_dice",
                "aim_rounds",
                "luck_boost",
                "luck_rerolls",
                "dice",
                "house_rules.threshold_rounding",
                "house_rules.bonus_dice_method",
                "house_rules.max_luck_rerolls",
            }
        ),
        shape=_shape,
        key=lambda c: (c.effective, c.house_rules.threshold_rounding),
        luck_key=lambda c: c.luck_boost,
        ranking=_ranking,
        reading=lambda s: s[1][1],  # a final state's kept die
        cuts=_cuts,
        outcome=_outcome,
    ),
    sides_stand_alone=True,
    development=brp_experience.BRP,  # XP-1: the experience roll
)

Brp.declares = DECLARATION
SYSTEM = Brp()
