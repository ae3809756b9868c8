"""OpenQuest: roll under skill, criticals and fumbles on doubles, masters at 100% (OQ1-OQ12)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, get_args

from ..declarations import (
    Assistance,
    Change,
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
from ..dice import is_doubles, show_roll
from ..errors import RuleRefusal
from ..fields import BIG, Field, path, read, validate
from ..machine import Fixed, Machine, Then
from ..results import CheckResult, ContestResult, Winner, check_data, contest_data
from ..system import Declared, Plan, Record, replay
from .common import DICE, Roll, dice_stream, given, modifiers_field, plain, system_field

NAME = "openquest"
Level = Literal["critical", "success", "failure", "fumble"]  # best first
LEVELS: tuple[Level, ...] = get_args(Level)
RANK = {level: len(LEVELS) - i for i, level in enumerate(LEVELS)}
SUCCESS = frozenset({"critical", "success"})
# rule: OQ1 (the seed names a difficulty table it does not print; these are the usual values)
DIFFICULTIES = {"very-easy": 50, "easy": 20, "normal": 0, "hard": -20, "very-hard": -50}
ASSIST_BONUS = 20
MASTERY = 100

MEANINGS = {  # OQ12
    "critical": "the best possible result: the player suggests the effect (a higher standard, "
    "style, extra insight, or maximum damage ignoring armour)",
    "success": "the player describes how the character succeeds",
    "failure": "the referee describes the failure, and it fails forward: the story goes on",
    "fumble": "the worst outcome: a dead end with a significant disadvantage; take another route",
}

_SIDE = (
    Field("skill", "int", "trained skill %, 100 is mastery (OQ1)", low=0, high=100, required=True),
    Field(
        "difficulty",
        "preset",
        "one bonus or penalty (OQ1)",
        low=-BIG,
        high=BIG,
        default=0,
        presets=DIFFICULTIES,
        flags=("--difficulty", "-d"),
    ),
    modifiers_field("magic modifiers (OQ2)"),
)
ASSIST_FIELDS = (*_SIDE, DICE)
SIDE_FIELDS = (
    *_SIDE,
    Field("assist", "object", "the assister's test, +20 on a success (OQ11)", fields=ASSIST_FIELDS),
    DICE,
)
HOUSE_RULES = Field(
    "house_rules", "object", "named house-rule options (none for openquest)", default={}, fields=()
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


@dataclass(frozen=True)
class OpenQuestCheck:
    skill: int
    difficulty: int = 0
    modifiers: tuple[int, ...] = ()
    assist: OpenQuestCheck | None = None
    dice: tuple[int, ...] | None = None
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"assist": OpenQuestCheck})

    @property
    def master(self) -> bool:  # OQ3: the unmodified skill, never the modified one
        return self.skill == MASTERY

    def modified(self, assisted: bool) -> int:  # OQ2
        bonus = ASSIST_BONUS if assisted else 0
        return self.skill + sum(self.modifiers) + self.difficulty + bonus

    def to_dict(self) -> dict[str, Any]:
        return plain(self)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class OpenQuestContest:
    actor: OpenQuestCheck
    opponent: OpenQuestCheck
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CONTEST_FIELDS, {"actor": OpenQuestCheck, "opponent": OpenQuestCheck})
        if self.actor.difficulty and self.opponent.difficulty:  # OQ8
            raise RuleRefusal(
                "opponent.difficulty",
                self.opponent.difficulty,
                "0 when actor.difficulty is set: only one side of an opposed test is modified",
                "difficulty set on both sides",
            )

    def to_dict(self) -> dict[str, Any]:
        return plain(self)  # type: ignore[no-any-return]


def _side(values: Mapping[str, Any]) -> OpenQuestCheck:
    assist = values.get("assist")
    return OpenQuestCheck(
        skill=values["skill"],
        difficulty=values["difficulty"],
        modifiers=values["modifiers"],
        assist=_side(assist) if assist else None,
        dice=values["dice"],
    )


def level(roll: int | None, modified: int, master: bool) -> Level:
    if master:  # OQ3: masters do not roll
        return "critical"
    assert roll is not None
    doubles = is_doubles(roll)
    if modified >= MASTERY:  # OQ5: automatic success, but 00 fumbles
        if roll == 100:
            return "fumble"
        return "critical" if doubles else "success"
    if roll <= modified:  # OQ4 (OQ6: with M <= 0 no roll is <= M)
        return "critical" if doubles else "success"
    return "fumble" if doubles else "failure"


def _why(roll: int | None, modified: int, master: bool, lvl: str) -> str:
    if master:
        return f"master (skill {MASTERY}): {lvl} without rolling"
    assert roll is not None
    text = f"rolled {show_roll(roll)} vs {modified}: {lvl}"
    if modified >= MASTERY:
        note = "00 fumbles even at 100% or more" if roll == 100 else "automatic success at 100%+"
    elif modified <= 0:
        note = "automatic failure at 0% or less"
    else:
        note = ""
    natural = level(roll, modified, master)
    if lvl != natural:  # OQ9: the dice said otherwise, the master decided
        why = f"a {natural} beaten by a master is a {lvl}"
    elif lvl in ("critical", "fumble"):
        why = "doubles"
    else:
        why = ""
    note = "; ".join(n for n in (why, note) if n)
    return f"{text} ({note})" if note else text


class OpenQuest(Declared):
    name: str = NAME
    title: str = "OpenQuest"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS

    def parse_check(self, data: Mapping[str, Any]) -> OpenQuestCheck:
        values = read(data, CHECK_FIELDS)
        return _side(values)

    def parse_contest(self, data: Mapping[str, Any]) -> OpenQuestContest:
        values = read(data, CONTEST_FIELDS)
        return OpenQuestContest(_side(values["actor"]), _side(values["opponent"]))

    # -- checks ---------------------------------------------------------------------------

    def _machine(self, check: OpenQuestCheck, where: str, rolls: bool) -> Machine[Any]:
        """Final state: (True, assisted, roll); roll 0 when the character does not roll."""
        own: Machine[Any] = Roll(dice_stream(where)) if rolls else Fixed(0)
        if check.assist is None:
            return Then(Fixed(None), lambda _: own, key=lambda _: False)
        helper = check.assist
        assist_where = path(where, "assist")
        first = self._machine(helper, assist_where, not helper.master)

        def assisted(state: Any) -> bool:
            return self._level(helper, state, helper.master) in self.success_levels

        return Then(first, lambda _: own, key=assisted)

    def _level(self, check: OpenQuestCheck, state: Any, master: bool) -> Level:
        return _state_level(_modified(check), master, state)

    def _result(
        self,
        check: OpenQuestCheck,
        where: str,
        state: Any,
        record: Record,
        master: bool,
        lvl: Level | None = None,
    ) -> CheckResult:
        _, assisted, roll = state
        modified = check.modified(assisted)
        lvl = lvl or level(roll or None, modified, master)
        why = _why(roll or None, modified, master, lvl)
        assist = None
        if check.assist is not None:
            helper = check.assist
            assist_where = path(where, "assist")
            sub = replay(self._machine(helper, assist_where, not helper.master), record)
            assist = self._result(helper, assist_where, sub, record, helper.master)
            why += f"; assisted +{ASSIST_BONUS}" if assisted else "; the assist added nothing"
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in self.success_levels,
            roll=roll or None,
            dice=tuple(record.get(dice_stream(where), ())),
            target=modified,
            margin=None if not roll else modified - roll,
            explanation=why,
            request=check_data(check.to_dict()),
            assist=assist,
        )

    def check_plan(self, check: OpenQuestCheck) -> Plan[Any, CheckResult]:
        return Plan(
            machine=self._machine(check, "", not check.master),
            given=_given(check, ""),
            outcome=_outcome(check),
            build=lambda s, rec: self._result(check, "", s, rec, check.master),
            cost=_cost(check),
            dear="assist",
        )

    # -- contests (OQ7, OQ9) ----------------------------------------------------------------

    def contest_plan(self, contest: OpenQuestContest) -> Plan[Any, ContestResult]:
        actor, opponent = contest.actor, contest.opponent
        both = actor.master and opponent.master
        # OQ9: when both are masters the actor rolls anyway; a lone master never rolls.
        actor_rolls = both or not actor.master
        opponent_rolls = not opponent.master
        # Who counts as a master once rolling: a master who rolls is judged by the roll.
        actor_master = actor.master and not actor_rolls
        a_machine = self._machine(actor, "actor", actor_rolls)
        o_machine = self._machine(opponent, "opponent", opponent_rolls)
        machine: Machine[Any] = Then(a_machine, lambda _: o_machine)

        def decide(state: Any) -> tuple[Winner, Level, Level]:
            _, a_state, o_state = state
            a = self._level(actor, a_state, actor_master)
            o = self._level(opponent, o_state, opponent.master)
            return _decide(actor, opponent, a, a_state[2], o, o_state[2])

        def build(state: Any, record: Record) -> ContestResult:
            _, a_state, o_state = state
            winner, a_lvl, o_lvl = decide(state)
            a = self._result(actor, "actor", a_state, record, actor_master, a_lvl)
            o = self._result(opponent, "opponent", o_state, record, opponent.master, o_lvl)
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                explanation=_contest_why(winner, a, o, both),
                request=contest_data(contest.to_dict()),
            )

        return Plan(
            machine=machine,
            given={**_given(actor, "actor"), **_given(opponent, "opponent")},
            outcome=lambda s: decide(s)[0],
            build=build,
            cost=_cost(actor) + _cost(opponent),
            dear="assist",
        )


def _cost(check: OpenQuestCheck) -> int:
    """Faces tried: a d100 for the character and one for an assister, each over the few states
    (assisted or not) the roll before left."""
    return 100 * 2 * (2 if check.assist is not None else 1)


def _modified(check: OpenQuestCheck) -> tuple[int, int]:
    """The modified skill without and with a successful assist (OQ2, OQ11)."""
    return check.modified(False), check.modified(True)


def _outcome(check: OpenQuestCheck) -> Callable[[Any], Level]:
    """A check's final states named (OQ4), its modified skill worked out once, not per state."""
    return partial(_state_level, _modified(check), check.master)


def _state_level(modified: tuple[int, int], master: bool, state: Any) -> Level:
    """The level of a final state (True, assisted, roll): roll 0 when the character does not
    roll. The state comes last, so that a plan names states through ``partial``."""
    _, assisted, roll = state
    return level(roll or None, modified[assisted], master)


def _decide(
    actor: OpenQuestCheck, opponent: OpenQuestCheck, a: Level, a_roll: int, o: Level, o_roll: int
) -> tuple[Winner, Level, Level]:
    """The winner, and each side's level after OQ9 turns a beaten roller's failure to fumble."""
    if actor.master and opponent.master:  # OQ9: only an actor's critical beats two masters
        return ("actor" if a == "critical" else "none"), a, o
    if opponent.master:
        if a == "critical":
            return "actor", a, o
        if a == "success":
            return "opponent", a, o
        return "opponent", "fumble", o
    if actor.master:  # the mirror image (Reading)
        if o == "critical":
            return "opponent", a, o
        if o == "success":
            return "actor", a, o
        return "actor", a, "fumble"
    if a == "fumble" and o == "fumble":  # OQ7
        return "none", a, o
    if a != o:
        return ("actor" if RANK[a] > RANK[o] else "opponent"), a, o
    if a_roll == o_roll:
        return "actor", a, o
    if a == "failure":
        return ("actor" if a_roll < o_roll else "opponent"), a, o
    return ("actor" if a_roll > o_roll else "opponent"), a, o


def _contest_why(winner: Winner, a: CheckResult, o: CheckResult, both_masters: bool) -> str:
    sides = f"actor {a.explanation}; opponent {o.explanation}"
    if winner == "none":
        verdict = "standoff between masters" if both_masters else "both fumbled: nobody wins"
    else:
        verdict = f"{winner} wins"
        if a.level == o.level and a.roll is not None and o.roll is not None:
            rule = "lower" if a.level == "failure" else "higher"
            verdict += (
                " (equal rolls: the actor wins)" if a.roll == o.roll else (f" ({rule} roll wins)")
            )
    return f"{verdict} — {sides}"


def _given(check: OpenQuestCheck, where: str) -> dict[str, Any]:
    out = given(dice_stream(where), check.dice)
    if check.assist is not None:
        out.update(given(dice_stream(path(where, "assist")), check.assist.dice))
    return out


# -- what the rest of the code reads (declarations.py) -----------------------------------------

ICONS = {"critical": "★", "success": "✓", "failure": "✗", "fumble": "☠"}
STYLES: dict[str, Style] = {
    "critical": "best",
    "success": "ok",
    "failure": "bad",
    "fumble": "worst",
}
LEVEL_RECORDS = tuple(
    LevelSpec(lvl, MEANINGS[lvl], ICONS[lvl], STYLES[lvl], lvl in SUCCESS) for lvl in LEVELS
)


def _bands(result: CheckResult) -> str:
    m = result.target
    if result.roll is None and not result.dice:
        return "a master does not roll"
    if m >= MASTERY:
        return "every roll succeeds, doubles 11-99 critical, 00 fumbles"
    if m <= 0:
        return "every roll fails, doubles fumble"
    crit = [d for d in range(11, m + 1) if is_doubles(d)]
    crits = f"doubles {crit[0]}-{crit[-1]} critical" if crit else "no critical doubles"
    return f"success 01-{show_roll(m)}, {crits}, doubles above {show_roll(m)} fumble"


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """OQ11: one assister at a time, with any skill of theirs."""
    if base.get("assist"):
        return []
    return [
        Option(f"assisted by {name}", f"{name}'s action", _assisted(dict(helper)))
        for name, helper in helpers.items()
    ]


def _assisted(helper: dict[str, Any]) -> Change:
    return lambda r: {**r, "assist": helper}


def _roller(check: OpenQuestCheck) -> Roller | None:
    return None if check.dice is not None or check.assist is not None else Roller()


def _shape(check: OpenQuestCheck) -> Hashable | None:
    """An unassisted check ends on its roll, or on no roll for a master (OQ3)."""
    return None if check.dice is not None or check.assist is not None else (check.master,)


def _key(check: OpenQuestCheck) -> Hashable:
    """What an unassisted check's levels read: its modified skill, and whether it is a master.
    Every roll 1..100 meets a modified skill of 100 or more as it meets 100 (OQ5: all succeed
    but 00) and one of 0 or less as it meets 0 (OQ6: none succeed), so those share a key."""
    return (min(max(check.modified(False), 0), MASTERY), check.master)


def _cuts(check: OpenQuestCheck) -> tuple[int, ...]:
    """The rolls after which an unassisted check's level may change among rolls that are all
    doubles or all not (``_mark``): its modified skill (OQ4), and 99, 00 fumbling even against
    a modified skill of 100 or more (OQ5); none for a master (OQ3)."""
    return () if check.master else (99, check.modified(False))


def _mark(state: Any) -> int:
    """OQ4: whether a final state's roll is a double (00 with them), a critical or a fumble
    where another roll is a success or a failure (a master's no roll, 0, counts as one)."""
    return 1 if is_doubles(state[2]) else 0


# OQ9 reads only who is a master: a side that rolls is judged as a non-master.
_ROLLER = OpenQuestCheck(skill=0)


def _results() -> list[Hashable]:
    """Every (level, roll) a side that rolls can show."""
    return [(lvl, r) for lvl in LEVELS for r in range(1, 101)]


def _beats(x: tuple[Level, int], y: tuple[Level, int]) -> tuple[Winner]:
    return (_decide(_ROLLER, _ROLLER, x[0], x[1], y[0], y[1])[0],)


def _shown(modified: int, state: Any) -> tuple[Level, int]:
    """What a side that rolls shows the ranking: its level and roll."""
    return (level(state[2], modified, False), state[2])


def _ranking(contest: OpenQuestContest) -> RankedContest | None:
    sides = []
    for check in (contest.actor, contest.opponent):
        shape = _shape(check)
        if shape is None or check.master:  # masters (OQ9) are few and cheap: the reference
            return None
        m = check.modified(False)
        # An unassisted check's final state is (True, False, roll).
        sides.append(RankedSide(check, shape, m, partial(_shown, m)))
    return RankedContest(NAME, _results, _beats, (sides[0], sides[1]))


DECLARATION = Declaration(
    target=Target(
        field="difficulty",
        label="Difficulty",
        presets=frozen_map(DIFFICULTIES),
        default="normal",
        harder=-1,
        example="hard, or -20",
    ),
    skill_range=(0, MASTERY),
    levels=LEVEL_RECORDS,
    words=Words(
        target="modified skill",
        shortfall=None,
        bands=_bands,
    ),
    options=_options,
    sampler=_roller,
    assistance=Assistance(
        field="assist",
        many=False,
        most=1,
        cap_rule=None,
        bonus=ASSIST_BONUS,
        helper_fields=("skill",),
        summary=f"one helper at a time tests any skill of theirs: +{ASSIST_BONUS} on a success",
    ),
    fast=FastPath(
        inputs=frozenset({"skill", "difficulty", "modifiers", "assist", "dice"}),
        shape=_shape,
        key=_key,
        ranking=_ranking,
        reading=lambda s: s[2],  # a final state's roll (0: a master does not roll)
        cuts=_cuts,
        outcome=_outcome,
        mark=_mark,
    ),
)
OpenQuest.declares = DECLARATION
SYSTEM = OpenQuest()
