"""One table, two doors: a roll or a contest made at a channel's table through the web page
or the API is posted to the channel, as the channel sees it (a plain player's view: an NPC
by name and level, a secret roll as "Someone rolled in secret").

``events.append`` writes each such event's post as a row in the event's own transaction, so
an acknowledged roll's post survives a crash between its commit and Discord. The sender takes
rows under a lease (any number of processes on one database: each row goes to one of them at
a time), posts each through the outbox (Discord's rate limits honoured), and deletes it once
Discord has it or has refused it for good; a row whose post failed on Discord's side is
taken again when its lease ends, a few times at most. A follow-up taken on the page disables
the buttons of the Discord message that offered it, where this process sent that message
(``Outbox.offered``); elsewhere its first click is answered "Already used" and disables them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select, update

from ..server.access import view_event, viewer_of
from ..server.events import headed
from ..server.models import ChannelPost, Event, Member
from ..server.store import Store
from .outbox import Outbox, channel_post
from .play import channel, roll_view, roller_name, secret_stub

LEASE = 120.0  # seconds a sender holds the rows it took: longer than the outbox's retries
BATCH = 10
# seconds between looks when nothing is due: this process's own posts wake it at commit,
# another process's are found so
IDLE = 1.0
TRIES = 5  # takes of one row before its post is given up
log = logging.getLogger("d100.discord")


@dataclass(frozen=True)
class Due:
    id: int
    table_id: str
    seq: int
    channel_id: str
    tries: int


def take(store: Store, at: float, batch: int = BATCH, lease: float = LEASE) -> list[Due]:
    """Rows no sender holds, oldest first, now held by this one until ``at + lease``."""
    due = select(ChannelPost.id).where(ChannelPost.lease_until < at)
    with store.read() as session:  # a look first: a write (SQLite's one writer) only for some
        if session.execute(due.limit(1)).first() is None:
            return []
    free = (
        due.order_by(ChannelPost.id)
        .limit(batch)
        .with_for_update(skip_locked=True)  # another process's take passes these by
    )
    held = (
        update(ChannelPost)
        .where(ChannelPost.id.in_(free.scalar_subquery()))
        .values(lease_until=at + lease, tries=ChannelPost.tries + 1)
        .returning(
            ChannelPost.id,
            ChannelPost.table_id,
            ChannelPost.seq,
            ChannelPost.channel_id,
            ChannelPost.tries,
        )
    )
    with store.write() as session:
        rows = session.execute(held).all()
    return sorted((Due(*row) for row in rows), key=lambda d: d.id)


def done(store: Store, due: Due) -> None:
    with store.write() as session:
        session.execute(delete(ChannelPost).where(ChannelPost.id == due.id))


def body_of(store: Store, due: Due) -> tuple[dict[str, Any] | None, int | None]:
    """The channel's message for the event (None: the channel is sent nothing of it), and
    the roll it follows up, if it is a follow-up (whose offering message is then out of
    date)."""
    with store.read() as session:
        event = session.get(Event, (due.table_id, due.seq))
        actor = None if event is None else session.get(Member, event.actor_id)
        if event is None or actor is None:
            return None, None
        follows = event.data.get("reroll_of") if event.kind == "roll" else None
        # the channel is a plain player of the actor's table (whose GMs say what is an NPC)
        view = headed(view_event(channel(viewer_of(session, actor)), event), event)
        if view.get("kind") == "hidden":
            seen = {"seq": event.seq, "visibility": event.visibility}
            return secret_stub("Someone rolled in secret.", due.table_id, seen), follows
        return roll_view(roller_name(session, event, view), view, False, due.table_id), follows


async def send_due(store: Store, outbox: Outbox, clock: Callable[[], float] = time.time) -> int:
    """Post what is due now; how many rows were taken."""
    taken = await asyncio.to_thread(take, store, clock())
    for due in taken:
        body, follows = await asyncio.to_thread(body_of, store, due)
        # a follow-up taken on the page: the message that offered it, if this process sent
        # it, has its buttons disabled (elsewhere, a click on one is answered "Already used")
        used = None if follows is None else outbox.taken((due.table_id, follows))
        if used is not None:
            await outbox.send(used)
        if body is not None:
            sent = await outbox.send(channel_post(due.channel_id, body))
            again = not sent.sent and (sent.status == 0 or sent.status >= 500)
            if again and due.tries < TRIES:
                continue  # its lease runs out, and a sender takes it again
            if not sent.sent:
                log.warning("discord: roll #%s of table %s not posted", due.seq, due.table_id)
        await asyncio.to_thread(done, store, due)
    return len(taken)


async def run(
    store: Store, outbox: Outbox, due: asyncio.Event | None = None, idle: float = IDLE
) -> None:
    """The sender: posts what is due, and looks again at once while rows keep coming; else
    when ``due`` is set (this process committed posts) or after ``idle`` seconds."""
    due = due or asyncio.Event()
    while True:
        due.clear()
        try:
            if await send_due(store, outbox):
                continue
        except Exception:  # a bug or a lost database must not stop the sender for good
            log.exception("discord: posting to channels failed")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(due.wait(), idle)
