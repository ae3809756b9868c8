"""Who may do and see what: the one place authorisation is decided.

A request is made by a *viewer*: the member (GM or player) its token names. Roll visibility
follows Foundry VTT's roll modes: ``public`` (everyone), ``gm`` (the roller and the GM),
``blind`` (the GM only: the roller sees that they rolled and the odds, not the result) and
``self`` (the roller only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from .errors import ApiError, forbidden, unauthorised
from .models import Character, Event, Member
from .tokens import token_hash

GM = "gm"
PLAYER = "player"
VISIBILITIES = ("public", "gm", "blind", "self")
HIDDEN_IN_BLIND = ("result",)  # what a blind roller's own view leaves out
HIDDEN_KIND = "hidden"  # the kind of an event's stub, for a viewer who may not see it
# Built once: a statement keeps its SQL cache key, so each request only binds the hash.
_BY_TOKEN = select(Member).where(Member.token_hash == bindparam("token_hash"))
_BY_TOKENS = select(Member).where(Member.token_hash.in_(bindparam("token_hashes", expanding=True)))


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


def foreign_origin(origin: str | None, host: str | None) -> bool:
    """True when a browser says the request comes from another site's page. Browsers send
    ``Origin`` on every cross-origin request and on same-origin writes; only its host and port
    are compared with ``Host``, so a proxy that ends TLS in front of us still matches (it must
    pass ``Host`` on)."""
    if origin is None:
        return False
    return origin == "null" or urlsplit(origin).netloc.lower() != (host or "").lower()


def require_origin(by_cookie: bool, origin: str | None) -> None:
    """A write authenticated by the cookie must name its page: only a browser sends the cookie,
    and every browser names the page on a write, so a missing ``Origin`` is a forgery (the
    foreign ones are refused before any route runs)."""
    if by_cookie and origin is None:
        raise ApiError(
            403,
            "origin",
            None,
            "an Origin header naming this server, or a bearer token",
            "a write signed in by cookie must come from this server's page",
        )


def member_by_token(session: Session, token: str | None) -> Member | None:
    if not token:
        return None
    member = session.scalars(_BY_TOKEN, {"token_hash": token_hash(token)}).first()
    return None if member is None or member.revoked else member


def authenticate(session: Session, table_id: str, token: str | None) -> Viewer:
    viewer = _viewer(member_by_token(session, token), table_id)
    if viewer is None:
        raise unauthorised()
    return viewer


def authenticate_all(
    session: Session, table_id: str, tokens: Sequence[str | None]
) -> list[Viewer | None]:
    """Each token's viewer, as ``authenticate`` finds it (None where it would refuse), in one
    query: the live streams of a table that one commit wakes are checked together."""
    hashes = {token: token_hash(token) for token in tokens if token}
    found = {
        m.token_hash: m
        for m in session.scalars(_BY_TOKENS, {"token_hashes": list(hashes.values())})
    }
    return [_viewer(found.get(hashes[t]) if t else None, table_id) for t in tokens]


def _viewer(member: Member | None, table_id: str) -> Viewer | None:
    if member is None or member.revoked or member.table_id != table_id:
        return None
    return Viewer(member.id, member.table_id, member.role, member.name)


def require_gm(viewer: Viewer, what: str) -> None:
    if not viewer.is_gm:
        raise forbidden(what, "the game master")


def may_edit(viewer: Viewer, character: Character) -> bool:
    return viewer.is_gm or character.member_id == viewer.member_id


def require_editor(viewer: Viewer, character: Character, what: str) -> None:
    if not may_edit(viewer, character):
        raise forbidden(what, "the character's player or the game master")


def sees_result(visibility: str, actor_id: str | None, member_id: str, is_gm: bool) -> bool:
    """Whether a member may see the result of a roll made in this mode by ``actor_id``."""
    mine = actor_id == member_id
    return (
        visibility == "public"
        or (visibility == "gm" and (mine or is_gm))
        or (visibility == "self" and mine)
        or (visibility == "blind" and is_gm)
    )


def sheet_readers_see(
    session: Session, visibility: str, roller_id: str, character: Character
) -> bool:
    """Whether everyone who reads this character's sheet (its player and the table's GMs) may
    see the roll's result: only then may the roll change what the sheet shows, since an
    improvement mark or a Luck point spent on a reroll would tell them how it went."""
    if visibility == "public":  # everyone sees it: no need to ask who the readers are
        return True
    gms = session.scalars(
        select(Member.id).where(Member.table_id == character.table_id, Member.role == GM)
    ).all()
    readers = [(character.member_id, character.member_id in gms), *((g, True) for g in gms)]
    return all(sees_result(visibility, roller_id, who, gm) for who, gm in readers)


def view_event(viewer: Viewer, event: Event) -> dict[str, Any]:
    """The event as this viewer may see it. One they may not see at all is a stub: its number
    (numbers are consecutive, so that it happened is no secret) and, for a roll, the seed and
    nonce it drew, so ``d100 verify`` can check that every nonce is used once, in order."""
    full = {
        "seq": event.seq,
        "kind": event.kind,
        "visibility": event.visibility,
        "actor_id": event.actor_id,
        "at": event.created_at,
        **event.data,
    }
    if sees_result(event.visibility, event.actor_id, viewer.member_id, viewer.is_gm):
        return full
    if event.visibility == "blind" and event.actor_id == viewer.member_id:
        return {k: v for k, v in full.items() if k not in HIDDEN_IN_BLIND} | {"hidden": True}
    stub: dict[str, Any] = {"seq": event.seq, "kind": HIDDEN_KIND, "hidden": True}
    provable = event.data.get("provable")
    if isinstance(provable, dict):
        stub["provable"] = {k: provable[k] for k in ("seed_id", "nonce")}
    return stub
