"""Basic Roleplaying, Universal Game Engine, as the page-cited C++ port reads the rulebook
(EDITIONS BU-1..BU-3): critical ⌈S/20⌉ and special ⌈S/5⌉, success iff r <= S (00 too at 100 or
more), fumbles from 95 + ⌈S/20⌉ on failures only; difficulty, resistance, cooperation, and
opposed rolls by OpposeSkillRoll.

Decisions of this module (EDITIONS leaves them to the implementation):

* ``automatic`` difficulty is the port's S = 1,000,000 (EDITIONS BU-2), rolled as any other
  chance: every roll is then a critical.
* The chance S is one of: ``skill``; ``resistance`` {active, passive}, 50 + 5·(A - P)
  (characteristics, p. 110); ``versus`` {active, passive}, 50 + (active - passive) (skill against
  skill on the resistance table, p. 112). Then S = difficulty(S + permanent modifiers) +
  modifiers + cooperation (BU-2), never clamped.
* Cooperation (``assist``, one helper as in OpenQuest): the helper's own check adds -50, -10,
  +20, +30 or +50 for a fumble, failure, success, special or critical.
* Opposed (BU-3): the winner is the actor iff its level is higher, or the same and its roll
  higher (equal rolls: the opponent). The contest's ``degree`` is the actor's result as the port's
  OpposeSkillRoll gives it, as a level: the level difference in steps (critical +3, special +2,
  success +1, fumble -1 or less; critical against fumble, +4 in the port, is held at critical),
  or at the same level success (won) or failure (lost). House
  rule ``same_level: larger_margin`` is the port's ``Roll::operator>`` reading: the same level
  goes to the larger S - r, and equal margins tie.
* Combat (BU-4, ``response``: ``parry`` or ``dodge``; the actor attacks): the port's combat
  matrix. An attack that fails or fumbles has no effect (winner ``none``); one that succeeds
  against a failed defence lands at its own level; against a successful defence it lands at
  the level difference, held at failure (the defence holds: the opponent wins). A parried
  attack's weapon takes the difference's size in damage when the defence was better, the
  parrying weapon twice the difference when the attack was; a dodge damages no weapon. The
  contest's ``degree`` is the attack's outcome; the note names fumbles and weapon damage.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..declarations import (
    Assistance,
    Change,
    Declaration,
    FastPath,
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
from ..fields import BIG, Field, exactly_one, path, read, validate
from ..machine import Fixed, Machine, Then
from ..results import CheckResult, ContestResult, Winner, check_data, contest_data
from ..system import Declared, Plan, Record, replay
from . import brp_experience
from .brp import LEVELS, Level
from .brp_foundry import LEVEL_SPECS
from .common import (
    DICE,
    Roll,
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

NAME = "brp-uge"
# The port's SkillResult: the steps OpposeSkillRoll subtracts
STEP: Mapping[str, int] = {"fumble": -1, "failure": 0, "success": 1, "special": 2, "critical": 3}
BY_STEP: Mapping[int, Level] = {
    -1: "fumble",
    0: "failure",
    1: "success",
    2: "special",
    3: "critical",
}
AUTOMATIC = "automatic"
AUTOMATIC_CHANCE = 1_000_000  # the port's S for automatic (BU-2)
DIFFICULTIES = ("average", "easy", "difficult", "impossible", AUTOMATIC)  # BU-2, p. 113
COOPERATION: Mapping[str, int] = {  # BU-2, p. 112: what the helper's level adds
    "fumble": -50,
    "failure": -10,
    "success": 20,
    "special": 30,
    "critical": 50,
}
RULES = ("higher_roll", "larger_margin")  # BU-3: OpposeSkillRoll, or Roll::operator>

HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (BU-3)",
    default={},
    fields=(
        Field(
            "same_level",
            "choice",
            "an opposed roll at the same level: higher_roll wins (OpposeSkillRoll), or "
            "larger_margin (the port's operator>, equal margins tie) (BU-3)",
            choices=RULES,
            default="higher_roll",
        ),
    ),
)
PAIR_FIELDS = (
    Field("active", "int", "the active side's value", low=0, high=BIG, required=True),
    Field("passive", "int", "the passive side's value", low=0, high=BIG, required=True),
)
_DIFFICULTY = Field(
    "difficulty",
    "choice",
    "easy x2, difficult ⌈S/2⌉, impossible 1, automatic 1,000,000 (BU-2)",
    choices=DIFFICULTIES,
    default="average",
)
_COMMON = (
    _DIFFICULTY,
    modifiers_field("modifiers added after the difficulty (BU-2, p. 114)"),
    Field(
        "permanent_modifiers",
        "int_list",
        "permanent modifiers, added before the difficulty (BU-2, p. 114)",
        low=-BIG,
        high=BIG,
        default=(),
    ),
)
_SKILL = Field("skill", "int", "skill %, may exceed 100 (BU-1)", low=0, high=BIG, required=True)
ASSIST_FIELDS = (_SKILL, *_COMMON, DICE)
SIDE_FIELDS = (_SKILL, *_COMMON, DICE)
CHECK_FIELDS = (
    system_field(NAME),
    Field(
        "skill", "int", "skill %, may exceed 100 (BU-1); or resistance, or versus", low=0, high=BIG
    ),
    *_COMMON,
    Field(
        "resistance",
        "object",
        "characteristic against characteristic: S = 50 + 5·(active - passive) (BU-2, p. 110)",
        fields=PAIR_FIELDS,
        flags=("--resistance",),
    ),
    Field(
        "versus",
        "object",
        "skill against skill: S = 50 + (active - passive) (BU-2, p. 112)",
        fields=PAIR_FIELDS,
        flags=("--versus",),
    ),
    Field(
        "assist",
        "object",
        "a helper's check: -50, -10, +20, +30, +50 by its level (BU-2 cooperation, p. 112)",
        fields=ASSIST_FIELDS,
    ),
    HOUSE_RULES,
    DICE,
)
RESPONSES = ("parry", "dodge")
CONTEST_FIELDS = (
    system_field(NAME),
    Field("actor", "object", "the active side", required=True, fields=SIDE_FIELDS),
    Field("opponent", "object", "the opposed side", required=True, fields=SIDE_FIELDS),
    Field(
        "response",
        "choice",
        "the defence against a melee attack by the actor: parry or dodge (BU-4)",
        choices=(None, *RESPONSES),
        default=None,
    ),
    HOUSE_RULES,
)
_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)
_ASSIST_NAMES = frozenset(f.name for f in ASSIST_FIELDS)


@dataclass(frozen=True)
class HouseRules:
    same_level: str = "higher_roll"

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)


@dataclass(frozen=True)
class Pair:
    active: int
    passive: int

    def __post_init__(self) -> None:
        validate(self, PAIR_FIELDS)


@dataclass(frozen=True)
class UgeCheck:
    skill: int | None = None
    difficulty: str = "average"
    modifiers: tuple[int, ...] = ()
    permanent_modifiers: tuple[int, ...] = ()
    resistance: Pair | None = None
    versus: Pair | None = None
    assist: UgeCheck | None = None
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        validate(
            self,
            CHECK_FIELDS,
            {"house_rules": HouseRules, "resistance": Pair, "versus": Pair, "assist": UgeCheck},
        )
        targets = ("skill", "resistance", "versus")
        one_of({n: plain(getattr(self, n)) for n in targets}, targets)
        if self.assist is not None:
            helper = self.assist
            if helper.assist is not None or helper.skill is None:
                raise D100Error(
                    "assist",
                    helper.to_dict(),
                    "a helper's skill check: " + ", ".join(f.name for f in ASSIST_FIELDS),
                    "a helper with its own helper, or without a skill",
                )

    @property
    def base(self) -> int:
        """S before modifiers: the skill, or the resistance table's chance."""
        if self.resistance is not None:
            return 50 + 5 * (self.resistance.active - self.resistance.passive)
        if self.versus is not None:
            return 50 + (self.versus.active - self.versus.passive)
        assert self.skill is not None
        return self.skill

    def chance(self, cooperation: int = 0) -> int:
        """S: permanent modifiers, the difficulty, then the other modifiers (BU-2)."""
        s = self.base + sum(self.permanent_modifiers)
        if self.difficulty == "easy":
            s = 2 * s
        elif self.difficulty == "difficult":
            s = (s + 1) >> 1  # ⌈S/2⌉, as the port shifts
        elif self.difficulty == "impossible":
            s = 1
        elif self.difficulty == AUTOMATIC:
            s = AUTOMATIC_CHANCE
        return s + sum(self.modifiers) + cooperation

    def side_dict(self) -> dict[str, Any]:
        """The request without ``system`` and ``house_rules``: a helper's or a side's part."""
        out: dict[str, Any] = plain(self, nested=True)
        out.pop("house_rules", None)
        if self.assist is not None:
            out["assist"] = self.assist.side_dict()
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"system": NAME, **self.side_dict(), **house_dict(self.house_rules)}


@dataclass(frozen=True)
class UgeContest:
    actor: UgeCheck
    opponent: UgeCheck
    house_rules: HouseRules = field(default_factory=HouseRules)
    response: str | None = None
    system: str = NAME

    def __post_init__(self) -> None:
        for name, side in contest_sides(self, CONTEST_FIELDS, UgeCheck, HouseRules):
            extra = [n for n in ("resistance", "versus", "assist") if getattr(side, n) is not None]
            if extra:
                raise D100Error(
                    f"{name}.{extra[0]}",
                    plain(getattr(side, extra[0])),
                    "a side's fields: " + ", ".join(sorted(_SIDE_NAMES)),
                    "not a field of an opposed side",
                )

    def to_dict(self) -> dict[str, Any]:
        sides = {}
        for name, side in (("actor", self.actor), ("opponent", self.opponent)):
            sides[name] = {k: v for k, v in side.side_dict().items() if k in _SIDE_NAMES}
        response = {} if self.response is None else {"response": self.response}
        return {"system": NAME, **sides, **response, **house_dict(self.house_rules)}


def _pair(values: Any) -> Pair | None:
    return None if values is None else Pair(**values)


def _check(values: Mapping[str, Any], house: HouseRules) -> UgeCheck:
    assist = values.get("assist")
    return UgeCheck(
        skill=values["skill"],
        difficulty=values["difficulty"],
        modifiers=values["modifiers"],
        permanent_modifiers=values["permanent_modifiers"],
        resistance=_pair(values.get("resistance")),
        versus=_pair(values.get("versus")),
        assist=None if assist is None else placed("assist", _check, assist, HouseRules()),
        dice=values["dice"],
        house_rules=house,
    )


def thresholds(s: int) -> tuple[int, int, int]:
    """(critical, special, fumble_from) of BU-1: ⌈S/20⌉, ⌈S/5⌉, 95 + ⌈S/20⌉ (no cap)."""
    critical = -(-s // 20)
    return critical, -(-s // 5), 95 + critical


def level(roll: int, s: int) -> Level:
    """BU-1 as the port's Classify: over S a fumble or a failure; else critical, special or
    success."""
    critical, special, fumble_from = thresholds(s)
    if roll > s:
        return "fumble" if roll >= fumble_from else "failure"
    if roll <= critical:
        return "critical"
    return "special" if roll <= special else "success"


def bands(s: int) -> str:
    critical, special, fumble_from = thresholds(s)
    success = max(min(s, 100), 0)
    critical, special = max(min(critical, success), 0), max(min(special, success), 0)
    return (
        f"criticals {show_span(1, critical)}, specials {show_span(critical + 1, special)}, "
        f"successes {show_span(special + 1, success)}, "
        f"fumbles {show_span(max(fumble_from, success + 1), 100)}"
    )


def opposed(
    a: Level, a_roll: int, a_margin: int, o: Level, o_roll: int, o_margin: int, rule: str
) -> tuple[Winner, Level | None]:
    """BU-3: the winner and the actor's result (OpposeSkillRoll's, as a level), None on a tie.
    Margins are S - r, read only under ``larger_margin``."""
    if a != o:
        # The port's operator- clamps at fumble only; critical against fumble (4) would be
        # past its critical, so it is held at critical here.
        steps = min(max(STEP[a] - STEP[o], STEP["fumble"]), STEP["critical"])
        return ("actor" if STEP[a] > STEP[o] else "opponent"), BY_STEP[steps]
    if rule == "higher_roll":
        won = o_roll < a_roll  # equal rolls go to the opposed side
    elif a_margin == o_margin:
        return "tie", None
    else:
        won = a_margin > o_margin
    return ("actor", "success") if won else ("opponent", "failure")


@dataclass(frozen=True)
class Blow:
    """BU-4: what a melee attack does against a parry or a dodge."""

    winner: Winner
    outcome: Level
    attacker_fumbles: bool = False
    defender_fumbles: bool = False
    attack_weapon: int = 0  # damage to the attacking weapon (a parry that was better)
    parry_weapon: int = 0  # damage to the parrying weapon or shield (an attack that was better)

    def note(self) -> str:
        said = [
            f"the attack lands as a {self.outcome}"
            if self.winner == "actor"
            else "the defence holds"
            if self.winner == "opponent"
            else ""
        ]
        said.append("the attacker fumbles" if self.attacker_fumbles else "")
        said.append("the defender fumbles" if self.defender_fumbles else "")
        if self.attack_weapon:
            said.append(f"the attacking weapon takes {self.attack_weapon}")
        if self.parry_weapon:
            said.append(f"the parrying weapon takes {self.parry_weapon}")
        return "; ".join(s for s in said if s) or "no damage, no effect"


def blow(attack: Level, defence: Level, response: str) -> Blow:
    """BU-4, the port's ``CombatResult(attacker, defender)``: a failed attack does nothing, one
    against a failed defence lands at its level, and otherwise the difference decides."""
    if STEP[attack] <= STEP["failure"]:
        return Blow("none", attack, attacker_fumbles=attack == "fumble")
    if STEP[defence] <= STEP["failure"]:
        return Blow("actor", attack, defender_fumbles=defence == "fumble")
    delta = STEP[attack] - STEP[defence]
    parried = response == "parry"
    outcome = BY_STEP[max(delta, STEP["failure"])]
    return Blow(
        "actor" if delta > 0 else "opponent",
        outcome,
        attack_weapon=-delta if parried and delta < 0 else 0,
        parry_weapon=2 * delta if parried and delta > 0 else 0,
    )


class BrpUge(Declared):
    name: str = NAME
    title: str = "Basic Roleplaying (Universal Game Engine)"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS
    check_rules = (exactly_one(("skill", "resistance", "versus")),)  # the one target

    def parse_check(self, data: Mapping[str, Any]) -> UgeCheck:
        values = read(data, CHECK_FIELDS)
        return _check(values, house_from(values, HouseRules))

    def parse_contest(self, data: Mapping[str, Any]) -> UgeContest:
        values = read(data, CONTEST_FIELDS)
        house = house_from(values, HouseRules)
        actor, opponent = (
            placed(name, _check, values[name], house) for name in ("actor", "opponent")
        )
        return UgeContest(actor, opponent, house, values["response"])

    # -- checks ---------------------------------------------------------------------------

    def _machine(self, check: UgeCheck, where: str) -> Machine[Any]:
        """Final state: (True, cooperation, roll)."""
        own: Machine[Any] = Roll(dice_stream(where))
        helper = check.assist
        if helper is None:
            return Then(Fixed(None), lambda _: own, key=lambda _: 0)
        first = self._machine(helper, path(where, "assist"))
        return Then(first, lambda _: own, key=lambda s: COOPERATION[_level(helper, s)])

    def _result(self, check: UgeCheck, where: str, state: Any, record: Record) -> CheckResult:
        _, cooperation, roll = state
        s = check.chance(cooperation)
        lvl = _level(check, state)
        band = bands(s)
        why = f"rolled {show_roll(roll)} vs {s}: {lvl} ({band})"
        assist = None
        if check.assist is not None:
            helper, at = check.assist, path(where, "assist")
            assist = self._result(helper, at, replay(self._machine(helper, at), record), record)
            why += f"; cooperation {cooperation:+d} for the helper's {assist.level}"
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in self.success_levels,
            roll=roll,
            dice=tuple(record.get(dice_stream(where), ())),
            target=s,
            margin=s - roll,
            explanation=why,
            request=check_data(check.to_dict()),
            bands=band,
            assist=assist,
        )

    def check_plan(self, check: UgeCheck) -> Plan[Any, CheckResult]:
        return Plan(
            machine=self._machine(check, ""),
            given=_given(check, ""),
            outcome=partial(_level, check),
            build=lambda s, rec: self._result(check, "", s, rec),
            cost=_cost(check),
            dear="assist",
        )

    # -- contests (BU-3) --------------------------------------------------------------------

    def contest_plan(self, contest: UgeContest) -> Plan[Any, ContestResult]:
        actor, opponent = contest.actor, contest.opponent
        sa, so = actor.chance(), opponent.chance()
        rule = contest.house_rules.same_level
        machine: Machine[Any] = Then(
            self._machine(actor, "actor"), lambda _: self._machine(opponent, "opponent")
        )

        response = contest.response

        def decide(state: Any) -> tuple[Winner, Level | None]:
            a, o = state[1][2], state[2][2]
            if response is not None:
                hit = blow(level(a, sa), level(o, so), response)
                return hit.winner, hit.outcome
            return opposed(level(a, sa), a, sa - a, level(o, so), o, so - o, rule)

        def build(state: Any, record: Record) -> ContestResult:
            winner, degree = decide(state)
            a = self._result(actor, "actor", state[1], record)
            o = self._result(opponent, "opponent", state[2], record)
            verdict = "tie (equal margins)" if winner == "tie" else f"{winner} wins"
            if response is not None:
                hit = blow(level(state[1][2], sa), level(state[2][2], so), response)
                verdict = f"{response}: {hit.note()}"
            elif degree is not None:
                verdict += f", the actor's result {degree}"
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                explanation=f"{verdict} — actor {a.explanation}; opponent {o.explanation}",
                request=contest_data(contest.to_dict()),
                degree=degree,
            )

        return Plan(
            machine=machine,
            given={**_given(actor, "actor"), **_given(opponent, "opponent")},
            outcome=lambda s: decide(s)[0],
            build=build,
            cost=_cost(actor) + _cost(opponent),
        )


def _level(check: UgeCheck, state: Any) -> Level:
    """The level of a final state (True, cooperation, roll)."""
    return level(state[2], check.chance(state[1]))


def _cost(check: UgeCheck) -> int:
    """A d100 for the check and one for a helper, over the few states the helper leaves."""
    return 100 * 2 * (len(COOPERATION) if check.assist is not None else 1)


def _given(check: UgeCheck, where: str) -> dict[str, Any]:
    out = given(dice_stream(where), check.dice)
    if check.assist is not None:
        out.update(given(dice_stream(path(where, "assist")), check.assist.dice))
    return out


# -- what the rest of the code reads (declarations.py) -----------------------------------------


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """Cooperation: one helper at a time tests a skill of theirs (BU-2)."""
    if base.get("assist"):
        return []
    return [
        Option(f"assisted by {name}", f"{name}'s action; -50 if they fumble", _assisted(dict(h)))
        for name, h in helpers.items()
    ]


def _assisted(helper: dict[str, Any]) -> Change:
    return lambda r: {**r, "assist": helper}


def _roller(check: UgeCheck) -> Roller | None:
    return None if check.dice is not None or check.assist is not None else Roller()


def _shape(check: UgeCheck) -> Hashable | None:
    """An unhelped check ends on its roll."""
    return None if check.dice is not None or check.assist is not None else ()


def _shown(s: int, state: Any) -> tuple[Level, int]:
    return (level(state[2], s), state[2])


def _results() -> list[Hashable]:
    return [(lvl, r) for lvl in LEVELS for r in range(1, 101)]


def _beats(x: tuple[Level, int], y: tuple[Level, int]) -> tuple[Winner]:
    return (opposed(x[0], x[1], 0, y[0], y[1], 0, "higher_roll")[0],)


def _ranking(contest: UgeContest) -> RankedContest | None:
    """Under OpposeSkillRoll the winner is an ordering of (level, roll); margins are not."""
    if contest.house_rules.same_level != "higher_roll":
        return None
    sides = []
    for check in (contest.actor, contest.opponent):
        shape = _shape(check)
        if shape is None:
            return None
        s = check.chance()
        sides.append(RankedSide(check, shape, s, partial(_shown, s)))
    return RankedContest(NAME, _results, _beats, (sides[0], sides[1]))


DECLARATION = Declaration(
    target=Target(
        field="difficulty",
        label="Difficulty",
        # Multiplicative presets, declared as the chance a skill of 100 gets under each (the
        # port's number for automatic)
        presets=frozen_map(
            {
                "average": 100,
                "easy": 200,
                "difficult": 50,
                "impossible": 1,
                AUTOMATIC: AUTOMATIC_CHANCE,
            }
        ),
        default="average",
        harder=-1,
        example="difficult (half the skill)",
        shown=frozen_map(
            {
                "average": "x1",
                "easy": "x2",
                "difficult": "x1/2",
                "impossible": "chance 1",
                AUTOMATIC: "always succeeds",
            }
        ),
    ),
    skill_range=(0, BIG),
    words=Words(
        target="chance",
        shortfall=None,
        bands=lambda result: result.bands or "",
    ),
    options=_options,
    sampler=_roller,
    assistance=Assistance(
        field="assist",
        many=False,
        most=1,
        cap_rule=None,
        bonus=COOPERATION["success"],
        helper_fields=("skill",),
        summary="one helper tests a skill of theirs: +20 on a success, +30 special, +50 "
        "critical, -10 on a failure, -50 on a fumble",
    ),
    fast=FastPath(
        inputs=frozenset(
            {
                "skill",
                "difficulty",
                "modifiers",
                "permanent_modifiers",
                "resistance",
                "versus",
                "assist",
                "dice",
                "house_rules.same_level",
            }
        ),
        shape=_shape,
        key=lambda c: c.chance(),
        ranking=_ranking,
    ),
    levels=LEVEL_SPECS,
    sides_stand_alone=True,
    development=brp_experience.BRP,  # XP-1: the experience roll
    improvement="success",  # a successful check earns its skill an experience check
)
BrpUge.declares = DECLARATION
SYSTEM = BrpUge()
