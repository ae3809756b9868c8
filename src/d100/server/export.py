"""The log's export as JSON Lines, streamed: each batch of events read in a short read
transaction of its own (one hop to a thread, in the table's turn), shaped for the viewer and
written before the next is read, so an export holds one batch in memory, never the log (a
10,000-roll log is 13.6 MB: six members exporting it twice took the server from 92 to 280
MB when each was built whole). The export ends at the last event there was when it began.

A member runs one export at a time, a table's players ``AT_ONCE`` between them, and a GM's
always has a place (a ``429`` beyond): a member who starts exports and never reads them
holds their own place, not everyone's. A client that stops reading has ``SEND_SECONDS`` for
each batch before its export is dropped."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import anyio
from sqlalchemy.orm import Session
from starlette.requests import ClientDisconnect
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from .. import chain
from ..chain import hidden_proof, proof, unblinded_content
from .access import SHEET, Viewer, authenticate, view_event
from .errors import ApiError
from .event_kinds import HIDDEN, SheetRevealed, Unblinded
from .events import content_of, events_after, get_table
from .models import Event, Logged
from .store import Store

CHARACTER = "character"  # a character event's key for whose it is
AT_ONCE = 4  # per table, between its players: a member exports to verify, now and then
BATCH = 200  # events a read: a few hundred KB at most
SEND_SECONDS = 30.0  # for each batch to go out to a reader that has stopped reading


@dataclass(frozen=True)
class Place:
    """One export's place: its member's, and a place among its table's players' unless a GM's."""

    table_id: str
    member_id: str
    players: bool


class Exports:
    """The exports running, by member and by table (the event loop's, so plain counts)."""

    def __init__(self, at_once: int = AT_ONCE) -> None:
        self.at_once = at_once
        self._members: set[tuple[str, str]] = set()
        self._players: dict[str, int] = {}

    def take(self, viewer: Viewer) -> Place:
        """A place for one more export by ``viewer``, or the ``429``."""
        place = Place(viewer.table_id, viewer.member_id, not viewer.is_gm)
        if (place.table_id, place.member_id) in self._members:
            raise self._busy(
                "one export of the log at a time for each member",
                "your export of this log is still under way",
            )
        running = self._players.get(place.table_id, 0)
        if place.players and running >= self.at_once:
            raise self._busy(
                f"at most {self.at_once} players' exports of a table's log at once",
                "this table's log is being exported already; try again when that ends",
            )
        self._members.add((place.table_id, place.member_id))
        if place.players:
            self._players[place.table_id] = running + 1
        return place

    @staticmethod
    def _busy(allowed: str, message: str) -> ApiError:
        return ApiError(429, "log.jsonl", None, allowed, message, {"retry-after": "5"})

    def give_back(self, place: Place) -> None:
        self._members.discard((place.table_id, place.member_id))
        if place.players:
            left = self._players[place.table_id] - 1
            if left:
                self._players[place.table_id] = left
            else:
                del self._players[place.table_id]

    @property
    def running(self) -> int:
        return len(self._members)


def last_event(store: Store, table_id: str, token: str | None) -> tuple[Viewer, int]:
    """Authenticates (a 401 before anything streams): who exports, and where it ends."""
    with store.read() as session:
        viewer = authenticate(session, table_id, token)
        return viewer, get_table(session, table_id).last_seq


def batch(
    store: Store, table_id: str, token: str | None, after: int, last: int
) -> tuple[bytes, int]:
    """The JSON Lines of the events after ``after`` up to ``last``, at most ``BATCH``, as the
    token's member may see them now (a member revoked meanwhile gets a 401, ending it), and
    the last number read."""
    with store.read() as session:
        viewer = authenticate(session, table_id, token)
        events = [e for e in events_after(session, table_id, after, BATCH) if e.seq <= last]
        views = [linked(session, table_id, e, view_event(viewer, e), e.seq == last) for e in events]
    text = "".join(json.dumps(view, separators=(",", ":")) + "\n" for view in views)
    return text.encode(), events[-1].seq if events else last


def linked(
    session: Session, table_id: str, event: Logged, view: dict[str, Any], last: bool
) -> dict[str, Any]:
    """An exported event with its link and what its viewer needs to recompute it
    (``d100.chain``): the proof of what the view shows, and, for a blind roll shown, the
    opening of the blind roll's commitment. The export's last event carries the head."""
    if event.link is None or event.secret is None:
        return view  # logged before the chain
    full, key = content_of(event), bytes.fromhex(event.secret)
    if view.get("kind") == HIDDEN:
        shown = hidden_proof(full, event.secret)
    else:
        shown = proof(full, chain.content(view), key)
    links: dict[str, Any] = {"link": event.link, "proof": shown}
    if view.get("kind") == Unblinded.KIND and isinstance(view.get("unblinds"), int):
        blind = session.get(Event, (table_id, view["unblinds"]))
        if blind is not None and blind.secret is not None:
            opened = bytes.fromhex(blind.secret)
            links["opens"] = proof(content_of(blind), unblinded_content(view), opened)
    if view.get("kind") == SheetRevealed.KIND:  # each sheet's commitment opened
        links["opens"] = _sheets_opened(session, table_id, view)
    out = view | {"chain": links}
    if last:
        out["head"] = {"seq": event.seq, "link": event.link}
    return out


def _sheets_opened(session: Session, table_id: str, view: dict[str, Any]) -> dict[str, Any]:
    """For each sheet a reveal shows, the proof that the event which kept it committed to
    it: of that event's character and sheet, its other fields' bare digests."""
    out = {}
    for shown in view.get("sheets", ()):
        kept = session.get(Event, (table_id, shown["seq"]))
        if kept is not None and kept.secret is not None:
            opened = {k: kept.data[k] for k in (CHARACTER, SHEET)}
            out[str(kept.seq)] = proof(content_of(kept), opened, bytes.fromhex(kept.secret))
    return out


class LogExport(StreamingResponse):
    """The streamed export; gives its table's place back however it ends."""

    def __init__(
        self,
        store: Store,
        exports: Exports,
        place: Place,
        token: str | None,
        last: int,
    ) -> None:
        self._done: Callable[[], None] = lambda: exports.give_back(place)
        table_id = place.table_id
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
