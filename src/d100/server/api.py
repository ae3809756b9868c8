"""HTTP routes: each reads its body, finds the viewer and calls one plain module. Writes
commit before the answer is sent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Body, Header, Path, Query, Request, Response
from fastapi.responses import PlainTextResponse, StreamingResponse
from sqlalchemy import text
from sqlalchemy.orm import Session

from .. import declared as library_declared
from ..ledger import MAX_ROLLS
from ..systems import REGISTRY
from . import (
    answers,
    awaiting,
    bodies,
    calculator,
    characters,
    declared,
    deleting,
    export,
    flow,
    followups,
    gametables,
    idempotency,
    ledgers,
    party,
    rolls,
    rounds,
    spoken,
)
from .access import (
    CREDENTIAL,
    Credential,
    Viewer,
    authenticate,
    cookie_name,
    read_credential,
    require_editor,
    require_origin,
    view_call,
    view_event,
)
from .answers import documented
from .described import ERRORS
from .errors import ApiError, bad
from .event_views import EventView
from .events import answer_view, get_table, headed
from .export import Exports
from .live import STREAMS_PER_MEMBER, Hub, read_views, stream
from .models import Event
from .quotas import Openings, Quotas, by_address, check_room
from .snapshot import snapshot
from .store import Store
from .work import Pool, Writes

COOKIE_AGE = 60 * 60 * 24 * 60  # two months: a campaign's worth of sessions
# Event numbers are 32-bit integers in the database: a larger "after" would fail there, not here.
MAX_SEQ = 2**31 - 1
Seq = Annotated[int, Query(ge=0, le=MAX_SEQ)]
# Ids are URL-safe base64 (tokens.new_id); anything else in a path is refused before it
# reaches a cookie name (where "," or ";" is illegal) or the database (where PostgreSQL fails
# on a NUL byte).
Id = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
TableId = Id
router = APIRouter(responses=ERRORS)
# /health's own thread: never one queued behind a burst of other requests (a sync route's).
HEALTH = ThreadPoolExecutor(1, thread_name_prefix="health")
# A check of each built-in system, for /docs.
EXAMPLES: dict[str, Any] = {s.name: {"value": {"system": s.name, "skill": 65}} for s in REGISTRY}
RequestBody = Annotated[dict[str, Any], Body(openapi_examples=EXAMPLES)]


@dataclass(frozen=True)
class Server:
    store: Store
    hub: Hub
    pool: Pool  # odds, advice and charts: a roll's odds go ahead of its table's previews
    writing: Writes  # rolls' transactions, queued per table without holding threads
    exports: Exports = field(default_factory=Exports)  # the log exports running, per table
    ledger_reads: ledgers.Readings = field(default_factory=ledgers.Readings)  # ledgers read
    quotas: Quotas = field(default_factory=Quotas)  # what the storage may be made to hold
    openings: Openings = field(default_factory=lambda: Openings(Quotas()))  # per address today


def _server(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


def _credential(request: Request, table_id: str) -> Credential:
    """The request's token, as the guard read it from its headers."""
    found = request.scope.get(CREDENTIAL)
    return found if isinstance(found, Credential) else read_credential(table_id, request.headers)


def _token(request: Request, table_id: str) -> str | None:
    """A bearer token (API clients) or the table's cookie (browsers)."""
    return _credential(request, table_id).token


def _writer_token(request: Request, table_id: str) -> str | None:
    credential = _credential(request, table_id)
    require_origin(credential.by_cookie, request.headers.get("origin"))
    return credential.token


@contextmanager
def _acting(
    request: Request, table_id: str, write: bool = True
) -> Iterator[tuple[Session, Viewer]]:
    store = _server(request).store
    token = _writer_token(request, table_id) if write else _token(request, table_id)
    with store.write() if write else store.read() as session:
        yield session, authenticate(session, table_id, token)


def _set_cookie(request: Request, response: Response, table_id: str, token: str) -> None:
    response.set_cookie(
        cookie_name(table_id),
        token,
        max_age=COOKIE_AGE,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def _address(request: Request) -> str:
    """Whose turn a computation on an open route takes: the client address's."""
    return "address:" + (request.client.host if request.client else "")


def _link(request: Request, path: str, token: str) -> str:
    # The token rides in the fragment, which browsers never send: it stays out of logs.
    return f"{str(request.base_url).rstrip('/')}{path}#{token}"


# -- open to anyone ------------------------------------------------------------------------


@router.get("/health", tags=["server"])
async def health(request: Request) -> dict[str, str]:
    store = _server(request).store

    def check() -> None:
        with store.read() as session:
            session.execute(text("SELECT 1"))

    await asyncio.get_running_loop().run_in_executor(HEALTH, check)
    return {"status": "ok", "database": store.url.get_backend_name()}


@router.get("/api/systems", tags=["odds"])
def systems() -> list[dict[str, Any]]:
    return calculator.systems()


@router.post(
    "/api/odds",
    tags=["odds"],
    responses=documented(200, answers.OddsAnswer),
    openapi_extra={
        "requestBody": {"content": {"application/json": {"schema": calculator.request_schema()}}}
    },
)
async def odds(body: RequestBody, request: Request) -> dict[str, Any]:
    """Exact odds of a contract request (CONTRACT.md), advice for a check, what levels mean."""
    return await _server(request).pool.run(_address(request), calculator.answer, bodies.whole(body))


@router.post("/api/odds/chart", tags=["odds"])
async def chart(body: bodies.Chart, request: Request) -> list[dict[str, Any]]:
    """A check's odds at each skill from ``low`` to ``high``: worked out a slice at a time,
    each address's in turn."""
    skills = calculator.chart_skills(body.request, body.low, body.high, body.step)
    work = _server(request).pool
    return await work.sliced(_address(request), calculator.chart_points, skills, body.request)


# -- tables, sign-in ------------------------------------------------------------------------


@router.post(
    "/api/tables", status_code=201, tags=["tables"], responses=documented(201, answers.CreatedTable)
)
def create_table(body: bodies.NewTable, request: Request, response: Response) -> dict[str, Any]:
    server = _server(request)
    with server.store.write() as session:
        check_room(session, server.quotas)
        server.openings.take(session, by_address(request.client.host if request.client else ""))
        made = gametables.create_table(
            session,
            body.name,
            body.system,
            body.gm_name,
            body.house_rules,
            body.settings,
            body.beacon,
        )
        out = {
            "table": gametables.table_view(made.table),
            "me": gametables.member_view(made.gm),
            "gm_link": _link(request, f"/t/{made.table.id}", made.gm_token),
            "invite_link": _link(request, "/join", made.invite_token),
        }
    _set_cookie(request, response, made.table.id, made.gm_token)
    return out


@router.post("/api/session", tags=["tables"])
def sign_in(body: bodies.SignIn, request: Request, response: Response) -> dict[str, Any]:
    """Exchange a GM or player link's token for this table's HttpOnly cookie."""
    with _server(request).store.read() as session:
        member = gametables.sign_in(session, body.token)
    _set_cookie(request, response, member.table_id, body.token)
    return {"table_id": member.table_id, "me": gametables.member_view(member)}


@router.post("/api/invitation", tags=["tables"], responses=documented(200, answers.Invitation))
def invitation(body: bodies.Invitation, request: Request) -> dict[str, Any]:
    """What an invite link opens (the table's name, system and GM), for the join page."""
    with _server(request).store.read() as session:
        return gametables.invitation(session, body.invite)


@router.post("/api/join", status_code=201, tags=["tables"])
def join(body: bodies.JoinTable, request: Request, response: Response) -> dict[str, Any]:
    with _server(request).store.write() as session:
        member, token = gametables.join(session, body.invite, body.name)
    _set_cookie(request, response, member.table_id, token)
    return {
        "table_id": member.table_id,
        "me": gametables.member_view(member),
        "rejoin_link": _link(request, f"/t/{member.table_id}", token),
    }


@router.delete("/api/tables/{table_id}/session", status_code=204, tags=["tables"])
def sign_out(table_id: TableId, response: Response) -> None:
    response.delete_cookie(cookie_name(table_id), httponly=True, samesite="strict")


@router.get(
    "/api/tables/{table_id}", tags=["tables"], responses=documented(200, answers.TableState)
)
def table_state(table_id: TableId, request: Request) -> dict[str, Any]:
    with _acting(request, table_id, write=False) as (session, viewer):
        return snapshot(session, viewer)


@router.delete("/api/tables/{table_id}", status_code=204, tags=["tables"])
def delete_table(table_id: TableId, request: Request, response: Response) -> None:
    """Delete the table for good (its GM only): its log, members, characters and seeds. Every
    link to it stops working and its live streams close; what its opener opened stays counted
    in the tables quota. Export the log first to keep it (``log.jsonl``)."""
    with _acting(request, table_id) as (session, viewer):
        deleting.delete_table(session, viewer)
    response.delete_cookie(cookie_name(table_id), httponly=True, samesite="strict")


@router.post("/api/tables/{table_id}/invite", tags=["tables"])
def renew_invite(table_id: TableId, request: Request) -> dict[str, str]:
    with _acting(request, table_id) as (session, viewer):
        invite = gametables.new_invite(session, viewer)
    return {"invite_link": _link(request, "/join", invite)}


@router.post("/api/tables/{table_id}/members/{member_id}/revoke", tags=["tables"])
def revoke(table_id: TableId, member_id: Id, request: Request) -> dict[str, Any]:
    """Revoke a player; the invite link is renewed (the revoked player holds the old one)."""
    with _acting(request, table_id) as (session, viewer):
        member, invite = gametables.revoke(session, viewer, member_id)
        out = gametables.member_view(member)
    return out | {"invite_link": _link(request, "/join", invite)}


@router.post("/api/tables/{table_id}/me/link", tags=["tables"])
def my_link(table_id: TableId, request: Request) -> dict[str, str]:
    """The signed-in member's own link (the GM link, or a player's rejoin link), to open the
    table on another device: the page cannot read its HttpOnly cookie. A POST, so a page on
    another site is refused before it can ask."""
    token = _writer_token(request, table_id)
    with _server(request).store.read() as session:
        viewer = authenticate(session, table_id, token)
    assert token is not None  # authenticate refuses a missing token
    return {"link": _link(request, f"/t/{table_id}", token), "role": viewer.role}


@router.put("/api/tables/{table_id}/me/client-seed", tags=["provable dice"])
def set_client_seed(table_id: TableId, body: bodies.ClientSeed, request: Request) -> dict[str, Any]:
    with _acting(request, table_id) as (session, viewer):
        return gametables.member_view(gametables.set_client_seed(session, viewer, body.client_seed))


@router.post("/api/tables/{table_id}/seeds/rotate", tags=["provable dice"])
def rotate_seed(table_id: TableId, request: Request) -> dict[str, Any]:
    """Reveal the current server seed and commit to a new one."""
    with _acting(request, table_id) as (session, viewer):
        return gametables.rotation_view(gametables.rotate_seed(session, viewer), viewer)


# -- characters -----------------------------------------------------------------------------


def _upload(
    request: Request, table_id: str, text: str, character_id: str | None = None
) -> characters.Upload:
    """The sheet checked and made ready to store before the write transaction, for a member
    who may store it (parsing a sheet is the costly part)."""
    with _acting(request, table_id, write=False) as (session, viewer):
        system = get_table(session, table_id).system
        if character_id is not None:
            row = characters.load(session, table_id, character_id)
            require_editor(viewer, row, "edit this character")
    return characters.upload(system, text)


@router.post(
    "/api/tables/{table_id}/characters",
    status_code=201,
    tags=["characters"],
    responses=documented(201, answers.CharacterView),
)
def create_character(
    table_id: TableId, body: bodies.CharacterSheet, request: Request
) -> dict[str, Any]:
    sent = _upload(request, table_id, body.sheet)
    with _acting(request, table_id) as (session, viewer):
        row = characters.create(session, viewer, sent, body.member_id)
    return characters.full_view(row)  # after the commit: its text may be rewritten


@router.put(
    "/api/tables/{table_id}/characters/{character_id}",
    tags=["characters"],
    responses=documented(200, answers.CharacterView),
)
def update_character(
    table_id: TableId, character_id: Id, body: bodies.CharacterSheet, request: Request
) -> dict[str, Any]:
    if body.member_id is not None:
        raise bad(
            "member_id", body.member_id, "nothing: a character keeps its player", "not changeable"
        )
    sent = _upload(request, table_id, body.sheet, character_id)
    with _acting(request, table_id) as (session, viewer):
        row = characters.update(session, viewer, character_id, sent)
    return characters.full_view(row)


@router.patch(
    "/api/tables/{table_id}/characters/{character_id}",
    tags=["characters"],
    responses=documented(200, answers.CharacterView),
)
def edit_values(
    table_id: TableId, character_id: Id, body: bodies.SheetValues, request: Request
) -> dict[str, Any]:
    """Set skills, abilities (null removes one) or Luck, as a form edits a sheet."""
    with _acting(request, table_id, write=False) as (session, viewer):
        system = get_table(session, table_id).system
        row = characters.load(session, table_id, character_id)
        require_editor(viewer, row, "edit this character")
    text = characters.current_text(row)  # with the Luck it has now
    luck = None if body.luck is None else (body.luck.current, body.luck.maximum)
    sent = characters.with_values(system, text, body.skills, body.abilities, luck)
    with _acting(request, table_id) as (session, viewer):
        row = characters.update(session, viewer, character_id, sent)
    return characters.full_view(row)


@router.delete("/api/tables/{table_id}/characters/{character_id}", tags=["characters"])
def delete_character(table_id: TableId, character_id: Id, request: Request) -> dict[str, Any]:
    """Delete a character (the GM or its player); the log keeps what it rolled."""
    with _acting(request, table_id) as (session, viewer):
        return characters.public_view(characters.delete(session, viewer, character_id))


@router.get(
    "/api/tables/{table_id}/characters/{character_id}/sheet",
    tags=["characters"],
    # its refusals are JSON, as every route's: only the sheet itself is TOML
    response_class=Response,
    responses={200: {"content": {"application/toml": {"schema": {"type": "string"}}}}},
)
def export_character(table_id: TableId, character_id: Id, request: Request) -> PlainTextResponse:
    """The sheet in the command line's TOML format."""
    with _acting(request, table_id, write=False) as (session, viewer):
        row = characters.export(session, viewer, character_id)
    return PlainTextResponse(
        characters.current_text(row),  # with the Luck it has now
        media_type="application/toml",
        headers={"content-disposition": f'attachment; filename="{character_id}.toml"'},
    )


@router.delete("/api/tables/{table_id}/characters/{character_id}/marks", tags=["characters"])
def clear_marks(table_id: TableId, character_id: Id, request: Request) -> dict[str, Any]:
    with _acting(request, table_id) as (session, viewer):
        row = characters.clear_marks(session, viewer, character_id)
    return characters.full_view(row)


@router.post(
    "/api/tables/{table_id}/characters/{character_id}/reveal", tags=["characters"], status_code=201
)
def reveal_sheet(table_id: TableId, character_id: Id, request: Request) -> dict[str, Any]:
    """The GM shows every member the character's sheets as the log kept them (each created
    and edited one), so that every member's ``d100 verify`` replays its rolls."""
    with _acting(request, table_id) as (session, viewer):
        shown = characters.reveal(session, viewer, character_id)
        return headed(view_event(viewer, shown), shown)


@router.post("/api/tables/{table_id}/characters/{character_id}/aim", tags=["flow"])
def aim(table_id: TableId, character_id: Id, body: bodies.Aim, request: Request) -> dict[str, Any]:
    """``aim`` adds a round, up to the system's cap; each of what ends its aim (its
    declaration's ``aim.ends``: BRP5's ``move``, ``damage``, ``act``) spends it."""
    with _acting(request, table_id) as (session, viewer):
        row = flow.aim(session, viewer, character_id, body.action)
    return characters.full_view(row)


# -- rolls and the flow of play -------------------------------------------------------------


@router.post(
    "/api/tables/{table_id}/odds", tags=["rolls"], responses=documented(200, answers.OddsAnswer)
)
async def roll_odds(table_id: TableId, body: bodies.Roll, request: Request) -> dict[str, Any]:
    """What a roll would be, before rolling: the request, exact odds (with their percentages)
    and the options."""
    server, token, spec = _server(request), _token(request, table_id), body.spec()

    def prepare() -> tuple[dict[str, Any], int | None, str]:
        with server.store.read() as session:
            viewer = authenticate(session, table_id, token)
            asked, luck = rolls.preview(session, viewer, spec)
            return asked, luck, get_table(session, table_id).system

    asked, luck, system = await anyio.to_thread.run_sync(prepare)  # in the table's turn
    contest = "opponent" in asked  # a called contest's opponent is the call's
    args = (asked, luck, contest, system)
    out = await server.pool.run(f"table:{table_id}", calculator.preview, *args)
    return out | {"percent": calculator.percents(out["odds"])}


@router.post(
    "/api/tables/{table_id}/rolls",
    status_code=201,
    tags=["rolls"],
    responses=documented(201, EventView),
)
async def roll(
    table_id: TableId,
    body: bodies.Roll,
    request: Request,
    response: Response,
    idempotency_key: idempotency.Key = None,
) -> dict[str, Any]:
    """A check, or a contest when ``opponent`` is given. With an ``Idempotency-Key`` a retry
    answers with the roll already made (``Idempotent-Replayed: true``), never a new one.

    Cheap odds are worked out in the roll's one transaction; dear ones on the worker pool
    first, from the sheets as they are, and the roll is then made under the table's lock if
    nothing they were worked out for changed."""
    server, token, spec = _server(request), _writer_token(request, table_id), body.spec()
    sent = body.model_dump(mode="json")
    made = await _made(
        server,
        table_id,
        token,
        idempotency_key,
        sent,
        calculator.odds_of,
        lambda session, viewer, planned: rolls.roll(session, viewer, spec, planned),
    )
    return _answered(made, response)


@router.post(
    "/api/tables/{table_id}/declared-rolls",
    status_code=201,
    tags=["rolls"],
    responses=documented(201, EventView) | documented(200, answers.Told),
)
async def declared_roll(
    table_id: TableId,
    body: bodies.DeclaredRoll,
    request: Request,
    response: Response,
    idempotency_key: idempotency.Key = None,
) -> dict[str, Any]:
    """A dice expression (``1d6+1``) or, where the table's rules have them, a Sanity roll
    (``sc 1/1d6``), drawn from the table's provable seeds as a check is and logged with its
    exact odds. A Sanity roll for a character writes the SAN it leaves to the sheet when every
    reader of the sheet sees the roll. With an ``Idempotency-Key`` a retry answers with the
    roll already made. A word that sets nothing (SealDice's ``.setcoc`` alone, ``.setcoc
    details``) is any member's question: answered ``200`` with ``{"told": ...}``, nothing
    logged."""
    server, token, spec = _server(request), _writer_token(request, table_id), body.spec()

    def asked() -> str | None:
        with server.store.read() as session:
            authenticate(session, table_id, token)
            return spoken.question(get_table(session, table_id), spec.words)

    told = await anyio.to_thread.run_sync(asked)  # in the table's turn, as a preview
    if told is not None:
        response.status_code = 200
        return {"told": told}
    sent = body.model_dump(mode="json") | {"route": "declared"}
    made = await _made(
        server,
        table_id,
        token,
        idempotency_key,
        sent,
        declared.planned_odds,
        lambda session, viewer, planned: declared.roll(session, viewer, spec, planned),
    )
    return _answered(made, response)


@router.post(
    "/api/tables/{table_id}/declared-odds",
    tags=["rolls"],
    responses=documented(200, answers.DeclaredOdds),
)
async def declared_odds(
    table_id: TableId, body: bodies.DeclaredRoll, request: Request
) -> dict[str, Any]:
    """What a dice, Sanity or development roll would be, before it is made: its request at
    this table and its exact odds (a development phase's chance to improve and mean gain of
    each marked skill), refused as the roll would be."""
    server, token, spec = _server(request), _token(request, table_id), body.spec()

    def prepare() -> dict[str, Any]:
        with server.store.read() as session:
            return declared.preview(session, authenticate(session, table_id, token), spec)

    tagged = await anyio.to_thread.run_sync(prepare)  # in the table's turn
    odds = await server.pool.run(f"table:{table_id}", declared.planned_odds, tagged)
    # as the roll logs them: the chance of every total of 50d1000 was 30 MB an answer
    return tagged | {"odds": library_declared.logged(str(tagged["roll"]), odds)}


async def _party(
    server: Server, table_id: str, token: str | None, spec: party.PartySpec
) -> tuple[party.Party, list[dict[str, Any]]]:
    """The party's phases as they are now and their odds, worked out on a worker."""

    def prepare() -> party.Party:
        with server.store.read() as session:
            return party.preview(session, authenticate(session, table_id, token), spec)

    planned = await anyio.to_thread.run_sync(prepare)  # in the table's turn
    tagged = [p.tagged for p in planned.phases]
    return planned, await server.pool.run(f"table:{table_id}", party.odds, tagged)


@router.post(
    "/api/tables/{table_id}/party-development/odds",
    tags=["rolls"],
    responses=documented(200, answers.PartyOdds),
)
async def party_development_odds(
    table_id: TableId, body: bodies.PartyDevelopment, request: Request
) -> dict[str, Any]:
    """The whole party's development phase before it is rolled (the GM's): each player's
    character's marked skills with their exact chance to improve and mean gain, the
    characters with nothing marked left out; refused past the most rolls one action makes."""
    server, token = _server(request), _token(request, table_id)
    planned, chances = await _party(server, table_id, token, body.spec())
    return party.shown(planned, chances)


@router.post(
    "/api/tables/{table_id}/party-development",
    status_code=201,
    tags=["rolls"],
    responses=documented(201, answers.PartyRolled),
)
async def party_development(
    table_id: TableId, body: bodies.PartyDevelopment, request: Request
) -> dict[str, Any]:
    """The whole party's development phase (the GM's, at the end of a session): every
    player's character's phase rolled in one action, its odds worked out first, each its own
    event (``d100 verify`` replays each), written back to its sheet with its marks cleared.
    Refused, nothing rolled, if a sheet changed while its odds were worked out."""
    server, token, spec = _server(request), _writer_token(request, table_id), body.spec()
    planned, chances = await _party(server, table_id, token, spec)
    odds = [rolls.Planned(p.tagged, o) for p, o in zip(planned.phases, chances, strict=True)]

    def make() -> dict[str, Any] | rounds.Unfetched:
        try:
            with server.store.write() as session:
                viewer = authenticate(session, table_id, token)
                events, made = party.roll(session, viewer, spec, odds)
                views = [headed(view_event(viewer, e), e) for e in events]
                return {"events": views, "skipped": list(made.skipped)}
        except rounds.Unfetched as unfetched:  # its transaction was rolled back
            return unfetched

    work, tried = f"table:{table_id}", 0
    while True:
        done = await server.writing.run(work, make)
        if not isinstance(done, rounds.Unfetched):
            return done
        await awaiting.fetch(server.writing, server.store, work, done, tried)
        tried += 1


Made = tuple[dict[str, Any], bool]  # a roll's view and whether it was replayed


async def _made(
    server: Server,
    table_id: str,
    token: str | None,
    idempotency_key: str | None,
    sent: dict[str, Any],
    odds_of: Callable[[dict[str, Any]], Any],
    roll: Callable[[Session, Viewer, rolls.Planned | None], Event],
) -> Made:
    """A roll made in its table's write turn, its odds worked out in its one transaction when
    cheap; when dear (``rolls.Dear``: nothing was written), on the worker pool first, from the
    sheets as they are, and the roll then made if nothing they were worked out for changed."""

    def make(planned: rolls.Planned | None) -> Made | dict[str, Any] | rounds.Unfetched:
        try:
            with server.store.write() as session:
                viewer = authenticate(session, table_id, token)
                done = idempotency.once(
                    session, viewer, idempotency_key, sent, lambda: roll(session, viewer, planned)
                )
                return answer_view(session, viewer, done.event), done.replayed
        except rolls.Dear as dear:  # its transaction was rolled back
            return dear.request
        except rounds.Unfetched as unfetched:  # so was this one's
            return unfetched

    work, planned, tried = f"table:{table_id}", None, 0
    while True:
        done = await server.writing.run(work, make, planned)
        if isinstance(done, rounds.Unfetched):  # its beacon round, fetched off the lock
            await awaiting.fetch(server.writing, server.store, work, done, tried)
            tried += 1
        elif isinstance(done, dict):  # dear odds: a worker's, ahead of the table's previews
            assert planned is None  # with its odds planned, a roll is never dear
            chance = await server.pool.run(work, odds_of, done, urgent=True)
            planned = rolls.Planned(done, chance)
        else:
            return done


def _answered(made: Made, response: Response) -> dict[str, Any]:
    view, replayed = made
    if replayed:
        response.headers["idempotent-replayed"] = "true"
    return view


@router.post("/api/tables/{table_id}/rolls/{seq}/unblind", status_code=201, tags=["rolls"])
def unblind(
    table_id: TableId, seq: Annotated[int, Path(ge=1, le=MAX_SEQ)], request: Request
) -> dict[str, Any]:
    """Show a blind roll to everyone (GM); its seed can then be revealed by a rotation."""
    with _acting(request, table_id) as (session, viewer):
        shown = rolls.unblind(session, viewer, seq)
        return headed(view_event(viewer, shown), shown)


@router.post("/api/tables/{table_id}/rolls/{seq}/reroll", status_code=201, tags=["rolls"])
async def reroll(
    table_id: TableId,
    seq: Annotated[int, Path(ge=1, le=MAX_SEQ)],
    request: Request,
    response: Response,
    body: bodies.Reroll | None = None,
    idempotency_key: idempotency.Key = None,
) -> dict[str, Any]:
    """Follow up a check you rolled, as its card offers (``follow_up``, its key: BRP7's Luck
    reroll of a failure, CoC7's Luck spent after the roll or its push): its own provable roll,
    from the request the rules make of the first, linked to it (``followups``). Not for a
    hidden roll. With an ``Idempotency-Key`` a retry answers with the roll already made, as a
    roll's does."""
    server, token = _server(request), _writer_token(request, table_id)
    dice = None if body is None else body.dice
    key = None if body is None else body.follow_up
    sent = {"reroll_of": seq, "follow_up": key, "dice": dice}  # the roll it follows is part

    def plan() -> followups.Plan | ApiError:
        try:
            with server.store.read() as session:
                viewer = authenticate(session, table_id, token)
                return followups.plan(session, viewer, seq, key)
        except ApiError as refused:
            if idempotency_key is None:
                raise
            return refused  # perhaps a retry of a follow-up made: its answer, else the refusal

    def make(planned: followups.Plan | ApiError, chance: Any) -> Made | rounds.Unfetched:
        try:
            with server.store.write() as session:
                viewer = authenticate(session, table_id, token)

                def act() -> Event:
                    if isinstance(planned, ApiError):
                        raise planned
                    return followups.follow(session, viewer, planned, chance, dice)

                done = idempotency.once(session, viewer, idempotency_key, sent, act)
                return answer_view(session, viewer, done.event), done.replayed
        except rounds.Unfetched as unfetched:  # its transaction was rolled back
            return unfetched

    planned = await anyio.to_thread.run_sync(plan)  # in the table's turn
    chance = None
    if isinstance(planned, followups.Plan) and planned.odds is not None:
        chance = calculator.cheap_odds(planned.odds)
        if chance is None:
            work = f"table:{table_id}"
            chance = await server.pool.run(work, calculator.odds_of, planned.odds, urgent=True)
    # In the table's write turn, as a roll's: one at a time per table, no thread held while
    # it waits (else a table's rerolls held up to six threads waiting for the write lock).
    work, tried = f"table:{table_id}", 0
    while isinstance(
        made := await server.writing.run(work, make, planned, chance), rounds.Unfetched
    ):
        await awaiting.fetch(server.writing, server.store, work, made, tried)
        tried += 1
    view, replayed = made
    if replayed:
        response.headers["idempotent-replayed"] = "true"
    return view


@router.post(
    "/api/tables/{table_id}/calls",
    status_code=201,
    tags=["flow"],
    responses=documented(201, answers.CallView),
)
def call_test(table_id: TableId, body: bodies.CallTest, request: Request) -> dict[str, Any]:
    with _acting(request, table_id) as (session, viewer):
        call = flow.call_test(
            session,
            viewer,
            body.skill,
            body.fields,
            body.hazard,
            body.character_ids,
            body.visibility,
            None if body.opponent is None else body.opponent.spec(),
            None if body.opponent is None else body.opponent.contest,
            body.lowest,
        )
        return view_call(viewer, flow.call_view(session, call))


@router.post("/api/tables/{table_id}/calls/{call_id}/cancel", tags=["flow"])
def cancel_call(table_id: TableId, call_id: Id, request: Request) -> dict[str, Any]:
    """Withdraw a called test (GM): its pending tests become ``cancelled``."""
    with _acting(request, table_id) as (session, viewer):
        return view_call(viewer, flow.call_view(session, flow.cancel(session, viewer, call_id)))


@router.post("/api/tables/{table_id}/targets/{target_id}/decline", tags=["flow"])
def decline(table_id: TableId, target_id: Id, request: Request) -> dict[str, str]:
    with _acting(request, table_id) as (session, viewer):
        target = flow.decline(session, viewer, target_id)
        return {"id": target.id, "status": target.status}


@router.post("/api/tables/{table_id}/targets/{target_id}/assists", status_code=201, tags=["flow"])
def assist(
    table_id: TableId, target_id: Id, body: bodies.Assist, request: Request
) -> dict[str, Any]:
    with _acting(request, table_id) as (session, viewer):
        target = flow.assist(session, viewer, target_id, body.character_id, body.skill)
        helping = flow.assists_of(session, target.id)
        return {"id": target.id, "status": target.status, "assists": helping}


@router.post("/api/tables/{table_id}/rest", tags=["flow"])
def rest(table_id: TableId, request: Request) -> dict[str, Any]:
    """A full night's rest: Luck back to maximum (BRP7)."""
    with _acting(request, table_id) as (session, viewer):
        rows = flow.rest(session, viewer)
        return {"characters": [characters.public_view(r) for r in rows]}


# -- the log --------------------------------------------------------------------------------


@router.get(
    "/api/tables/{table_id}/events",
    tags=["log"],
    responses=documented(200, list[EventView]),
)
def events(table_id: TableId, request: Request, after: Seq = 0) -> list[dict[str, Any]]:
    """The next events after number ``after`` (a batch), as this member may see them: one
    they may not see is a stub (``kind: "hidden"``), so paging on from the last always
    moves on."""
    store = _server(request).store
    views, _ = read_views(store, table_id, _token(request, table_id), after)
    return [v for _, v in views]


@router.get(
    "/api/tables/{table_id}/events/stream",
    tags=["log"],
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
def event_stream(
    table_id: TableId,
    request: Request,
    after: Seq = 0,
    last_event_id: Annotated[int | None, Header(ge=0, le=MAX_SEQ)] = None,
) -> StreamingResponse:
    """Server-Sent Events: each event's ``id`` is its number; a reconnect resumes after
    ``Last-Event-ID`` (or ``after``) with nothing missed or repeated."""
    server = _server(request)
    token = _token(request, table_id)
    with server.store.read() as session:  # refuse a bad token with a 401, not a stream
        viewer = authenticate(session, table_id, token)
    body: AsyncIterator[str] = stream(
        server.store, server.hub, table_id, token, after if last_event_id is None else last_event_id
    )
    if not server.hub.open_stream(viewer.member_id, body):
        raise ApiError(
            429,
            "token",
            None,
            f"at most {STREAMS_PER_MEMBER} open streams per member",
            "too many live streams open; close one first",
        )
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


@router.get(
    "/api/tables/{table_id}/log.jsonl",
    tags=["log"],
    response_class=StreamingResponse,
    responses={200: {"content": {"application/jsonl": {}}}},
)
async def export_log(table_id: TableId, request: Request) -> StreamingResponse:
    """The log as JSON Lines, as this member may see it (the GM: everything but self rolls),
    streamed a batch at a time; one export at a time for each member, four between a table's
    players (429 beyond)."""
    server = _server(request)
    token = _token(request, table_id)
    viewer, last = await anyio.to_thread.run_sync(export.last_event, server.store, table_id, token)
    place = server.exports.take(viewer)
    return export.LogExport(server.store, server.exports, place, token, last)


@router.get(
    "/api/tables/{table_id}/ledger",
    tags=["log"],
    responses=documented(200, answers.LedgerAnswer),
)
async def luck_ledger(
    table_id: TableId,
    request: Request,
    character: Annotated[
        str | None,
        Query(max_length=80, description="one character's rolls: its id or name"),
    ] = None,
    member: Annotated[
        str | None,
        Query(max_length=80, description="a member's characters' rolls: their id or name"),
    ] = None,
    last: Annotated[
        int | None,
        Query(ge=1, le=MAX_ROLLS, description="only the last N rolls counted"),
    ] = None,
) -> dict[str, Any]:
    """The luck ledger: each level's observed count beside its exact expected count (the
    odds recorded with each roll), and the exact chance with fair dice of as many successes or
    more (``at_least``), or as few or fewer (``at_most``), of ``character``, ``member``'s
    characters or the table (neither). Read from the log as this member sees it, as their
    export gives it: a roll hidden from them is not counted, nor mentioned; a blind roll not
    yet shown, a contest and an NPC's roll shown by its level are counted as left out. At
    most 1,000 rolls a ledger (``last`` narrows a longer one); ``view`` is the ledger as the
    page shows it. It reads the whole log, as an export does: one ledger at a time for each
    member, four between a table's players (429 beyond)."""
    if character is not None and member is not None:
        raise bad("member", member, "a character or a member, not both", "both given")
    server, token = _server(request), _token(request, table_id)
    store = server.store
    viewer = await anyio.to_thread.run_sync(ledgers.viewer_of_token, store, table_id, token)
    with server.ledger_reads.place(viewer):
        events, names = await anyio.to_thread.run_sync(ledgers.read, store, table_id, token)
        work = f"table:{table_id}"
        return await server.pool.run(work, ledgers.answer, events, names, character, member, last)
