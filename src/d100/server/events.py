"""The append-only log: every change at a table is an event with the next number.

Writers lock the table's row first (``lock_table``), so events of one table are numbered and
committed in the same order: a reader that has seen event n has seen every event before it,
and resuming "after n" neither skips nor repeats one.
"""

from __future__ import annotations

import os
import secrets
from contextvars import ContextVar
from typing import Any

from sqlalchemy import bindparam, func, insert, select, text
from sqlalchemy.orm import Session

from ..chain import GENESIS, new_secret, seal
from .access import Decision, Viewer, decide, shape, view_event
from .errors import ApiError, not_found
from .event_kinds import Contest, DeclaredRoll, DeclaredUnblinded, Entry, Roll, Unblinded
from .models import ChannelPost, DiscordChannel, Event, GameTable, Logged
from .store import APPENDED, MIRROR, MOST_EVENTS, POSTED, touch, write_columns
from .tokens import now

# A follow-up is decided on seeing the result: one further back than this many events is
# refused, which also bounds the search for one already taken; the table's state says it, so
# a page offers none past it.
FOLLOW_UP_WINDOW = 200
# The kinds a table's Discord channel is sent when they are made through another door; the
# door a request came in by: the Discord one answers in the channel itself.
MIRRORED = frozenset(
    {Roll.KIND, Contest.KIND, Unblinded.KIND, DeclaredRoll.KIND, DeclaredUnblinded.KIND}
)
DISCORD = "discord"
DOOR: ContextVar[str] = ContextVar("d100_door", default="web")
_CHANNEL_OF = select(DiscordChannel.channel_id).where(
    DiscordChannel.table_id == bindparam("table_id")
)
_POST = insert(ChannelPost)
CHANNEL = "d100_events"  # PostgreSQL NOTIFY channel; the payload is ORIGIN:table id
# This server process, in its NOTIFYs (``origin()``): it wakes its own streams at commit
# already, so its listener skips its own (each roll read the log twice in the process that
# made it). With the process id: processes forked after import must not share it.
_ORIGIN = secrets.token_hex(8)
LOCKED = "d100_locked"  # session.info: (transaction, {table id: row locked in it})
# Built once: a statement keeps its SQL cache key, so each request only binds the id.
_TABLE = select(GameTable).where(GameTable.id == bindparam("table_id"))
_TABLE_LOCKED = _TABLE.with_for_update()
# PostgreSQL: the lock and the NOTIFY in one statement (one round trip, not two).
_TABLE_LOCKED_ANNOUNCED = (
    select(GameTable, func.pg_notify(CHANNEL, bindparam("payload")))
    .where(GameTable.id == bindparam("table_id"))
    .with_for_update(of=GameTable)
)
_INSERT = insert(Event)


def get_table(session: Session, table_id: str, lock: bool = False) -> GameTable:
    table = session.scalars(_TABLE_LOCKED if lock else _TABLE, {"table_id": table_id}).first()
    if table is None:
        raise not_found("table_id", table_id, "table")
    return table


def lock_table(session: Session, table_id: str) -> GameTable:
    """The table, locked until commit: every write at a table starts here.

    Asked again within the same transaction (a roll with an ``Idempotency-Key`` locks before
    looking the key up, then the roll locks), the row already locked is returned without
    another query: nothing else can change it until this transaction ends.

    The table is announced (``announce``) as the lock is taken: a write that locks a table
    appends to its log, and a NOTIFY is only delivered at commit anyway, so on PostgreSQL the
    lock's own statement sends it (no round trip of its own inside the time other writers
    wait on the lock). A write that locks and then appends nothing (a replayed roll) wakes
    streams that find nothing new."""
    held = session.info.get(LOCKED)
    transaction = session.get_transaction()
    if held is not None and transaction is not None and held[0] is transaction:
        known: GameTable | None = held[1].get(table_id)
        if known is not None:
            return known
    if _postgres(session) and touch(session, table_id):
        params = {"table_id": table_id, "payload": payload(table_id)}
        found = session.execute(_TABLE_LOCKED_ANNOUNCED, params).first()
        if found is None:
            raise not_found("table_id", table_id, "table")
        table: GameTable = found[0]
    else:
        announce(session, table_id)
        table = get_table(session, table_id, lock=True)
    transaction = session.get_transaction()
    if held is None or held[0] is not transaction:
        rows: dict[str, GameTable] = {}
        session.info[LOCKED] = held = (transaction, rows)
    held[1][table_id] = table
    return table


def append(session: Session, table: GameTable, event: Entry, flush: bool = True) -> Event:
    """The next event of ``table``, written at once as a plain row: the log is append-only,
    so the ORM's unit of work never has to track it. ``flush`` first writes the rows pending
    in the transaction (the event may refer to one: a new table's first event needs its
    table); a caller with nothing of the kind pending saves that flush. The event is
    committed, or rolled back, with the rest of the transaction all the same."""
    seq = table.last_seq + 1
    most = session.info.get(MOST_EVENTS)
    if most is not None and seq > most:  # the quota: a table's log is read only once full
        raise ApiError(
            409,
            "events",
            most,
            f"at most {most} events in a table's log (D100_EVENTS_PER_TABLE)",
            "this table's log is full: export it and open a new table to play on",
        )
    kind = event.KIND
    row: dict[str, Any] = {
        "table_id": table.id,
        "seq": seq,
        "kind": kind,
        "visibility": event.visibility,
        "actor_id": event.actor_id,
        "data": event.data(),
        "created_at": now(),
        "audience": event.audience,
    }
    # The link is made under the table's lock, like the number: two appends at a table never
    # both extend the same link. A table whose log began before the chain starts it here.
    secret = new_secret()
    link = seal(seq, table.last_link or GENESIS, content_of(row), secret)
    row |= {"link": link, "secret": secret}
    if flush:
        session.flush()
    connection = session.connection()
    connection.execute(_INSERT, row)
    if kind in MIRRORED and session.info.get(MIRROR) and DOOR.get() != DISCORD:
        channel = connection.execute(_CHANNEL_OF, {"table_id": table.id}).scalar()
        if channel is not None:
            connection.execute(_POST, {"table_id": table.id, "seq": seq, "channel_id": channel})
            session.info[POSTED] = True
    write_columns(session, table, last_seq=seq, last_link=link)
    announce(session, table.id)
    made = Event(**row)  # not in the session: the row is written, the object only tells it
    # handed at commit to this process's streams of the table, as written: none reads it back
    session.info.setdefault(APPENDED, {}).setdefault(table.id, []).append(Appended(made, event))
    return made


class Appended:
    """An event as ``append`` wrote it (its row and its model) and its views, each with the
    log's head (``headed``), by decision: the writer's answer and every stream of this process
    whose viewer has the same decision share one view, made once from the model made once.
    A view is shared, so never changed in place."""

    __slots__ = ("_views", "event", "model")

    def __init__(self, event: Event, model: Entry) -> None:
        self.event, self.model = event, model
        self._views: dict[Decision, dict[str, Any]] = {}

    def decide(self, viewer: Viewer) -> Decision:
        return decide(viewer, self.event, self.model)

    def view(self, decision: Decision) -> dict[str, Any]:
        view = self._views.get(decision)
        if view is None:
            view = self._views[decision] = headed(shape(self.event, decision), self.event)
        return view


def answer_view(session: Session, viewer: Viewer, event: Event) -> dict[str, Any]:
    """The event as ``viewer`` sees it, with the head: for one this transaction appended, the
    view its table's streams in this process share (``Appended``); for another (a replayed
    answer, read back), made afresh."""
    made: list[Appended] = session.info.get(APPENDED, {}).get(event.table_id, [])
    for appended in reversed(made):
        if appended.event is event:
            return appended.view(appended.decide(viewer))
    return headed(view_event(viewer, event), event)


def content_of(event: dict[str, Any] | Event | Logged) -> dict[str, Any]:
    """What the chain binds of an event: what its fullest view shows (``access.shape``)."""
    if isinstance(event, dict):
        kind, visibility, actor, at, data = (
            event[k] for k in ("kind", "visibility", "actor_id", "created_at", "data")
        )
    else:
        kind, visibility, actor = event.kind, event.visibility, event.actor_id
        at, data = event.created_at, event.data
    return {"kind": kind, "visibility": visibility, "actor_id": actor, "at": at, **data}


def headed(view: dict[str, Any], event: Event | Logged) -> dict[str, Any]:
    """A view with the log's head after its event (a roll's answer, a stream's event): kept by
    its member, it lets ``d100 verify --head`` tell a later export that rewrote the log."""
    if event.link is None:
        return view
    return view | {"head": {"seq": event.seq, "link": event.link}}


def announce(session: Session, table_id: str) -> None:
    """Wake the table's live streams once this transaction commits: this process's through
    ``touch``, every other's through one NOTIFY per table and transaction."""
    if touch(session, table_id) and _postgres(session):
        # Delivered to every listening server process when (and only if) this commits.
        session.execute(
            text("SELECT pg_notify(:channel, :payload)"),
            {"channel": CHANNEL, "payload": payload(table_id)},
        )


def origin() -> str:
    return f"{_ORIGIN}-{os.getpid()}"


def payload(table_id: str) -> str:
    return f"{origin()}:{table_id}"


def _postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


_LOGGED = (
    select(
        Event.seq,
        Event.kind,
        Event.visibility,
        Event.actor_id,
        Event.data,
        Event.created_at,
        Event.audience,
        Event.link,
        Event.secret,
    )
    .where(Event.table_id == bindparam("table_id"), Event.seq > bindparam("after"))
    .order_by(Event.seq)
    .limit(bindparam("limit"))
)


def events_after(session: Session, table_id: str, seq: int, limit: int = 500) -> list[Logged]:
    """The next events after number ``seq``, oldest first, as plain rows: read on every
    commit for the live streams, so without the ORM's bookkeeping."""
    found = session.connection().execute(
        _LOGGED, {"table_id": table_id, "after": seq, "limit": limit}
    )
    return [Logged(*row) for row in found]
