"""Live updates: a hub wakes a table's streams when its log grows, and each stream reads the
log itself, as its viewer may see it.

The database is the only truth: a wake-up carries no event, it only says "look again". So a
stream resumed from event n reads n+1 onwards from the log, with no gap and no repeat, and
several server processes on one PostgreSQL stay consistent: each LISTENs on the channel that
writers NOTIFY within their transaction (delivered only when it commits).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import anyio
import psycopg
from sqlalchemy.engine import URL

from .access import Decision, authenticate_all, decide, shape
from .errors import ApiError, unauthorised
from .event_kinds import read
from .events import CHANNEL, events_after, headed, origin
from .store import Store

# Seconds: a comment line keeps proxies from closing an idle stream. It reads nothing: a
# stream reads the log only when woken (each read checks its token again), as re-reading on
# every heartbeat made a thousand idle streams, opened together, read it a thousand times
# at once every 15 s (wakes are not lost: set before the wait, and all at a reconnect).
HEARTBEAT = 15.0
STREAMS_PER_MEMBER = 8  # a member's open streams: a few tabs and devices, not a flood
RECONNECT = 1.0
BATCH = 200
SWEEP = 64  # members in the streams map before it is first swept of those with none open
log = logging.getLogger("d100.server")
Views = tuple[list[tuple[int, dict[str, Any]]], int]  # (number, view) of each event, the last read
Texts = tuple[list[str], int]  # each event's Server-Sent Event, the last number read


class Hub:
    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        # Each member's open streams; a stream that ends, or never starts, drops out by itself.
        self._streams: dict[str, weakref.WeakSet[AsyncIterator[str]]] = {}
        self._sweep_at = SWEEP
        # Each table's streams waiting for a read; the first to ask starts it (``read``).
        self._reads: dict[str, list[tuple[str | None, int, asyncio.Future[Texts]]]] = {}
        self._readers: set[asyncio.Task[None]] = set()  # held: the loop keeps weak references

    def open_stream(self, member_id: str, body: AsyncIterator[str]) -> bool:
        """Count ``body`` as one of the member's streams; False when they have too many."""
        # Members with no stream left drop out of the map when it has doubled since the last
        # sweep: sweeping on every open made opening n streams cost n².
        if len(self._streams) >= self._sweep_at:
            for gone in [m for m, open_ in self._streams.items() if not open_]:
                del self._streams[gone]
            self._sweep_at = max(SWEEP, 2 * len(self._streams))
        streams = self._streams.setdefault(member_id, weakref.WeakSet())
        if len(streams) >= STREAMS_PER_MEMBER:
            return False
        streams.add(body)
        return True

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def wake(self, table_id: str) -> None:
        """Safe from any thread (writes commit in worker threads)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake, table_id)

    def wake_all(self) -> None:
        for table_id in list(self._waiters):
            self._wake(table_id)

    def _wake(self, table_id: str) -> None:
        for waiter in self._waiters.get(table_id, ()):
            waiter.set()

    async def read(self, store: Store, table_id: str, token: str | None, after: int) -> Texts:
        """``read_views`` as Server-Sent Events, shared: a commit wakes every stream of its
        table at once, and the streams that ask before the read starts (all of them: they run
        in this loop tick) get their events from one worker-thread call and one transaction,
        not one each, and each view serialised once, however many streams share it."""
        future: asyncio.Future[Texts] = asyncio.get_running_loop().create_future()
        waiting = self._reads.get(table_id)
        if waiting is None:
            waiting = self._reads[table_id] = []
            task = asyncio.create_task(self._read(store, table_id))
            self._readers.add(task)
            task.add_done_callback(self._readers.discard)
        waiting.append((token, after, future))
        return await future

    async def _read(self, store: Store, table_id: str) -> None:
        asks = self._reads.pop(table_id)
        try:
            found = await anyio.to_thread.run_sync(
                read_all_views, store, table_id, [(token, after) for token, after, _ in asks]
            )
        except Exception as err:  # the database failed: every stream asking is told
            for *_, future in asks:
                if not future.done():
                    future.set_exception(err)
            return
        except BaseException:
            for *_, future in asks:
                future.cancel()
            raise
        texts: dict[int, str] = {}  # each shared view serialised once, by identity
        for (*_, future), views in zip(asks, found, strict=True):
            if future.done():  # that stream has gone meanwhile
                continue
            if isinstance(views, ApiError):
                future.set_exception(views)
                continue
            events, last = views
            for seq, view in events:
                if id(view) not in texts:
                    texts[id(view)] = sse(seq, view)
            future.set_result(([texts[id(view)] for _, view in events], last))

    @contextmanager
    def subscribe(self, table_id: str) -> Iterator[asyncio.Event]:
        waiter = asyncio.Event()
        self._waiters.setdefault(table_id, set()).add(waiter)
        try:
            yield waiter
        finally:
            self._waiters[table_id].discard(waiter)
            if not self._waiters[table_id]:
                del self._waiters[table_id]


def read_views(store: Store, table_id: str, token: str | None, after: int) -> Views:
    """The next events after ``after`` as this token may see them (a stub for one it may not
    see, so a page always moves on), and the last number read."""
    (found,) = read_all_views(store, table_id, [(token, after)])
    if isinstance(found, ApiError):
        raise found
    return found


def read_all_views(
    store: Store, table_id: str, asks: Sequence[tuple[str | None, int]]
) -> list[Views | ApiError]:
    """``read_views`` for each (token, after) of ``asks``, in one transaction: one query for
    the members, one for each distinct ``after`` (the streams one commit wakes were all at the
    same place, as a rule). A token refused gets its error, the others their views."""
    with store.read() as session:
        viewers = authenticate_all(session, table_id, [token for token, _ in asks])
        wanted = {after for (_, after), v in zip(asks, viewers, strict=True) if v is not None}
        logs = {after: events_after(session, table_id, after, BATCH) for after in wanted}
    # each event read as its model once, whoever sees it
    models = {event.seq: read(event) for events in logs.values() for event in events}
    shaped: dict[Decision, dict[str, Any]] = {}  # one view per event and decision, shared
    out: list[Views | ApiError] = []
    for (_, after), viewer in zip(asks, viewers, strict=True):
        if viewer is None:
            out.append(unauthorised())
            continue
        events = logs[after]
        views = []
        for event in events:
            # a view is made from its decision alone
            decision = decide(viewer, event, models[event.seq])
            if decision not in shaped:
                shaped[decision] = headed(shape(event, decision), event)
            views.append((event.seq, shaped[decision]))
        out.append((views, events[-1].seq if events else after))
    return out


def sse(seq: int, data: dict[str, Any]) -> str:
    return f"id: {seq}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def beats(phase: float) -> Iterator[float]:
    """A stream's waits between heartbeats: the first cut to a share of ``HEARTBEAT`` by its
    ``phase`` (0 to 1), so streams opened together (a thousand at a reconnect) beat apart
    over half a period, not all in one turn of the loop that a roll then waits behind."""
    yield HEARTBEAT * (1 + phase) / 2
    while True:
        yield HEARTBEAT


async def stream(
    store: Store,
    hub: Hub,
    table_id: str,
    token: str | None,
    after: int,
    phase: Callable[[], float] = random.random,
) -> AsyncIterator[str]:
    """Server-Sent Events from the log: everything after ``after``, then each new event.
    Subscribing before reading means a write between the read and the wait still wakes us."""
    waits = beats(phase())
    with hub.subscribe(table_id) as waiter:
        yield f"retry: {int(RECONNECT * 1000)}\n\n"
        while True:
            waiter.clear()
            try:
                texts, after = await hub.read(store, table_id, token, after)
            except ApiError as err:  # revoked while listening: say so and stop
                yield f"event: denied\ndata: {json.dumps(err.to_dict())}\n\n"
                return
            for text in texts:
                yield text
            if len(texts) >= BATCH:
                continue
            while True:
                try:
                    await asyncio.wait_for(waiter.wait(), next(waits))
                    break
                except TimeoutError:
                    yield ": still here\n\n"


def pg_conninfo(url: URL) -> str:
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


async def listen(url: URL, hub: Hub) -> None:
    """Wake local streams on every NOTIFY from any server process; reconnect on failure (and
    wake everyone then, in case a notification was lost in between)."""
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(pg_conninfo(url), autocommit=True)
            async with conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                hub.wake_all()
                mine = origin()
                async for note in conn.notifies():
                    sender, _, table_id = note.payload.rpartition(":")
                    if sender != mine:  # this process woke its own streams at commit
                        hub.wake(table_id)
        except psycopg.Error as err:
            log.warning("live updates: lost the PostgreSQL listener (%s); reconnecting", err)
            await asyncio.sleep(RECONNECT)


async def cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with suppress(asyncio.CancelledError):
        await task
