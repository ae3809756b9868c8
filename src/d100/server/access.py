"""Who may do and see what: the one place authorisation is decided.

A request is made by a *viewer*: the member (GM or player) its token names. Roll visibility
follows Foundry VTT's roll modes: ``public`` (everyone), ``gm`` (the roller and the GM),
``blind`` (the GM only: the roller sees that they rolled and the odds, not the result) and
``self`` (the roller only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from starlette.requests import cookie_parser

from .errors import ApiError, forbidden, unauthorised
from .models import Character, Event, Logged, Member
from .tokens import token_hash

GM = "gm"
PLAYER = "player"
VISIBILITIES = ("public", "gm", "blind", "self")
HIDDEN_IN_BLIND = ("result", "follow_ups")  # what a blind roller's own view leaves out
HIDDEN_KIND = "hidden"  # the kind of an event's stub, for a viewer who may not see it
# Built once: a statement keeps its SQL cache key, so each request only binds the hash.
_BY_TOKEN = select(Member).where(Member.token_hash == bindparam("token_hash"))
# A viewer is read as a plain row, not an ORM object: every request authenticates.
_SEAT = select(
    Member.id, Member.table_id, Member.role, Member.name, Member.revoked, Member.token_hash
)
_VIEWER = _SEAT.where(Member.token_hash == bindparam("token_hash"))
_VIEWERS = _SEAT.where(Member.token_hash.in_(bindparam("token_hashes", expanding=True)))


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


CREDENTIAL = "d100.credential"  # the request's scope key for its Credential (the guard's)


@dataclass(frozen=True)
class Credential:
    """The token a table request carries, read once from its headers (by the guard, for the
    rate limit, the table's turn and the routes alike): a bearer token (API clients), else the
    table's cookie (browsers). A repeated header counts by its first."""

    token: str | None
    by_cookie: bool

    @property
    def hashed(self) -> str | None:
        return None if self.token is None else token_hash(self.token)


def read_credential(table_id: str, headers: Mapping[str, str]) -> Credential:
    scheme, _, value = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return Credential(value.strip(), False)
    cookie = cookie_parser(headers.get("cookie", "")).get(cookie_name(table_id), "")
    return Credential(cookie or None, bool(cookie))


def foreign_origin(origin: str | None, host: str | None) -> bool:
    """True when a browser says the request comes from another site's page. Browsers send
    ``Origin`` on every cross-origin request and on same-origin writes; only its host and port
    are compared with ``Host``, so a proxy that ends TLS in front of us still matches (it must
    pass ``Host`` on)."""
    if origin is None:
        return False
    try:
        return origin == "null" or urlsplit(origin).netloc.lower() != (host or "").lower()
    except ValueError:  # refused as unreadable before this is asked (``unreadable_origin``)
        return True


def unreadable_origin(origin: str | None) -> ApiError | None:
    """Why an ``Origin`` header is no origin at all (``http://[::1``: an address opened and
    never closed), None when it is one or absent: a 422 naming the header, not a 500."""
    if origin is None or origin == "null":
        return None
    try:
        urlsplit(origin)
    except ValueError as err:
        return ApiError(
            422,
            "origin",
            origin[:200],
            "an origin, scheme://host[:port] (or null)",
            f"origin: not an origin ({err})",
        )
    return None


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
    rows = [] if not token else _rows(session, _VIEWER, {"token_hash": token_hash(token)})
    viewer = next(iter(_seated(table_id, rows).values()), None)
    if viewer is None:
        raise unauthorised()
    return viewer


def authenticate_all(
    session: Session, table_id: str, tokens: Sequence[str | None]
) -> list[Viewer | None]:
    """Each token's viewer, as ``authenticate`` finds it (None where it would refuse), in one
    query: the live streams of a table that one commit wakes are checked together."""
    hashes = {token: token_hash(token) for token in tokens if token}
    rows = _rows(session, _VIEWERS, {"token_hashes": list(hashes.values())})
    found = _seated(table_id, rows)
    return [found.get(hashes[t]) if t else None for t in tokens]


def _rows(session: Session, query: Any, params: dict[str, Any]) -> Sequence[Any]:
    return session.connection().execute(query, params).all()


def _seated(table_id: str, rows: Sequence[Any]) -> dict[str, Viewer | None]:
    """Each member's viewer at ``table_id`` by token hash (rows of ``_SEAT``): None if
    revoked or seated at another table."""
    return {
        hashed: None if revoked or table != table_id else Viewer(member_id, table, role, name)
        for member_id, table, role, name, revoked, hashed in rows
    }


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


def audience(session: Session, visibility: str, character_ids: Sequence[str]) -> list[str] | None:
    """Who sees a called test, besides the GMs who see every call: everyone when it is public
    (None), else the players of the characters it names (to roll it, help with it or face it),
    kept with the call and with each event about it."""
    if visibility == "public":
        return None
    owners = session.scalars(select(Character.member_id).where(Character.id.in_(character_ids)))
    return sorted(set(owners))


def in_audience(viewer: Viewer, members: Sequence[str] | None) -> bool:
    return members is None or viewer.is_gm or viewer.member_id in members


def reads_sheet(viewer: Viewer, character: dict[str, Any]) -> bool:
    """Whether the viewer reads the sheet of a character as events show it (its public view):
    its player and the GMs do."""
    return viewer.is_gm or character.get("member_id") == viewer.member_id


def view_call(viewer: Viewer, call: dict[str, Any]) -> dict[str, Any]:
    """A called test as this viewer may see it (``flow.call_view``, once they are in its
    audience): the opponent the GM chose for a contest is named, its skill and options only
    for whoever reads its sheet (the contest's own fields, a melee response, are no secret)."""
    opponent = call.get("opponent")
    if opponent is None or reads_sheet(viewer, opponent["character"]):
        return call
    shown = {k: v for k, v in opponent.items() if k in ("character", "contest")}
    return call | {"opponent": shown}


def _withheld_opponent(viewer: Viewer, view: dict[str, Any]) -> dict[str, Any]:
    """A contest against the side a GM's call chose, for a viewer who may not read that side's
    sheet: its level words only. Its skill, target, dice and the odds would tell its skill; the
    request that resolved it goes too, so ``d100 verify`` lists the roll as not checkable
    here (``withheld``) and checks its seed and nonce in order."""
    result = view.get("result")
    out = {k: v for k, v in view.items() if k not in ("opponent_skill", "odds", "percent")}
    out["request"] = {k: v for k, v in view["request"].items() if k != "opponent"}
    out["provable"] = {k: v for k, v in view["provable"].items() if k != "request"}
    out["withheld"] = "opponent"
    if isinstance(result, dict):
        out["result"] = {
            "system": result["system"],
            "winner": result["winner"],
            "actor": result["actor"],
            "opponent": {k: result["opponent"][k] for k in ("level", "success")},
        }
    return out


def _for_viewer(viewer: Viewer, view: dict[str, Any]) -> dict[str, Any]:
    """What an event this viewer sees still keeps from them: an opponent a GM's call chose."""
    call = view.get("call")
    if not isinstance(call, dict) or "opponent" not in call:
        return view
    if "opponent_skill" in view:  # the contest rolled
        return view if reads_sheet(viewer, view["opponent"]) else _withheld_opponent(viewer, view)
    return view | {"call": view_call(viewer, call)}


def sees_event(viewer: Viewer, event: Event | Logged) -> bool:
    """A called test's events are seen by its audience; any other, by its roll mode."""
    if event.audience is not None:
        return in_audience(viewer, event.audience)
    return sees_result(event.visibility, event.actor_id, viewer.member_id, viewer.is_gm)


def view_event(viewer: Viewer, event: Event | Logged) -> dict[str, Any]:
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
    if sees_event(viewer, event):
        return _for_viewer(viewer, full)
    if event.visibility == "blind" and event.actor_id == viewer.member_id:
        seen = {k: v for k, v in full.items() if k not in HIDDEN_IN_BLIND} | {"hidden": True}
        return _for_viewer(viewer, seen)
    stub: dict[str, Any] = {"seq": event.seq, "kind": HIDDEN_KIND, "hidden": True}
    provable = event.data.get("provable")
    if isinstance(provable, dict):
        stub["provable"] = {k: provable[k] for k in ("seed_id", "nonce")}
    return stub


def view_key(viewer: Viewer, event: Event | Logged) -> tuple[int, bool, bool, bool]:
    """What ``view_event`` reads of the viewer, for this event: viewers with one key get equal
    views, so the streams one commit wakes share each view (and its serialisation). Whether
    they see it, whether it is their own blind roll, and whether they read the sheet of an
    opponent a GM's call chose (``_for_viewer``)."""
    seen = sees_event(viewer, event)
    own_blind = event.visibility == "blind" and event.actor_id == viewer.member_id
    call = event.data.get("call")
    opponent = call.get("opponent") if isinstance(call, dict) else None
    reads = True
    if opponent is not None and (seen or own_blind):
        rolled = "opponent_skill" in event.data
        reads = reads_sheet(viewer, event.data["opponent"] if rolled else opponent["character"])
    return event.seq, seen, own_blind, reads
