"""Taking Chances: luck d100 + skill + ability + factors against a risk of failure (CH1-CH12)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from itertools import combinations
from typing import Any, Literal, get_args

from ..catalogue import OPPOSED_TASKS
from ..declarations import (
    Assistance,
    Change,
    Cover,
    Declaration,
    FastPath,
    LevelSpec,
    Option,
    RankedContest,
    RankedSide,
    Roller,
    Style,
    Take,
    Target,
    TieBreak,
    Words,
    frozen_map,
)
from ..dice import show_roll
from ..errors import D100Error, DiceError, RuleRefusal
from ..fields import BIG, Field, path, read, validate
from ..machine import Fixed, Given, Machine, Need, Then
from ..results import CheckResult, ContestResult, Winner, check_data, contest_data
from ..system import Declared, Plan, Record, replay
from .common import (
    DICE,
    Roll,
    check_dict,
    contest_sides,
    dice_stream,
    given,
    house_dict,
    modifiers_field,
    plain,
    system_field,
)

NAME = "chances"
Level = Literal["perfect", "great", "success", "failure"]  # best first
LEVELS: tuple[Level, ...] = get_args(Level)
RISKS = {  # CH2
    "very-easy": 0,
    "easy": 20,
    "average": 50,
    "tough": 80,
    "challenging": 100,
    "formidable": 120,
    "heroic": 150,
    "superheroic": 180,
    "impossible": 200,
}
GREAT, PERFECT = 50, 100  # CH4
FACTOR = 10  # CH3: one favourable circumstance, one successful assister (CH8)
ASSIST_RISK = 50  # CH8
# CH8 lets the GM cap assistance; the engine caps it too, so that one contest's exact odds stay
# a fraction of a second (each assister multiplies the enumeration).
MAX_ASSISTERS = 10
IMPOSSIBLE = 100  # CH7
REQUIRED_TRAINING = 50
COIN = ("actor", "opponent")

MEANINGS = {
    "perfect": "beat the risk by 100 or more: everything (the seed's exact location)",
    "great": "beat the risk by 50 or more: more than asked (the seed's direction of the noise)",
    "success": "matched or beat the risk: it works (the seed's noise out there)",
    "failure": "below the risk: the margin says by how much (cover is struck when the failure "
    "points are fewer than its dodging factor)",
}

_CHANCE = (
    Field("skill", "int", "trained skill % (CH1)", low=0, high=100, required=True),
    Field(
        "ability",
        "int",
        "the relevant ability factor (CH1)",
        low=-BIG,
        high=BIG,
        default=0,
        flags=("--ability", "-a"),
    ),
    modifiers_field("chance modifiers: +10 favourable, -10 unfavourable (CH3)"),
)
ASSISTER_FIELDS = (
    *_CHANCE,
    Field(
        "take", "choice", "not allowed: assisters roll their luck (CH5)", choices=(None, 50, 100)
    ),
    DICE,
)
_SHARED = (
    Field(
        "risk_modifiers",
        "int_list",
        "+10 harder, -10 easier (CH3)",
        low=-BIG,
        high=BIG,
        default=(),
        flags=("--risk-mod",),
    ),
    Field(
        "synergy",
        "int_list",
        "trained % of each synergistic skill (CH9)",
        low=0,
        high=100,
        default=(),
    ),
    Field(
        "assisters",
        "object_list",
        "characters helping the leader (CH8)",
        default=(),
        fields=ASSISTER_FIELDS,
        max_items=MAX_ASSISTERS,
    ),
    DICE,
)
HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (CH8)",
    default={},
    fields=(
        Field("max_assisters", "int", "how many may help at once (CH8)", low=0, high=MAX_ASSISTERS),
    ),
)
CHECK_FIELDS = (
    system_field(NAME),
    *_CHANCE,
    Field(
        "risk",
        "preset",
        "risk of failure % (CH2)",
        low=0,
        high=BIG,
        required=True,
        presets=RISKS,
        flags=("--risk", "-r"),
    ),
    Field(
        "take",
        "choice",
        "take 50 or 100 instead of rolling luck (CH5)",
        choices=(None, 50, 100),
        words=("take#",),
    ),
    *_SHARED,
    HOUSE_RULES,
)
SIDE_FIELDS = (
    *_CHANCE,
    Field(
        "take",
        "choice",
        "take 50 instead of rolling luck; 100 is not allowed (CH5)",
        choices=(None, 50, 100),
        words=("take#",),
    ),
    *_SHARED,
)
CONTEST_FIELDS = (
    system_field(NAME),
    Field("actor", "object", "the acting side", required=True, fields=SIDE_FIELDS),
    Field("opponent", "object", "the opposing side", required=True, fields=SIDE_FIELDS),
    Field(
        "coin", "choice", "the tie-break flip, instead of drawing it (CH6)", choices=(None, *COIN)
    ),
    HOUSE_RULES,
)


@dataclass(frozen=True)
class HouseRules:
    max_assisters: int | None = None  # CH8: None lets as many help as the engine allows

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)


@dataclass(frozen=True)
class Assister:
    skill: int
    ability: int = 0
    modifiers: tuple[int, ...] = ()
    dice: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        validate(self, ASSISTER_FIELDS)

    @property
    def factors(self) -> int:
        return self.skill + self.ability + sum(self.modifiers)


@dataclass(frozen=True)
class ChancesCheck:
    skill: int
    risk: int = 0
    ability: int = 0
    modifiers: tuple[int, ...] = ()
    risk_modifiers: tuple[int, ...] = ()
    take: int | None = None
    synergy: tuple[int, ...] = ()
    assisters: tuple[Assister, ...] = ()
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"assisters": Assister, "house_rules": HouseRules})
        cap = self.house_rules.max_assisters
        if cap is not None and len(self.assisters) > cap:
            raise RuleRefusal(
                "assisters",
                f"{len(self.assisters)} assisters",
                f"at most {cap} (house rule max_assisters)",
                "too many assisters",
            )
        # CH7: a practically impossible attempt needs training, whatever the total would be
        impossible = sum(self.modifiers) <= -IMPOSSIBLE or sum(self.risk_modifiers) >= IMPOSSIBLE
        if impossible and self.skill < REQUIRED_TRAINING:
            raise RuleRefusal(
                "skill",
                self.skill,
                f"trained skill >= {REQUIRED_TRAINING} for a practically impossible attempt "
                f"(chance modifiers <= -{IMPOSSIBLE} or risk modifiers >= +{IMPOSSIBLE}, CH7)",
                "refused: not trained enough for a practically impossible attempt",
            )

    @property
    def factors(self) -> int:
        """Everything added to luck but the assisters: skill, ability, modifiers, synergy."""
        return self.skill + self.ability + sum(self.modifiers) + synergy_bonus(self.synergy)

    @property
    def total_risk(self) -> int:  # CH2
        return self.risk + sum(self.risk_modifiers)

    @cached_property  # read by the odds' key, cuts and naming alike: worked out once
    def factors_less_risk(self) -> int:
        """CH1, CH4: the factors less the risk, to which a roll adds its luck."""
        return self.factors - self.total_risk

    def to_dict(self) -> dict[str, Any]:
        return check_dict(self)


@dataclass(frozen=True)
class ChancesContest:
    actor: ChancesCheck
    opponent: ChancesCheck
    coin: str | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        for where, side in contest_sides(self, CONTEST_FIELDS, ChancesCheck, HouseRules):
            if side.take == 100:  # CH5
                raise RuleRefusal(
                    f"{where}.take",
                    100,
                    "null or 50 in a contest",
                    "taking 100 is not allowed in an opposed contest",
                )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = plain(self)
        for side in ("actor", "opponent"):
            out[side].pop("risk")
            out[side].pop("house_rules")
        del out["house_rules"]
        return {**out, **house_dict(self.house_rules)}


def synergy_bonus(trained: Sequence[int]) -> int:
    """CH9: +15 per synergistic skill at 75% or more, else +10 at 25% or more; they add up."""
    return sum(15 if t >= 75 else 10 if t >= 25 else 0 for t in trained)


def degree(margin: int) -> Level:
    """CH4: exactly matching succeeds."""
    if margin >= PERFECT:
        return "perfect"
    if margin >= GREAT:
        return "great"
    return "success" if margin >= 0 else "failure"


def cover_struck(result: CheckResult, dodging_factor: int) -> bool:
    """CH10: a failed shot strikes the cover when its failure points are fewer than the cover's
    dodging factor."""
    assert result.margin is not None
    return not result.success and -result.margin < dodging_factor


def choose_leader(candidates: Sequence[ChancesCheck]) -> int:
    """CH8: by default the leader is the one with the highest skill + ability + modifiers."""
    if not candidates:
        raise D100Error("candidates", [], "at least one character", "nobody to lead")
    return max(
        range(len(candidates)),
        key=lambda i: candidates[i].skill + candidates[i].ability + sum(candidates[i].modifiers),
    )


def _assister(values: Mapping[str, Any], where: str) -> Assister:
    if values["take"] is not None:  # CH5
        raise RuleRefusal(
            path(where, "take"),
            values["take"],
            "null: assisters roll their luck",
            "an assister cannot take 50 or 100",
        )
    return Assister(values["skill"], values["ability"], values["modifiers"], values["dice"])


def _check(values: Mapping[str, Any], where: str, risk: int, house: HouseRules) -> ChancesCheck:
    helpers = values["assisters"]
    if values["take"] is not None and values["dice"] is not None:
        raise DiceError(
            path(where, "dice"),
            list(values["dice"]),
            "no dice when taking 50 or 100: there is no roll (CH5)",
            "dice given",
        )
    try:
        return ChancesCheck(
            skill=values["skill"],
            risk=risk,
            ability=values["ability"],
            modifiers=values["modifiers"],
            risk_modifiers=values["risk_modifiers"],
            take=values["take"],
            synergy=values["synergy"],
            assisters=tuple(
                _assister(a, f"{path(where, 'assisters')}[{i}]") for i, a in enumerate(helpers)
            ),
            dice=values["dice"],
            house_rules=house,
        )
    except D100Error as err:  # a rule the check holds itself to, placed in the request
        raise err.at(path(where, err.field)) from None


class Helpers:
    """The assisters roll in turn against risk 50; the state is (next assister, successes)."""

    def __init__(self, assisters: tuple[Assister, ...], where: str) -> None:
        self.assisters = assisters
        self.streams = [
            dice_stream(f"{path(where, 'assisters')}[{i}]") for i in range(len(assisters))
        ]

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def need(self, state: tuple[int, int]) -> Need | None:
        i = state[0]
        return Need(self.streams[i], 1, 100) if i < len(self.assisters) else None

    def advance(self, state: tuple[int, int], value: int) -> tuple[int, int]:
        i, ok = state
        return (i + 1, ok + (value + self.assisters[i].factors >= ASSIST_RISK))


class Chances(Declared):
    name: str = NAME
    title: str = "Taking Chances"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS

    def parse_check(self, data: Mapping[str, Any]) -> ChancesCheck:
        values = read(data, CHECK_FIELDS)
        return _check(values, "", values["risk"], HouseRules(**values["house_rules"]))

    def parse_contest(self, data: Mapping[str, Any]) -> ChancesContest:
        values = read(data, CONTEST_FIELDS)
        house = HouseRules(**values["house_rules"])
        actor, opponent = (_check(values[w], w, 0, house) for w in ("actor", "opponent"))
        return ChancesContest(actor, opponent, values["coin"], house)

    def _machine(self, check: ChancesCheck, where: str) -> Machine[Any]:
        """Final state: (True, successful assisters, luck)."""
        luck: Machine[Any] = Fixed(check.take) if check.take else Roll(dice_stream(where))
        return Then(Helpers(check.assisters, where), lambda _: luck, key=lambda s: s[1])

    def _given(self, check: ChancesCheck, where: str) -> dict[str, Any]:
        out = given(dice_stream(where), check.dice)
        for i, a in enumerate(check.assisters):
            out.update(given(dice_stream(f"{path(where, 'assisters')}[{i}]"), a.dice))
        return out

    def _assisters(
        self, check: ChancesCheck, where: str, record: Record
    ) -> tuple[CheckResult, ...]:
        out = []
        for i, a in enumerate(check.assisters):
            stream = dice_stream(f"{path(where, 'assisters')}[{i}]")
            luck = record[stream][0]
            total = luck + a.factors
            lvl = degree(total - ASSIST_RISK)
            out.append(
                CheckResult(
                    system=NAME,
                    level=lvl,
                    success=lvl != "failure",
                    roll=luck,
                    dice=(luck,),
                    target=ASSIST_RISK,
                    total=total,
                    margin=total - ASSIST_RISK,
                    explanation=f"assist: {_sum(luck, a.skill, a.ability, a.modifiers, 0)}"
                    f" = {total} vs risk {ASSIST_RISK}: {lvl}",
                    request=plain(a),
                )
            )
        return tuple(out)

    def _total(self, check: ChancesCheck, state: Any) -> int:
        return _state_total(check.factors, state)

    def _result(
        self,
        check: ChancesCheck,
        where: str,
        state: Any,
        record: Record,
        target: int,
        lvl: Level,
        extra: int = 0,
    ) -> CheckResult:
        _, helped, luck = state
        total = self._total(check, state) + extra
        parts = _sum(
            luck,
            check.skill,
            check.ability,
            check.modifiers,
            synergy_bonus(check.synergy),
            check.take,
        )
        if helped:
            parts += f" + assisters {FACTOR * helped}"
        if extra:
            parts += f" + opponent's risk modifiers {extra}"
        margin = total - target
        why = f"{parts} = {total} vs {target}: {lvl}"
        why += f" by {margin}" if margin >= 0 else f" ({-margin} failure points)"
        note = None
        if check.take == 100:
            note = "took 100: about 100 times as long as a single chance (CH5)"
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in self.success_levels,
            roll=luck,
            dice=tuple(record.get(dice_stream(where), ())),
            target=target,
            total=total,
            margin=margin,
            explanation=why,
            request=check_data(check.to_dict()),
            note=note,
            assisters=self._assisters(check, where, record),
        )

    def check_plan(self, check: ChancesCheck) -> Plan[Any, CheckResult]:
        risk = check.total_risk
        return Plan(
            machine=self._machine(check, ""),
            given=self._given(check, ""),
            outcome=_outcome(check),
            build=lambda s, rec: self._result(
                check, "", s, rec, risk, degree(self._total(check, s) - risk)
            ),
            cost=_cost(check),
            dear="assisters",
        )

    def contest_plan(self, contest: ChancesContest) -> Plan[Any, ContestResult]:
        actor, opponent = contest.actor, contest.opponent
        a_extra, o_extra = _extras(contest)
        a_machine, o_machine = self._machine(actor, "actor"), self._machine(opponent, "opponent")
        a_base, o_base = _fixed(contest)  # added up once for the plan, not once per state
        # Only the totals decide (CH6): keeping just them lets equal totals merge while the odds
        # are enumerated; the result rebuilds each side's dice from the record.
        pair: Machine[Any] = Then(
            a_machine, lambda _: o_machine, key=lambda a: _state_total(a_base, a)
        )

        def totals(pair_state: Any) -> tuple[int, int]:
            _, a_total, o = pair_state
            return a_total, _state_total(o_base, o)

        def flip(tied: bool) -> Machine[Any]:
            return Roll("coin", high=len(COIN)) if tied else Fixed(None)

        def tied(key: tuple[int, int]) -> bool:
            return key[0] == key[1] and actor.ability == opponent.ability

        machine: Machine[Any] = Then(pair, flip, key=totals, route=tied)

        def decide(state: Any) -> tuple[Winner, int, int]:
            _, (a_total, o_total), coin = state
            return (
                opposed(a_total, actor.ability, o_total, opponent.ability, coin),
                a_total,
                o_total,
            )

        def outcome(state: Any) -> str:
            return decide(state)[0]

        def build(state: Any, record: Record) -> ContestResult:
            winner, a_total, o_total = decide(state)
            margin = abs(a_total - o_total)
            lvl = degree(margin)
            a = self._result(
                actor,
                "actor",
                replay(a_machine, record),
                record,
                o_total,
                lvl if winner == "actor" else "failure",
                a_extra,
            )
            o = self._result(
                opponent,
                "opponent",
                replay(o_machine, record),
                record,
                a_total,
                lvl if winner == "opponent" else "failure",
                o_extra,
            )
            coin = state[2]
            how = f"{winner} wins, {lvl} by {margin}"
            if a_total == o_total:
                how += (
                    " (equal chances: higher ability)"
                    if coin is None
                    else f" (equal chances and abilities: coin flip {COIN[coin - 1]})"
                )
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                degree=lvl,
                coin=None if coin is None else COIN[coin - 1],
                explanation=f"{how} — actor {a.explanation}; opponent {o.explanation}",
                request=contest_data(contest.to_dict()),
            )

        given_dice = {**self._given(actor, "actor"), **self._given(opponent, "opponent")}
        if contest.coin is not None:
            given_dice["coin"] = Given((COIN.index(contest.coin) + 1,), spare=True)
        # Each side alone, then every total of one against every end of the other, and the coin.
        cost = _cost(actor) + _cost(opponent) + _cost(actor) * _cost(opponent) // 100 + 2
        return Plan(
            machine=machine,
            given=given_dice,
            outcome=outcome,
            build=build,
            cost=cost,
            dear="assisters",
        )


def opposed(a_total: int, a_ability: int, o_total: int, o_ability: int, coin: int | None) -> Winner:
    """CH6: the higher total wins; equal totals, the higher ability factor; equal both, the
    coin (face 1 is the actor's, as ``COIN`` orders them)."""
    if a_total != o_total:
        return "actor" if a_total > o_total else "opponent"
    if a_ability != o_ability:
        return "actor" if a_ability > o_ability else "opponent"
    return "actor" if coin == 1 else "opponent"


def _extras(contest: ChancesContest) -> tuple[int, int]:
    """CH6: the opposing chance is the risk, so one side's risk modifiers raise the other's."""
    return sum(contest.opponent.risk_modifiers), sum(contest.actor.risk_modifiers)


def _fixed(contest: ChancesContest) -> tuple[int, int]:
    """Each side's total less its luck, when nobody assists."""
    a_extra, o_extra = _extras(contest)
    return contest.actor.factors + a_extra, contest.opponent.factors + o_extra


def _cost(check: ChancesCheck) -> int:
    """Faces tried: each assister's d100 over the successes counted so far, then the luck."""
    n = len(check.assisters)
    return sum(100 * (i + 1) for i in range(n)) + 100 * (n + 1)


def _state_total(factors: int, state: Any) -> int:
    """The total of a final state (True, successful assisters, luck) (CH1, CH8)."""
    _, helped, luck = state  # both ints: a luck die or take, a count of successes
    total: int = luck + factors + FACTOR * helped
    return total


def _state_degree(margin: int, state: Any) -> Level:
    """A final state's degree (CH4): ``_state_total`` with ``margin`` the factors less the
    risk, written out, so that a plan names every state in two calls (through ``partial``)."""
    _, helped, luck = state
    return degree(luck + margin + FACTOR * helped)


def _outcome(check: ChancesCheck) -> Callable[[Any], Level]:
    """A check's final states named (CH4), the factors less the risk added up once."""
    return partial(_state_degree, check.factors_less_risk)


def _sum(
    luck: int,
    skill: int,
    ability: int,
    modifiers: Sequence[int],
    synergy: int,
    take: int | None = None,
) -> str:
    text = f"{'took' if take else 'luck'} {take or show_roll(luck)} + skill {skill}"
    if ability:
        text += f" + ability {ability}"
    if modifiers:
        text += f" + modifiers {sum(modifiers)}"
    if synergy:
        text += f" + synergy {synergy}"
    return text


# -- what the rest of the code reads (declarations.py) -----------------------------------------

ICONS = {"perfect": "★", "great": "✦", "success": "✓", "failure": "✗"}
STYLES: dict[str, Style] = {"perfect": "best", "great": "good", "success": "ok", "failure": "bad"}
LEVEL_RECORDS = tuple(
    LevelSpec(lvl, MEANINGS[lvl], ICONS[lvl], STYLES[lvl], lvl != "failure") for lvl in LEVELS
)
ADVICE_GROUPS = 31  # groups of helpers advice weighs at most: every group of five helpers
TAKE_WORDS = {
    50: "not rushed, threatened or distracted",
    100: "about 100 times as long; only if failure costs nothing",
}


def _bands(result: CheckResult) -> str:
    """The luck that reaches each degree, given the rest of the total."""
    if result.total is None or result.roll is None:
        return ""
    need = result.target - (result.total - result.roll)  # the luck that just succeeds
    steps = [("success", need), ("great", need + GREAT), ("perfect", need + PERFECT)]
    return "luck needed: " + ", ".join(f"{k} {_at_least(v)}" for k, v in steps)


def _at_least(value: int) -> str:
    if value <= 1:
        return "any"
    return f"{show_roll(value)}+" if value <= 100 else "never"


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """CH5's take 50 and 100, and CH8's helpers: every group of them the table's cap allows
    (singles and everyone only, past ``ADVICE_GROUPS`` groups); each combined with taking."""
    cap = base.get("house_rules", {}).get("max_assisters")
    room = MAX_ASSISTERS if cap is None else cap
    room -= len(base.get("assisters", ()))
    names = list(helpers)
    sizes = range(1, min(room, len(names)) + 1)
    every = [c for k in sizes for c in combinations(names, k)]
    if len(every) > ADVICE_GROUPS:
        every = [(n,) for n in names] + ([tuple(names)] if len(names) <= room else [])
    groups = [
        (
            "helped by everyone" if len(c) == len(names) > 1 else "helped by " + " and ".join(c),
            [dict(helpers[n]) for n in c],
        )
        for c in every
    ]
    takes: list[int | None] = [None]
    if base.get("take") is None:
        takes += list(TAKE_WORDS)
    out = []
    for take in takes:
        for name, group in [("", []), *groups]:
            if take is None and not group:
                continue  # the check as asked
            words = [f"take {take}"] if take else []
            costs = [TAKE_WORDS[take]] if take else []
            if group:
                words.append(name)
                costs.append("every helper named assists" if len(group) > 1 else "one assists")
            out.append(Option(" and ".join(words), "; ".join(costs), _changed(take, group)))
    return out


def _changed(take: int | None, group: list[dict[str, Any]]) -> Change:
    def change(r: dict[str, Any]) -> dict[str, Any]:
        out = {**r, "assisters": [*r.get("assisters", []), *group]} if group else dict(r)
        if take is not None:
            out["take"] = take
        return out

    return change


def _roller(check: ChancesCheck) -> Roller | None:
    """One luck die (a value taken reads none: the die drawn for it goes unused)."""
    return None if check.dice is not None or check.assisters else Roller()


def _shape(check: ChancesCheck) -> Hashable | None:
    """An unassisted check ends on its luck (or the value taken)."""
    return None if check.dice is not None or check.assisters else (check.take,)


def _cuts(check: ChancesCheck) -> tuple[int, ...]:
    """CH4: the lucks after which an unassisted check's ``degree`` may change, the total less
    the risk reaching 0, ``GREAT`` or ``PERFECT``."""
    margin = check.factors_less_risk
    return (-margin - 1, GREAT - margin - 1, PERFECT - margin - 1)


def _shown(shift: int, ability: int, state: Any) -> tuple[int, int]:
    """What a side shows the ranking: its luck plus its fixed part, and its ability."""
    return (state[2] + shift, ability)


def _ranking(contest: ChancesContest) -> RankedContest | None:
    """CH6 compares the two totals, each luck plus a fixed part: the odds depend only on the
    difference of the fixed parts (and the abilities, for ties), so contests sharing it share
    one count through the ranking of every total either side can show."""
    sides = (contest.actor, contest.opponent)
    if contest.coin is not None or any(
        s.dice is not None or s.assisters or s.take is not None for s in sides
    ):
        return None
    a_fixed, o_fixed = _fixed(contest)
    key = (a_fixed - o_fixed, contest.actor.ability, contest.opponent.ability)
    shifts = ((key[0], key[1]), (0, key[2]))

    def results() -> list[Hashable]:
        return [(luck + shift, ability) for shift, ability in shifts for luck in range(1, 101)]

    def beats(x: tuple[int, int], y: tuple[int, int]) -> tuple[Winner, ...]:
        return tuple(opposed(x[0], x[1], y[0], y[1], c) for c in range(1, len(COIN) + 1))

    # An unassisted, untaken check's final state is (True, 0, luck).
    actor, opponent = (
        RankedSide(check, (None,), who, partial(_shown, shift, ability))
        for check, who, (shift, ability) in zip(sides, ("actor", "opponent"), shifts, strict=True)
    )
    return RankedContest((NAME, key), results, beats, (actor, opponent))


DECLARATION = Declaration(
    target=Target(
        field="risk",
        label="Risk",
        presets=frozen_map(RISKS),
        default="average",
        harder=1,
        example="tough, or 80",
    ),
    skill_range=(0, 100),
    levels=LEVEL_RECORDS,
    words=Words(
        target="risk",
        shortfall="failure points",
        bands=_bands,
    ),
    options=_options,
    sampler=_roller,
    assistance=Assistance(
        field="assisters",
        many=True,
        most=MAX_ASSISTERS,
        cap_rule="max_assisters",
        bonus=FACTOR,
        helper_fields=("skill", "ability"),
        summary=f"helpers roll against risk {ASSIST_RISK}; each success gives +{FACTOR} chance",
        leader=choose_leader,
    ),
    take=Take("take", (50, 100), (50,), frozen_map(TAKE_WORDS)),
    tie_break=TieBreak("coin", COIN),
    cover=Cover(
        "the cover's dodging factor: a failed shot with fewer failure points strikes the "
        "cover (CH10)",
        cover_struck,
    ),
    ability_field="ability",
    synergy_field="synergy",
    improvement="failure",
    tasks=OPPOSED_TASKS,
    # CH6: each side's target is the other's total, so its margin and words tell it too
    binds_other_side=frozenset({"target", "margin", "explanation"}),
    fast=FastPath(
        inputs=frozenset(
            {
                "skill",
                "ability",
                "modifiers",
                "risk",
                "risk_modifiers",
                "take",
                "synergy",
                "assisters",
                "dice",
                "coin",
                "house_rules.max_assisters",
            }
        ),
        shape=_shape,
        # CH1, CH4: the outcome is the degree of the total less the risk, and the total is the
        # luck (and assisters) plus the factors, so it reads the factors and the risk only
        # through their difference: checks that share it share their naming.
        key=lambda c: c.factors_less_risk,
        ranking=_ranking,
        reading=lambda s: s[2],  # a final state's luck
        cuts=_cuts,
        outcome=_outcome,
    ),
)
Chances.declares = DECLARATION
SYSTEM = Chances()
