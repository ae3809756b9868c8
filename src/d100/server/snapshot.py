"""What a member sees of a table right now; the live log says when to look again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from . import characters, flow
from .access import Viewer, view_event
from .events import events_after, get_table
from .gametables import member_view, seed_view, table_view
from .models import Member, SeedSession


def snapshot(session: Session, viewer: Viewer) -> dict[str, Any]:
    table = get_table(session, viewer.table_id)
    members = session.scalars(
        select(Member).where(Member.table_id == table.id).order_by(Member.created_at)
    ).all()
    seeds = session.scalars(
        select(SeedSession)
        .where(SeedSession.table_id == table.id)
        .order_by(SeedSession.created_at, SeedSession.blind)
    ).all()
    me = next(m for m in members if m.id == viewer.member_id)
    return {
        "table": table_view(table),
        "me": member_view(me),
        "members": [member_view(m) for m in members],
        "characters": characters.visible(session, viewer),
        "calls": flow.recent_calls(session, viewer),
        "seeds": [seed_view(s, viewer) for s in seeds],
    }


def log_views(session: Session, viewer: Viewer, after: int = 0) -> Iterator[dict[str, Any]]:
    """Every event after ``after`` as this viewer may see it (a stub where it may not), oldest
    first."""
    while True:
        events = events_after(session, viewer.table_id, after)
        if not events:
            return
        for event in events:
            yield view_event(viewer, event)
        after = events[-1].seq
