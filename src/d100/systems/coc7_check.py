"""A Call of Cthulhu 7th edition check: its request fields, the roll with bonus and penalty
dice on the tens die (C7-3), Luck spent after it (C7-4), one push (C7-5) and a combined roll
(C7-8), resolved by one machine whose enumeration gives the exact odds.

Order after the first roll (decision 7, then decision 8): a roll that fails the required level
is bought up to it with the least Luck that does, where the Luck given can buy it; otherwise,
with ``push``, it is pushed, unless it fumbled (house rule ``allow_push_fumbles``). Luck is
spent only when it buys the roll, so no Luck is ever carried into a push (Foundry's quirk of
subtracting earlier Luck from the pushed roll cannot arise), and none is spent after a push."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any

from ..dice import show_roll
from ..errors import RuleRefusal
from ..fields import BIG, Field, read, validate
from ..machine import Given, Machine, Need, Repeat, TensKept
from ..memo import memoised
from ..results import CheckResult, check_data
from ..system import Plan, Record
from . import coc7_setcoc
from .brp import Attempt, BrpCheck, tens_kept
from .brp import HouseRules as BrpHouseRules
from .coc7_rules import (
    BUYABLE,
    DIFFICULTIES,
    LEVELS,
    RANK,
    Ladder,
    Level,
    banded,
    bands,
    fumble_from,
    ladder,
    luck_bought,
    luck_offers,
    succeeds,
)
from .common import (
    DICE,
    check_dict,
    dice_stream,
    house_from,
    modifiers_field,
    plain,
    rolls,
    system_field,
)

NAME = "coc7"
MAX_EXTRA_DICE = 2  # Foundry's pool cap (C7-3)
MAX_LUCK = 100
MAX_COMBINED = 10

HOUSE_RULES = Field(
    "house_rules",
    "object",
    "named house-rule options (C7-2, C7-5)",
    default={},
    fields=(
        Field(
            "critical_difficulty_fumbles",
            "bool",
            "under critical difficulty 96-99 fumble too, as BCDice reads it (C7-2)",
            default=False,
        ),
        Field(
            "allow_push_fumbles",
            "bool",
            "a fumbled roll may be pushed (Foundry's allowPushFumbles, C7-5)",
            default=False,
        ),
        Field(
            "setcoc",
            "choice",
            "SealDice's critical and fumble rule (.setcoc 0-5 or dg, SD-0..SD-dg) in place of "
            "C7-1 and C7-2's levels; absent: the rulebook's as Foundry plays it",
            choices=coc7_setcoc.VALUES,
        ),
    ),
)
_POOL = (
    Field(
        "skill",
        "int",
        "skill or characteristic, the target; may exceed 100 (C7-1)",
        low=0,
        high=BIG,
        required=True,
    ),
    modifiers_field("flat threshold modifiers, added to the target (C7 fields)"),
    Field(
        "bonus_dice",
        "int",
        "bonus dice on the tens die, net of penalty dice (C7-3)",
        low=0,
        high=MAX_EXTRA_DICE,
        default=0,
        flags=("--bonus", "-b"),
        words=("b", "b#", "bonus", "bonus#"),
    ),
    Field(
        "penalty_dice",
        "int",
        "penalty dice on the tens die, net of bonus dice (C7-3)",
        low=0,
        high=MAX_EXTRA_DICE,
        default=0,
        flags=("--penalty", "-p"),
        words=("p", "p#", "penalty", "penalty#"),
    ),
)
SIDE_FIELDS = (*_POOL, DICE)
CHECK_FIELDS = (
    system_field(NAME),
    *_POOL,
    Field(
        "difficulty",
        "choice",
        "the level the roll must reach (C7-2)",
        choices=DIFFICULTIES,
        default="regular",
    ),
    Field(
        "luck",
        "int",
        "Luck available: a roll that fails the difficulty is bought up to it with the least "
        "Luck that does, where Luck may buy it (C7-4); absent: spend none",
        low=0,
        high=MAX_LUCK,
        words=("luck#",),
    ),
    Field(
        "luck_to",
        "choice",
        "the level Luck buys with the Luck available, a success raised too, where C7-4 offers "
        "it (the difficulty or above, its cost above 0 and below the Luck); absent: the "
        "difficulty, on a failure only",
        choices=BUYABLE,
        choice_words=False,  # the difficulty's words: luck_to=hard
    ),
    Field(
        "push",
        "bool",
        "push once after a failure that Luck did not buy and that is not a fumble (C7-5)",
        default=False,
        words=("push",),
    ),
    Field(
        "combined",
        "int_list",
        "other skills judged on the same roll; it succeeds iff every skill does (C7-8)",
        low=0,
        high=BIG,
        default=(),
        max_items=MAX_COMBINED,
    ),
    HOUSE_RULES,
    DICE,
)


@dataclass(frozen=True)
class HouseRules:
    critical_difficulty_fumbles: bool = False
    allow_push_fumbles: bool = False
    setcoc: int | str | None = None

    def __post_init__(self) -> None:
        validate(self, HOUSE_RULES.fields)
        if self.setcoc is not None and self.critical_difficulty_fumbles:
            raise RuleRefusal(
                "house_rules.critical_difficulty_fumbles",
                True,
                "false with setcoc",
                "setcoc replaces the whole level function (SD-0 already fumbles 96-99 "
                "under critical difficulty)",
            )

    @property
    def levels(self) -> str:
        """What names the level function: C7-1's bands, or a SealDice rule (canonical)."""
        if self.setcoc is not None:
            return coc7_setcoc.rule_of(self.setcoc).key
        return "bcdice" if self.critical_difficulty_fumbles else "foundry"

    @property
    def lower_roll_wins(self) -> bool:
        """Whether an opposed roll both sides succeed at one level goes to the lower roll."""
        return self.setcoc is not None and coc7_setcoc.rule_of(self.setcoc).lower_roll_wins


def ladder_of(target: int, difficulty: str, house: HouseRules) -> Ladder:
    """Each roll's level for one target and required level: SealDice's rule where the house
    rule ``setcoc`` names one (SD-core), else C7-1 with C7-2's fumble range."""
    if house.setcoc is not None:
        return coc7_setcoc.ladder(house.setcoc, target, difficulty)
    return ladder(target, fumble_from(target, difficulty, house.critical_difficulty_fumbles))


@dataclass(frozen=True)
class Coc7Check:
    """A check, or one side of a contest (whose sides take only the pool's fields)."""

    skill: int
    modifiers: tuple[int, ...] = ()
    bonus_dice: int = 0
    penalty_dice: int = 0
    difficulty: str = "regular"
    luck: int | None = None
    luck_to: str | None = None
    push: bool = False
    combined: tuple[int, ...] = ()
    dice: tuple[int, ...] | None = None
    house_rules: HouseRules = field(default_factory=HouseRules)
    system: str = NAME

    def __post_init__(self) -> None:
        validate(self, CHECK_FIELDS, {"house_rules": HouseRules})
        if self.combined:  # C7-8 is BCDice's, which has neither Luck nor pushes
            for name in ("luck", "push"):
                if getattr(self, name) not in (None, False):
                    raise RuleRefusal(
                        name,
                        getattr(self, name),
                        "none with a combined roll",
                        "a combined roll (C7-8) is judged once: no Luck, no push",
                    )
        if self.luck_to is not None:
            if self.luck is None:
                raise RuleRefusal(
                    "luck_to", self.luck_to, "none without luck", "it buys with the Luck available"
                )
            if not succeeds(self.luck_to, self.difficulty):
                raise RuleRefusal(
                    "luck_to",
                    self.luck_to,
                    f"{self.difficulty} or above",
                    "Luck buys no level below the difficulty (C7-4)",
                )

    @cached_property  # read by the odds' cuts and naming and by the plan alike: once
    def kept_bands(self) -> tuple[int, int, int, int] | None:
        """``one_roll_bands`` of this check."""
        return _one_roll_bands(self)

    @property
    def target(self) -> int:
        """T: the skill with the flat threshold modifiers (C7 fields), not clamped."""
        return self.skill + sum(self.modifiers)

    @property
    def targets(self) -> tuple[int, ...]:
        """Every skill judged on the roll, this one first; the modifiers apply to each."""
        bonus = sum(self.modifiers)
        return (self.target, *(s + bonus for s in self.combined))

    @property
    def net_dice(self) -> int:
        return self.bonus_dice - self.penalty_dice

    def to_dict(self) -> dict[str, Any]:
        return check_dict(self)

    def side_dict(self) -> dict[str, Any]:
        """As a contest's side: the pool's fields and its dice."""
        values: dict[str, Any] = plain(self)
        return {k: v for k, v in values.items() if k in _SIDE_NAMES}


_SIDE_NAMES = frozenset(f.name for f in SIDE_FIELDS)


def check_of(values: Mapping[str, Any], house: HouseRules) -> Coc7Check:
    """A request read by ``fields.read`` (a check, or a side without the check's fields)."""
    return Coc7Check(
        skill=values["skill"],
        modifiers=values["modifiers"],
        bonus_dice=values["bonus_dice"],
        penalty_dice=values["penalty_dice"],
        difficulty=values.get("difficulty", "regular"),
        luck=values.get("luck"),
        luck_to=values.get("luck_to"),
        push=values.get("push", False),
        combined=values.get("combined", ()),
        dice=values["dice"],
        house_rules=house,
    )


def parse_check(data: Mapping[str, Any]) -> Coc7Check:
    values = read(data, CHECK_FIELDS)
    return check_of(values, house_from(values, HouseRules))


# -- the roll ---------------------------------------------------------------------------------

_TENS = BrpHouseRules(bonus_dice_method="tens")


@memoised(8)
def _pool(net: int) -> BrpCheck:
    """BRP's pool with the tens method forced on: C7-3 is that procedure exactly."""
    return BrpCheck(skill=0, bonus_dice=max(net, 0), penalty_dice=max(-net, 0), house_rules=_TENS)


def attempt_of(check: Coc7Check, stream: str) -> Attempt:
    return _attempt(check.net_dice, stream)


@memoised(64)  # an attempt holds no state of a roll: one per pool and stream serves all
def _attempt(net: int, stream: str) -> Attempt:
    return Attempt(_pool(net), stream)


@memoised(64)
def _pool_machine(attempt: Attempt) -> Pool:
    return Pool(attempt)


class Pool:
    """C7-3's roll as a machine: one draw of BRP's tens-method attempt, ending on the kept
    value itself (1..100), so that a check's final states are its kept dice and a plan names
    them with one lookup each. The state before the draw is 0."""

    def __init__(self, attempt: Attempt) -> None:
        self.attempt = attempt
        self._need = attempt.need((0, 0))
        # its ends counted by reading (machine.TensKept): 100 advances, not 10^(count+1)
        self.tens_kept = TensKept(attempt.count, attempt.lower) if attempt.tens else None
        self._table: Sequence[int] | None = None  # ``tens_kept``'s table, once it pays
        self._read = 0

    def start(self) -> int:
        return 0

    def need(self, state: int) -> Need | None:
        return self._need if state == 0 else None

    def advance(self, state: int, value: int) -> int:
        """The kept reading of a draw: read from its digits while few are read (a roll, the
        100 of ``TensKept``), from the whole table once more are (a walk over every face,
        10^(count+1) of them, pays for it)."""
        if self.tens_kept is None:
            return value
        table = self._table
        if table is None:
            if self._read < _READ_DIRECTLY:
                self._read += 1
                return self.attempt.keep(self.attempt.values(value))
            table = self._table = self.every_face(state)
        return table[value]

    def every_face(self, state: int) -> Sequence[int]:
        """``advance`` of the one draw's every face, in order: the table it reads."""
        if self.tens_kept is not None:
            return tens_kept(self.attempt.count, self.attempt.lower)
        assert self._need is not None  # a pool's start waits for its draw
        return range(self._need.low, self._need.high + 1)


_READ_DIRECTLY = 128  # draws a pool reads from their digits before building its table


# A final state: the kept die, or (pushes taken, kept die, True) where a push may follow
Final = int | tuple[int, int, bool]


def ends_of(state: Final) -> tuple[int, int]:
    """(pushes taken, the kept die that stands) of a final state."""
    return (0, state) if isinstance(state, int) else (state[0], state[1])


@dataclass(frozen=True)
class Table:
    """What each kept roll 1..100 comes to, indexed by the roll (index 0, no roll, is never
    read): the first roll's level after any Luck, the Luck spent and a pushed roll's level;
    ``pushes`` says which first levels are pushed."""

    first: tuple[str, ...]
    spent: tuple[int, ...]
    pushes: Mapping[str, bool]
    pushed: tuple[str, ...]

    def again(self, kept: int) -> bool:
        """Whether a first roll that kept ``kept`` is pushed, where ``push`` asks (C7-5)."""
        return self.pushes[self.first[kept]]

    def outcome(self, state: Final) -> str:
        pushes, kept = ends_of(state)
        return self.pushed[kept] if pushes else self.first[kept]


def judged(roll: int, targets: tuple[int, ...], difficulty: str, house: HouseRules) -> list[Level]:
    """Each skill's level on one roll, its fumble range from its own required value."""
    return [ladder_of(t, difficulty, house)[roll] for t in targets]


def worst(levels: list[Level]) -> Level:
    """A combined roll stands at its weakest skill: it succeeds iff every skill does."""
    return min(levels, key=RANK.__getitem__)


ROLLS = range(1, 101)
NO_ROLL = "failure"  # index 0 of a table: no roll has it, it is there so rolls index directly


@memoised(4096)
def table(
    targets: tuple[int, ...],
    difficulty: str,
    house: HouseRules,
    luck: int | None,
    luck_to: str | None = None,
) -> Table:
    lad = ladder_of(targets[0], difficulty, house)
    rolled: tuple[str, ...]
    if len(targets) == 1:  # one skill: ``judged`` and ``worst`` give its level, its ladder
        rolled = lad
    else:
        lads = [ladder_of(t, difficulty, house) for t in targets]
        rolled = (NO_ROLL, *(worst([lad[r] for lad in lads]) for r in ROLLS))
    if luck is None:  # nothing to buy a roll with (``luck_bought`` would give None for all)
        first, spent = rolled, NONE_SPENT
    else:
        bought = luck_bought(lad, difficulty, luck, luck_to)
        first = tuple(lv if b is None else b[1] for lv, b in zip(rolled, bought, strict=True))
        spent = tuple(0 if b is None else b[0] for b in bought)
    return Table(first, spent, _pushes(difficulty, house.allow_push_fumbles), rolled)


NONE_SPENT = (0,) * (len(ROLLS) + 1)


@memoised(16)
def _pushes(difficulty: str, push_fumbles: bool) -> Mapping[str, bool]:
    """C7-5: a level that fails the difficulty is pushed, unless it fumbled (house rule)."""
    return {lv: not succeeds(lv, difficulty) and (lv != "fumble" or push_fumbles) for lv in LEVELS}


def table_of(check: Coc7Check) -> Table:
    return table(check.targets, check.difficulty, check.house_rules, check.luck, check.luck_to)


def machine_of(check: Coc7Check, attempt: Attempt) -> Machine[Any]:
    """The first roll, pushed once where ``push`` asks and the rules allow it (C7-5)."""
    pool = _pool_machine(attempt)
    if not check.push:
        return pool
    return Repeat(pool, 1, table_of(check).again)


def outcome(tab: Table, state: Final) -> str:
    return tab.outcome(state)


def spent(tab: Table, state: Final) -> int:
    pushes, kept = ends_of(state)
    return 0 if pushes else tab.spent[kept]


def given_of(check: Coc7Check, attempt: Attempt, stream: str) -> dict[str, Given]:
    return {} if check.dice is None else {stream: attempt.encode(check.dice, stream)}


def one_roll(check: Coc7Check) -> bool:
    """Whether the kept die alone names the check's level: one skill, no Luck, no push."""
    return not (check.push or check.luck is not None or check.combined)


def one_roll_bands(check: Coc7Check) -> tuple[int, int, int, int] | None:
    """(fumbles from, extreme, hard, target) of a check whose kept die alone names its level
    through ``banded`` (C7-1, C7-2): ``one_roll`` without the house rule ``setcoc`` (whose
    levels go by the ladder); None for any other."""
    return check.kept_bands


def _one_roll_bands(check: Coc7Check) -> tuple[int, int, int, int] | None:
    if not one_roll(check) or check.house_rules.setcoc is not None:
        return None
    t = check.target
    fumbles = fumble_from(t, check.difficulty, check.house_rules.critical_difficulty_fumbles)
    return fumbles, t // 5, t // 2, t


def _banded_kept(fumbles: int, extreme: int, hard: int, target: int, kept: int) -> Level:
    """``banded`` with the kept die last, so that a plan names a state through ``partial``."""
    return banded(kept, fumbles, extreme, hard, target)


def outcome_of(check: Coc7Check) -> Callable[[Any], str]:
    """The naming of a check's final states, as its plan (``plan_of``) names them."""
    cut = one_roll_bands(check)
    if cut is not None:
        return partial(_banded_kept, *cut)
    return _named(table_of(check), check.push)


def _named(tab: Table, pushing: bool) -> Callable[[Any], str]:
    """Without a push a final state is the kept die: one lookup names it (and its Luck)."""
    return tab.outcome if pushing else tab.first.__getitem__


def plan_of(check: Coc7Check, where: str = "") -> Plan[Any, CheckResult]:
    stream = dice_stream(where)
    attempt = attempt_of(check, stream)
    cut = one_roll_bands(check)
    if cut is not None:  # the table's own naming of one roll, without the table
        return Plan(
            machine=machine_of(check, attempt),
            given=given_of(check, attempt, stream),
            outcome=partial(_banded_kept, *cut),  # as ``outcome_of``
            build=lambda s, rec: result(check, attempt, s, rec, side=False),
            cost=attempt.cost,
            dear="bonus_dice",
        )
    tab = table_of(check)
    pushing = check.push
    return Plan(
        machine=machine_of(check, attempt),
        given=given_of(check, attempt, stream),
        outcome=_named(tab, pushing),
        build=lambda s, rec: result(check, attempt, s, rec, side=False),
        cost=attempt.cost * (2 if check.push else 1),
        dear="bonus_dice",
        luck_spent=(
            None
            if check.luck is None
            else (lambda s: spent(tab, s))
            if pushing
            else tab.spent.__getitem__
        ),
    )


# -- the result -------------------------------------------------------------------------------


def result(
    check: Coc7Check, attempt: Attempt, state: Final, record: Record, side: bool
) -> CheckResult:
    """One check (or a contest's side, ``side``) written up from its final state."""
    pushes, kept = ends_of(state)
    tab = table_of(check)
    draws = record.get(attempt.stream, [])
    dice = tuple(v for d in draws for v in attempt.values(d))
    per = attempt.count
    groups = [dice[i : i + per] for i in range(0, len(dice), per)]
    kept_each = tuple(attempt.keep(g) for g in groups)
    lvl = outcome(tab, state)
    cost = spent(tab, state)
    t, d = check.target, check.difficulty
    lad = ladder_of(t, d, check.house_rules)
    shown = bands(lad)

    def rolled(value: int, group: tuple[int, ...]) -> str:
        how = f" ({'lower' if attempt.lower else 'higher'} of {rolls(group)})" if per > 1 else ""
        return show_roll(value) + how

    need = "" if d == "regular" else f", {d} difficulty"
    if pushes:
        first = tab.pushed[kept_each[0]]
        why = f"rolled {rolled(kept_each[0], groups[0])} vs {t}{need}: {first}; pushed: "
        why += f"{rolled(kept, groups[-1])}: {lvl}"
    elif check.combined:
        levels = judged(kept, check.targets, d, check.house_rules)
        wins = sum(succeeds(v, d) for v in levels)
        verdict = (
            "success"
            if wins == len(levels)
            else "failure"
            if wins == 0
            else f"partial ({wins} of {len(levels)} succeed): failure"
        )
        targets = ", ".join(str(v) for v in check.targets)
        why = f"rolled {rolled(kept, groups[-1])} vs {targets}{need}: "
        why += f"{', '.join(levels)}: {verdict}"
    else:
        why = f"rolled {rolled(kept, groups[-1])} vs {t}{need}: {tab.pushed[kept]}"
        if cost:
            why += f"; {cost} Luck lowers it to {show_roll(kept - cost)}: {lvl}"
    single = not side and not check.combined
    return CheckResult(
        system=NAME,
        level=as_level(lvl),
        success=succeeds(lvl, d),
        roll=kept,
        dice=dice,
        target=t,
        margin=t - (kept - cost),
        explanation=f"{why} ({shown})",
        request=check_data(check.to_dict() if not side else check.side_dict()),
        luck_spent=cost if single else None,
        luck_costs=_costs(check, kept, lad, pushes) if single else None,
        attempts=kept_each if pushes else (),
        bands=shown,
        combined=_combined(check, kept) if check.combined else (),
    )


def as_level(lvl: str) -> Any:
    """A level as a result's ``level``: the package's ``Level`` union names the seeds' levels
    until the editions join it (``systems/__init__.py``)."""
    return lvl


def _costs(check: Coc7Check, kept: int, lad: Ladder, pushes: int) -> dict[str, int]:
    """The levels C7-4 offers Luck for at the roll that stands, before any is spent: none
    after a push; with the Luck given, those it can pay for (all, where none is given)."""
    if pushes:
        return {}
    return luck_offers(kept, lad, check.difficulty, check.luck)


def _combined(check: Coc7Check, kept: int) -> tuple[CheckResult, ...]:
    """Each skill of a combined roll judged on the one roll (C7-8), this check's first."""
    d, house = check.difficulty, check.house_rules
    out = []
    for t, lvl in zip(check.targets, judged(kept, check.targets, d, house), strict=True):
        shown = bands(ladder_of(t, d, house))
        out.append(
            CheckResult(
                system=NAME,
                level=as_level(lvl),
                success=succeeds(lvl, d),
                roll=kept,
                dice=(),
                target=t,
                margin=t - kept,
                explanation=f"{show_roll(kept)} vs {t}: {lvl} ({shown})",
                bands=shown,
            )
        )
    return tuple(out)
