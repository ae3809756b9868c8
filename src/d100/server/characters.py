"""Characters at a table, kept in the command line's TOML sheet format (``d100.sheets``), so a
sheet exported from the table loads in ``d100`` and back."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy import delete as delete_rows
from sqlalchemy import update as update_rows
from sqlalchemy.orm import Session
from sqlalchemy.orm.util import identity_key

from .. import sheets
from ..errors import D100Error
from ..luck import Luck
from ..systems import REGISTRY
from . import event_kinds as kinds
from .access import Viewer, may_edit, require_editor, require_gm
from .errors import bad, conflict, invalid, not_found
from .events import append, lock_table
from .gametables import NAME_LIMIT, not_the_gm_s, text_field, unique_name
from .models import Call, CallAssist, CallTarget, Character, Event, GameTable, Member
from .store import count_of, write_columns
from .tokens import UNPRINTABLE, new_id, now

MAX_CHARACTERS = 20  # per member: a party and its hirelings, not a flood of sheets
MAX_SKILLS = 100  # per sheet: every system's skill list fits several times over


@dataclass(frozen=True)
class Upload:
    """A sheet as sent, checked and rewritten for storing: worked out before the write
    transaction (``upload``), so the parsing is never done while holding the lock."""

    character: sheets.Character
    text: str


def upload(system: str, text: str) -> Upload:
    character = parse_sheet(system, text)
    return Upload(character, sheet_text(character, text))


def parse_sheet(system: str, text: str) -> sheets.Character:
    try:
        sheet = _parsed(text)
    except D100Error as err:
        raise invalid(err, "sheet") from None
    if len(sheet.characters) != 1:
        raise bad(
            "sheet",
            f"{len(sheet.characters)} characters",
            "exactly one character",
            "one sheet per character",
        )
    (character,) = sheet.characters
    if character.system != system:
        raise bad(
            "sheet.system",
            character.system,
            system,
            "the character is for another rule system than this table",
        )
    if len(character.skills) > MAX_SKILLS:
        raise bad(
            "sheet.skills",
            f"{len(character.skills)} skills",
            f"at most {MAX_SKILLS} skills",
            "too many skills on one sheet",
        )
    # Skill names are shown in the log beside the GM's and players' words: one printable line
    # (every table of the sheet is keyed by skill or ability names).
    named = [k for v in sheets.values(character).values() if isinstance(v, dict) for k in v]
    for name in named:
        if not (
            1 <= len(name) <= NAME_LIMIT and not UNPRINTABLE.search(name) and name == name.strip()
        ):
            raise bad(
                "sheet.skills",
                name[:NAME_LIMIT],
                f"names of 1..{NAME_LIMIT} printable characters, no spaces at the ends",
                "a skill or ability name that is empty, too long or unprintable",
            )
    luck = REGISTRY.get(system).declares.luck
    most = 0 if luck is None else luck.most
    if character.luck is not None and character.luck.maximum > most:
        raise bad(
            "sheet.luck.maximum",
            character.luck.maximum,
            f"an integer 0..{most}",
            "more Luck than a character may have",
        )
    # The name is kept beside the sheet and shown to everyone: one line, like a member's.
    return replace(character, name=text_field("sheet.name", character.name, NAME_LIMIT))


def sheet_text(character: sheets.Character, original: str | None = None) -> str:
    """The stored sheet. Given the text it comes from (the player's upload, or the stored sheet
    when Luck changes), only the changed values are rewritten: comments and layout stay."""
    layout: sheets.Layout = "character" if original is None else _parsed(original).layout
    return sheets.dumps(sheets.Sheet((character,), layout), original)


def with_values(
    system: str,
    text: str,
    skills: dict[str, int | None],
    abilities: dict[str, int | None],
    luck: tuple[int, int] | None,
) -> Upload:
    """The stored sheet with a form's values set (None removes a skill or ability), checked
    as any upload is; its comments and layout stay."""

    def merged(have: dict[str, int], sent: dict[str, int | None]) -> dict[str, int]:
        out = {**have, **{k: v for k, v in sent.items() if v is not None}}
        return {k: v for k, v in out.items() if sent.get(k, 0) is not None}

    have = _parsed(text).characters[0]
    try:
        changed = replace(
            have,
            skills=merged(have.skills, skills),
            abilities=merged(have.abilities, abilities),
            luck=have.luck if luck is None else Luck(current=luck[0], maximum=luck[1]),
        )
    except D100Error as err:
        raise invalid(err, "sheet") from None
    return upload(system, sheet_text(changed, text))


# Built once: a statement keeps its SQL cache key, so each load only binds the id
# (``Session.get`` built its query anew each time, as dear as the rest of the load).
_BY_ID = select(Character).where(Character.id == bindparam("character_id"))


def load(
    session: Session, table_id: str, character_id: str, field: str = "character_id"
) -> Character:
    """The character of this table, as the session has it (loaded once a transaction)."""
    row = session.identity_map.get(identity_key(Character, character_id))
    if row is None:
        row = session.scalars(_BY_ID, {"character_id": character_id}).first()
    if row is None or row.table_id != table_id:
        raise not_found(field, character_id, "character")
    return row


def sheet_of(row: Character) -> sheets.Character:
    """The character as it is now: its sheet, with the Luck of its columns (spent or restored
    since the sheet was stored)."""
    return _with_luck(row.sheet, row.luck_current)


@lru_cache(maxsize=256)
def _with_luck(text: str, current: int | None) -> sheets.Character:
    (character,) = _parsed(text).characters
    if current is None or character.luck is None or character.luck.current == current:
        return character
    return replace(character, luck=replace(character.luck, current=current))


def current_text(row: Character) -> str:
    """The sheet's text with the Luck the character has now, for its readers (the editor's
    box, the export): its comments and layout stay. Rewriting a long sheet takes tens of
    milliseconds, so it is done here, as it is read, and never in a write transaction."""
    return _rewritten(row.sheet, row.luck_current)


@lru_cache(maxsize=64)
def _rewritten(text: str, current: int | None) -> str:
    character = _with_luck(text, current)
    return text if character is _parsed(text).characters[0] else sheet_text(character, text)


@lru_cache(maxsize=256)
def _parsed(text: str) -> sheets.Sheet:
    """A sheet's text, parsed: the text decides it wholly, so a roll, which reads its sheet
    several times (and rewrites it when Luck is spent), parses the TOML once, as does a sheet
    checked on upload and then stored. Shared between callers: never changed in place
    (``replace`` makes a new character, ``full_view`` copies its tables)."""
    return sheets.loads(text)


def change_luck(session: Session, row: Character, luck: Luck) -> None:
    """Luck spent: one column written in place (the sheet's text is not rewritten)."""
    write_columns(session, row, luck_current=luck.current)


def _store(row: Character, sent: Upload) -> None:
    """A sheet as uploaded or edited: its text, its name and its Luck."""
    luck = sent.character.luck
    row.sheet, row.name = sent.text, sent.character.name
    row.luck_current = None if luck is None else luck.current
    row.luck_maximum = None if luck is None else luck.maximum


def create(session: Session, viewer: Viewer, sent: Upload, member_id: str | None) -> Character:
    """A player makes their own; the GM may make one for any member (or for themselves: NPCs)."""
    table = lock_table(session, viewer.table_id)
    owner = member_id or viewer.member_id
    if owner != viewer.member_id:
        require_gm(viewer, "create a character for someone else")
        member = session.get(Member, owner)
        if member is None or member.table_id != table.id or member.revoked:
            raise not_found("member_id", owner, "member")
    character = sent.character
    _unique(session, table, viewer, character.name, None)
    if count_of(session, Character, Character.member_id == owner) >= MAX_CHARACTERS:
        raise conflict(
            "member_id",
            owner,
            f"at most {MAX_CHARACTERS} characters per member",
            "this member already has as many characters as a member may",
        )
    row = Character(
        id=new_id(),
        table_id=table.id,
        member_id=owner,
        name=character.name,
        sheet="",
        aim_rounds=0,
        marks={},
        created_at=now(),
    )
    _store(row, sent)
    session.add(row)
    session.flush()
    _announce(session, table, viewer, row, "created", with_sheet=True)
    return row


def update(session: Session, viewer: Viewer, character_id: str, sent: Upload) -> Character:
    table = lock_table(session, viewer.table_id)
    row = load(session, table.id, character_id)
    require_editor(viewer, row, "edit this character")
    _unique(session, table, viewer, sent.character.name, row.id)
    before = sheet_of(row)
    _store(row, sent)
    _announce(session, table, viewer, row, "edited", changes(before, sent.character), True)
    return row


def delete(session: Session, viewer: Viewer, character_id: str) -> Character:
    """The GM or the character's player removes it; the log keeps its rolls. Tests called for
    it go with it, and it stops helping with any: its own rows, found by index (scanning every
    target of every call the table made held the lock for most of a second)."""
    table = lock_table(session, viewer.table_id)
    row = load(session, table.id, character_id)
    require_editor(viewer, row, "delete this character")
    own = select(CallTarget.id).where(CallTarget.character_id == row.id)
    # A called contest against it can no longer be rolled: whoever waits on one need not.
    against = select(Call.id).where(
        Call.table_id == table.id, Call.opponent["character_id"].as_string() == row.id
    )
    for statement in (
        delete_rows(CallAssist).where(CallAssist.character_id == row.id),
        delete_rows(CallAssist).where(CallAssist.target_id.in_(own)),
        delete_rows(CallTarget).where(CallTarget.character_id == row.id),
        update_rows(CallTarget)
        .where(CallTarget.call_id.in_(against), CallTarget.status == "pending")
        .values(status="cancelled"),
    ):
        session.execute(statement, execution_options={"synchronize_session": False})
    _announce(session, table, viewer, row, "deleted")
    session.delete(row)
    return row


def _unique(
    session: Session, table: GameTable, viewer: Viewer, name: str, keep: str | None
) -> None:
    if not viewer.is_gm:  # the GM names NPCs as they like
        not_the_gm_s("sheet.name", name)
    others = list(
        session.scalars(
            select(Character.name).where(Character.table_id == table.id, Character.id != keep)
        )
    )
    if not viewer.is_gm:  # nor may a player's character pass for someone else at the table
        others += session.scalars(
            select(Member.name).where(Member.table_id == table.id, Member.id != viewer.member_id)
        )
    unique_name("sheet.name", name, others, "character or person")


def changes(before: sheets.Character, after: sheets.Character) -> dict[str, list[Any]]:
    """What an edit changed, each as [before, after] (None where absent): the GM sees a
    player restore their Luck or raise a skill, not only that the sheet was edited."""
    was, now_ = _flat(before), _flat(after)
    return {
        k: [was.get(k), now_.get(k)]
        for k in sorted(was.keys() | now_.keys())
        if was.get(k) != now_.get(k)
    }


def _flat(c: sheets.Character) -> dict[str, Any]:
    """Each value of the sheet by its dotted key: ``skills.stealth``, ``luck.current``."""
    out: dict[str, Any] = {"name": c.name}
    for key, value in sheets.values(c).items():
        if isinstance(value, dict):
            out |= {f"{key}.{k}": v for k, v in value.items()}
        elif value is not None and key != "system":
            out[key] = value
    return out


def clear_marks(session: Session, viewer: Viewer, character_id: str) -> Character:
    require_gm(viewer, "clear improvement marks")
    table = lock_table(session, viewer.table_id)
    row = load(session, table.id, character_id)
    write_columns(session, row, marks={})
    _announce(session, table, viewer, row, "marks")
    return row


def _announce(
    session: Session,
    table: GameTable,
    viewer: Viewer,
    row: Character,
    change: str,
    changed: dict[str, list[Any]] | None = None,
    with_sheet: bool = False,
) -> None:
    """Tell the table a character was created, edited or had its marks cleared
    (``event_kinds.character_changed``: what an edit changed, and the sheet as it is now where
    ``with_sheet``, are for the sheet's readers)."""
    sheet = sheets.to_table(sheet_of(row)) if with_sheet else None
    told = kinds.character_changed(public_view(row), change, changed, viewer.member_id, sheet)
    append(session, table, told)


def reveal(session: Session, viewer: Viewer, character_id: str) -> Event:
    """The GM shows every member the character's sheets as its events logged them, so that
    anyone's ``d100 verify`` replays its rolls: each earlier ``character`` event's commitment
    to its sheet is opened in every export (``export.linked``)."""
    require_gm(viewer, "reveal a character's sheet")
    table = lock_table(session, viewer.table_id)
    row = load(session, table.id, character_id)
    logged = session.scalars(
        select(Event)
        .where(Event.table_id == table.id, Event.kind == kinds.CharacterChanged.KIND)
        .order_by(Event.seq)
    )
    shown = [
        (event.seq, event.data["character"], event.data["sheet"])
        for event in logged
        if event.data["character"]["id"] == row.id and "sheet" in event.data
    ]
    if not shown:
        raise conflict(
            "character_id",
            character_id,
            "a character whose sheet the log holds",
            "its sheet was logged before d100 logged sheets: nothing to reveal",
        )
    return append(session, table, kinds.sheet_revealed(public_view(row), shown, viewer.member_id))


def export(session: Session, viewer: Viewer, character_id: str) -> Character:
    row = load(session, viewer.table_id, character_id)
    require_editor(viewer, row, "export this character")
    return row


def visible(session: Session, viewer: Viewer) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(Character)
        .where(Character.table_id == viewer.table_id)
        .order_by(Character.created_at)
    ).all()
    return [full_view(r) if may_edit(viewer, r) else public_view(r) for r in rows]


def public_view(row: Character) -> dict[str, Any]:
    """What every member sees: who the character is and whose."""
    return {"id": row.id, "name": row.name, "member_id": row.member_id}


def full_view(row: Character) -> dict[str, Any]:
    """What the sheet's readers see: every key of the sheet (``sheets.KEYS``), every value a
    check may be made against (``rollable``: with an investigator, characteristics, Luck and
    base skills too), the aim built up where the table's rules aim (rounds and the bonus they
    add), marks and the TOML. Its text may be rewritten here (``current_text``): made outside
    write transactions."""
    c = sheet_of(row)
    return {
        **public_view(row),
        **sheets.values(c),
        "rollable": dict(c.rollable),
        "aim": aim_view(c.system, row.aim_rounds),
        "marks": row.marks,
        "sheet": current_text(row),
    }


def aim_view(system: str, rounds: int) -> dict[str, int] | None:
    rule = REGISTRY.get(system).declares.aim
    return None if rule is None else {"rounds": rounds, "bonus": rule.bonus(rounds)}
