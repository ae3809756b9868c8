"""What a rule system declares about itself, so that nothing else has to know it.

Advice, fast odds paths, the sampler, renderers, the command line, the server and the web page
read these declarations; they never branch on a system's name or restate a rule's number. A
system leaves a part as ``None`` where it has no such rule (BRP has no assistance, OpenQuest no
Luck), and the readers then offer nothing for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal, Protocol, TypeVar

from .actions import Action
from .catalogue import OpposedTask
from .investigators import Development, Investigator
from .machine import Given, Need
from .results import CheckResult, Winner

DEVELOP_WORDS = ("develop", "development")  # the words asking a table for a character's phase
DEVELOP_LUCK = "luck"  # after them: with the optional Luck recovery roll (``develop luck``)

# A change to a contract check request (a dict), or None where it does not apply to it.
Change = Callable[[dict[str, Any]], dict[str, Any] | None]


K = TypeVar("K")
V = TypeVar("V")


def frozen_map(values: Mapping[K, V]) -> Mapping[K, V]:
    """A read-only copy: declarations are shared by every caller."""
    return MappingProxyType(dict(values))


@dataclass(frozen=True)
class Target:
    """What a roll is measured against: a difficulty that moves the skill, or a risk."""

    field: str  # the request field: "difficulty" or "risk"
    label: str  # its name at the table: "Difficulty", "Risk"
    presets: Mapping[str, int]
    default: str  # the preset a table uses when nobody names one
    harder: Literal[-1, 1]  # the sign that makes a test harder (-20 difficulty, +20 risk)
    example: str  # what a person may type: "hard, or -20"
    # a preset in words where its number is no modifier (multiplicative presets): "x1/2"
    shown: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def value(self, text: str | int) -> int:
        """A preset name or a number, as the request field reads it."""
        if isinstance(text, int):
            return text
        return self.presets[text]


@dataclass(frozen=True)
class Assistance:
    """Helpers who roll for the tested character (OpenQuest OQ11, Taking Chances CH8)."""

    field: str  # the request field: a nested request, or a list of them
    many: bool  # a list of helpers, or one at a time
    most: int  # the engine's cap on helpers for one test
    cap_rule: str | None  # the house rule that lowers the cap, if any
    bonus: int  # what one successful helper adds
    helper_fields: tuple[str, ...]  # the fields a helper's request takes from a character
    summary: str  # in words, for help and the page
    # who leads a group helped by the rest when nobody is named: the index among the members'
    # parsed checks (CH8: the highest skill + ability + modifiers), None: the table names one
    leader: Callable[[Sequence[Any]], int] | None = None

    def as_request(self, helpers: list[dict[str, Any]]) -> dict[str, Any]:
        """Helpers' requests as the request field the system takes."""
        return {self.field: helpers if self.many else helpers[0]}

    def cap(self, house_rules: Mapping[str, Any]) -> int:
        """How many may help under a table's house rules."""
        lower = house_rules.get(self.cap_rule) if self.cap_rule else None
        return self.most if lower is None else min(self.most, lower)


@dataclass(frozen=True)
class Aim:
    field: str  # full rounds aimed
    step: int  # bonus per round
    cap: int  # the most the aim adds
    ends: tuple[str, ...]  # what ends aiming and spends the bonus (the table's words)

    @property
    def rounds(self) -> int:
        """The rounds after which aiming adds nothing more."""
        return self.cap // self.step

    def bonus(self, rounds: int) -> int:
        return min(self.step * rounds, self.cap)


@dataclass(frozen=True)
class Luck:
    """Luck points spent on a check: a boost before rolling, rerolls after a failure."""

    boost_field: str
    boost: int  # what the boost adds
    reroll_field: str
    reroll_cap_rule: str | None  # the house rule that caps rerolls
    most: int  # the Luck a character may have at most
    summary: str
    # A system whose Luck is spent otherwise (CoC7's, after the roll) names no boost or reroll
    # field (""); ``after_field`` is a request field of the Luck available to spend after the
    # roll: filled by the system's follow-ups only, never by a player at a table.
    after_field: str | None = None
    # The rule by which a full rest restores Luck to its maximum (BRP7), in words; None where
    # no rest does (CoC7's Luck comes back by its own roll in the development phase).
    rest: str | None = None

    def cost(self, boost: bool, rerolls: int) -> int:
        """Points spent: one for the boost, one per reroll taken."""
        return rerolls + (1 if boost else 0)

    def cost_of(self, request: Mapping[str, Any]) -> int:
        """The most a request may spend."""
        return self.cost(bool(request.get(self.boost_field)), request.get(self.reroll_field, 0))


@dataclass(frozen=True)
class ExtraDice:
    """Bonus and penalty dice: several d100s rolled, the lowest or highest kept."""

    bonus_field: str
    penalty_field: str
    most: int
    method_rule: str | None  # the house rule that changes how they are rolled
    summary: str


@dataclass(frozen=True)
class Take:
    """A fixed value taken instead of rolling (Taking Chances CH5)."""

    field: str
    values: tuple[int, ...]  # what a check may take
    contest_values: tuple[int, ...]  # what a side of a contest may take
    words: Mapping[int, str]  # what each means at the table


Style = Literal["best", "good", "ok", "bad", "worst"]  # how a level is drawn, best to worst


@dataclass(frozen=True)
class LevelSpec:
    """One level of a system's results as every reader shows it."""

    name: str
    meaning: str  # what it means at the table
    mark: str  # a short mark for cards and plain text
    style: Style
    success: bool


@dataclass(frozen=True)
class Needed:
    """What a request asked of a roll beyond its target (CoC7's required level, C7-2; a
    combined roll's every skill, C7-8): the highest roll that meets it, what was asked in a
    word or two ("hard") and how the number is made ("half of 35")."""

    most: int
    asked: str
    how: str


@dataclass(frozen=True)
class Words:
    """How a system's results read at the table (each level's meaning and mark: ``LevelSpec``)."""

    target: str  # what a result's target is called: "target", "risk"
    shortfall: str | None  # how a failed margin is counted, if in its own words
    bands: Callable[[CheckResult], str]  # which rolls give which level, for one result
    again: str = "Luck reroll"  # what a result's later attempt is: a reroll, a push
    # what a request asked beyond the target, where it asks more (a required level); a
    # result's margin then counts from ``Needed.most``, as its target's does
    needed: Callable[[CheckResult], Needed | None] | None = None
    stakes: str = ""  # what failing a later attempt brings, where a rule makes it worse (C7-5)
    unrolled: str = "a master"  # who does not roll, where a rule says (OQ3; DG-6: adapted)


@dataclass(frozen=True)
class TieBreak:
    """A contest field that gives a tie-break flip instead of drawing it (Taking Chances CH6):
    the flip is one more die, face ``i`` (from 1) the winner ``faces[i - 1]``."""

    field: str
    faces: tuple[str, ...]


@dataclass(frozen=True)
class Cover:
    """Cover a shot is aimed past, struck or not by the result (Taking Chances CH10)."""

    summary: str  # in words, for help: what the number given is and when cover is struck
    struck: Callable[[CheckResult, int], bool]  # a result and the cover's number


@dataclass(frozen=True)
class Roller:
    """How one side's deciding roll is drawn, for the vectorised sampler: ``count`` d100s of
    which the lowest (``lower``) or highest is kept, read as tens digits over one shared units
    die when ``tens``."""

    count: int = 1
    lower: bool = True
    tens: bool = False


@dataclass(frozen=True)
class RankedContest:
    """A contest whose winner is an ordering of what each side rolled: every result a side
    can show, and the system's own decision between two of them, per tie-break face."""

    key: Hashable  # what the ordering depends on (shared by every contest with it)
    results: Callable[[], list[Hashable]]  # every result either side can show
    beats: Callable[[Any, Any], tuple[Winner, ...]]
    sides: tuple[RankedSide, RankedSide]


@dataclass(frozen=True)
class RankedSide:
    """One side of a ranked contest: a check whose final states ``shape`` names, and how one
    of them shows as a result of the ranking (``show``, which reads what ``key`` names)."""

    check: Any
    shape: Hashable
    key: Hashable
    show: Callable[[Any], Hashable]


@dataclass(frozen=True)
class FastPath:
    """Opt-in memo keys for exact odds. ``inputs`` names every request field (house rules as
    ``house_rules.NAME``) that ``shape`` and ``key`` account for; a request that sets any other
    field away from its default goes to the reference enumeration, never to a memo that does
    not know it.

    * ``shape(check)``: what the check's final states depend on, or None where the memo does not
      apply (dice given, say);
    * ``key(check)``: everything the plan's ``outcome`` reads from such a check;
    * ``luck_key(check)``: everything the plan's ``luck_spent`` reads, None where it spends none;
    * ``ranking(contest)``: a contest as an ordering of each side's result, or None;
    * ``outcome(check)``: the very function the check's plan names its final states with
      (``Plan.outcome``), made without building the plan, or None: the plan's is used;
    * ``reading(state)``: a number a final state shows (its kept die, say), and
      ``cuts(check)``: the readings after which the check's outcome may change, or None. The
      outcome is then the same for every final state whose reading lies in one span between
      two cuts (up to the first, above one cut up to the next, above the last), so the
      states are named one span at a time rather than one state at a time;
    * ``mark(state)``: beside its reading, what else of a final state the outcome may read
      whatever the check (whether the roll is a double, say), or None. The states are then put
      in order of mark, then reading, and the cuts are read within each mark's states: the
      outcome is the same for every state of one mark whose reading lies in one span, so the
      cuts need not fall on either side of every marked reading.
    """

    inputs: frozenset[str]
    shape: Callable[[Any], Hashable | None]
    key: Callable[[Any], Hashable]
    luck_key: Callable[[Any], Hashable] | None = None
    ranking: Callable[[Any], RankedContest | None] | None = None
    reading: Callable[[Any], int] | None = None
    cuts: Callable[[Any], Iterable[int] | None] | None = None
    outcome: Callable[[Any], Callable[[Any], str]] | None = None
    mark: Callable[[Any], int] | None = None

    def __post_init__(self) -> None:
        if (self.reading is None) != (self.cuts is None):
            raise ValueError(
                "FastPath: reading and cuts go together (the cuts are readings); "
                "declare both or neither"
            )
        if self.mark is not None and self.reading is None:
            raise ValueError("FastPath: a mark sorts states beside their reading; declare both")


@dataclass(frozen=True)
class Option:
    """Something a player may do about a check, for advice: a change to the request, what it
    costs in words, and the Luck it may spend (so options beyond a character's Luck drop out)."""

    name: str
    cost: str
    change: Change
    luck: Callable[[dict[str, Any]], int] = lambda request: 0


# A system's options for one check: the request (without dice), the Luck the character has
# left (None: not known), the named helpers' check fields.
Options = Callable[[dict[str, Any], int | None, Mapping[str, Mapping[str, Any]]], list[Option]]


class SanityDie(Protocol):
    """The d100 of a Sanity roll with a net pool of bonus (+) or penalty (-) dice, as a
    machine ending on the kept roll: the d100 values one draw stands for, and dice given by
    hand as its draws."""

    def start(self) -> int: ...

    def need(self, state: int) -> Need | None: ...

    def advance(self, state: int, value: int) -> int: ...

    def values(self, draw: int) -> tuple[int, ...]: ...

    def encode(self, given: tuple[int, ...], field_name: str) -> Given: ...


@dataclass(frozen=True)
class Sanity:
    """A Sanity roll (CoC7's S7-1..S7-5): d100 against the current Sanity, a loss ``A/B`` by
    its outcome, and the insanity a loss brings. The system declares its numbers and words;
    ``d100.sanity`` resolves and counts any system's by them."""

    words: tuple[str, ...]  # the quick words that ask for one: "sanity", "san", "sc"
    level: Callable[[int, int], str]  # a d100 roll against a value: its level
    maximised: frozenset[str]  # levels that lose the failure loss at its maximum
    int_roll_from: int  # one loss at least this, SAN left, calls for an INT roll
    daily_divisor: int  # a day's limit: the day's first Sanity over this, rounded down
    most: int  # the highest Sanity before the Mythos takes its share
    sheet: Mapping[str, tuple[str, ...]]  # a request field -> the sheet skills that hold it
    summary: str
    # the d100 for a net pool and the stream it draws for (SAN's, INT's)
    die: Callable[[int, str], SanityDie]
    # Luck spent to lose less, where the system has it (Pulp Cthulhu's P-2): a loss and the
    # house rule's flag -> (the loss kept, the Luck it costs)
    luck_halves: Callable[[int, bool], tuple[int, int]] | None = None
    most_pool: int = 0  # the most bonus or penalty dice the house rule ``sanity_pool`` allows


@dataclass(frozen=True)
class WordRolled:
    """A chat-bot word's roll that is no check (SealDice's ``.sc``, ``.en``): its title, its
    lines (a label, a text), its data as JSON gives it, and what it writes to a character's
    sheet (the character after it and a line saying so), None where it writes nothing."""

    title: str
    lines: tuple[tuple[str, str], ...]
    data: Mapping[str, Any]
    write: Callable[[Any], tuple[Any, str]] | None = None
    # what it does to a sheet in a table's log (``{"sanity": [60, 57]}``, ``{"skills":
    # {"Spot Hidden": [50, 56]}}``), the same shapes a Sanity roll and a development phase log
    sheet: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    outcome: str = ""  # what it came to, without the roller's numbers: "failure, 4 lost"


class WordRoll(Protocol):
    """A chat-bot word that rolls something other than a check: the values a character's
    sheet gives it, and its roll under the table's house rules. At a table it is a declared
    roll of its own ``kind``: ``ruled`` fixes the table's rules in it, ``to_dict`` is its
    request as logged (made again by its system's ``Declaration.word_rolls``), ``cost``
    bounds its odds' work, ``resolve`` rolls it, ``odds`` counts it exactly (``unlogged``:
    the part a log leaves out) and ``told`` puts a result and its odds in words."""

    @property
    def word(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def unlogged(self) -> str | None: ...

    @property
    def develops(self) -> bool: ...  # a development phase (raises skills): the GM's at a table

    def with_sheet(self, character: Any) -> WordRoll: ...

    def play(self, house_rules: Mapping[str, Any], rng: Any) -> WordRolled: ...

    def ruled(self, house_rules: Mapping[str, Any]) -> WordRoll: ...

    def to_dict(self) -> dict[str, Any]: ...

    def cost(self) -> int: ...

    def resolve(self, rng: Any) -> Any: ...

    def odds(self) -> dict[str, Any]: ...

    def told(self, result: Any, odds: Mapping[str, Any] | None) -> WordRolled: ...


@dataclass(frozen=True)
class Command:
    """A chat-bot command as typed: its contract request, the label written with it, whether
    it was asked hidden, how many times it is rolled (SealDice's ``.rah``, ``3#``), the
    fields it leaves to the table's settings (SealDice's ``.ra``: the table's rule, else 0),
    and the table's settings it makes instead of a roll (SealDice's ``.setcoc``), with what
    they say in the system's words (``told``: "SealDice rule 2: ..."); or, setting nothing,
    what it tells of the table's settings (``tells``: SealDice's bare ``.setcoc``)."""

    request: Mapping[str, Any]
    label: str | None = None
    secret: bool = False
    repeat: int = 1
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    told: str = ""  # what its settings say, in the system's words, for the table's line
    roll: WordRoll | None = None  # a roll that is no check (SealDice's ``.sc``, ``.en``)
    # the skill named without a value (SealDice's ``.ra 侦查``): its request has no skill,
    # which a door with a character's sheet reads there, and a door without one refuses
    named: str | None = None
    # the character whose card the check rolls (SealDice's ``.ra 侦查 @Bob``): a door with
    # sheets reads it there, as it reads a character named before the words
    who: str | None = None
    # what a word that sets nothing says (SealDice's bare ``.setcoc``, ``.setcoc details``):
    # the words, from the table's settings of its system (``settings``' shape, ``{"house_rules":
    # {...}}``; empty where nothing is set), which each door passes as it keeps them
    tells: Callable[[Mapping[str, Any]], str] | None = None


@dataclass(frozen=True)
class Declaration:
    """Everything about a system that code outside it needs."""

    target: Target
    skill_range: tuple[int, int | None]  # trained skill; None: no upper bound
    words: Words
    options: Options
    sampler: Callable[[Any], Roller | None]  # a side's roller, None where it is not one roll
    assistance: Assistance | None = None
    aim: Aim | None = None
    luck: Luck | None = None
    extra_dice: ExtraDice | None = None
    take: Take | None = None
    ability_field: str | None = None  # an ability factor added to the skill
    synergy_field: str | None = None  # trained values of synergistic skills
    improvement: Literal["off", "failure", "success"] = "off"  # what marks a skill by default
    marks: Marks = dataclasses.field(default_factory=lambda: Marks())  # how its rules mark
    fast: FastPath | None = None
    # the command forms players type into chat dice bots (``CC<=65/h``), read as a contract
    # request with its ``system`` (or ``Command``, a request with its label, hidden or repeated),
    # or None where the text is not one of this system's forms
    commands: Callable[[str], dict[str, Any] | Command | None] | None = None
    levels: tuple[LevelSpec, ...] = ()  # best first
    # the levels that succeed for a check where the request decides them (CoC7's required
    # level, C7-2), or None: the system's ``success_levels`` always
    success: Callable[[Any], frozenset[str]] | None = None
    tie_break: TieBreak | None = None
    cover: Cover | None = None
    # what its roller may do about a check once its result shows (``FollowUp``); None: the
    # rerolls of the Luck rule, where it has them (``after``)
    follow_ups: FollowUps | None = None
    # the rules' examples of opposed tasks, with the skill and ability each side uses (CH11):
    # where a sheet does not say which ability a skill adds, its task's does
    tasks: tuple[OpposedTask, ...] = ()
    # the fields of one side's result in a contest that tell the other side's numbers (CH6:
    # a side's target is the other's total): a viewer who may not see that side sees none
    binds_other_side: frozenset[str] = frozenset()
    # whether each side of a contest resolves as it would against any other side: its result
    # (but the fields ``binds_other_side`` names) follows from its own request and dice, so a
    # viewer shown one side whole beside a withheld one recomputes it (``d100 verify``)
    sides_stand_alone: bool = False
    # a Sanity roll, where the system has one (``Sanity``)
    sanity: Sanity | None = None
    # a character beyond trained skills (characteristics, derived values, base skills) and
    # the development phase, where the system has them
    investigator: Investigator | None = None
    development: Development | None = None
    # requests beside the check and the contest (CoC7's full auto), read from their own words
    actions: tuple[Action, ...] = ()
    # a chat-bot word's roll that is no check (``WordRoll``) made again from its logged
    # request, by its kind (SealDice's ``.sc`` and ``.en`` at a table)
    word_rolls: Mapping[str, Callable[[object], WordRoll]] = dataclasses.field(default_factory=dict)
    # the house rules a chat-bot word asks of its own roll over the table's, by value
    # (SealDice's ``.rc``: setcoc 0): ``d100 verify`` takes a check's beside the table's
    word_house_rules: Mapping[str, frozenset[Any]] = dataclasses.field(default_factory=dict)
    # a few of its chat-bot words, as a page's roll box offers them (``.ra Spot Hidden``)
    chat_examples: tuple[str, ...] = ()

    def level(self, name: str) -> LevelSpec:
        """The record of one of the system's levels."""
        for spec in self.levels:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @cached_property  # read by every result a system builds
    def level_names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.levels)

    @cached_property
    def success_names(self) -> frozenset[str]:
        return frozenset(spec.name for spec in self.levels if spec.success)

    def after(self, rolled: Rolled) -> tuple[FollowUp, ...]:
        """What may follow a check: the system's follow-ups, else its Luck rule's rerolls of
        a failure, taken one at a time (BRP7), else nothing."""
        if self.follow_ups is not None:
            return self.follow_ups(rolled)
        if self.luck is not None and self.luck.reroll_field:
            return luck_rerolls(self.luck, rolled)
        return ()

    def to_dict(self) -> dict[str, Any]:
        """The declaration as JSON for the web page and other clients (``/api/systems``)."""
        t = self.target
        out: dict[str, Any] = {
            "target": {
                "field": t.field,
                "label": t.label,
                "presets": dict(t.presets),
                "default": t.default,
                "harder": t.harder,
                "example": t.example,
                "shown": dict(t.shown),
            },
            "skill": {"low": self.skill_range[0], "high": self.skill_range[1]},
            "levels": [
                {
                    "name": spec.name,
                    "meaning": spec.meaning,
                    "mark": spec.mark,
                    "style": spec.style,
                    "success": spec.success,
                }
                for spec in self.levels
            ],
            "words": {  # as before the level records; the page may read either
                "meanings": {spec.name: spec.meaning for spec in self.levels},
                "icons": {spec.name: spec.mark for spec in self.levels},
                "target": self.words.target,
                "shortfall": self.words.shortfall,
            },
            "ability": self.ability_field,
            "synergy": self.synergy_field,
            "improvement": self.improvement,
            "improvement_tick": self.marks.tick,
            "improvements": list(IMPROVEMENTS),
            "assistance": None,
            "aim": None,
            "luck": None,
            "extra_dice": None,
            "take": None,
            "tie_break": None,
            "cover": None,
            "sanity": None,
            "group_luck": None,
            "development": None,
        }
        if (d := self.development) is not None:  # the GM's end-of-session phase at a table
            recovers = d.luck is not None or bool(d.luck_options)
            words = DEVELOP_WORDS[0]
            out["development"] = {
                "words": words,
                "rule": d.rule,
                "luck": f"{words} {DEVELOP_LUCK}" if recovers else None,
            }
        if (i := self.investigator) is not None and i.group_luck is not None:
            out["group_luck"] = {"skill": i.luck, "rule": i.group_luck}
        if (sanity := self.sanity) is not None:  # the words a table's page offers for one
            out["sanity"] = {"words": list(sanity.words), "summary": sanity.summary}
        # what a table's page offers beside the check: each action's form and name
        # and whether it may be made against a character at the table (``Action.facing``)
        out["actions"] = [
            {"name": a.name, "form": a.form, "title": a.title, "facing": a.facing is not None}
            for a in self.actions
        ]
        out["chat_words"] = list(self.chat_examples)  # the chat-bot words its roll box takes
        if (tie := self.tie_break) is not None:
            out["tie_break"] = {"field": tie.field, "faces": list(tie.faces)}
        if (cover := self.cover) is not None:
            out["cover"] = {"summary": cover.summary}
        if (a := self.assistance) is not None:
            out["assistance"] = {
                "field": a.field,
                "many": a.many,
                "most": a.most,
                "cap_rule": a.cap_rule,
                "bonus": a.bonus,
                "helper_fields": list(a.helper_fields),
                "summary": a.summary,
            }
        if (aim := self.aim) is not None:
            out["aim"] = {
                "field": aim.field,
                "step": aim.step,
                "cap": aim.cap,
                "ends": list(aim.ends),
            }
        if (luck := self.luck) is not None:
            out["luck"] = {
                "boost_field": luck.boost_field,
                "boost": luck.boost,
                "boost_cost": luck.cost(True, 0),
                "reroll_field": luck.reroll_field,
                "reroll_cap_rule": luck.reroll_cap_rule,
                "after_field": luck.after_field,
                "rest": luck.rest,
                "most": luck.most,
                "summary": luck.summary,
            }
        if (extra := self.extra_dice) is not None:
            out["extra_dice"] = {
                "bonus_field": extra.bonus_field,
                "penalty_field": extra.penalty_field,
                "most": extra.most,
                "method_rule": extra.method_rule,
                "summary": extra.summary,
            }
        if (take := self.take) is not None:
            out["take"] = {
                "field": take.field,
                "values": list(take.values),
                "contest_values": list(take.contest_values),
                "words": {str(k): v for k, v in take.words.items()},
            }
        return out


@dataclass(frozen=True)
class Rolled:
    """A check as it was rolled at a table, for what may follow it: the request resolved
    (with its dice and house rules), its result, the roller's Luck left (None: the sheet has
    none), the Luck the check and what followed it spent, the keys of the follow-ups that
    led to this roll, first first, and the name of the skill rolled."""

    request: Mapping[str, Any]
    result: CheckResult
    luck: int | None
    spent: int = 0
    taken: tuple[str, ...] = ()
    skill: str | None = None  # the sheet's skill rolled, where a sheet's was (a rule may ask)


@dataclass(frozen=True)
class FollowUp:
    """Something its roller may do about a check once its result shows (BRP7's Luck reroll
    of a failure; CoC7's Luck spent after the roll, C7-4, and its push, C7-5): a request of
    its own, made from the first one and resolved as a roll of its own, linked to it. It
    draws its own dice unless ``request`` gives them (Luck spent on the roll already made).

    The table checks that the roller has the Luck it spends; ``refused`` says why a rule
    forbids it for this roll (``allowed``: what it would take), so a table can tell why."""

    key: str  # what the roller sends to take it, one of a roll's offers: "reroll", "push"
    label: str  # the offer on the card: "Spend 1 Luck to reroll"
    done: str  # what the card of the roll it makes says it was: "Luck reroll"
    luck: int  # the Luck it spends from the sheet
    request: Mapping[str, Any]  # the contract request it resolves
    refused: str | None = None
    allowed: str = ""
    failed: str = ""  # what its card says when it fails, if a rule makes that worse (C7-5)
    stakes: str = ""  # what taking it risks, said on its offer (C7-5: a failed push's price)
    # what it gives, exactly, where that is more than a chance of success: Luck on an attack
    # made (C7-4), the damage dealt after it beside the damage now (``coc7_attack_luck``)
    gives: Mapping[str, Any] | None = None
    # the Luck the sheet must hold to take it, where more than it spends (C7-4: more than the
    # cost); None: its cost
    needs: int | None = None

    def draws(self) -> bool:
        return "dice" not in self.request


FollowUps = Callable[[Rolled], tuple[FollowUp, ...]]


def luck_rerolls(luck: Luck, rolled: Rolled) -> tuple[FollowUp, ...]:
    """A failed check rerolled for a reroll's Luck with the same request, without its own
    rerolls, while the house rule capping one check's rerolls allows."""
    if rolled.result.success:
        return ()
    cost = luck.cost(False, 1)
    again = {k: v for k, v in rolled.request.items() if k not in (luck.reroll_field, "dice")}
    reroll = FollowUp("reroll", f"Spend {cost} Luck to reroll", "Luck reroll", cost, again)
    boost = luck.cost(bool(rolled.request.get(luck.boost_field)), 0)
    rule = luck.reroll_cap_rule
    cap = rolled.request.get("house_rules", {}).get(rule) if rule else None
    if cap is not None and (rolled.spent - boost) // cost >= cap:
        allowed = f"at most {cap} Luck reroll(s) of one check (house rule {rule})"
        why = "this check has had all the rerolls the table allows"
        return (replace(reroll, refused=why, allowed=allowed),)
    return (reroll,)


@dataclass(frozen=True)
class Marks:
    """How a system's rules mark a skill for improvement, within the table's setting: a
    ``tick`` (one mark per skill until the marks are cleared, a check box) or a count of every
    check; only players' characters (``players_only``: an NPC's rolls never mark); and which
    checks may earn one (``earns``: the result and the sheet's skill name, where known)."""

    tick: bool = False
    players_only: bool = False
    earns: Callable[[CheckResult, str | None], bool] | None = None

    def after(
        self, setting: str, check: CheckResult, skill: str | None, npc: bool, now: int
    ) -> int:
        """A skill's marks after a check, ``now`` before it, under the table's setting."""
        if not marked(setting, check.success) or (npc and self.players_only):
            return now
        if self.earns is not None and not self.earns(check, skill):
            return now
        return 1 if self.tick else now + 1


# What a table may mark a skill for improvement on (``Declaration.improvement`` its default).
IMPROVEMENTS: tuple[str, ...] = ("off", "failure", "success")


def marked(improvement: str, success: bool) -> bool:
    """Whether a check marks its skill under a table's setting: never when off, else a failed
    check under "failure" and a successful one under "success"."""
    return improvement != IMPROVEMENTS[0] and (improvement == IMPROVEMENTS[2]) == success
