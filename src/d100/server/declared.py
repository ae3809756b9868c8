"""Rolls of the kinds a table's rules declare beside the check: a dice expression
(``1d6+1``, ``2d6+DB``), where the system declares Sanity (``Declaration.sanity``) a Sanity
roll (``sc 1/1d6``), and the system's actions (``Declaration.actions``: CoC7's attack with its
damage, several shots, full auto, FAR), led by a skill's number or a skill of the character's
sheet (``fighting dmg=1d6+DB``), ``DB`` the sheet's damage bonus. Asked in the words the
command line takes, for a character or none, in any roll mode a check has (a blind one shown
by the GM as a check's is); drawn from the table's provable seeds as a check is
(``access.chain_of``), logged as a ``declared`` event with its exact odds and its reading. A
Sanity roll for a character reads SAN, INT and the Mythos from its sheet and writes the SAN it
leaves back, in the roll's transaction, where every reader of the sheet sees the roll (as a
check's improvement mark: the sheet would tell the result). A character's development phase
(``develop``), the GM's, rolls its marks and writes the sheet back (``developing``). An action
that faces another character (``Action.facing``: a melee attack's defender) reads that side's
skill and damage bonus from their sheet, kept from whoever may not read it (``facing``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from .. import development, expressions, sanity, sanity_form, sheets
from ..actions import Action, Found, for_character, named
from ..development import DevelopmentRequest
from ..development_view import development_view
from ..errors import D100Error, TooMuchWork
from ..expressions import DiceRequest
from ..expressions.exact import cost
from ..provable import ProvableSource
from ..sanity import SanityRequest, SanityResult
from ..sanity_view import sanity_view
from ..systems import REGISTRY
from . import characters, developing, followups
from . import event_kinds as kinds
from .access import (
    VISIBILITIES,
    Viewer,
    chain_of,
    may_edit,
    require_editor,
    sheet_readers_see,
)
from .action_cards import action_card, logged_action_odds
from .calculator import CHEAP
from .errors import bad, conflict, invalid, renamed
from .events import append, get_table, lock_table
from .gametables import draw
from .models import BlindRoll, Character, Event, GameTable
from .rolls import Dear as CheckDear
from .rolls import Planned
from .store import write_columns

ALLOWED = (
    "a dice expression (1d6+1, or 1d8+DB: DB the character's damage bonus, else db=+1d4), a "
    "Sanity roll of this table's rules (sc 1/1d6), one of its actions (60 dmg=1d8+DB, "
    "handgun shots2 dmg=1d10, FAR(30,62,98)) or a character's development phase (develop)"
)
BONUS = "db="  # the word saying what DB stands for, as the command line's --db
NOBODY = kinds.CharacterRef(id="", name="", member_id=None)  # a roll for no character
# A Sanity roll's odds weigh each loss it can come to at every level in exact fractions: about
# 50 us a loss, so its odds are worked out under the table's lock (``CHEAP``) for at most a
# couple of hundred losses (sc 1d10/1d100), on a worker beyond (sc 4d1000/1d1000: a second).
PER_LOSS = 100
# What a roll's logged odds leave out: the chance of every total (or loss) its request can come
# to, which its request gives again (``d100 odds``). At the bounds (50d1000) it was 30 MB an
# event, linked under the table's lock and sent again to every member; the card keeps the
# chance of the total rolled, at least it and the mean, a Sanity roll's odds each level's.
UNLOGGED = {"dice": "distribution", "sanity": "losses", "development": None}


class Dear(CheckDear):
    """A declared roll's odds too dear to work out under the lock: ``planned_odds`` works
    them out for ``request`` (``{"roll": kind, "request": ...}``) on a worker."""


def reads_as(words: str) -> bool:
    """Whether words ask for a declared roll rather than name a skill: a Sanity word of any
    system followed by a loss ``A/B``, or a word that looks like a dice expression (the
    table then says whether its rules take it). A door asks this after the sheet."""
    tokens = words.split()
    if len(tokens) > 1 and tokens[0].lower() in sanity_form.words() and "/" in tokens[1]:
        return True
    if tokens and tokens[0].lower() in development.WORDS:
        return True
    return bool(tokens) and expressions.looks_like(tokens[0])


def action_of(
    system: str, words: str, sheet: sheets.Character | None, facing: bool = False
) -> Found | None:
    """The action of the table's system the words ask for (``actions.for_character``: led by
    a skill's number or one of the sheet's, DB the sheet's damage bonus), else None; with
    ``facing``, only the actions made against another character's sheet, read as such."""
    tokens = words.split()
    if tokens and tokens[0].lower() == system:
        tokens.pop(0)
    return for_character(REGISTRY.get(system).declares.actions, tokens, sheet, facing=facing)


def acts(system: str, words: str, sheet: sheets.Character | None) -> bool:
    """Whether the words ask for one of the system's actions (written wrong or not: the
    roll then names what is wrong), rather than a check."""
    try:
        return action_of(system, words, sheet) is not None
    except D100Error:
        return True


@dataclass(frozen=True)
class Defender:
    """The character an action is made against, and the skill of their sheet it reads (None:
    the one its response is made with, ``Facing.skill``)."""

    character_id: str
    skill: str | None = None


@dataclass(frozen=True)
class DeclaredSpec:
    """A roll asked in words (``1d6+1``, ``sc 1/1d6 int=70``), for a character or none, and
    against another where it is an action that faces one (``60 dmg=1d8+DB fight``)."""

    words: str
    character_id: str | None = None
    visibility: str = "public"
    defender: Defender | None = None


@dataclass(frozen=True)
class Faced:
    """The character an action was made against and the skill their sheet gave it."""

    row: Character
    skill: str


@dataclass(frozen=True)
class Asked:
    """The request the words make at this table: its kind ("dice", "sanity", "development" or
    an action's name), the library's request object, and the action where it is one."""

    roll: str  # "dice", "sanity", "development" or an action's name
    request: Any
    action: Action | None = None
    faced: Faced | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = self.request.to_dict()
        return out

    def cost(self) -> int:
        """The exact odds' inner steps, known before any work (``expressions.exact.cost``, an
        action's own); a Sanity roll's also weigh each loss it can come to (``PER_LOSS``)."""
        if self.action is not None:
            return self.action.cost(self.request)
        if isinstance(self.request, DiceRequest):
            return cost(self.request.rolled)
        if isinstance(self.request, DevelopmentRequest):
            return sum(m.cost() for _, m in self.request.machines())
        losses = (self.request.success_loss, self.request.failure_loss)
        return sum(cost(e) + PER_LOSS * (e.high - e.low + 1) for e in losses)


def asked(table: GameTable, row: Character | None, words: str) -> Asked:
    """What the words ask at this table, with what the character's sheet gives a Sanity
    roll. Dice typed by hand are refused: the table draws every die of these rolls."""
    tokens = words.split()
    try:
        if tokens and tokens[0].lower() in development.WORDS:
            return Asked("development", developing.phase(row, tokens, words))
        said = sanity_form.read(tokens, table.system)
        if said is not None:
            if said.dice is not None:
                raise bad("words", words, ALLOWED + " without @DICE", "the table draws its dice")
            sheet = None if row is None else sanity_form.sheet_fields(characters.sheet_of(row))
            return Asked("sanity", sanity_form.request(said, sheet))
        found = action_of(table.system, words, None if row is None else characters.sheet_of(row))
        if found is not None:
            if getattr(found.request, "dice", None) is not None:
                raise bad("words", words, ALLOWED + " without @DICE", "the table draws its dice")
            return Asked(found.action.name, found.request, found.action)
        if not tokens or not expressions.looks_like(tokens[0]):
            raise bad(
                "words", words, ALLOWED, "neither a dice expression, a Sanity roll nor an action"
            )
        bonus = [t.partition("=")[2] for t in tokens if t.lower().startswith(BONUS)]
        written = "".join(t for t in tokens if not t.lower().startswith(BONUS))
        if len(bonus) > 1:
            raise bad("words", words, f"{BONUS} once", "the damage bonus given twice")
        given = bonus[0] if bonus else None
        if given is None and row is not None and expressions.parse(written).names_bonus:
            given = characters.sheet_of(row).damage_bonus  # S7-11: the sheet's, where it has one
        return Asked("dice", DiceRequest(written, given))
    except D100Error as err:
        raise invalid(err, "words") from None


def facing(
    table: GameTable,
    row: Character | None,
    words: str,
    target: Character,
    spec: Defender,
    editor: bool,
) -> Asked:
    """An action the words ask for made against ``target``: the skill (``spec``'s, else the
    one its response is made with) and damage bonus read from their sheet. An error about
    that sheet, to a viewer who may not read it (``editor`` false), names none of its
    skills nor values (a did-you-mean would list them)."""
    sheet = None if row is None else characters.sheet_of(row)
    try:
        found = action_of(table.system, words, sheet, facing=True)
    except D100Error as err:
        raise invalid(err, "words") from None
    if found is None or found.action.facing is None:
        raise bad(
            "words",
            words,
            "an action made against a character (an attack: 60 dmg=1d8+DB fight)",
            "not an action of this table's rules that faces a defender",
        )
    if getattr(found.request, "dice", None) is not None:
        raise bad("words", words, ALLOWED + " without @DICE", "the table draws its dice")
    rules = found.action.facing
    theirs = characters.sheet_of(target)
    query = spec.skill or rules.skill(found.request)
    try:
        skill = theirs.skill(query)
    except D100Error as err:
        if not editor:
            raise bad(
                "defender.skill", query, f"a skill on {target.name}'s sheet", "not on that sheet"
            ) from None
        raise renamed(err, "defender.skill") from None
    try:
        request = rules.fill(found.request, theirs.rollable[skill], theirs.damage_bonus)
    except D100Error as err:
        if not editor:
            raise bad(
                "defender.character_id",
                target.id,
                f"a character whose sheet gives what the words ask of {target.name}",
                f"{target.name}'s sheet does not give it",
            ) from None
        raise invalid(err, "words") from None
    return Asked(found.action.name, request, found.action, Faced(target, skill))


def odds_of(roll: str, request: dict[str, Any]) -> dict[str, Any]:
    """A declared roll's exact odds (on a worker when dear): refused past the engine's budget."""
    if roll == "development":
        chances = development.odds(DevelopmentRequest.from_dict(request))
        return {"rolls": [o.to_dict() for o in chances]}
    if roll == "sanity":
        return sanity.odds(request).to_dict()
    if roll == "dice":
        return expressions.odds(request).to_dict()
    action = named(roll)
    if action is None:
        raise D100Error("roll", roll, "dice, sanity or a system's action", "unknown roll")
    return action.odds(action.build(request))


def preview(session: Session, viewer: Viewer, spec: DeclaredSpec) -> dict[str, Any]:
    """The request a roll's words make, ``{"roll": kind, "request": ...}``, refused as the
    roll would be (by whoever may roll it), read without the table's lock."""
    table = get_table(session, viewer.table_id)
    if spec.defender is not None:  # before their sheet is read: a refusal there tells it
        target = characters.load(
            session, table.id, spec.defender.character_id, "defender.character_id"
        )
        require_editor(viewer, target, "preview odds against this character (they tell its skill)")
    _, made = _made(session, viewer, table, spec)
    return {"roll": made.roll, "request": made.to_dict()}


def _made(
    session: Session, viewer: Viewer, table: GameTable, spec: DeclaredSpec
) -> tuple[Character | None, Asked]:
    """The character (if any) and what the words ask, refused unless the viewer may roll it."""
    if spec.visibility not in VISIBILITIES:
        raise bad(
            "visibility", spec.visibility, "one of " + ", ".join(VISIBILITIES), "unknown roll mode"
        )
    row = None
    if spec.character_id is not None:
        row = characters.load(session, table.id, spec.character_id)
        require_editor(viewer, row, "roll for this character")
    if spec.defender is not None:
        target = characters.load(
            session, table.id, spec.defender.character_id, "defender.character_id"
        )
        if row is not None and target.id == row.id:
            raise bad(
                "defender.character_id", target.id, "another character", "an attack on oneself"
            )
        seen = sheet_readers_see(session, spec.visibility, viewer.member_id, target)
        if not (may_edit(viewer, target) or seen):
            raise bad(
                "visibility",
                spec.visibility,
                "a mode in which the defender's player and the GM see the result",
                f"an attack on {target.name} is seen by {target.name}'s player and the GM",
            )
        return row, facing(table, row, spec.words, target, spec.defender, may_edit(viewer, target))
    made = asked(table, row, spec.words)
    if isinstance(made.request, DevelopmentRequest):
        developing.may_develop(session, viewer, spec.visibility, row)
    return row, made


def roll(session: Session, viewer: Viewer, spec: DeclaredSpec, planned: Planned | None) -> Event:
    """The roll, under the table's lock. Cheap odds are worked out here; dear ones raise
    ``Dear`` (its request ``{"roll": kind, "request": ...}``) before anything is written, to
    be worked out on a worker and rolled again with them (``planned``)."""
    table = lock_table(session, viewer.table_id)
    row, made = _made(session, viewer, table, spec)
    request = made.to_dict()
    tagged = {"roll": made.roll, "request": request}
    if planned is None:
        if made.cost() > CHEAP:
            raise Dear(tagged)
        try:
            planned = Planned(tagged, odds_of(made.roll, request))
        except TooMuchWork as err:
            raise invalid(err, "words") from None
    elif planned.request != tagged:
        raise conflict(
            "request",
            None,
            "the roll as it was when its odds were worked out",
            "the character changed meanwhile; roll again",
        )
    # whether the sheet may change: every reader of it sees the roll (decided before the dice)
    seen = row is not None and sheet_readers_see(session, spec.visibility, viewer.member_id, row)
    if isinstance(made.request, SanityRequest) and made.request.pulp and row and not seen:
        raise bad(
            "visibility",
            spec.visibility,
            "a mode every reader of the sheet sees, to spend Luck halving a loss (pulp)",
            "Luck spent halving a loss would show the result on the sheet",
        )
    character = None if row is None else characters.public_view(row)
    ref = NOBODY if character is None else kinds.CharacterRef.model_validate(character)
    defender = None
    if made.faced is not None:
        faced = characters.public_view(made.faced.row)
        defender = {"character": faced, "skill": made.faced.skill}
    named = kinds.Named(
        character=ref,
        request=request,
        defender=None if defender is None else kinds.CharacterRef.model_validate(faced),
    )
    chain = chain_of(spec.visibility, viewer.member_id, named, viewer.gms)
    drawn = draw(session, table, chain, viewer.member_id)
    source = ProvableSource(bytes.fromhex(drawn.server_seed), drawn.client_seed, drawn.nonce)
    sheet = None
    offers: list[dict[str, Any]] = []
    if isinstance(made.request, SanityRequest):
        result = sanity.roll(made.request, source)
        reading = sanity_reading(sanity_view(result).to_dict(), planned.odds)
        if row is not None:
            sheet = _write_back(session, seen, row, result)
        outcome = result.to_dict()
    elif isinstance(made.request, DevelopmentRequest):
        assert row is not None  # a phase is a character's (``developing.phase``)
        phase = development.develop(made.request, source)
        reading = development_view(row.name, phase, planned.odds["rolls"]).to_dict()
        sheet = developing.developed(session, row, phase)
        outcome = phase.to_dict()
    elif made.action is not None:
        done = made.action.roll(made.request, source)
        reading = action_card(made.action, done, planned.odds, made.faced is not None)
        outcome = done.to_dict()
        if row is not None and seen:  # what may follow it: Luck spent on it (C7-4)
            offers = followups.action_offers(made.action, done, characters.sheet_of(row))
    else:
        dice = expressions.roll(made.request, source)
        reading = expressions.reading(dice.to_dict(), planned.odds)
        outcome = dice.to_dict()
    logged = logged_odds(made.roll, planned.odds)
    event = kinds.declared(
        made.roll,
        " ".join(spec.words.split()),
        character,
        request,
        logged,
        drawn,
        outcome,
        reading,
        sheet,
        spec.visibility,
        viewer.member_id,
        defender,
        offers,
    )
    made_event = append(session, table, event, flush=False)
    if spec.visibility == "blind":  # the GM shows it (``rolls.unblind``), as a check's
        session.add(BlindRoll(table_id=table.id, seq=made_event.seq, seed_id=drawn.seed_id))
    return made_event


def logged_odds(roll: str, odds: dict[str, Any]) -> dict[str, Any]:
    """A roll's odds as its event keeps them (and its preview answers): without the chance of
    every total or loss (``UNLOGGED``), which its request gives again."""
    if roll not in UNLOGGED:
        return logged_action_odds(odds)
    return {k: v for k, v in odds.items() if k != UNLOGGED[roll]}


def _write_back(
    session: Session, seen: bool, row: Character, result: SanityResult
) -> dict[str, Any]:
    """SAN (and Luck spent halving a loss, P-2) written to the sheet where every reader of it
    sees the roll (``seen``); else left as it was, for the GM to set when the player may know:
    a SAN changed on a player's own sheet would tell them how a roll kept from them went."""
    before, after = result.sanity, result.sanity_after
    if seen and (before != after or result.luck_spent):
        now = characters.sheet_of(row)
        changed = sanity_form.with_sanity(now, after)
        write_columns(session, row, sheet=characters.sheet_text(changed, row.sheet))
        if result.luck_spent and now.luck is not None:
            characters.change_luck(session, row, now.luck.spend(result.luck_spent))
    return {"sanity": [before, after], "written": seen}


ODDS_READ = {
    "success_odds": "success",
    "mean_loss": "mean",
    "temporary_odds": "temporary",
    "indefinite_odds": "indefinite",
    "permanent_odds": "permanent",
}


def sanity_reading(view: dict[str, Any], odds: dict[str, Any]) -> dict[str, Any]:
    """A Sanity roll's view (``SanityView``) with its exact odds, as the odds' own text."""
    return view | {key: odds[name] for key, name in ODDS_READ.items()}


def planned_odds(tagged: dict[str, Any]) -> dict[str, Any]:
    """The odds of a ``Dear`` declared roll's request, worked out on a worker: refused past
    the engine's budget (``TooMuchWork``) naming the words, as under the lock."""
    try:
        return odds_of(str(tagged["roll"]), tagged["request"])
    except D100Error as err:
        raise err.at(f"words.{err.field}") from None
