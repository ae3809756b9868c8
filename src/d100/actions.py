"""Requests a system makes beside its check and contest (CoC7's full auto and multiple shots):
what a system declares of each (``Declaration.actions``) so that the doors read words into
one, roll it, count its odds and show it without knowing whose it is."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from .dice import RandomSource
from .errors import D100Error, read_words

if TYPE_CHECKING:
    from .declarations import FollowUp


@dataclass(frozen=True)
class Row:
    """A line of a report: its label, its text and the level it shows, if any (drawn in the
    level's declared style)."""

    label: str
    text: str
    level: str | None = None


@dataclass(frozen=True)
class Report:
    """A rolled action in words, for any door to draw: a title, its rows, BCDice-style notes
    of what was changed in what was typed, and the exact chances worth showing beside it."""

    system: str
    title: str
    rows: tuple[Row, ...]
    chances: tuple[tuple[str, Fraction], ...] = ()
    notes: tuple[str, ...] = ()
    outcome: str = ""  # what it came to, without the roller's numbers: "2 hits, 19 damage"


@dataclass(frozen=True)
class Facing:
    """How an action faces another character's sheet (a melee attack's defender), whose values
    the table reads there rather than take them typed: ``skill`` is the skill it reads by
    default for a request (Dodge against a dodge); ``fill`` gives the request with that side's
    value and damage bonus; ``side`` is the request's value and damage bonus of that side (what
    ``d100 verify`` replays from the sheet); ``kept`` is the report and result shown to a viewer
    who may not read that sheet (no odds, that side by its level); ``read`` reads words as
    ``Action.read`` does, refusing them where they type that side."""

    skill: Callable[[Any], str]
    fill: Callable[[Any, int, str | None], Any]
    side: Callable[[Any], tuple[int | None, str | None]]
    kept: Callable[[Any], tuple[Report, dict[str, Any]]]
    read: Callable[[Sequence[str], str | None], tuple[Any, str | None] | None]


@dataclass(frozen=True)
class ActionRolled:
    """An action as rolled, for its system to say what may follow it (``Action.after``): its
    result, the Luck its roller's sheet holds now (None: no Luck) and the follow-ups taken
    after it so far."""

    result: Any
    luck: int | None
    taken: tuple[str, ...] = ()


@dataclass(frozen=True)
class Action:
    """One kind of request: ``read`` takes the words after the system's name (``FAR(30,62,98)``,
    ``55 shots3 long``) and what ``DB`` stands for where they say nothing of it (a sheet's
    damage bonus, or None), and answers its typed request and the label written after it, or
    None when they are not this action; ``build`` makes the request again from its contract
    JSON (a table's log, ``d100 verify``); ``cost`` bounds the work of its odds before any;
    ``roll`` resolves it with a random source (the request's own dice first); ``odds`` counts
    it exactly, as contract JSON; ``report`` puts a result and those odds in words;
    ``title`` names it without its numbers; ``to_dict`` is the result and odds as contract
    JSON; ``after`` what its roller may do once its result shows (CoC7's Luck on an attack,
    C7-4), each a request of this action of its own, and what is refused (a push, C7-5)."""

    name: str
    form: str  # what a person types, for help: "FAR(bullets,skill,malfunction[,...])"
    summary: str
    read: Callable[[Sequence[str], str | None], tuple[Any, str | None] | None]
    build: Callable[[Mapping[str, Any]], Any]
    cost: Callable[[Any], int]
    roll: Callable[[Any, RandomSource | None], Any]
    odds: Callable[[Any], dict[str, Any]]
    report: Callable[[Any, Mapping[str, Any]], Report]
    title: str  # what it is, without its numbers: "attack", "full auto (BCDice FAR)"
    # the word asking to spend the roller's Luck and the request's field holding it (a Pulp
    # hero's, P-6: ``pulp40``, ``pulp_luck``): for a character, the sheet's Luck (``luck_of``)
    luck_word: str | None = None
    luck_field: str | None = None
    facing: Facing | None = None  # another character's sheet it may be made against
    after: Callable[[ActionRolled], tuple[FollowUp, ...]] | None = None

    def to_dict(self, result: Any, odds: Mapping[str, Any]) -> dict[str, Any]:
        """A result's contract JSON with its exact odds beside."""
        out: dict[str, Any] = result.to_dict()
        return {**out, "odds": dict(odds)}


@dataclass(frozen=True)
class Found:
    """Words read as an action: the action, its typed request and the label after it."""

    action: Action
    request: Any
    label: str | None


class Sheet(Protocol):
    """What an action reads of a character's sheet (``sheets.Character``)."""

    @property
    def name(self) -> str: ...

    @property
    def luck(self) -> Any: ...  # ``luck.Luck`` or None

    @property
    def rollable(self) -> dict[str, int]: ...

    @property
    def damage_bonus(self) -> str | None: ...

    def skill(self, query: str) -> str: ...


def for_character(
    actions: Sequence[Action],
    words: Sequence[str],
    sheet: Sheet | None,
    bonus: str | None = None,
    facing: bool = False,
) -> Found | None:
    """The action of ``actions`` the words ask for, else None: led by a skill's number, or for
    a character by a skill of its sheet (the longest name first: ``fighting brawl dmg=1d3``);
    ``DB`` in an attack's damage is ``bonus``, else the sheet's damage bonus, unless the
    words say (``db=``); the roller's Luck, the sheet's (``luck_of``). With ``facing``, only
    the actions made against another character's sheet, read as such (``Facing.read``)."""
    tokens = list(words)
    if bonus is None and sheet is not None:
        bonus = sheet.damage_bonus
    tried = [tokens]
    if sheet is not None:
        for k in range(len(tokens) - 1, 0, -1):
            try:
                name = sheet.skill(" ".join(tokens[:k]))
            except D100Error:
                continue
            tried.append([str(sheet.rollable[name]), *tokens[k:]])
    for said in tried:
        for action in actions:
            if facing and action.facing is None:
                continue
            asked = said if sheet is None else luck_of(action, said, sheet)
            found = read_words(_reader(action, bonus, facing), asked)
            if found is not None:
                if sheet is not None:
                    _sheet_luck(action, found[0], sheet)
                return Found(action, found[0], found[1])
    return None


def luck_of(action: Action, words: Sequence[str], sheet: Sheet) -> list[str]:
    """The words with the action's Luck word alone (``pulp``) given the sheet's Luck
    (``pulp50``): a character's Luck is its sheet's; refused where the sheet holds none."""
    word = action.luck_word
    if word is None or not any(w.lower() == word for w in words):
        return list(words)
    if sheet.luck is None:
        raise D100Error(
            str(action.luck_field), word, f"a luck entry on {sheet.name}'s sheet", "no Luck"
        )
    return [f"{w}{sheet.luck.current}" if w.lower() == word else w for w in words]


def _sheet_luck(action: Action, request: Any, sheet: Sheet) -> None:
    """A character's Luck typed (``pulp40``) is refused where its sheet says otherwise, or
    holds none: the sheet is where its Luck is kept, and spent."""
    field = action.luck_field
    typed = None if field is None else getattr(request, field)
    if field is None or typed is None:
        return
    held = sheet.luck
    if held is None:
        raise D100Error(
            field, typed, f"a luck entry on {sheet.name}'s sheet", f"{sheet.name} has no Luck"
        )
    if typed != held.current:
        raise D100Error(
            field,
            typed,
            f"{action.luck_word} alone (or {action.luck_word}{held.current}): "
            f"{sheet.name}'s Luck is its sheet's, {held.current}",
            "not the sheet's Luck",
        )


def _reader(
    action: Action, bonus: str | None, facing: bool = False
) -> Callable[[Sequence[str]], tuple[Any, str | None] | None]:
    read = action.facing.read if facing and action.facing is not None else action.read
    return lambda words: read(words, bonus)


def named(name: str) -> Action | None:
    """The action of that name any system declares (a table's log names its rolls so)."""
    from .systems import REGISTRY

    for spec in REGISTRY:
        for action in spec.declares.actions:
            if action.name == name:
                return action
    return None


def find(words: Sequence[str], system: str | None, bonus: str | None = None) -> Found | None:
    """The action ``words`` ask for (``[SYSTEM] FAR(30,62,98)``, ``[SYSTEM] 55 shots3``), else
    None: a form led by a skill is the named system's, else ``system``'s (the one chosen where
    the words name none); any other form a named system's, else any system's in the
    registry's order."""
    from .systems import REGISTRY  # here: the systems' declarations import this module

    said = list(words)
    named = said.pop(0).lower() if said and said[0].lower() in REGISTRY else None
    if not said:
        return None
    if named is None and said[0].isdigit():
        named = system
        if named is None or named not in REGISTRY:
            return None  # no system chosen: the check's own reading says so
    systems = [REGISTRY.get(named)] if named is not None else list(REGISTRY)
    for spec in systems:
        for action in spec.declares.actions:
            found = read_words(_reader(action, bonus), said)
            if found is not None:
                return Found(action, found[0], found[1])
    return None
