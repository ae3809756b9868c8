"""Who may do and see what: the one place authorisation is decided.

A request is made by a *viewer*: the member (GM or player) its token names. Roll visibility
follows Foundry VTT's roll modes: ``public`` (everyone), ``gm`` (the roller and the GM),
``blind`` (the GM only: the roller sees that they rolled and the odds, not the result) and
``self`` (the roller only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .errors import forbidden, unauthorised
from .models import Character, Event, Member
from .tokens import token_hash

GM = "gm"
PLAYER = "player"
VISIBILITIES = ("public", "gm", "blind", "self")
HIDDEN_IN_BLIND = ("result",)  # what a blind roller's own view leaves out


@dataclass(frozen=True)
class Viewer:
    member_id: str
    table_id: str
    role: str
    name: str

    @property
    def is_gm(self) -> bool:
        return self.role == GM


def cookie_name(table_id: str) -> str:
    """One cookie per table, so a browser can sit at several tables at once."""
    return f"d100_{table_id}"


def member_by_token(session: Session, token: str | None) -> Member | None:
    if not token:
        return None
    member = session.scalars(select(Member).where(Member.token_hash == token_hash(token))).first()
    return None if member is None or member.revoked else member


def authenticate(session: Session, table_id: str, token: str | None) -> Viewer:
    member = member_by_token(session, token)
    if member is None or member.table_id != table_id:
        raise unauthorised()
    return Viewer(member.id, member.table_id, member.role, member.name)


def require_gm(viewer: Viewer, what: str) -> None:
    if not viewer.is_gm:
        raise forbidden(what, "the game master")


def may_edit(viewer: Viewer, character: Character) -> bool:
    return viewer.is_gm or character.member_id == viewer.member_id


def require_editor(viewer: Viewer, character: Character, what: str) -> None:
    if not may_edit(viewer, character):
        raise forbidden(what, "the character's player or the game master")


def view_event(viewer: Viewer, event: Event) -> dict[str, Any] | None:
    """The event as this viewer may see it, or None when it is not theirs to see at all."""
    mine = event.actor_id == viewer.member_id
    full = {
        "seq": event.seq,
        "kind": event.kind,
        "visibility": event.visibility,
        "actor_id": event.actor_id,
        "at": event.created_at,
        **event.data,
    }
    if event.visibility == "public":
        return full
    if event.visibility == "gm":
        return full if mine or viewer.is_gm else None
    if event.visibility == "self":
        return full if mine else None
    if viewer.is_gm:  # blind
        return full
    if mine:
        return {k: v for k, v in full.items() if k not in HIDDEN_IN_BLIND} | {"hidden": True}
    return None
