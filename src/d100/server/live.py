"""Live updates: the writer hands each committed event to its table's streams in this
process, and each stream sends it as its viewer may see it; the log is read from the database
only to catch up.

A stream's viewer is checked as it opens and again whenever its table's members change (a
write that changes a member row hands no events: the streams read the log, which checks every
token). A stream gives its events in the log's order, each once: one it is handed out of turn
(two writers' hand-overs cross), or more than it keeps waiting, makes it read from the
database after the last it gave, as a reconnect (``Last-Event-ID``) does. Several server
processes on one PostgreSQL stay consistent: each LISTENs on the channel that writers NOTIFY
within their transaction (delivered only when it commits), and another's notification makes
the table's streams read the log.
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

from .access import Decision, Viewer, authenticate_all, decide, shape
from .errors import ApiError, unauthorised
from .event_kinds import read
from .events import CHANNEL, Appended, events_after, headed, origin
from .store import Store

# Seconds: a comment line keeps proxies from closing an idle stream. It reads nothing: a
# stream reads the log only when it must catch up, as re-reading on every heartbeat made a
# thousand idle streams, opened together, read it a thousand times at once every 15 s.
HEARTBEAT = 15.0
STREAMS_PER_MEMBER = 8  # a member's open streams: a few tabs and devices, not a flood
RECONNECT = 1.0
BATCH = 200  # events read at a time; as many handed to a stream not sending makes it read
SWEEP = 64  # members in the streams map before it is first swept of those with none open
log = logging.getLogger("d100.server")
Views = tuple[list[tuple[int, dict[str, Any]]], int]  # (number, view) of each event, the last read
Read = tuple[Views, Viewer]  # a token's views and the viewer it was found to be
Texts = tuple[list[str], int, Viewer]  # each event's Server-Sent Event, the last read, the viewer


class Published:
    """A committed event as its writer handed it over (``events.Appended``: its row, its
    model and its views, the writer's answer's among them), and its text for each decision,
    made once for all the streams that share it."""

    __slots__ = ("_texts", "appended", "event")

    def __init__(self, appended: Appended) -> None:
        self.appended, self.event = appended, appended.event
        self._texts: dict[Decision, str] = {}

    def text_for(self, viewer: Viewer) -> str:
        decision = self.appended.decide(viewer)
        text = self._texts.get(decision)
        if text is None:
            view = self.appended.view(decision)
            text = self._texts[decision] = sse(self.event.seq, view)
        return text


class Listener:
    """One stream's place at its table: the last event it gave, the viewer it gives them to,
    the events handed to it since, and whether it must read the log from the database (as it
    opens, at a gap, after a change of the table's members)."""

    __slots__ = ("after", "beaten", "inbox", "stale", "viewer", "woken")

    def __init__(self, after: int) -> None:
        self.after = after
        self.viewer: Viewer | None = None
        self.inbox: list[Published] = []
        self.stale = True
        self.woken = asyncio.Event()
        self.beaten = False  # a heartbeat is due

    @contextmanager
    def beating(self, waits: Iterator[float]) -> Iterator[None]:
        """Wake the stream for a heartbeat after each of ``waits``, by a timer of the loop's:
        a wait with a timeout (``asyncio.wait_for``) made a task and two futures for each
        event each stream sent."""
        loop = asyncio.get_running_loop()
        timer: asyncio.TimerHandle | None = None

        def beat() -> None:
            nonlocal timer
            self.beaten = True
            self.woken.set()
            timer = loop.call_later(next(waits), beat)

        timer = loop.call_later(next(waits), beat)
        try:
            yield
        finally:
            timer.cancel()

    def hand(self, published: Sequence[Published] | None) -> None:
        if published is None or len(self.inbox) + len(published) > BATCH:
            self.inbox.clear()  # whatever it held is in the log, read from there
            self.stale = True
        else:
            self.inbox.extend(published)
        self.woken.set()

    def take(self) -> list[str]:
        """The texts of the events handed to it that come next, in order; at a gap it stops
        and is stale (what it held is committed: the read finds it)."""
        inbox, self.inbox = self.inbox, []
        texts: list[str] = []
        for published in inbox:
            seq = published.event.seq
            if seq <= self.after:  # read from the database already
                continue
            if seq != self.after + 1 or self.viewer is None:
                self.stale = True
                break
            texts.append(published.text_for(self.viewer))
            self.after = seq
        return texts


class Hub:
    def __init__(self) -> None:
        self._listeners: dict[str, set[Listener]] = {}
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

    def committed(self, table_id: str, events: list[Appended] | None) -> None:
        """A write at the table committed these events (None: its streams read the log).
        Safe from any thread (writes commit in worker threads)."""
        if (events is None or events) and self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._hand, table_id, events)

    def wake(self, table_id: str) -> None:
        """The table's log grew elsewhere (another process): its streams read it."""
        self.committed(table_id, None)

    def wake_all(self) -> None:
        for table_id in list(self._listeners):
            self._hand(table_id, None)

    def _hand(self, table_id: str, events: list[Appended] | None) -> None:
        listeners = self._listeners.get(table_id)
        if not listeners:
            return
        published = None if events is None else [Published(e) for e in events]
        for listener in listeners:
            listener.hand(published)

    async def read(self, store: Store, table_id: str, token: str | None, after: int) -> Texts:
        """``read_views`` as Server-Sent Events, shared: the streams of a table that ask
        before the read starts (a reconnect, another process's event: all of them, in this
        loop tick) get their events from one worker-thread call and one transaction, not one
        each, and each view serialised once, however many streams share it."""
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
            (events, last), viewer = views
            for seq, view in events:
                if id(view) not in texts:
                    texts[id(view)] = sse(seq, view)
            future.set_result(([texts[id(view)] for _, view in events], last, viewer))

    @contextmanager
    def subscribe(self, table_id: str, listener: Listener) -> Iterator[Listener]:
        self._listeners.setdefault(table_id, set()).add(listener)
        try:
            yield listener
        finally:
            self._listeners[table_id].discard(listener)
            if not self._listeners[table_id]:
                del self._listeners[table_id]


def read_views(store: Store, table_id: str, token: str | None, after: int) -> Views:
    """The next events after ``after`` as this token may see them (a stub for one it may not
    see, so a page always moves on), and the last number read."""
    (found,) = read_all_views(store, table_id, [(token, after)])
    if isinstance(found, ApiError):
        raise found
    return found[0]


def read_all_views(
    store: Store, table_id: str, asks: Sequence[tuple[str | None, int]]
) -> list[Read | ApiError]:
    """``read_views`` for each (token, after) of ``asks``, in one transaction: one query for
    the members, one for each distinct ``after`` (the streams one wake-up sends here were all
    at the same place, as a rule). A token refused gets its error, the others their views and
    viewers."""
    with store.read() as session:
        viewers = authenticate_all(session, table_id, [token for token, _ in asks])
        wanted = {after for (_, after), v in zip(asks, viewers, strict=True) if v is not None}
        logs = {after: events_after(session, table_id, after, BATCH) for after in wanted}
    # each event read as its model once, whoever sees it
    models = {event.seq: read(event) for events in logs.values() for event in events}
    shaped: dict[Decision, dict[str, Any]] = {}  # one view per event and decision, shared
    out: list[Read | ApiError] = []
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
        out.append(((views, events[-1].seq if events else after), viewer))
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
    Subscribing before reading means an event committed meanwhile is handed to it all the
    same (or found by the read, and then skipped as given)."""
    with hub.subscribe(table_id, Listener(after)) as listener, listener.beating(beats(phase())):
        yield f"retry: {int(RECONNECT * 1000)}\n\n"
        while True:
            listener.woken.clear()
            if listener.stale:
                listener.stale = False
                try:
                    texts, last, viewer = await hub.read(store, table_id, token, listener.after)
                except ApiError as err:  # revoked while listening: say so and stop
                    yield f"event: denied\ndata: {json.dumps(err.to_dict())}\n\n"
                    return
                listener.after, listener.viewer = last, viewer
                for text in texts:
                    yield text
                if len(texts) >= BATCH:
                    listener.stale = True
                    continue
            for text in listener.take():
                yield text
            if listener.stale:
                continue
            await listener.woken.wait()
            if listener.beaten:
                listener.beaten = False
                yield ": still here\n\n"


def pg_conninfo(url: URL) -> str:
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


async def listen(url: URL, hub: Hub) -> None:
    """Send local streams to the log on every NOTIFY from another server process; reconnect
    on failure (and send every stream then, in case a notification was lost in between)."""
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(pg_conninfo(url), autocommit=True)
            async with conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                hub.wake_all()
                mine = origin()
                async for note in conn.notifies():
                    sender, _, table_id = note.payload.rpartition(":")
                    if sender != mine:  # this process handed its own streams their events
                        hub.wake(table_id)
        except psycopg.Error as err:
            log.warning("live updates: lost the PostgreSQL listener (%s); reconnecting", err)
            await asyncio.sleep(RECONNECT)


async def cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with suppress(asyncio.CancelledError):
        await task
