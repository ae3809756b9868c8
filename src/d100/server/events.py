"""The append-only log: every change at a table is an event with the next number.

Writers lock the table's row first (``lock_table``), so events of one table are numbered and
committed in the same order: a reader that has seen event n has seen every event before it,
and resuming "after n" neither skips nor repeats one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from .errors import not_found
from .models import Event, GameTable
from .store import touch
from .tokens import now

CHANNEL = "d100_events"  # PostgreSQL NOTIFY channel; the payload is the table id


def get_table(session: Session, table_id: str, lock: bool = False) -> GameTable:
    query = select(GameTable).where(GameTable.id == table_id)
    table = session.scalars(query.with_for_update() if lock else query).first()
    if table is None:
        raise not_found("table_id", table_id, "table")
    return table


def lock_table(session: Session, table_id: str) -> GameTable:
    """The table, locked until commit: every write at a table starts here."""
    return get_table(session, table_id, lock=True)


def append(
    session: Session,
    table: GameTable,
    kind: str,
    data: dict[str, Any],
    visibility: str = "public",
    actor_id: str | None = None,
) -> Event:
    table.last_seq += 1
    event = Event(
        table_id=table.id,
        seq=table.last_seq,
        kind=kind,
        visibility=visibility,
        actor_id=actor_id,
        data=data,
        created_at=now(),
    )
    session.add(event)
    session.flush()
    touch(session, table.id)
    if session.get_bind().dialect.name == "postgresql":
        # Delivered to every listening server process when (and only if) this commits.
        session.execute(
            text("SELECT pg_notify(:channel, :table)"), {"channel": CHANNEL, "table": table.id}
        )
    return event


def events_after(session: Session, table_id: str, seq: int, limit: int = 500) -> Sequence[Event]:
    query = (
        select(Event)
        .where(Event.table_id == table_id, Event.seq > seq)
        .order_by(Event.seq)
        .limit(limit)
    )
    return session.scalars(query).all()
