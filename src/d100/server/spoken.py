"""Chat-bot words at a table (SealDice's ``.ra 困难侦查``, ``.rah``, ``3#``, ``.sc``, ``.en``), read
once here for every door that takes them (Discord's ``/r``, the page's roll box): the system's
reading (``quick.read_command``) made a check of the character's sheet, judged by the table's
``setcoc`` else the word's own rule (rule 0, SD-W1), a hidden word (``.rah``) a secret roll
(SD-W3), each repeat its own roll (SD-W5); a word that rolls no check (``.sc``, ``.en``) is the
table's declared roll (``declared``); a word that sets the table's house rules (``.setcoc 2``,
SD-W8) is its GM's, logged as such, and every roll after it is judged by them; a word that
sets nothing (``.setcoc`` alone) any member's question, answered and not logged; ``@Bob``
after a check's words rolls Bob's sheet, where the roller may roll Bob (SD-W5)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import quick
from ..declarations import Command
from ..engine import parse
from ..errors import D100Error
from ..sheets import lookup
from ..systems.common import DICE
from . import characters, rolls
from . import event_kinds as kinds
from .access import Viewer, require_editor, require_gm
from .errors import bad, invalid
from .events import append
from .gametables import house_rules_of
from .models import Character, Event, GameTable

ALLOWED = "a check in the words of this table's rules, its skill the sheet's: .ra 困难侦查"


def spoken(table: GameTable, words: str) -> Command | None:
    """The chat-bot word the words are at this table, a setting's too; None where they are
    none (no dot); an unknown one refused naming the words."""
    if words.lstrip()[:1] != ".":
        return None
    try:
        found = quick.read_command(words, table.system)
    except D100Error as err:
        raise invalid(err, "words") from None
    if found is None:
        raise bad("words", words, ALLOWED, "no chat-bot word of this table's rules")
    return found


def read(table: GameTable, words: str) -> Command | None:
    """The chat-bot word the words are at this table, None where they are none (no dot); an
    unknown one, or one of a setting (which is no roll, nor has odds), refused naming the
    words."""
    found = spoken(table, words)
    if found is not None and found.settings:
        why = "a setting of the table's, not a roll: the GM sets it (declared-rolls)"
        raise bad("words", words, ALLOWED, why)
    if found is not None and found.tells is not None:
        why = "a question of the table's rules, not a roll: declared-rolls answers it"
        raise bad("words", words, ALLOWED, why)
    return found


def question(table: GameTable, words: str) -> str | None:
    """What a word that sets nothing says of this table's rules (SealDice's ``.setcoc``
    alone, ``.setcoc details``, SD-W8), any member's to ask: nothing is logged; None where
    the words are no such word."""
    found = spoken(table, words)
    return None if found is None or found.tells is None else tells(table, found)


def tells(table: GameTable, found: Command) -> str:
    """What the word ``found`` says of this table's rules (``Command.tells``)."""
    assert found.tells is not None
    return found.tells({quick.HOUSE: dict(table.house_rules)})


def setting(table: GameTable, words: str) -> Command | None:
    """The words as a word setting the table's rules (``.setcoc 2``), None where they are
    none."""
    found = spoken(table, words)
    return found if found is not None and found.settings else None


def set_rules(session: Session, viewer: Viewer, table: GameTable, words: str) -> Event:
    """The GM's word setting the table's house rules (SD-W8, decision S9), under the table's
    lock: the rules it sets over the table's, checked as a check of the table's reads them,
    logged with what they were and what they say; every roll after it reads them."""
    require_gm(viewer, "set the table's house rules")
    found = setting(table, words)
    assert found is not None
    before = dict(table.house_rules)
    named = dict(found.settings.get(quick.HOUSE, {}))
    after = house_rules_of(table.system, before | named)
    try:  # rules a check refuses together (coc7's setcoc beside another level rule)
        parse({"system": table.system, "skill": 50, quick.HOUSE: after})
    except D100Error as err:
        raise invalid(err, "words") from None
    table.house_rules = after
    return append(
        session, table, kinds.house_rules_set(before, after, words, found.told, viewer.member_id)
    )


def check_word(table: GameTable, words: str) -> Command | None:
    """The words as a check's chat-bot word (``.ra``), None where they are none."""
    found = read(table, words)
    return None if found is None or found.roll is not None else found


def skill_of(row: Character, found: Command) -> str:
    """The sheet's skill a check's word names (``.ra 侦查``: its value is the sheet's)."""
    if found.named is None:
        raise bad(
            "words",
            None,
            ALLOWED,
            "the sheet gives the skill's value: name it alone",
        )
    try:
        return characters.sheet_of(row).skill(found.named)
    except D100Error as err:
        raise invalid(err, "words") from None


def check(
    table: GameTable, row: Character, skill: str, found: Command, visibility: str
) -> rolls.RollSpec:
    """The check the word asks of the character's skill: its difficulty, dice and label as
    the word's fields, the table's ``setcoc`` else the word's own; hidden (``.rah``) a secret
    roll, the GM's and its roller's, where the roll was asked in public."""
    asked = dict(found.request)
    typed, house = asked.pop(DICE.name, None), dict(asked.pop(quick.HOUSE, {}))
    kept = table.house_rules
    house |= {k: v for k, v in found.defaults.get(quick.HOUSE, {}).items() if k not in kept}
    extra = {k: v for k, v in asked.items() if k != "system"}
    hidden = found.secret and visibility == "public"  # SD-W3: hidden, as a secret roll
    side = rolls.Side(row.id, skill=skill, fields=extra, dice=typed)
    return rolls.RollSpec(side, None, "gm" if hidden else visibility, house_rules=house)


def checks(
    session: Session,
    viewer: Viewer,
    table: GameTable,
    character_id: str | None,
    found: Command,
    visibility: str,
    planned: rolls.Planned | None,
) -> Event:
    """A check's word as the page asks it, for its character: each repeat its own roll, in
    one transaction; the last made answers (the log holds each)."""
    row = whose(session, viewer, table, character_id, found)
    spec = check(table, row, skill_of(row, found), found, visibility)
    made = [rolls.roll(session, viewer, spec, planned) for _ in range(found.repeat)]
    return made[-1]


def whose(
    session: Session, viewer: Viewer, table: GameTable, character_id: str | None, found: Command
) -> Character:
    """The character a check's word rolls for: the one named after ``@`` in the words
    (SealDice's ``.ra 侦查 @Bob``, SD-W5), whichever the roll box chose, a character at the
    table matched as names are (any case, or a prefix of one name), the roller's own or any
    for the GM; else the character the request names, checked the same way. Either is checked
    before its sheet is read: a skill not on it would be refused listing the sheet's."""
    if found.who is None:
        if character_id is None:
            raise bad("character_id", None, "the character whose check it is", "no character")
        row = characters.load(session, table.id, character_id)
        # before the sheet names its skill: a did-you-mean would list another's skills
        require_editor(viewer, row, "roll or preview odds for this character")
        return row
    rows = session.scalars(select(Character).where(Character.table_id == table.id))
    by_name = {r.name: r for r in rows}  # every member reads the names; not the sheets
    try:
        row = by_name[lookup(found.who, by_name, "character")]
    except D100Error:
        allowed = "@NAME of a character at this table: " + (", ".join(sorted(by_name)) or "none")
        raise bad("words", f"@{found.who}", allowed, "no such character") from None
    require_editor(viewer, row, f"roll for {row.name}")
    return row
