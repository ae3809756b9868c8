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

from .. import declared, development, expressions, quick, sanity, sanity_form, sheets, tallies
from ..declarations import WordRoll, WordRolled
from ..declared import Asked
from ..development import DevelopmentRequest
from ..development_view import development_view
from ..errors import D100Error, TooMuchWork
from ..provable import ProvableSource
from ..sanity import SanityRequest, SanityResult
from ..sanity_view import sanity_view
from . import calculator, characters, developing, followups, spoken
from . import event_kinds as kinds
from .access import (
    VISIBILITIES,
    Viewer,
    chain_of,
    may_edit,
    require_editor,
    sheet_readers_see,
)
from .action_cards import action_card
from .calculator import CHEAP
from .errors import ApiError, bad, conflict, invalid, renamed
from .events import append, get_table, lock_table
from .gametables import draw
from .models import BlindRoll, Character, Event, GameTable
from .rolls import Dear as CheckDear
from .rolls import Planned
from .store import write_columns

NOBODY = kinds.CharacterRef(id="", name="", member_id=None)  # a roll for no character


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


def acts(system: str, words: str, sheet: sheets.Character | None) -> bool:
    """Whether the words ask for one of the system's actions (written wrong or not: the
    roll then names what is wrong), rather than a check."""
    try:
        return declared.action_of(system, words, sheet) is not None
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


def asked(table: GameTable, row: Character | None, words: str) -> Asked:
    """What the words ask at this table (``declared.asked``), with what the character's sheet
    and the table's marks give them."""
    sheet = None if row is None else characters.sheet_of(row)
    marked = () if row is None else tuple(k for k, n in row.marks.items() if n)
    try:
        if spoken.read(table, words) is not None:
            word = word_roll(table, row, words)
            return Asked(word.kind, word, word=word)
        return declared.asked(table.system, words, sheet, marked)
    except D100Error as err:
        raise invalid(err, "" if err.field == "character_id" else "words") from None


def word_roll(table: GameTable, row: Character | None, words: str) -> WordRoll:
    """A chat-bot word's roll that is no check (SealDice's ``.sc 1/1d6``, ``.en Library Use``)
    at this table: a character's values its sheet's, judged by the table's rules; dice typed
    by hand refused (the table draws them), a value missing refused before any dice."""
    found = quick.read_command(words, table.system)
    if found is None or found.roll is None:
        raise bad(
            "words",
            words,
            declared.ALLOWED + ", or a chat-bot word's roll (.sc 1/1d6, .en Library Use)",
            "a check's word: rolled as a check (declared-rolls, or /rolls), its odds the check's",
        )
    made = found.roll if row is None else found.roll.with_sheet(characters.sheet_of(row))
    made = made.ruled(table.house_rules)
    if made.to_dict().get("dice") is not None:
        raise bad("words", words, "the words without @DICE", "the table draws its dice")
    made.cost()  # a value neither typed nor on a sheet is refused here
    return made


WORST_BONUS = "+6d6"  # a damage bonus beyond any human's: a defender's, weighed unseen
PARTY = "party"  # the whole party's development phases: each one's ``{"roll", "request"}``


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
        found = declared.action_of(table.system, words, sheet, facing=True)
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
        raise bad("words", words, declared.ALLOWED + " without @DICE", "the table draws its dice")
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
    made = Asked(found.action.name, request, found.action, faced=Faced(target, skill))
    # To who may not read the sheet, whether the words are too much work may not depend on
    # its damage bonus (words at the budget's edge, asked again and again, would narrow it
    # down): they are weighed with a bonus beyond any human's, and with the sheet's own.
    if editor:
        return made
    worst = rules.fill(found.request, theirs.rollable[skill], WORST_BONUS)
    weighed = Asked(found.action.name, worst, found.action, faced=Faced(target, skill))
    if max(made.cost(), weighed.cost()) > tallies.BUDGET:
        raise bad(
            "defender.character_id",
            target.id,
            f"words whose odds are within the budget with any damage bonus {target.name}'s "
            f"sheet may give, up to {WORST_BONUS}",
            "too much work",
        )
    return made


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
        if row is None and not viewer.is_gm:  # else any member reads any sheet at will
            raise ApiError(
                403,
                "character_id",
                None,
                "a character you play: an attack on a character is a character's",
                "only the GM attacks with no character",
            )
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
    # a development phase, asked as one or in a chat-bot's word (.en), raises the sheet's
    # skills: the GM's, at the end of a session, never a player's at will
    develops = made.word is not None and made.word.develops and row is not None
    if isinstance(made.request, DevelopmentRequest) or develops:
        developing.may_develop(session, viewer, spec.visibility, row)
    return row, made


def roll(session: Session, viewer: Viewer, spec: DeclaredSpec, planned: Planned | None) -> Event:
    """The roll, under the table's lock. Cheap odds are worked out here; dear ones raise
    ``Dear`` (its request ``{"roll": kind, "request": ...}``) before anything is written, to
    be worked out on a worker and rolled again with them (``planned``)."""
    table = lock_table(session, viewer.table_id)
    if spoken.setting(table, spec.words) is not None:  # .setcoc 2: the GM's, no roll
        return spoken.set_rules(session, viewer, table, spec.words)
    found = spoken.check_word(table, spec.words)
    if found is not None:  # a check in a chat-bot's word (.rah 困难侦查): the check's own path
        args = (spec.character_id, found, spec.visibility, planned)
        return spoken.checks(session, viewer, table, *args)
    row, made = _made(session, viewer, table, spec)
    request = made.to_dict()
    tagged = {"roll": made.roll, "request": request}
    if planned is None:
        if made.cost() > CHEAP:
            raise Dear(tagged)
        try:
            planned = Planned(tagged, declared.odds(made.roll, request))
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
    if row and not seen and (_pulp(made.request) or _luck_spends(made)):
        raise bad(
            "visibility",
            spec.visibility,
            "a mode every reader of the sheet sees, to spend the sheet's Luck (pulp: P-2, P-6)",
            "Luck spent would show the result on the sheet",
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
        assert row is not None  # a phase is a character's (``d100.declared.phase``)
        phase = development.develop(made.request, source)
        reading = development_view(row.name, phase, planned.odds["rolls"]).to_dict()
        sheet = developing.developed(session, row, phase)
        outcome = phase.to_dict()
    elif made.word is not None:
        done = made.word.resolve(source)
        told = made.word.told(done, planned.odds)
        reading = word_reading(made.word, told)
        if row is not None:
            sheet = _word_written(session, seen, row, told)
        outcome = done.to_dict()
    elif made.action is not None:
        done = made.action.roll(made.request, source)
        reading = action_card(made.action, done, planned.odds, made.faced is not None)
        outcome = done.to_dict()
        if row is not None and _luck_spends(made):  # P-6: the sheet's Luck, spent there
            sheet = _luck_written(session, row, int(outcome.get("luck_spent") or 0))
        if row is not None and seen:  # what may follow it: Luck spent on it (C7-4)
            offers = followups.action_offers(made.action, done, characters.sheet_of(row))
    else:
        dice = expressions.roll(made.request, source)
        reading = expressions.reading(dice.to_dict(), planned.odds)
        outcome = dice.to_dict()
    logged = declared.logged(made.roll, planned.odds, made.word)
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


def _pulp(request: Any) -> bool:
    """A Sanity roll spending Luck halving its loss (P-2)."""
    return isinstance(request, SanityRequest) and request.pulp


def _luck_spends(made: Asked) -> bool:
    """An action that may spend the roller's Luck (its declared field set: P-6)."""
    field = None if made.action is None else made.action.luck_field
    return field is not None and getattr(made.request, field) is not None


def _luck_written(session: Session, row: Character, spent: int) -> dict[str, Any]:
    """The Luck an action spent, taken from the sheet (its request had the sheet's, checked
    by ``actions.for_character``); every reader of the sheet sees the roll (checked before)."""
    now = characters.sheet_of(row).luck
    assert now is not None  # the request's Luck was the sheet's
    if spent:
        characters.change_luck(session, row, now.spend(spent))
    return {"luck": [now.current, now.current - spent], "written": True}


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


def _word_written(session: Session, seen: bool, row: Character, told: WordRolled) -> dict[str, Any]:
    """What a chat-bot word's roll does to the sheet (SAN, as a Sanity roll's; skills raised,
    as a development phase's), written where every reader of the sheet sees the roll, else
    left for the GM to set (``_write_back``)."""
    if seen and told.write is not None:
        changed, _ = told.write(characters.sheet_of(row))
        write_columns(session, row, sheet=characters.sheet_text(changed, row.sheet))
    return {**told.sheet, "written": seen}


def word_reading(word: WordRoll, told: WordRolled) -> dict[str, Any]:
    """A chat-bot word's roll read as an action's (``action_reading``): its title, its lines as
    rows, what it came to; the odds are in its lines."""
    return {
        "title": told.title,
        "heading": f"{told.title.partition(' (')[0]}",
        "outcome": told.outcome,
        "rows": [{"label": label, "text": text} for label, text in told.lines],
        "notes": [],
        "odds": [],
    }


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
    the engine's budget (``TooMuchWork``) naming the words, as under the lock. A party's
    (``PARTY``, bounded by ``party.plan``) are each of its phases' in turn; a check asked in a
    chat-bot word (``spoken.checks``) is a check's request, its odds a check's."""
    if set(tagged) != {"roll", "request"}:
        return calculator.odds_of(tagged)
    if tagged["roll"] == PARTY:
        return {"phases": [planned_odds(t) for t in tagged["request"]]}
    try:
        return declared.odds(str(tagged["roll"]), tagged["request"])
    except D100Error as err:
        raise err.at(f"words.{err.field}") from None
