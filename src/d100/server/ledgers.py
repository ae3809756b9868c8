"""The luck ledger at a table: the log read as one viewer sees it, a batch at a time, each
event through the very function its export goes through (``access.view_event``), so a ledger
and that viewer's export can never disagree; then the library's ledger (``d100.ledger``) and
its card (``render.ledger_views``), which the page and Discord format.

A ledger counts only what its viewer sees. An event hidden from them (a stub) is left out
without a word: that it happened is the log's numbering's to tell, and a ledger that listed
it would tell a player when the GM rolls in secret; so a player's ledger is the same before
and after the GM's secret rolls, whoever they were for. Each event is kept only by the parts
the ledger reads, so a long log costs a few small objects an event, and the counting itself
runs on the worker pool (at most ``MAX_ROLLS`` rolls a ledger, as the library's)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from sqlalchemy.orm import Session

from ..errors import D100Error
from ..ledger import Ledger, Window, ledger
from ..render.ledger_views import ledger_card
from . import characters
from .access import Viewer, authenticate, view_event
from .errors import ApiError
from .event_kinds import HIDDEN
from .events import events_after, get_table
from .export import BATCH
from .models import Logged
from .store import Store

AT_ONCE = 4  # ledgers a table's players read at once (a GM's always has a place)


class Readings:
    """The ledgers being read, by member and by table (the event loop's, so plain counts):
    each reads the whole log, as an export does, so a member reads one at a time and a
    table's players ``AT_ONCE`` between them (a ``429`` beyond)."""

    def __init__(self, at_once: int = AT_ONCE) -> None:
        self.at_once = at_once
        self._members: set[tuple[str, str]] = set()
        self._players: dict[str, int] = {}

    @contextmanager
    def place(self, viewer: Viewer) -> Iterator[None]:
        member, table = (viewer.table_id, viewer.member_id), viewer.table_id
        if member in self._members:
            raise self._busy(
                "one ledger at a time for each member", "your last ledger is still being read"
            )
        players = 0 if viewer.is_gm else self._players.get(table, 0)
        if players >= self.at_once:
            raise self._busy(
                f"at most {self.at_once} players' ledgers of a table at once",
                "this table's log is being read for other ledgers; try again in a moment",
            )
        self._members.add(member)
        if not viewer.is_gm:
            self._players[table] = players + 1
        try:
            yield
        finally:
            self._members.discard(member)
            if not viewer.is_gm:
                left = self._players[table] - 1
                if left:
                    self._players[table] = left
                else:
                    del self._players[table]

    @staticmethod
    def _busy(allowed: str, message: str) -> ApiError:
        return ApiError(429, "ledger", None, allowed, message, {"retry-after": "2"})


def viewer_of_token(store: Store, table_id: str, token: str | None) -> Viewer:
    """Who asks (a 401 before anything is read)."""
    with store.read() as session:
        return authenticate(session, table_id, token)


# What the ledger reads of an event, and of its parts: nothing else is kept.
KEPT = ("seq", "kind", "at", "hidden", "manual", "unblinds", "rolled_at", "roll_kind")
PARTS = {
    "character": ("id", "name", "member_id"),
    "result": ("system", "level", "success"),
    "odds": ("levels", "success"),
    "gm": ("id", "name"),
    "member": ("id", "name"),
}


def kept(view: Mapping[str, Any]) -> dict[str, Any]:
    """An event's view cut to what the ledger reads (an odds of ``None`` stays: no dice)."""
    out = {k: view[k] for k in KEPT if k in view}
    for part, keys in PARTS.items():
        if part in view:
            value = view[part]
            out[part] = (
                {k: value[k] for k in keys if k in value} if isinstance(value, Mapping) else value
            )
    return out


def seen(viewer: Viewer, events: list[Logged]) -> list[dict[str, Any]]:
    """The events as ``viewer`` sees them, stubs left out, each cut to what the ledger reads."""
    views = (view_event(viewer, e) for e in events)
    return [kept(v) for v in views if v.get("kind") != HIDDEN]


def read(
    store: Store, table_id: str, token: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The log up to its last event now, as the token's member sees it, a batch a read
    transaction (a member revoked meanwhile gets a 401), and the characters they may name."""
    with store.read() as session:
        viewer = authenticate(session, table_id, token)
        last = get_table(session, table_id).last_seq
        names = named(session, viewer)
    out: list[dict[str, Any]] = []
    after = 0
    while after < last:
        with store.read() as session:
            viewer = authenticate(session, table_id, token)
            batch = [e for e in events_after(session, table_id, after, BATCH) if e.seq <= last]
            out += seen(viewer, batch)
        after = batch[-1].seq if batch else last
    return out, names


def read_as(session: Session, viewer: Viewer) -> list[dict[str, Any]]:
    """The whole log as ``viewer`` sees it, in one session (Discord's, whose viewer is not a
    token's), a batch at a time."""
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        batch = list(events_after(session, viewer.table_id, after, BATCH))
        if not batch:
            return out
        out += seen(viewer, batch)
        after = batch[-1].seq


def named(session: Session, viewer: Viewer) -> list[dict[str, Any]]:
    """The table's characters as the viewer's page lists them: who they are and whose."""
    shown = characters.visible(session, viewer)
    return [{k: c[k] for k in ("id", "name", "member_id")} for c in shown]


def book(
    events: list[dict[str, Any]],
    names: list[dict[str, Any]],
    character: str | None,
    member: str | None,
    last: int | None,
) -> Ledger:
    """The ledger of ``character`` (id or name), ``member`` (id or name) or the table. A
    character of the table the log shows no counted roll of has an empty ledger, not a
    refusal: the page asks for each character."""
    window = Window(last=last)
    try:
        return ledger(events, character, member, window)
    except D100Error as err:
        found = next((c for c in names if character in (c["id"], c["name"])), None)
        if err.field != "character" or found is None:
            raise
        return replace(ledger([], None, None, window), character=str(found["name"]))


def answer(
    events: list[dict[str, Any]],
    names: list[dict[str, Any]],
    character: str | None,
    member: str | None,
    last: int | None,
) -> dict[str, Any]:
    """The ledger's numbers, exactly, and its card (``view``): on a worker, as plain data."""
    found = book(events, names, character, member, last)
    named = next((c["name"] for c in names if c["id"] == character), None)
    return found.to_dict() | {"view": ledger_card(found, named).to_dict()}
