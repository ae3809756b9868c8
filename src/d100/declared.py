"""Rolls a table declares beside the check, by the kind its log names them: a dice expression
(``dice``), a Sanity roll (``sanity``), a character's development phase (``development``) or
one of its system's actions (``Declaration.actions``, by name). The request words make at a
table for a character's sheet (what the table rolls and ``d100 verify`` replays), what
resolves each again from its request's JSON, its exact odds (each refused before any work
past the engine's budget, ``TooMuchWork``), and the part of them its event keeps."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import development, expressions, quick, sanity, sanity_form
from .actions import Action, Found, for_character, named
from .declarations import DEVELOP_LUCK, WordRoll
from .development import DevelopmentRequest
from .errors import D100Error
from .expressions import DiceRequest, cost
from .sheets import Character
from .systems import REGISTRY

ALLOWED = (
    "a dice expression (1d6+1, or 1d8+DB: DB the character's damage bonus, else db=+1d4), a "
    "Sanity roll of this table's rules (sc 1/1d6), one of its actions (60 dmg=1d8+DB, "
    "handgun shots2 dmg=1d10, FAR(30,62,98)) or a character's development phase (develop)"
)
BONUS = "db="  # the word saying what DB stands for, as the command line's --db
# A Sanity roll's odds weigh each loss it can come to at every level in exact fractions: about
# 50 us a loss, so its odds are worked out under the table's lock (``CHEAP``) for at most a
# couple of hundred losses (sc 1d10/1d100), on a worker beyond (sc 4d1000/1d1000: a second).
PER_LOSS = 100

ROLLS: dict[str, Callable[..., Any]] = {
    "dice": expressions.roll,
    "sanity": sanity.roll,
    "development": development.roll,
}
# What a roll's logged odds leave out: the chance of every total (or loss) its request can come
# to, which its request gives again (``d100 odds``). At the bounds (50d1000) it was 30 MB an
# event, linked under the table's lock and sent again to every member; the card keeps the
# chance of the total rolled, at least it and the mean, a Sanity roll's odds each level's.
UNLOGGED = {"dice": "distribution", "sanity": "losses", "development": None}
# an action's: the chance of every damage dealt, the defender's too (the card keeps its own)
ACTION_UNLOGGED = ("damage", "defender_damage")


def roller(kind: object) -> Callable[..., Any] | None:
    """What resolves a declared roll's request again: a dice expression's, a Sanity roll's, a
    development phase's, or the action of that name a system declares (made again from its
    JSON); None if none."""
    if not isinstance(kind, str):
        return None
    if kind in ROLLS:
        return ROLLS[kind]
    if quick.word_kind(kind):
        return lambda request, source: _word(kind, request).resolve(source)
    action = named(kind)
    if action is None:
        return None
    return lambda request, source: action.roll(action.build(request), source)


def odds(kind: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """A declared roll's exact odds as contract JSON, refused past the engine's budget
    (``TooMuchWork``) before any work."""
    if quick.word_kind(kind):
        return _word(kind, request).odds()
    if kind == "development":
        chances = development.odds(DevelopmentRequest.from_dict(request))
        return {"rolls": [o.to_dict() for o in chances]}
    if kind == "sanity":
        return sanity.odds(request).to_dict()
    if kind == "dice":
        return expressions.odds(request).to_dict()
    action = named(kind)
    if action is None:
        raise D100Error("roll", kind, "dice, sanity, development or a system's action", "unknown")
    return action.odds(action.build(request))


def logged(kind: str, chances: Mapping[str, Any], word: WordRoll | None = None) -> dict[str, Any]:
    """A roll's odds as its event keeps them (and its preview answers): without the chance of
    every total or loss (``UNLOGGED``, a chat-bot word's own), which its request gives again."""
    if word is not None:
        left: tuple[str | None, ...] = (word.unlogged,)
    else:
        left = (UNLOGGED[kind],) if kind in UNLOGGED else ACTION_UNLOGGED
    return {k: v for k, v in chances.items() if k not in left}


def _word(kind: str, request: Any) -> WordRoll:
    """A chat-bot word's roll of that kind made again from its logged request."""
    made = quick.word_roll(kind, request)
    assert made is not None  # the kind is a system's (``quick.word_kind``)
    return made


@dataclass(frozen=True)
class Asked:
    """The request the words make at a table: its kind ("dice", "sanity", "development" or
    an action's name, or a chat-bot word's kind), the library's request object, and the
    action or the chat-bot word's roll (SealDice's ``.sc``, ``.en``) where it is one."""

    roll: str  # "dice", "sanity", "development", an action's name or a chat-bot word's kind
    request: Any
    action: Action | None = None
    word: WordRoll | None = None  # a chat-bot word's roll: then also the request
    faced: Any = None  # the door's record of the character an action is made against

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = self.request.to_dict()
        return out

    def cost(self) -> int:
        """The exact odds' inner steps, known before any work (``expressions.exact.cost``, an
        action's own); a Sanity roll's also weigh each loss it can come to (``PER_LOSS``)."""
        if self.action is not None:
            return self.action.cost(self.request)
        if self.word is not None:
            return self.word.cost()
        if isinstance(self.request, DiceRequest):
            return cost(self.request.rolled)
        if isinstance(self.request, DevelopmentRequest):
            return sum(m.cost() for _, m in self.request.machines())
        losses = (self.request.success_loss, self.request.failure_loss)
        return sum(cost(e) + PER_LOSS * (e.high - e.low + 1) for e in losses)


def action_of(
    system: str, words: str, sheet: Character | None, facing: bool = False
) -> Found | None:
    """The action of the table's system the words ask for (``actions.for_character``: led by
    a skill's number or one of the sheet's, DB the sheet's damage bonus), else None; with
    ``facing``, only the actions made against another character's sheet, read as such."""
    tokens = words.split()
    if tokens and tokens[0].lower() == system:
        tokens.pop(0)
    return for_character(REGISTRY.get(system).declares.actions, tokens, sheet, facing=facing)


def asked(system: str, words: str, sheet: Character | None, marked: Sequence[str] = ()) -> Asked:
    """What the words ask at a table of ``system``, for a character's ``sheet`` (or none):
    a development phase of its marks (the sheet's and ``marked``, the table's), a Sanity
    roll with what the sheet gives it (SAN, INT, the Mythos), an action led by a skill of
    the sheet (DB its damage bonus), or a dice expression (``DB`` the sheet's). Dice typed by
    hand are refused: the table draws every die of these rolls."""
    tokens = words.split()
    if tokens and tokens[0].lower() in development.WORDS:
        return Asked("development", phase(sheet, marked, tokens, words))
    said = sanity_form.read(tokens, system)
    if said is not None:
        if said.dice is not None:
            raise D100Error("words", words, ALLOWED + " without @DICE", "the table draws its dice")
        fields = None if sheet is None else sanity_form.sheet_fields(sheet)
        return Asked("sanity", sanity_form.request(said, fields))
    found = action_of(system, words, sheet)
    if found is not None:
        if getattr(found.request, "dice", None) is not None:
            raise D100Error("words", words, ALLOWED + " without @DICE", "the table draws its dice")
        return Asked(found.action.name, found.request, found.action)
    if not tokens or not expressions.looks_like(tokens[0]):
        raise D100Error(
            "words", words, ALLOWED, "neither a dice expression, a Sanity roll nor an action"
        )
    bonus = [t.partition("=")[2] for t in tokens if t.lower().startswith(BONUS)]
    written = "".join(t for t in tokens if not t.lower().startswith(BONUS))
    if len(bonus) > 1:
        raise D100Error("words", words, f"{BONUS} once", "the damage bonus given twice")
    given = bonus[0] if bonus else None
    if given is None and sheet is not None and expressions.parse(written).names_bonus:
        given = sheet.damage_bonus  # S7-11: the sheet's, where it has one
    return Asked("dice", DiceRequest(written, given))


def phase(
    sheet: Character | None, marked: Sequence[str], tokens: Sequence[str], words: str
) -> DevelopmentRequest:
    """A character's development phase: the skills marked on its sheet and at the table
    (``marked``), and Luck's recovery roll with ``develop luck``."""
    if len(tokens) > 2 or list(tokens[1:]) not in ([], [DEVELOP_LUCK]):
        raise D100Error(
            "words", words, f"{tokens[0]} or {tokens[0]} {DEVELOP_LUCK}", "unknown words"
        )
    if sheet is None:
        raise D100Error("character_id", None, "the character whose phase it is", "no character")
    marked_sheet = replace(sheet, marks=marks(sheet, marked))
    request = development.from_character(marked_sheet, len(tokens) > 1)
    if not request.skills and request.luck is None:
        raise D100Error("words", words, f"{tokens[0]} {DEVELOP_LUCK}, or marks to roll", "no marks")
    return request


def marks(sheet: Character, marked: Sequence[str]) -> tuple[str, ...]:
    """The skills marked for improvement on a sheet and at the table (``marked``), once each."""
    have = {m.casefold() for m in sheet.marks}
    return (*sheet.marks, *(k for k in marked if k.casefold() not in have))
