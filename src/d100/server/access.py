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

from sqlalchemy import and_, bindparam, select
from sqlalchemy.orm import Session, aliased
from starlette.requests import cookie_parser

from ..audiences import sees_result
from ..result_view import contest_view, result_view
from ..systems import REGISTRY
from .errors import ApiError, forbidden, unauthorised
from .event_kinds import (
    HIDDEN,
    AboutCall,
    CharacterChanged,
    DeclaredRoll,
    DeclaredUnblinded,
    Entry,
    Named,
    Names,
    Rolled,
    read,
)
from .models import Character, Event, Logged, Member
from .tokens import token_hash

GM = "gm"
PLAYER = "player"
VISIBILITIES = ("public", "gm", "blind", "self")
# what a blind roller's own view leaves out (a declared roll's reading and sheet tell its result)
HIDDEN_IN_BLIND = ("result", "follow_ups", "reading", "sheet")
# Built once: a statement keeps its SQL cache key, so each request only binds the hash.
_BY_TOKEN = select(Member).where(Member.token_hash == bindparam("token_hash"))
# A viewer is read as a plain row, not an ORM object: every request authenticates. With it,
# in the same query, its table's GMs (one row each): a character a GM owns is an NPC.
_GM = aliased(Member)
_SEAT = select(
    Member.id, Member.table_id, Member.role, Member.name, Member.revoked, Member.token_hash, _GM.id
).outerjoin(_GM, and_(_GM.table_id == Member.table_id, _GM.role == GM))
_VIEWER = _SEAT.where(Member.token_hash == bindparam("token_hash"))
_VIEWERS = _SEAT.where(Member.token_hash.in_(bindparam("token_hashes", expanding=True)))
_GMS = select(Member.id).where(Member.table_id == bindparam("table_id"), Member.role == GM)


@dataclass(frozen=True)
class Viewer:
    member_id: str
    table_id: str
    role: str
    name: str
    # the table's GMs: a character one of them owns is an NPC (``decide``)
    gms: frozenset[str]

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
    """Each member's viewer at ``table_id`` by token hash (rows of ``_SEAT``, one per GM of
    its table): None if revoked or seated at another table."""
    gms: dict[str, set[str]] = {}
    for *_, hashed, gm in rows:
        gms.setdefault(hashed, set()).update([gm] if gm is not None else [])
    return {
        hashed: None
        if revoked or table != table_id
        else Viewer(member_id, table, role, name, frozenset(gms[hashed]))
        for member_id, table, role, name, revoked, hashed, _ in rows
    }


def viewer_of(session: Session, member: Member) -> Viewer:
    """The viewer a member row is, for a caller that found it without a token."""
    gms = frozenset(session.scalars(_GMS, {"table_id": member.table_id}))
    return Viewer(member.id, member.table_id, member.role, member.name, gms)


def require_gm(viewer: Viewer, what: str) -> None:
    if not viewer.is_gm:
        raise forbidden(what, "the game master")


def may_edit(viewer: Viewer, character: Character) -> bool:
    return viewer.is_gm or character.member_id == viewer.member_id


def require_editor(viewer: Viewer, character: Character, what: str) -> None:
    if not may_edit(viewer, character):
        raise forbidden(what, "the character's player or the game master")


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


# -- what a viewer sees of an event ---------------------------------------------------------
# Every view comes from ``decide``: the parts of an event a viewer is kept from, and whether
# they see it at all. ``shape`` reads the decision, never the viewer, so viewers with equal
# decisions get equal views (the streams one commit wakes share each view and its text).

ACTOR, OPPONENT, HELPERS = "actor", "opponent", "helpers"
SHEET = "sheet"  # a character's sheet, in the event creating or editing it
HIDDEN_IN_WITHHELD = ("odds", "percent", "follow_ups", "luck_spent", "spent", "aim", "sheet")
LEVEL_ONLY = ("system", "level", "success")  # what a withheld check's result keeps


@dataclass(frozen=True)
class Decision:
    """What one viewer sees of one event. Equal decisions give equal views: it is the key
    under which views are shared."""

    seq: int
    seen: bool  # False: a stub, unless it is the viewer's own blind roll
    own_blind: bool  # the roller's own blind roll: made, its result not seen
    # the sides shown by name and level only: a character whose sheet the viewer may not read,
    # an NPC's (a GM's) or a contest side a GM's call chose; a character event's sheet
    withheld: tuple[str, ...] = ()
    helpers: tuple[int, ...] = ()  # which helpers (their places) are shown so
    offers: bool = True  # its follow-up offers: they bound the roller's Luck


def reads_sheet(viewer: Viewer, owner: str | None) -> bool:
    """Whether the viewer reads the sheet of a character of ``owner`` (the member its public
    view names): its player and the GMs do."""
    return viewer.is_gm or owner == viewer.member_id


def withholds(viewer: Viewer, owner: str | None, chosen: bool = False) -> bool:
    """Whether the viewer sees the part of a roll of a character of ``owner`` by name and
    level only: an NPC (a GM's character) or a side a GM's call chose (``chosen``), unless
    they read its sheet. Another player's character rolled in public is shown whole: public
    means public."""
    if reads_sheet(viewer, owner):
        return False
    return chosen or owner in viewer.gms


def view_call(viewer: Viewer, call: dict[str, Any]) -> dict[str, Any]:
    """A called test as this viewer may see it (``flow.call_view``, once they are in its
    audience): the opponent the GM chose for a contest is named, its skill and options only
    for whoever reads its sheet (the contest's own fields, a melee response, are no secret)."""
    opponent = call.get("opponent")
    if opponent is None or not withholds(viewer, opponent["character"]["member_id"], True):
        return call
    return _called(call)


def _called(call: dict[str, Any]) -> dict[str, Any]:
    shown = {k: v for k, v in call["opponent"].items() if k in ("character", "contest")}
    return call | {"opponent": shown}


def sees_event(viewer: Viewer, event: Event | Logged) -> bool:
    """A called test's events are seen by its audience; any other, by its roll mode."""
    if event.audience is not None:
        return in_audience(viewer, event.audience)
    return sees_result(event.visibility, event.actor_id, viewer.member_id, viewer.is_gm)


def decide(viewer: Viewer, event: Event | Logged, logged: Entry | None = None) -> Decision:
    """What this viewer sees of this event (``shape`` makes the view from it). ``logged``: the
    event read as its model already (``event_kinds.read``), by a caller deciding it for many
    viewers."""
    seen = sees_event(viewer, event)
    own_blind = not seen and event.visibility == "blind" and event.actor_id == viewer.member_id
    if not (seen or own_blind):
        return Decision(event.seq, False, False)
    if logged is None:
        logged = read(event)
    if isinstance(logged, DeclaredRoll):  # an NPC's: its outcome only; a defender's: by level
        owner = None if logged.character is None else logged.character.member_id
        kept = logged.character is not None and withholds(viewer, owner)
        faced = logged.defender is not None and not reads_sheet(
            viewer, logged.defender.character.member_id
        )
        withheld = ((ACTOR,) if kept else ()) + ((OPPONENT,) if faced else ())
        # its offers of Luck bound the roller's (each is offered while the sheet holds more)
        offers = reads_sheet(viewer, owner)
        return Decision(event.seq, seen, own_blind, withheld, (), offers)
    if isinstance(logged, CharacterChanged):  # a sheet: its readers'
        kept = logged.sheet is not None and not reads_sheet(viewer, logged.character.member_id)
        return Decision(event.seq, seen, own_blind, (SHEET,) if kept else ())
    if not isinstance(logged, Rolled):  # only a call's chosen opponent is anyone's secret
        opponent = logged.call.opponent if isinstance(logged, AboutCall) else None
        kept = opponent is not None and withholds(viewer, opponent.character.member_id, True)
        return Decision(event.seq, seen, own_blind, (OPPONENT,) if kept else ())
    withheld, helpers = _withheld_parts(viewer, logged)
    offers = reads_sheet(viewer, logged.character.member_id)
    return Decision(event.seq, seen, own_blind, withheld, helpers, offers)


def _withheld_parts(viewer: Viewer, named: Names) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The parts of a roll this viewer sees by name and level only, and which helpers."""
    withheld = []
    if withholds(viewer, named.character.member_id):
        withheld.append(ACTOR)
    chosen = named.call is not None and named.call.opponent is not None
    if named.opponent is not None and withholds(viewer, named.opponent.member_id, chosen):
        withheld.append(OPPONENT)
    helpers = _withheld_helpers(viewer, named)
    if helpers:
        withheld.append(HELPERS)
    return tuple(withheld), helpers


def _withheld_helpers(viewer: Viewer, named: Names) -> tuple[int, ...]:
    """The places of the helpers this viewer sees by name and level only. A roll logged
    before its helpers were named keeps every helper's values from the players."""
    if named.helpers is not None:
        return tuple(i for i, h in enumerate(named.helpers) if withholds(viewer, h.member_id))
    request = named.request
    field = _helper_field(request, None)
    if viewer.is_gm or field is None or request is None:
        return ()
    given = request.get(ACTOR, request).get(field)
    if given is None:
        return ()
    return tuple(range(len(given))) if isinstance(given, list) else (0,)


def _helper_field(request: Any, result: Any) -> str | None:
    """The request field a roll's helpers are in, as its system declares it."""
    system = next(
        (d["system"] for d in (request, result) if isinstance(d, dict) and "system" in d), None
    )
    if system not in REGISTRY:
        return None
    assistance = REGISTRY.get(system).declares.assistance
    return None if assistance is None else assistance.field


def view_event(viewer: Viewer, event: Event | Logged) -> dict[str, Any]:
    """The event as this viewer may see it."""
    return shape(event, decide(viewer, event))


def shape(event: Event | Logged, decision: Decision) -> dict[str, Any]:
    """The view a decision gives. One the viewer may not see at all is a stub: its number
    (numbers are consecutive, so that it happened is no secret) and, for a roll, the seed and
    nonce it drew, so ``d100 verify`` can check that every nonce is used once, in order."""
    if not (decision.seen or decision.own_blind):
        stub: dict[str, Any] = {"seq": event.seq, "kind": HIDDEN, "hidden": True}
        provable = event.data.get("provable")
        if isinstance(provable, dict):
            stub["provable"] = {k: provable[k] for k in ("seed_id", "nonce")}
        return stub
    view = {
        "seq": event.seq,
        "kind": event.kind,
        "visibility": event.visibility,
        "actor_id": event.actor_id,
        "at": event.created_at,
        **event.data,
    }
    if decision.own_blind:
        view = {k: v for k, v in view.items() if k not in HIDDEN_IN_BLIND} | {"hidden": True}
    if not decision.offers:
        view.pop("follow_ups", None)
    if event.kind in DECLARED_KINDS:
        return declared_view(view, decision)
    if not decision.withheld:
        return with_reading(view)
    if SHEET in decision.withheld:  # bound in the chain by its digest, opened to no one else
        return {k: v for k, v in view.items() if k != SHEET} | {"withheld": [SHEET]}
    if "provable" not in view:
        return view | {"call": _called(view["call"])}
    return with_reading(_withheld(view, decision))


# an NPC's declared roll, to a player: its outcome (an action's in words, without its numbers)
DECLARED_KEPT = ("total", "level", "success", "loss", "outcome")
DECLARED_KINDS = frozenset({DeclaredRoll.KIND, DeclaredUnblinded.KIND})


def declared_view(view: dict[str, Any], decision: Decision) -> dict[str, Any]:
    """A dice or Sanity roll or an action as this viewer sees it: its stored reading as
    ``view``. One of an NPC, to a viewer who may not read its sheet, keeps its outcome (the
    total, the Sanity roll's level and loss, an attack's level and what it dealt) and loses its
    numbers: the request and odds (SAN, INT, Mythos, the skill, DB), the dice, SAN before and
    after, an action's rows and chances; its provable record keeps no request."""
    reading = view.pop("reading", None)
    if not decision.withheld:
        return view if reading is None else view | {"view": reading}
    if OPPONENT in decision.withheld and isinstance(view.get("defender"), dict):
        # the skill as the defender's sheet names it (a prefix typed, "f", read as "fighting
        # (brawl)"): the sheet's own words, its readers' only
        view["defender"] = {"character": view["defender"]["character"]}
    if ACTOR not in decision.withheld:  # the defender's side only: the reading kept for it
        return _defender_kept(view, reading)
    # the words go too: they are the request as typed (a damage bonus, db=+1d4, tells the NPC's
    # STR and SIZ; today=3 the SAN it lost), and the title is the expression as written (2d6+DB)
    hidden = ("request", "odds", "sheet", "result", "words")
    out = {k: v for k, v in view.items() if k not in hidden}
    out["provable"] = {k: v for k, v in view["provable"].items() if k != "request"}
    out["withheld"] = [ACTOR]
    if isinstance(reading, dict):
        out["view"] = {k: reading[k] for k in ("title", *DECLARED_KEPT) if k in reading}
        request = view.get("request")
        if view.get("roll") == "dice" and isinstance(request, dict) and "expression" in request:
            out["view"]["title"] = str(request["expression"])
        if "heading" in reading:  # an action's title holds its skill and DB: its name instead
            out["view"]["title"] = str(reading["heading"])
    result = view.get("result")
    if isinstance(result, dict):
        out["result"] = {k: result[k] for k in DECLARED_KEPT if k in result}
    return out


def _defender_kept(view: dict[str, Any], reading: Any) -> dict[str, Any]:
    """A declared action made against a character, to a viewer who may not read that sheet:
    the roller's part and the outcome, the defender by level (the reading and result the
    action keeps for them, ``Facing.kept``); the request (the defender's skill and damage
    bonus) and every chance (each tells the skill) go, and the provable record's request."""
    out = {k: v for k, v in view.items() if k not in ("request", "odds", "result")}
    out["provable"] = {k: v for k, v in view["provable"].items() if k != "request"}
    out["withheld"] = [OPPONENT]
    kept = reading.get("kept") if isinstance(reading, dict) else None
    if isinstance(kept, dict):
        out["view"] = {k: v for k, v in kept.items() if k not in ("result", "odds")}
        if "result" in view:  # not in a blind roller's own view
            out["result"] = kept["result"]
    return out


def with_reading(view: dict[str, Any]) -> dict[str, Any]:
    """A roll's view with how its result reads (``result_view``), made from the parts of it
    the view holds, and nothing else: a withheld side's reads by its level alone."""
    result = view.get("result")
    if not isinstance(result, dict) or "provable" not in view:
        return view
    if OPPONENT in view:  # a contest's sides, by their characters' names
        names = (str(view["character"]["name"]), str(view[OPPONENT]["name"]))
        reading = contest_view(result, view.get("odds"), names).to_dict()
    else:
        offers, taken = view.get("follow_ups") or (), view.get("follow_up")
        reading = result_view(result, view.get("odds"), offers, taken).to_dict()
    return view | {"view": reading}


def _withheld(view: dict[str, Any], decision: Decision) -> dict[str, Any]:
    """A roll with parts this viewer sees by name and level only. Their numbers go, and the
    odds (they tell every side's skill and each helper's); the request that resolved it goes
    too, so ``d100 verify`` lists the roll as not checkable here (``withheld``) and checks its
    seed and nonce in order. A follow-up's chance of success would tell a helper's skill."""
    parts = decision.withheld
    out = {k: v for k, v in view.items() if k not in HIDDEN_IN_WITHHELD}
    if ACTOR not in parts and "follow_ups" in view:
        out["follow_ups"] = [
            {k: v for k, v in o.items() if k not in ("chance", "odds")} for o in view["follow_ups"]
        ]
    out["provable"] = {k: v for k, v in view["provable"].items() if k != "request"}
    out["withheld"] = list(parts)
    if OPPONENT in parts:
        out.pop("opponent_skill", None)
    contest = OPPONENT in view  # a contest's request and result have a part for each side
    field = _helper_field(view.get("request"), view.get("result")) if HELPERS in parts else None
    request = view.get("request")
    if isinstance(request, dict):
        if contest:
            kept = {k: v for k, v in request.items() if k not in parts}
            if ACTOR in kept:
                kept[ACTOR] = _without(kept[ACTOR], field)
            out["request"] = kept
        elif ACTOR in parts:
            del out["request"]
        else:
            out["request"] = _without(request, field)
    result = view.get("result")
    if isinstance(result, dict):
        out["result"] = _result_kept(result, decision, contest, field)
    return out


def _without(part: dict[str, Any], field: str | None) -> dict[str, Any]:
    return {k: v for k, v in part.items() if k != field}


def _result_kept(
    result: dict[str, Any], decision: Decision, contest: bool, field: str | None
) -> dict[str, Any]:
    parts = decision.withheld
    if not contest:
        return _level_only(result) if ACTOR in parts else _helped(result, decision, field)
    binds = REGISTRY.get(str(result["system"])).declares.binds_other_side
    sides: dict[str, Any] = {}
    for side, other in ((ACTOR, OPPONENT), (OPPONENT, ACTOR)):
        shown = result[side]
        if side in parts:
            sides[side] = {k: shown[k] for k in ("level", "success")}
            continue
        if other in parts:  # CH6: a side's target is the other's total
            shown = {k: v for k, v in shown.items() if k not in binds}
        sides[side] = _helped(shown, decision, field) if side == ACTOR else shown
    return {"system": result["system"], "winner": result["winner"], **sides}


def _level_only(check: dict[str, Any]) -> dict[str, Any]:
    return {k: check[k] for k in LEVEL_ONLY if k in check}


def _helped(check: dict[str, Any], decision: Decision, field: str | None) -> dict[str, Any]:
    """A check's result with the withheld helpers shown by level only, and its own resolved
    request without any helper's values."""
    if field is None or field not in check:
        return check
    given, places = check[field], decision.helpers
    if isinstance(given, list):
        kept: Any = [_level_only(h) if i in places else h for i, h in enumerate(given)]
    else:
        kept = _level_only(given) if 0 in places else given
    out = check | {field: kept}
    if isinstance(check.get("request"), dict):
        out["request"] = _without(check["request"], field)
    return out


# -- which seeds a roll draws from ----------------------------------------------------------
# A roll draws from the chain of seeds of the members who see all of it, as ``decide`` says:
# a chain's seed is revealed only to them, so no member recomputes what they were not shown.

OPEN, BLIND, GM_CHAIN, SELF_CHAIN, SEALED = "open", "blind", "gm", "self", "sealed"
# revealed at each rotation in an event only the chain's audience sees (not to everyone)
PRIVATE = (GM_CHAIN, SELF_CHAIN)


@dataclass(frozen=True)
class Chain:
    """A chain of seeds, by the audience that sees every roll drawn from it in full:
    ``open``, everyone (revealed at each rotation); ``blind``, blind rolls (revealed once
    every one was shown to everyone); ``gm`` of no member, the GMs (an NPC's part, the GMs'
    own ``gm`` rolls, a player's ``gm`` roll with a part kept from them); ``gm`` of a player,
    that player and the GMs (their ``gm`` rolls); ``self`` of a member, that member alone;
    ``sealed``, no one (a ``self`` roll with a part kept from its roller, an NPC's help: the
    GMs may not see the roll, its roller not that part), never revealed."""

    kind: str
    member_id: str = ""

    def sees(self, viewer: Viewer) -> bool:
        """Whether the viewer is in the chain's audience (its revealed seeds are theirs)."""
        if self.kind == SELF_CHAIN:
            return viewer.member_id == self.member_id
        if self.kind == GM_CHAIN:
            return viewer.is_gm or viewer.member_id == self.member_id
        return self.kind != SEALED

    def reveal_as(self, gm_id: str) -> tuple[str, str]:
        """The visibility and actor of the event revealing a private chain's seed: the roll
        mode whose audience is the chain's (``sees_event``), so it is one policy."""
        return ("self" if self.kind == SELF_CHAIN else "gm"), self.member_id or gm_id


def _kept_in_part(viewer: Viewer, named: Names) -> bool:
    """Whether the viewer sees part of the roll by name and level only (``decide``): a side
    ``_withheld_parts`` names, or the defender of a declared action whose sheet they may not
    read."""
    defender = named.defender if isinstance(named, Named) else None
    faced = defender is not None and not reads_sheet(viewer, defender.member_id)
    return faced or bool(_withheld_parts(viewer, named)[0])


def chain_of(visibility: str, actor_id: str | None, named: Names, gms: frozenset[str]) -> Chain:
    """The chain a roll in this mode by ``actor_id``, naming ``named``, draws from (or its
    follow-up: the same roll), decided by what ``decide`` shows each member."""
    anyone = Viewer("", "", PLAYER, "", gms)  # a player the roll names nowhere
    if visibility in ("public", "blind"):
        # A blind roll is shown to everyone in the end: as a public roll.
        if _kept_in_part(anyone, named):
            return Chain(GM_CHAIN)
        return Chain(OPEN if visibility == "public" else BLIND)
    roller = Viewer(str(actor_id), "", GM if actor_id in gms else PLAYER, "", gms)
    if _kept_in_part(roller, named):
        return Chain(SEALED) if visibility == "self" else Chain(GM_CHAIN)
    if visibility == "self":
        return Chain(SELF_CHAIN, roller.member_id)
    return Chain(GM_CHAIN, "" if roller.is_gm else roller.member_id)
