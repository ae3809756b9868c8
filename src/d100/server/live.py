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
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import anyio
import psycopg
from sqlalchemy.engine import URL

from .access import authenticate, view_event
from .errors import ApiError
from .events import CHANNEL, events_after
from .store import Store

HEARTBEAT = 15.0  # seconds: keeps proxies from closing an idle stream, and re-reads the log
STREAMS_PER_MEMBER = 8  # a member's open streams: a few tabs and devices, not a flood
RECONNECT = 1.0
BATCH = 200
log = logging.getLogger("d100.server")


class Hub:
    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        # Each member's open streams; a stream that ends, or never starts, drops out by itself.
        self._streams: dict[str, weakref.WeakSet[AsyncIterator[str]]] = {}

    def open_stream(self, member_id: str, body: AsyncIterator[str]) -> bool:
        """Count ``body`` as one of the member's streams; False when they have too many."""
        for gone in [m for m, open_ in self._streams.items() if not open_]:
            del self._streams[gone]  # members with no stream left: the map stays small
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


def read_views(
    store: Store, table_id: str, token: str | None, after: int
) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The next events after ``after`` as this token may see them (a stub for one it may not
    see, so a page always moves on), and the last number read."""
    with store.read() as session:
        viewer = authenticate(session, table_id, token)
        events = events_after(session, table_id, after, BATCH)
        views = [(e.seq, view_event(viewer, e)) for e in events]
    last = events[-1].seq if events else after
    return views, last


def sse(seq: int, data: dict[str, Any]) -> str:
    return f"id: {seq}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def stream(
    store: Store, hub: Hub, table_id: str, token: str | None, after: int
) -> AsyncIterator[str]:
    """Server-Sent Events from the log: everything after ``after``, then each new event.
    Subscribing before reading means a write between the read and the wait still wakes us."""
    with hub.subscribe(table_id) as waiter:
        yield f"retry: {int(RECONNECT * 1000)}\n\n"
        while True:
            waiter.clear()
            try:
                views, after = await anyio.to_thread.run_sync(
                    read_views, store, table_id, token, after
                )
            except ApiError as err:  # revoked while listening: say so and stop
                yield f"event: denied\ndata: {json.dumps(err.to_dict())}\n\n"
                return
            for seq, view in views:
                yield sse(seq, view)
            if len(views) >= BATCH:
                continue
            try:
                await asyncio.wait_for(waiter.wait(), HEARTBEAT)
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
                async for note in conn.notifies():
                    hub.wake(note.payload)
        except psycopg.Error as err:
            log.warning("live updates: lost the PostgreSQL listener (%s); reconnecting", err)
            await asyncio.sleep(RECONNECT)


async def cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with suppress(asyncio.CancelledError):
        await task
