"""The log's export as JSON Lines, streamed: each batch of events read in a short read
transaction of its own (one hop to a thread, in the table's turn), shaped for the viewer and
written before the next is read, so an export holds one batch in memory, never the log (a
10,000-roll log is 13.6 MB: six members exporting it twice took the server from 92 to 280
MB when each was built whole). The export ends at the last event there was when it began.

A table runs at most ``AT_ONCE`` exports at a time (a ``429`` beyond), and a client that
stops reading has ``SEND_SECONDS`` for each batch before its export is dropped: an export
waiting on a reader holds its place, nothing more."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.requests import ClientDisconnect
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from .access import authenticate, view_event
from .errors import ApiError
from .events import events_after, get_table
from .store import Store

AT_ONCE = 2  # per table: a member exports to verify, now and then
BATCH = 200  # events a read: a few hundred KB at most
SEND_SECONDS = 30.0  # for each batch to go out to a reader that has stopped reading


class Exports:
    """How many exports each table has running (the event loop's, so plain counts)."""

    def __init__(self, at_once: int = AT_ONCE) -> None:
        self.at_once = at_once
        self._running: dict[str, int] = {}

    def take(self, table_id: str) -> None:
        """A place for one more export of ``table_id``, or the ``429``."""
        running = self._running.get(table_id, 0)
        if running >= self.at_once:
            raise ApiError(
                429,
                "log.jsonl",
                None,
                f"at most {self.at_once} exports of a table's log at once",
                "this table's log is being exported already; try again when that ends",
                {"retry-after": "5"},
            )
        self._running[table_id] = running + 1

    def give_back(self, table_id: str) -> None:
        left = self._running[table_id] - 1
        if left:
            self._running[table_id] = left
        else:
            del self._running[table_id]


def last_event(store: Store, table_id: str, token: str | None) -> int:
    """Authenticates (a 401 before anything streams) and says where the export ends."""
    with store.read() as session:
        authenticate(session, table_id, token)
        return get_table(session, table_id).last_seq


def batch(
    store: Store, table_id: str, token: str | None, after: int, last: int
) -> tuple[bytes, int]:
    """The JSON Lines of the events after ``after`` up to ``last``, at most ``BATCH``, as the
    token's member may see them now (a member revoked meanwhile gets a 401, ending it), and
    the last number read."""
    with store.read() as session:
        viewer = authenticate(session, table_id, token)
        events = [e for e in events_after(session, table_id, after, BATCH) if e.seq <= last]
    text = "".join(json.dumps(view_event(viewer, e), separators=(",", ":")) + "\n" for e in events)
    return text.encode(), events[-1].seq if events else last


class LogExport(StreamingResponse):
    """The streamed export; gives its table's place back however it ends."""

    def __init__(
        self,
        store: Store,
        exports: Exports,
        table_id: str,
        token: str | None,
        last: int,
    ) -> None:
        self._done: Callable[[], None] = lambda: exports.give_back(table_id)
        super().__init__(
            _lines(store, table_id, token, last),
            media_type="application/jsonl",
            headers={"content-disposition": f'attachment; filename="d100-{table_id}.jsonl"'},
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def timed(message: Any) -> None:
            async with asyncio.timeout(SEND_SECONDS):
                await send(message)

        try:
            await super().__call__(scope, receive, timed)
        except (TimeoutError, ClientDisconnect):  # Starlette reads a timeout as the latter
            pass  # the answer is left unfinished: the server closes its connection
        finally:
            self._done()


async def _lines(store: Store, table_id: str, token: str | None, last: int) -> AsyncIterator[bytes]:
    # The request holds its place of its table's threads until the answer is sent (the guard's),
    # so each batch's read runs in it.
    after = 0
    while after < last:
        try:
            chunk, after = await anyio.to_thread.run_sync(
                batch, store, table_id, token, after, last
            )
        except ApiError:
            return  # revoked meanwhile: the export stops where it was
        if chunk:
            yield chunk
