"""Delta Green as the Foundry system (2.0.1) plays it, as SESSION Part B section 3 reads it
(DG-1..DG-9): roll under the target; matching digits are a critical success when the roll
succeeds and a critical failure when it fails; 01 always a critical success, 00 always a
critical failure (decisions S10, S11); a SAN test rolls its loss, which a Bond may absorb.

The tests (``test``): a skill, a statistic rolled at x5 (inhuman from 20, DG-4), SAN, Luck at
50 (DG-9) and a ritual at 99 - SAN. A modifier clamps the target to 1..99 (DG-3); with none the
target stands as it is. Difficulty words are refused (S12): the presets are Foundry's modifiers.
A SAN test may name its loss (``san_loss``, the rulebook's losses ``success/failure``): the loss is
rolled by the test's result (DG-5), an adapted agent succeeds without rolling (DG-6), a loss may
be projected onto a Bond (DG-7) and the result says when the breaking point is reached (DG-8).
Breaking points, adaptation boxes and Bond scores are the sheet's bookkeeping, not rolls.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal, get_args

from .. import tallies
from ..declarations import (
    Declaration,
    FastPath,
    LevelSpec,
    Marks,
    Option,
    Roller,
    Style,
    Target,
    Words,
    frozen_map,
)
from ..dice import is_doubles, show_roll
from ..errors import D100Error, DiceError, RuleRefusal
from ..expressions import Dice, parse
from ..fields import BIG, Field, only_with, read, validate
from ..machine import Fixed, Machine, Need, Then, distribution
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
    plain,
    system_field,
)

NAME = "delta-green"
Level = Literal["critical", "success", "failure", "fumble"]  # best first
LEVELS: tuple[Level, ...] = get_args(Level)
SUCCESS = frozenset({"critical", "success"})
Test = Literal["skill", "stat", "sanity", "luck", "ritual"]
TESTS: tuple[Test, ...] = get_args(Test)
# DG-3: the roll dialog's modifiers; no difficulty words (S12)
MODIFIERS = {"normal": 0, "easier": 20, "much-easier": 40, "harder": -20, "much-harder": -40}
LUCK = 50  # DG-9
CAP = 99  # DG-3: a modified target is held to 1..99
HUMAN = 99  # DG-4: a statistic whose x5 is above this is inhuman
INSANITY = 5  # DG-5: a loss of 5 or more from one roll is temporary insanity
PROJECTION = 4  # DG-7: the d4 of projecting onto a Bond
ADAPTING = 6  # DG-6: the 1D6 of CHA (violence) or POW (helplessness) lost on adapting
LOSS_STREAM = "san_loss_dice"  # the loss's dice, the d4, the d6, drawn after the d100
# DG-5: a loss is the rulebook's success/failure, each whole numbers and dice added: its tables'
# (violence, helplessness, the unnatural) and Foundry's items' (unnatural 1/1D4, tome 1D4/1D6,
# ritual 0/1D10) among them; any such sum, as Foundry's sanity-damage rolls any formula
LOSS_ALLOWED = "success/failure, each whole numbers and dice added: 0/1d4, 1/1d6, 1d6/1d20, 1/1d4+1"
LOSS_WORD = r"[0-9dDkKhHlL+\-]+/[0-9dDkKhHlL+\-]+"  # a quick word that is a loss: 1d4/1d6

MEANINGS = {
    "critical": "a critical success: the best outcome, and it works with style",
    "success": "it works",
    "failure": "it does not work",
    "fumble": "a critical failure: the worst outcome",
}
ICONS = {"critical": "★", "success": "✓", "failure": "✗", "fumble": "☠"}
STYLES: Mapping[str, Style] = {
    "critical": "best",
    "success": "ok",
    "failure": "bad",
    "fumble": "worst",
}

HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (DG-2, DG-5)",
    default={},
    fields=(
        Field(
            "zero_target_01",
            "choice",
            "01 against a target of 0: critical (a critical success, the rule texts, S10) or"
            " fumble (a critical failure, as Foundry)",
            choices=("critical", "fumble"),
            default="critical",
        ),
        Field(
            "fumble_max_loss",
            "bool",
            "a SAN test's critical failure loses the failure loss's maximum (SealDice)",
            default=False,
        ),
    ),
)
_TESTED = (
    Field(
        "skill",
        "int",
        "the number tested: a skill %, a statistic (test stat, x5), current SAN (test sanity or"
        " ritual) or 50 (test luck) (DG-1)",
        low=0,
        high=BIG,
        required=True,
    ),
    Field(
        "test",
        "choice",
        "what is tested: skill, stat (x5; inhuman from 20, DG-4), sanity, luck (50, DG-9) or"
        " ritual (99 - SAN) (DG-1)",
        choices=TESTS,
    ),
    Field(
        "modifier",
        "preset",
        "the roll dialog's modifier: easier +20, much-easier +40, harder -20, much-harder -40"
        " (DG-3)",
        low=-BIG,
        high=BIG,
        default=0,
        presets=MODIFIERS,
    ),
    modifiers_field("other modifiers, added to the modifier (DG-3)"),
)
SANITY_FIELDS = (
    Field(
        "san_loss",
        "text",
        "with test sanity: the SAN loss, success/failure, each whole numbers and dice added"
        " (1/1d6, 1d6/1d20, 0/1d4+1) (DG-5)",
        pattern=LOSS_WORD,
    ),
    Field(
        "san_loss_dice",
        "dice",
        "the SAN loss's dice, then a projection's d4, then adapting's d6, rolled by hand (DG-5)",
        words=("loss@*",),
    ),
    Field(
        "adapted",
        "bool",
        "with test sanity: adapted to this kind of threat, the test succeeds unrolled (DG-6)",
        default=False,
        words=("adapted",),
    ),
    Field(
        "willpower",
        "int",
        "with a loss: project it onto a Bond, the agent's WP before the d4 (DG-7)",
        low=0,
        high=BIG,
        words=("wp#",),
    ),
    Field(
        "bond",
        "int",
        "with willpower: the score of the Bond the loss is projected onto (DG-7)",
        low=1,
        high=BIG,
        words=("bond#",),
    ),
    Field(
        "adapting",
        "choice",
        "with a loss: the threat whose third incident box this is, violence or helplessness:"
        " a loss of 1-4 that reaches no breaking point adapts the agent, who loses 1D6 CHA and"
        " as much of each Bond (violence) or 1D6 POW (helplessness) (DG-6)",
        choices=("violence", "helplessness"),
    ),
    Field(
        "breaking_point",
        "int",
        "with test sanity: the agent's breaking point, reached at SAN at or below it (DG-8)",
        low=0,
        high=BIG,
    ),
)
SIDE_FIELDS = (*_TESTED, DICE)
CHECK_FIELDS = (system_field(NAME), *_TESTED, *SANITY_FIELDS, DICE, HOUSE_RULES)
CONTEST_FIELDS = (
    system_field(NAME),
    Field("actor", "object", "the acting side", required=True, fields=SIDE_FIELDS),
    Field("opponent", "object", "the opposing side", required=True, fields=SIDE_FIELDS),
    HOUSE_RULES,
)
_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)
_SANITY_NAMES = tuple(f.name for f in SANITY_FIELDS)
# What ``DgCheck`` refuses between its fields, as JSON Schema (the stat of 0 is a rule's
# refusal, DG-1, said as one).
CHECK_RULES = (
    *(only_with(n, "test", "sanity") for n in _SANITY_NAMES if n != "adapted"),
    only_with("adapted", "test", "sanity", given=True),
    only_with("test", "skill", LUCK, given="luck"),  # DG-9
    {"not": {"required": ["adapted", "adapting"], "properties": {"adapted": {"const": True}}}},
    *(only_with(n, "san_loss") for n in ("san_loss_dice", "willpower", "adapting")),
    only_with("willpower", "bond"),  # DG-7: a projection needs both
    only_with("bond", "willpower"),
)


@dataclass(frozen=True)
class HouseRules:
    zero_target_01: str = "critical"
    fumble_max_loss: bool = False

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)


@dataclass(frozen=True)
class DgCheck:
    skill: int
    test: str | None = None  # a skill
    modifier: int = 0
    modifiers: tuple[int, ...] = ()
    san_loss: str | None = None
    san_loss_dice: tuple[int, ...] | None = None
    adapted: bool = False
    willpower: int | None = None
    bond: int | None = None
    adapting: str | None = None
    breaking_point: int | None = None
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"house_rules": HouseRules})
        if self.test == "skill":  # the default, said once: a request echoes it unsaid
            object.__setattr__(self, "test", None)
        if self.test == "stat" and self.skill == 0:  # DG-1: Foundry's blocked roll
            raise RuleRefusal(
                "skill", 0, "a statistic of 1 or more", "a statistic of 0 cannot be rolled"
            )
        if self.test == "luck" and self.skill != LUCK:  # DG-9
            raise D100Error("skill", self.skill, f"{LUCK} with test luck", "Luck is tested at 50")
        for name in _SANITY_NAMES:
            value = getattr(self, name)
            if value is not None and value is not False and self.test != "sanity":
                raise D100Error(
                    name, plain(value), "only with test sanity", f"a {self.test or 'skill'} test"
                )
        if self.adapted and self.adapting is not None:  # DG-6: adapted once, for good
            raise D100Error("adapting", self.adapting, "only before adapting", "already adapted")
        for name in ("san_loss_dice", "willpower", "adapting"):
            if getattr(self, name) is not None and self.san_loss is None:
                raise D100Error(name, plain(getattr(self, name)), "only with a loss", "no loss")
        if self.san_loss is not None:
            for part in _loss_parts(self.san_loss):
                _sides(part)  # checked now: refused naming the field, before any roll
        if (self.willpower is None) != (self.bond is None):  # DG-7: both, or no projection
            name = "bond" if self.bond is None else "willpower"
            raise D100Error(name, None, "willpower and bond together", "a projection needs both")

    @property
    def projects(self) -> bool:
        return self.willpower is not None

    @property
    def base(self) -> int:
        """DG-1's T: what is tested before any modifier."""
        if self.test == "stat":
            return 5 * self.skill
        if self.test == "ritual":
            return min(max(CAP - self.skill, 1), CAP)
        return self.skill

    @property
    def inhuman(self) -> bool:  # DG-4: a statistic test only (S12), from the base x5
        return self.test == "stat" and self.base > HUMAN

    @property
    def target(self) -> int:
        """DG-1, DG-3: E, clamped to 1..99 only where a modifier applies (not above 99 for an
        inhuman statistic)."""
        m = self.modifier + sum(self.modifiers)
        if m == 0:
            return self.base
        e = max(1, self.base + m)
        return e if self.inhuman else min(e, CAP)

    @property
    def judged(self) -> Judged:
        """What a roll's level reads of this check."""
        return (self.target, self.skill if self.inhuman else 0, self.house_rules.zero_target_01)

    def to_dict(self) -> dict[str, Any]:
        return check_dict(self)


# (E, the inhuman critical limit or 0, the zero_target_01 rule): all a level reads
Judged = tuple[int, int, str]


@dataclass(frozen=True)
class DgContest:
    actor: DgCheck
    opponent: DgCheck
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        contest_sides(self, CONTEST_FIELDS, DgCheck, HouseRules)

    def to_dict(self) -> dict[str, Any]:
        sides = {}
        for name, side in (("actor", self.actor), ("opponent", self.opponent)):
            values: dict[str, Any] = plain(side)
            sides[name] = {k: v for k, v in values.items() if k in _SIDE_NAMES}
        return {"system": NAME, **sides, **house_dict(self.house_rules)}


def level(roll: int, judged: Judged) -> Level:
    """DG-1, DG-2, DG-4: success is a roll other than 00 at or under E; a critical is 01, 00,
    matching digits, or (inhuman) a roll at or under the statistic. 01 always a critical
    success (S10; Foundry's failure against E = 0 by house rule), 00 always a failure (S11)."""
    e, inhuman, zero_01 = judged
    if roll == 1 and (e > 0 or zero_01 == "critical"):
        return "critical"
    success = roll != 100 and roll <= e
    critical = roll == 1 or is_doubles(roll) or roll <= inhuman
    if success:
        return "critical" if critical else "success"
    return "fumble" if critical else "failure"


# -- DG-5..DG-8: a SAN test's loss ------------------------------------------------------------


@dataclass(frozen=True)
class Loss:
    """A SAN test's loss as rolled: the expression and its total, a projection's d4 (0: none
    rolled) and whether it took the d4 off, the loss that stands, and the 1D6 of adapting
    (0: the agent did not adapt)."""

    expression: str
    rolled: int
    d4: int
    projected: bool
    final: int
    d6: int


def _loss_parts(loss: str) -> tuple[str, str]:
    """A loss's success and failure parts (DG-5)."""
    parts = loss.split("/")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise D100Error("san_loss", loss, LOSS_ALLOWED, "not success/failure")
    return parts[0].strip(), parts[1].strip()


@lru_cache(maxsize=64)  # asked again for each of a SAN test's final states (sanity_odds)
def _sides(expression: str) -> tuple[tuple[int, ...], int]:
    """The faces of each die of a loss (whole dice added, no die kept or taken away: each
    drawn in turn) and its whole numbers; a loss is never below 0."""
    sides: list[int] = []
    constant = 0
    found = parse(expression, "san_loss", bonus=False)
    for term in found.rolled():
        if isinstance(term, Dice):
            if term.keep is not None or term.sign < 0:
                raise D100Error("san_loss", expression, LOSS_ALLOWED, "dice kept or taken away")
            sides += [term.sides] * term.count
        else:
            constant += term.value
    if len(sides) + constant < 0:  # its lowest total
        raise D100Error("san_loss", expression, LOSS_ALLOWED, "a loss below 0")
    return tuple(sides), constant


def _loss_cost(expression: str) -> int:
    """Faces tried rolling a loss: each die over the totals before it, then a d4 over the
    totals, then a d6 over the totals and d4s."""
    sides, _ = _sides(expression)
    tried, high = 0, 0
    for faces in sides:
        tried += (high + 1) * faces
        high += faces
    return tried + (high + 1) * PROJECTION * (1 + ADAPTING)


def _projected(check: DgCheck, rolled: int, d4: int) -> tuple[bool, int]:
    """DG-7: whether a projection's d4 comes off the loss (WP less it still 1 or more), and
    the loss that stands."""
    projected = bool(d4) and check.willpower is not None and check.willpower - d4 >= 1
    return projected, max(0, rolled - d4) if projected else rolled


def _adapts(check: DgCheck, final: int) -> bool:
    """DG-6: the incident that ticks a threat's third box adapts the agent: a loss of 1 or
    more without temporary insanity or the breaking point reached."""
    reached = check.breaking_point is not None and check.skill - final <= check.breaking_point
    return check.adapting is not None and 1 <= final < INSANITY and not reached


Stage = tuple[int, int, int, int]  # loss dice drawn, their sum, the d4 or 0, the d6 or 0


class LossRoll:
    """The loss dice one at a time, then a projection's d4 where one is asked and a loss
    stands (DG-7), then the 1D6 of adapting where the loss adapts the agent (DG-6)."""

    def __init__(self, check: DgCheck, sides: tuple[int, ...], constant: int) -> None:
        self.check, self.sides, self.constant = check, sides, constant

    def start(self) -> Stage:
        return (0, 0, 0, 0)

    def _next(self, state: Stage) -> int:
        """Which die comes next: 0 a loss die, 1 the d4, 2 the d6, -1 none."""
        drawn, total, d4, d6 = state
        rolled = total + self.constant
        if drawn < len(self.sides):
            return 0
        if self.check.projects and not d4 and rolled > 0:
            return 1
        if not d6 and _adapts(self.check, _projected(self.check, rolled, d4)[1]):
            return 2
        return -1

    def _faces(self, state: Stage, die: int) -> int:
        return self.sides[state[0]] if die == 0 else PROJECTION if die == 1 else ADAPTING

    def need(self, state: Stage) -> Need | None:
        die = self._next(state)
        return None if die < 0 else Need(LOSS_STREAM, 1, self._faces(state, die))

    def advance(self, state: Stage, value: int) -> Stage:
        die = self._next(state)
        faces = self._faces(state, die)
        if not 1 <= value <= faces:  # given by hand: held to the die it stands for
            raise DiceError(LOSS_STREAM, value, f"a d{faces}'s value, 1..{faces}", "off the die")
        drawn, total, d4, _ = state
        if die == 0:
            return (drawn + 1, total + value, 0, 0)
        return (drawn, total, value, 0) if die == 1 else (drawn, total, d4, value)


def _route(check: DgCheck, judged: Judged, roll: int) -> tuple[str, bool]:
    """DG-5: the loss a SAN test's result rolls (the success loss for an adapted agent, DG-6),
    and whether it stands at its maximum (a critical failure, by house rule)."""
    assert check.san_loss is not None
    success_loss, failure_loss = _loss_parts(check.san_loss)
    lvl = "success" if not roll else level(roll, judged)
    if lvl in SUCCESS:
        return success_loss, False
    return failure_loss, lvl == "fumble" and check.house_rules.fumble_max_loss


def _loss_machine(check: DgCheck, route: tuple[str, bool]) -> Machine[Any]:
    sides, constant = _sides(route[0])
    if route[1]:  # at its maximum: no dice
        sides, constant = (), sum(sides) + constant
    return LossRoll(check, sides, constant)


def _loss(check: DgCheck, judged: Judged, roll: int, end: Stage) -> Loss:
    """A final state's loss."""
    expression, at_most = _route(check, judged, roll)
    sides, constant = _sides(expression)
    rolled = (sum(sides) + constant) if at_most else end[1] + constant
    projected, final = _projected(check, rolled, end[2])
    return Loss(expression, rolled, end[2], projected, final, end[3])


def _roll_of(state: Any) -> int:
    """The d100 of a final state (0: an adapted agent's unrolled test)."""
    return state if isinstance(state, int) else state[1]


def _loss_words(check: DgCheck, loss: Loss, dice: tuple[int, ...]) -> str:
    n = len(dice) - bool(loss.d4) - bool(loss.d6)
    shown = f" ({', '.join(map(str, dice[:n]))})" if n else ""
    words = [f"SAN loss {loss.expression}{shown} = {loss.rolled}"]
    if check.willpower is not None and check.bond is not None and loss.d4:
        wp, bond = check.willpower, check.bond
        if loss.projected:
            words.append(
                f"projected onto a Bond, d4 {loss.d4}: loss {loss.final}, WP {wp} -> "
                f"{wp - loss.d4}, Bond {bond} -> {max(0, bond - loss.d4)}"
            )
        else:
            words.append(f"projection failed, d4 {loss.d4}: WP {wp} -> {max(0, wp - loss.d4)}")
    after = max(0, check.skill - loss.final)  # as the result's skill_after
    words.append(f"SAN {check.skill} -> {after}")
    if loss.final >= INSANITY:
        words.append("temporary insanity (a loss of 5 or more)")
    if loss.d6:
        lost = "CHA and each Bond" if check.adapting == "violence" else "POW"
        words.append(f"adapted to {check.adapting}, 1D6 {loss.d6}: {lost} -{loss.d6}")
    if check.breaking_point is not None and after <= check.breaking_point:
        words.append(f"breaking point reached (SAN {after} <= {check.breaking_point})")
    return "; ".join(words)


@dataclass(frozen=True)
class SanityOdds:
    """A SAN test's exact loss (after any projection), from the machine that rolls it:
    each loss with its chance, the chance of temporary insanity (DG-5) and, where the request
    gives a breaking point, of reaching it (DG-8)."""

    loss: Mapping[int, Fraction]
    temporary_insanity: Fraction
    breaking_point: Fraction | None


def sanity_odds(check: DgCheck) -> SanityOdds:
    """The exact loss of a SAN test that names one."""
    if check.san_loss is None:
        raise D100Error("san_loss", None, LOSS_ALLOWED, "a SAN test with no loss")
    plan = SYSTEM.check_plan(check)
    tallies.affordable(plan)  # known before any work
    judged = check.judged
    losses: dict[int, Fraction] = {}
    for state, p in distribution(plan.machine).items():
        final = _loss(check, judged, _roll_of(state), state[2]).final
        losses[final] = losses.get(final, Fraction(0)) + p
    ordered = dict(sorted(losses.items()))
    bp = check.breaking_point
    return SanityOdds(
        loss=frozen_map(ordered),
        temporary_insanity=sum((p for n, p in ordered.items() if n >= INSANITY), Fraction(0)),
        breaking_point=None
        if bp is None
        else sum((p for n, p in ordered.items() if check.skill - n <= bp), Fraction(0)),
    )


# -- the system ---------------------------------------------------------------------------------


def _side(values: Mapping[str, Any], house: HouseRules) -> DgCheck:
    extra = {name: values[name] for name in _SANITY_NAMES if name in values}
    return DgCheck(
        skill=values["skill"],
        test=values["test"],
        modifier=values["modifier"],
        modifiers=values["modifiers"],
        dice=values["dice"],
        house_rules=house,
        **extra,
    )


def _why(check: DgCheck, roll: int, lvl: str) -> str:
    if not roll:
        return f"adapted: the SAN test succeeds without a roll (DG-6): {lvl}"
    e = check.target
    held = "" if e == check.base + check.modifier + sum(check.modifiers) else " (clamped)"
    text = f"rolled {show_roll(roll)} vs {e}{held}: {lvl}"
    if roll == 100:
        return f"{text} (00 is always a critical failure)"
    if roll == 1:
        return f"{text} (01)"
    if lvl in ("critical", "fumble"):
        why = "matching digits" if is_doubles(roll) else f"inhuman: at or under {check.skill}"
        return f"{text} ({why})"
    return text


def _bands(result: CheckResult) -> str:
    if result.roll is None:
        return "an adapted agent does not roll"
    return _bands_of(result.target)


def _bands_of(e: int) -> str:
    if e <= 0:
        return "01 a critical success, every other roll fails: matching digits and 00 critical"
    return (
        f"success 01-{show_roll(min(e, CAP))}, matching digits in it critical successes, above"
        " it critical failures; 00 always a critical failure"
    )


class DeltaGreen(Declared):
    name: str = NAME
    title: str = "Delta Green"
    check_fields: tuple[Field, ...] = CHECK_FIELDS
    contest_fields: tuple[Field, ...] = CONTEST_FIELDS
    check_rules = CHECK_RULES

    def parse_check(self, data: Mapping[str, Any]) -> DgCheck:
        values = read(data, CHECK_FIELDS)
        return _side(values, house_from(values, HouseRules))

    def parse_contest(self, data: Mapping[str, Any]) -> DgContest:
        values = read(data, CONTEST_FIELDS)
        house = house_from(values, HouseRules)
        return DgContest(_side(values["actor"], house), _side(values["opponent"], house), house)

    def _result(self, check: DgCheck, where: str, state: Any, record: Record) -> CheckResult:
        roll, judged = _roll_of(state), check.judged
        lvl = "success" if not roll else level(roll, judged)
        note, after = None, None
        if check.san_loss is not None:
            loss = _loss(check, judged, roll, state[2])
            note = _loss_words(check, loss, tuple(record.get(LOSS_STREAM, ())))
            after = max(0, check.skill - loss.final)  # DG-5: what the sheet's SAN becomes
        return CheckResult(
            system=NAME,
            level=lvl,
            success=lvl in SUCCESS,
            roll=roll or None,
            dice=tuple(record.get(dice_stream(where), ())),
            target=check.target,
            margin=check.target - roll if roll else None,
            explanation=_why(check, roll, lvl),
            request=check_data(check.to_dict()),
            bands=_bands_of(check.target) if roll else None,
            note=note,
            skill_after=after,
        )

    def check_plan(self, check: DgCheck) -> Plan[Any, CheckResult]:
        judged = check.judged
        first: Machine[Any] = Fixed(0) if check.adapted else Roll(dice_stream(""))
        machine = first
        cost = 100
        if check.san_loss is not None:
            machine = Then(
                first,
                lambda route: _loss_machine(check, route),
                route=lambda roll: _route(check, judged, roll),
            )
            cost += sum(_loss_cost(x) for x in _loss_parts(check.san_loss))  # each once
        given_dice = {
            **given(dice_stream(""), check.dice),
            **given(LOSS_STREAM, check.san_loss_dice),
        }
        return Plan(
            machine=machine,
            given=given_dice,
            outcome=lambda s: "success" if not _roll_of(s) else level(_roll_of(s), judged),
            build=lambda s, rec: self._result(check, "", s, rec),
            cost=cost,
            dear="san_loss",
        )

    def contest_plan(self, contest: DgContest) -> Plan[Any, ContestResult]:
        actor, opponent = contest.actor, contest.opponent
        ja, jo = actor.judged, opponent.judged

        def decide(state: Any) -> Winner:
            return _decide(state[1], level(state[1], ja), state[2], level(state[2], jo))

        def build(state: Any, record: Record) -> ContestResult:
            a = self._result(actor, "actor", state[1], record)
            o = self._result(opponent, "opponent", state[2], record)
            winner = decide(state)
            return ContestResult(
                system=NAME,
                winner=winner,
                actor=a,
                opponent=o,
                explanation=_contest_why(winner, a, o),
                request=contest_data(contest.to_dict()),
            )

        return Plan(
            machine=Then(Roll("actor.dice"), lambda _: Roll("opponent.dice")),
            given={**given("actor.dice", actor.dice), **given("opponent.dice", opponent.dice)},
            outcome=decide,
            build=build,
            cost=200,
        )


RANK = {"critical": 2, "success": 1}


def _decide(a_roll: int, a: Level, o_roll: int, o: Level) -> Winner:
    """Opposed tests (S12, suggested decision 7): a success beats a failure, a critical a plain
    success; between equal successes the higher roll wins, equal rolls tie; both failing,
    nobody wins."""
    ra, ro = RANK.get(a, 0), RANK.get(o, 0)
    if not ra and not ro:
        return "none"
    if ra != ro:
        return "actor" if ra > ro else "opponent"
    if a_roll == o_roll:
        return "tie"
    return "actor" if a_roll > o_roll else "opponent"


def _contest_why(winner: Winner, a: CheckResult, o: CheckResult) -> str:
    sides = f"actor {a.explanation}; opponent {o.explanation}"
    if winner == "none":
        return f"both failed: nobody wins — {sides}"
    if winner == "tie":
        return f"equal rolls at the same level: a tie — {sides}"
    how = " (the higher roll wins)" if a.level == o.level else ""
    return f"{winner} wins{how} — {sides}"


# -- what the rest of the code reads (declarations.py) -----------------------------------------


def _options(
    base: dict[str, Any], luck: int | None, helpers: Mapping[str, Mapping[str, Any]]
) -> list[Option]:
    """A Delta Green agent has nothing to add to a test but the Handler's modifiers."""
    return []


def _plain_check(check: DgCheck) -> bool:
    """A test that is one d100 and nothing more (no loss, not adapted, no dice given)."""
    return check.dice is None and check.san_loss is None and not check.adapted


def _shape(check: DgCheck) -> Hashable | None:
    return () if _plain_check(check) else None


def _earns(result: CheckResult, skill: str | None) -> bool:
    """DG-1: a failed skill test marks the skill, but never Unnatural (nor a statistic, SAN,
    Luck, which cannot improve by failure, DG-9, or a ritual)."""
    return result.request.get("test") is None and (skill or "").strip().lower() != "unnatural"


DECLARATION = Declaration(
    target=Target(
        field="modifier",
        label="Modifier",
        presets=frozen_map(MODIFIERS),
        default="normal",
        harder=-1,
        example="harder, or -20",
    ),
    skill_range=(0, CAP),
    words=Words(target="target", shortfall=None, bands=_bands, unrolled="adapted"),
    options=_options,
    sampler=lambda c: Roller() if _plain_check(c) else None,
    improvement="failure",
    marks=Marks(tick=True, players_only=True, earns=_earns),
    fast=FastPath(
        inputs=frozenset(
            {"skill", "test", "modifier", "modifiers", "dice", "house_rules.zero_target_01"}
        ),
        shape=_shape,
        key=lambda c: c.judged,
    ),
    levels=tuple(
        LevelSpec(lvl, MEANINGS[lvl], ICONS[lvl], STYLES[lvl], lvl in SUCCESS) for lvl in LEVELS
    ),
    sides_stand_alone=True,
)
DeltaGreen.declares = DECLARATION
SYSTEM = DeltaGreen()

__all__ = [
    "LEVELS",
    "NAME",
    "SYSTEM",
    "DgCheck",
    "DgContest",
    "SanityOdds",
    "level",
    "sanity_odds",
]
