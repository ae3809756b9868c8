"""The writer hands its committed events to its table's streams in this process: a stream
reads the log from the database only as it opens, at a gap and after a change of the
table's members, and what it is handed is what the log gives its viewer, each event once,
in order. On SQLite and PostgreSQL, in the app's own event loop."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.server import live
from d100.server.events import Appended, append, lock_table
from d100.server.live import BATCH, Hub, Listener, read_views, sse
from d100.server.models import Member
from d100.server.store import Store
from d100.server.tokens import new_token, token_hash

from .tablehelp import Api, Table


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many asks each read of the log from the database served."""
    counted: list[int] = []
    real = live.read_all_views

    def read_all_views(store: Store, table_id: str, asks: Any) -> Any:
        counted.append(len(asks))
        return real(store, table_id, asks)

    monkeypatch.setattr(live, "read_all_views", read_all_views)
    return counted


Listen = Callable[[Table, str, int], "Future[list[str]]"]


@pytest.fixture
def listening(client: TestClient) -> Iterator[Listen]:
    """Start a stream of a token's in the app's loop: its lines until it ends or gives the
    ``rest`` event each test ends with. Streams still open at the end are cancelled, so a
    test that fails leaves none holding the app open."""
    server = client.app.state.server  # type: ignore[attr-defined]
    started: list[Future[list[str]]] = []

    def listen(table: Table, token: str, after: int) -> Future[list[str]]:
        async def take() -> list[str]:
            lines: list[str] = []
            async for line in live.stream(server.store, server.hub, table.id, token, after):
                if line.startswith(":"):
                    continue
                lines.append(line)
                if line.startswith("event: ") or '"kind":"rest"' in line:
                    break
            return lines

        assert client.portal is not None
        started.append(client.portal.start_task_soon(take))
        return started[-1]

    yield listen
    for future in started:
        future.cancel()


def _until(what: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not what():
        assert time.monotonic() < deadline, "never came"
        time.sleep(0.01)


def _listeners(client: TestClient, table: Table) -> set[Listener]:
    found: set[Listener] = client.app.state.server.hub._listeners.get(table.id, set())  # type: ignore[attr-defined]
    return found


def _settled(client: TestClient, table: Table, n: int) -> None:
    """Wait until ``n`` streams of the table have read the log once (their first read)."""
    _until(lambda: sum(x.viewer is not None for x in _listeners(client, table)) == n)


def _events(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line.split("data: ", 1)[1]) for line in lines if line.startswith("id: ")]


def test_rolls_reach_every_stream_as_the_log_shows_its_viewer_without_reading_it(
    client: TestClient, api: Api, reads: list[int], listening: Listen
) -> None:
    """Rolls of every mode, by a player and by the GM (an NPC), reach each stream as the log
    read for that stream's token shows them (stubs, blind rolls, withheld NPCs), each once
    and in order, and no stream reads the log for them."""
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    npc = table.character(table.gm, "Ghoul")
    start = table.ok("GET", "", table.gm)["table"]["last_seq"]
    tokens = [table.gm, pat, sam, pat]  # Pat's two tabs
    streams = [listening(table, token, start) for token in tokens]
    _settled(client, table, len(tokens))
    before = len(reads)
    for visibility in ("public", "gm", "blind", "self"):
        table.roll(pat, alice, "stealth", visibility=visibility)
        table.roll(table.gm, npc, "dodge", visibility=visibility)
    table.ok("POST", "/rest", table.gm)  # the last event the streams wait for
    given = [stream.result(30) for stream in streams]
    assert len(reads) == before, "a stream read the log for an event handed to it"
    store = client.app.state.server.store  # type: ignore[attr-defined]
    for token, lines in zip(tokens, given, strict=True):
        logged, _ = read_views(store, table.id, token, start)
        assert _events(lines) == [view for _, view in logged]
        texts = [line for line in lines if line.startswith("id: ")]
        # as the same text where the database keeps the key order (PostgreSQL's jsonb sorts)
        assert texts == [sse(seq, view) for seq, view in logged] or store.is_postgres
    pat_sees = _events(given[1])
    assert sum("result" in e for e in pat_sees) < sum("result" in e for e in _events(given[0]))


def test_a_token_made_anew_closes_its_streams_whatever_changed_it(
    client: TestClient, api: Api, listening: Listen
) -> None:
    """A change to a member row (here a token made anew, as Discord's /link does, with no
    event logged) makes the table's streams check their tokens: the old token's stream is
    told and ends; another member's goes on."""
    table = api.table("brp")
    sam = table.join("Sam")
    sam_id = table.ok("GET", "", sam)["me"]["id"]
    start = table.ok("GET", "", sam)["table"]["last_seq"]
    old, other = listening(table, sam, start), listening(table, table.gm, start)
    _settled(client, table, 2)
    store = client.app.state.server.store  # type: ignore[attr-defined]
    with store.write() as session:
        member = session.get(Member, sam_id)
        assert member is not None
        member.token_hash = token_hash(new_token())
    lines = old.result(30)
    assert lines[-1].startswith("event: denied") and not _events(lines)
    table.ok("POST", "/rest", table.gm)
    assert [e["kind"] for e in _events(other.result(30))] == ["rest"]


def test_a_revoked_player_s_stream_gets_nothing_after_its_revocation(
    client: TestClient, api: Api, listening: Listen
) -> None:
    """A revocation hands no events: every stream of the table checks its token, and the
    revoked member's is told and ends before anything more reaches it."""
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    sam_id = table.ok("GET", "", sam)["me"]["id"]
    start = table.ok("GET", "", sam)["table"]["last_seq"]
    stream = listening(table, sam, start)
    _settled(client, table, 1)
    table.ok("POST", f"/members/{sam_id}/revoke", table.gm)
    table.roll(pat, alice, "stealth")
    lines = stream.result(30)
    assert lines[-1].startswith("event: denied")
    assert [e["kind"] for e in _events(lines)] == []  # not even its own revocation


@pytest.fixture
def captured(database_url: str) -> Iterator[tuple[Store, list[Any]]]:
    """A store whose commits are kept, not handed over: a test hands them as it likes."""
    kept: list[Any] = []
    store = Store(database_url, on_commit=lambda _, events: kept.append(events))
    store.migrate()
    try:
        yield store, kept
    finally:
        store.dispose()


def test_events_handed_out_of_turn_are_given_in_the_log_s_order_once(
    captured: tuple[Store, list[Any]], reads: list[int]
) -> None:
    """Two writers' hand-overs can cross (each hands its own after its commit): a stream
    handed event n+2 before n+1 reads the log from n, and skips n+1 when it comes."""
    from d100.server import event_kinds as kinds
    from d100.server import gametables

    store, kept = captured
    with store.write() as session:
        made = gametables.create_table(session, "T", "brp", "G", {}, {})
    table_id, gm = made.table.id, made.gm_token

    async def scene() -> list[str]:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        lines: list[str] = []
        body = live.stream(store, hub, table_id, gm, 1)

        async def take() -> None:
            async for line in body:
                if line.startswith("id: "):
                    lines.append(line)

        task = asyncio.create_task(take())
        while not any(x.viewer for x in hub._listeners.get(table_id, ())):
            await asyncio.sleep(0.01)
        kept.clear()
        for _ in range(2):
            with store.write() as session:
                append(session, lock_table(session, table_id), kinds.rested("G"))
        second, third = kept
        hub._hand(table_id, third)
        hub._hand(table_id, second)
        while len(lines) < 2:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # a repeat, were it coming, would be in by now
        task.cancel()
        return lines

    lines = asyncio.run(scene())
    assert [int(line.split("\n")[0][4:]) for line in lines] == [2, 3]
    assert len(reads) == 2  # the first read, and the one at the gap


def test_a_stream_handed_more_than_it_keeps_reads_the_log_instead() -> None:
    """A stream whose client does not read is handed at most a batch: beyond, it drops what
    it holds and reads the log from its last event when it sends again."""
    listener = Listener(0)
    listener.stale = False
    held = [live.Published(Appended(None, None)) for _ in range(BATCH)]  # type: ignore[arg-type]
    listener.hand(held)
    assert len(listener.inbox) == BATCH and not listener.stale
    listener.hand(held[:1])
    assert listener.inbox == [] and listener.stale
