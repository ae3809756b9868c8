"""What a system declares about a character beyond trained skills: its characteristics (with
the fractions its checks read), the values derived from them, the skills every character has at
a base, and its development phase. Data and small rules only: the sheet (``sheets``) and the
development phase (``development``) read them, never a system's names."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


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

    def recovery(self, options: frozenset[str]) -> Recovery | None:
        """The Luck recovery under a sheet's options: the first option's that replaces it."""
        return next((r for o, r in self.luck_options.items() if o in options), self.luck)
