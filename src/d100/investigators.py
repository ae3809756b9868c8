"""What a system declares about a character beyond trained skills: its characteristics (with
the fractions its checks read), the values derived from them, the skills every character has at
a base, and its development phase. Data and small rules only: the sheet (``sheets``) and the
development phase (``development``) read them, never a system's names."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Profile:
    """What derived values and base skills are computed from: the characteristics given (a
    sheet may give only some), the trained skills, the age where given, the options a sheet
    plays by (``Investigator.options``) and the derived values it sets itself (a value
    derived from another reads the sheet's)."""

    characteristics: Mapping[str, int]
    skills: Mapping[str, int] = field(default_factory=dict)
    age: int | None = None
    options: frozenset[str] = frozenset()
    derived: Mapping[str, int | str] = field(default_factory=dict)


@dataclass(frozen=True)
class DerivedValue:
    """A derived value's name as the sheet writes it, what it is in words and how the rule
    makes it, and whether it is a dice expression (a damage bonus) rather than a number."""

    name: str
    title: str
    rule: str
    dice: bool = False


MOST_USED = 64  # uses of a doubling spend since its reset: far beyond any session


@dataclass(frozen=True)
class Spend:
    """A way to spend Luck outside a check (Pulp Cthulhu's, P-3..P-7): the word it is asked
    by, what it is in words, its rule's ID; the Luck it needs (``least(used)``, ``used``: how
    many times it was spent since it was last reset) and the Luck it spends (``cost(luck,
    used)``, never more than held); the hit points it heals (a dice expression, never above
    the most) and what it cancels, in words, where it does."""

    name: str
    title: str
    rule_id: str
    least: Callable[[int], int]
    cost: Callable[[int, int], int]
    heal: str | None = None
    cancels: str | None = None
    counted: bool = False  # its cost grows with ``used``


@dataclass(frozen=True)
class Wound:
    """One hit's outcome: hit points left, the state in words ("dead", "dying", "unconscious",
    "conscious"), what it calls for in words (a roll) and what else it marks."""

    hp_after: int
    state: str
    calls_for: str | None = None
    marks: tuple[str, ...] = ()
    rule_id: str = ""


@dataclass(frozen=True)
class Wounds:
    """A system's wounds: ``take(damage, hp, hp_most, options)`` reads one hit; ``heals(options)``
    is the hit points natural healing gives a day."""

    take: Callable[[int, int, int, frozenset[str]], Wound]
    heals: Callable[[frozenset[str]], int]
    rule: str  # in words


@dataclass(frozen=True)
class Imported:
    """A character read from another tool's export: its name, its sheet table (without
    ``system``: the system declaring the format is the sheet's) and, in words, each thing the
    export holds that the sheet does not take."""

    name: str
    table: Mapping[str, Any]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SheetFormat:
    """A character export of another tool a system reads (``d100 sheet import``): its name,
    what it looks like in words (a refusal names what was expected), whether parsed JSON is
    one, and how it reads into a sheet."""

    name: str
    shape: str
    recognises: Callable[[Any], bool]
    read: Callable[[Any], Imported]


@dataclass(frozen=True)
class Investigator:
    """A system's characters: characteristics by name, in the sheet's order, within
    ``range``; the fractions of a value its checks read (``parts``: half, fifth); the name a
    check of the sheet's Luck goes by; the derived values (``derive`` gives those the profile
    allows, by ``DerivedValue.name``); the skills every character has at a base (``base``,
    from the characteristics: some bases are one); options a sheet may play by, with what
    each changes."""

    characteristics: tuple[str, ...]
    range: tuple[int, int]
    parts: Callable[[int], tuple[tuple[str, int], ...]]
    luck: str
    derived: tuple[DerivedValue, ...]
    derive: Callable[[Profile], Mapping[str, int | str]]
    base: Callable[[Mapping[str, int]], Mapping[str, int]]
    options: Mapping[str, str] = field(default_factory=dict)
    hp: str | None = None  # the derived value holding hit points now (its rule's is the most)
    damage_bonus: str | None = None  # the derived value a dice expression's DB stands for
    spends: Mapping[str, tuple[Spend, ...]] = field(default_factory=dict)  # by option
    wounds: Wounds | None = None
    formats: tuple[SheetFormat, ...] = ()  # other tools' exports its sheets import from
    group_luck: str | None = None  # the rule, in words, that the lowest Luck rolls for a group

    def spends_under(self, options: frozenset[str]) -> tuple[Spend, ...]:
        """The Luck spends a sheet's options allow, in the order declared."""
        return tuple(s for o, group in self.spends.items() if o in options for s in group)

    def derived_value(self, name: str) -> DerivedValue:
        return next(d for d in self.derived if d.name == name)


@dataclass(frozen=True)
class Recovery:
    """A value that recovers in the development phase by its own roll (CoC7's Luck, S7-9):
    a plain d100 against the value; ``gain`` (a dice expression) when ``recovers(roll,
    value)``, else ``otherwise`` (None: nothing); never above ``most``."""

    recovers: Callable[[int, int], bool]
    gain: str
    otherwise: str | None
    most: int
    rule: str  # in words, for help and the odds shown


@dataclass(frozen=True)
class Development:
    """A system's development phase: each skill marked for improvement rolls a plain d100;
    ``improves(roll, value, house_rules)`` says whether it improves, by ``gain`` (a dice
    expression). A skill that reaches ``mastery`` from below gains ``reward`` (a dice
    expression) to the derived value ``reward_to``, never above ``reward_cap`` (a derived
    value too). Skills named in ``never`` earn no mark. ``luck`` is the optional recovery of
    the sheet's Luck, replaced under an option by ``luck_options``. ``house_rules`` names the
    house rules ``improves`` reads, with what each does."""

    improves: Callable[[int, int, frozenset[str]], bool]
    gain: str
    rule: str  # the improvement roll in words
    mastery: int | None = None
    reward: str | None = None
    reward_to: str | None = None
    reward_cap: str | None = None
    never: tuple[str, ...] = ()
    luck: Recovery | None = None
    luck_options: Mapping[str, Recovery] = field(default_factory=dict)
    house_rules: Mapping[str, str] = field(default_factory=dict)
    bonus: str | None = None

    def recovery(self, options: frozenset[str]) -> Recovery | None:
        """The Luck recovery under a sheet's options: the first option's that replaces it."""
        return next((r for o, r in self.luck_options.items() if o in options), self.luck)
