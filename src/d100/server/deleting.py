"""A table deleted by its GM: its log, members (so every token and the invite), characters,
seeds, calls and Discord bindings, in one transaction under the table's lock. Its streams
are told as a revoked member's are (``live``): each reads the log, is refused and closes, in
this process and, through the lock's NOTIFY, in every other on the same PostgreSQL.

What it opened stays counted (``quotas.Openings``): deleting gives no table back."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from .access import Viewer, require_gm
from .events import lock_table
from .models import (
    BlindRoll,
    Call,
    CallAssist,
    CallTarget,
    ChannelPost,
    Character,
    DiscordChannel,
    DiscordMember,
    Event,
    GameTable,
    IdempotencyKey,
    Member,
    SeedSession,
)
from .store import RESEATED

# Every row a table holds, each kind before the rows it refers to.
OWNED = (
    IdempotencyKey,
    BlindRoll,
    Event,
    Call,
    Character,
    SeedSession,
    ChannelPost,
    DiscordChannel,
    DiscordMember,
    Member,
)


def delete_table(session: Session, viewer: Viewer) -> str:
    """Delete the viewer's table (its GM only) and all it holds; its name, for the answer."""
    require_gm(viewer, "delete the table")
    table = lock_table(session, viewer.table_id)
    name = table.name
    # its members go: its streams check their tokens again, and find none
    session.info.setdefault(RESEATED, set()).add(table.id)
    calls = select(Call.id).where(Call.table_id == table.id)
    targets = select(CallTarget.id).where(CallTarget.call_id.in_(calls))
    statements = [
        delete(CallAssist).where(CallAssist.target_id.in_(targets)),
        delete(CallTarget).where(CallTarget.call_id.in_(calls)),
        *(delete(model).where(model.table_id == table.id) for model in OWNED),
        delete(GameTable).where(GameTable.id == table.id),
    ]
    for statement in statements:
        session.execute(statement, execution_options={"synchronize_session": False})
    session.expunge_all()  # the rows loaded are gone: none is written back at commit
    return name
