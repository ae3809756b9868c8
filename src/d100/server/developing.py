"""A character's development phase at a table (``develop``, ``develop luck``): the GM's, at
the end of a session. Its request is made from the skills marked on the sheet and at the table
(``declared.asked``); it is rolled as any declared roll, then written back to the sheet with
every mark cleared, where every reader of the sheet sees it; an NPC's is seen by the GMs
alone, since its rolls tell its skills."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy.orm import Session

from .. import development
from ..declarations import DEVELOP_LUCK
from ..development import DevelopmentRequest, DevelopmentResult
from . import characters
from .access import Viewer, require_gm, sheet_readers_see
from .errors import bad
from .models import Character
from .store import write_columns


def phase(row: Character | None, tokens: list[str], words: str) -> DevelopmentRequest:
    """A character's development phase: the skills marked on its sheet and at the table, and
    Luck's recovery roll with ``develop luck``."""
    if len(tokens) > 2 or tokens[1:] not in ([], [DEVELOP_LUCK]):
        raise bad("words", words, f"{tokens[0]} or {tokens[0]} {DEVELOP_LUCK}", "unknown words")
    if row is None:
        raise bad("character_id", None, "the character whose phase it is", "no character")
    c = characters.sheet_of(row)
    request = development.from_character(replace(c, marks=marks_of(row)), len(tokens) > 1)
    if not request.skills and request.luck is None:
        raise bad("words", words, f"{tokens[0]} {DEVELOP_LUCK}, or marks to roll", "no marks")
    return request


def marks_of(row: Character) -> tuple[str, ...]:
    """The skills marked for improvement on a character's sheet and at the table, once each."""
    c = characters.sheet_of(row)
    have = {m.casefold() for m in c.marks}
    return (*c.marks, *(k for k, n in row.marks.items() if n and k.casefold() not in have))


def may_develop(session: Session, viewer: Viewer, visibility: str, row: Character | None) -> None:
    """A development phase is the GM's, at the end of a session. It writes the sheet, so
    every reader of it must see it; an NPC's is seen by no one else (its skills are the GM's
    own)."""
    require_gm(viewer, "roll a character's development phase")
    assert row is not None
    if row.member_id in viewer.gms and visibility == "public":
        raise bad(
            "visibility",
            visibility,
            "gm or blind: an NPC's skills are the GM's",
            "a public phase would show players the NPC's skills",
        )
    if not sheet_readers_see(session, visibility, viewer.member_id, row):
        raise bad(
            "visibility",
            visibility,
            "a mode every reader of the sheet sees (public, for a player's character)",
            "the phase writes the sheet: its player would read the result there",
        )


def developed(session: Session, row: Character, result: DevelopmentResult) -> dict[str, Any]:
    """The phase written back: skills raised, marks cleared (the sheet's and the table's),
    the mastery reward and Luck recovered; every reader of the sheet sees the roll."""
    before = characters.sheet_of(row)
    after = development.apply(before, result)
    luck = None if after.luck is None else after.luck.current
    write_columns(
        session, row, sheet=characters.sheet_text(after, row.sheet), marks={}, luck_current=luck
    )
    rolled = [*result.skills, *([result.luck] if result.luck else [])]
    raised = {r.name: [r.before, r.after] for r in rolled if r.after != r.before}
    out: dict[str, Any] = {"skills": raised, "written": True}
    if result.reward_before is not None and result.reward_after != result.reward_before:
        out["reward"] = [result.reward_before, result.reward_after]
    return out
