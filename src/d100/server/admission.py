"""Fair admission of requests to a table's routes (``/api/tables/{id}/...``). Each request
in flight may hold one of the server's threads (a route's transaction), and they are one
pool: a player who joined a table from its invite again and again has that many rate limits,
and the members' exports of a long log took every thread in their turn, ahead of every other
table's rolls (seconds).

Here at most ``per_group`` of a table's requests are in flight (a member's requests count
with their table's, an unknown token's with its address), at most ``at_once`` in all; a
request beyond waits, holding no thread, and the free places go to the waiting tables in turn
(round robin), so a table waits behind one request of each other busy table, not behind all
of them. At most ``waiting`` requests wait per table (429 beyond). A route that runs in a
thread (a plain ``def``) takes its turn for its whole length; one that awaits (a roll, a
preview, a reroll: they wait for a worker or for the table's write turn holding no thread)
takes one for each of its own hops to a thread (``run_sync``). A live stream is not admitted
here: it is open for hours, and its reads are one per table woken (``live.py``)."""

from __future__ import annotations

import asyncio
import contextvars
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio

from .errors import ApiError

AT_ONCE = 40  # anyio's threads: beyond, the turns go round the tables, not first come
PER_TABLE = 6  # a page load is a handful of requests; a table's rolls write one at a time
WAITING = 64  # per table, beyond the ones in flight
# Whose turns a request takes (set by the guard): its table's, else its address's; None
# outside the table routes.
GROUP: contextvars.ContextVar[str | None] = contextvars.ContextVar("group", default=None)
T = TypeVar("T")


class Admission:
    """One per app (its futures belong to the app's event loop)."""

    def __init__(
        self, at_once: int = AT_ONCE, per_group: int = PER_TABLE, waiting: int = WAITING
    ) -> None:
        """Turns for groups of requests (a table's, an address's): ``per_group`` of a group's
        at once, ``at_once`` in all, ``waiting`` waiting per group."""
        self.at_once, self.per_group, self.waiting = at_once, per_group, waiting
        self.in_flight = 0
        self._running: dict[str, int] = {}  # groups with a request in flight: how many
        # Groups with a request waiting, in the order their turn comes (round robin).
        self._queues: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def refusal(self, group: str) -> ApiError | None:
        """Why ``group``'s next request may not wait its turn (429), None when it may."""
        queue = self._queues.get(group)
        if queue is None or len(queue) < self.waiting:
            return None
        return ApiError(
            429,
            "request",
            None,
            f"at most {self.per_group} requests at once and {self.waiting} waiting per table",
            "too many requests at this table at once; try again in 1 s",
            {"retry-after": "1"},
        )

    @asynccontextmanager
    async def turn(self, group: str) -> AsyncIterator[None]:
        """Hold one of ``group``'s places while the request runs (after ``refusal``)."""
        queue = self._queues.get(group)
        if queue is None and self._has_room(group):
            self._enter(group)
        else:
            granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._queues.setdefault(group, deque()).append(granted)
            try:
                await granted
            except asyncio.CancelledError:
                if granted.cancelled():  # still in its queue, unless a turn passed it by
                    self._withdraw(group, granted)
                else:  # admitted just as its request was cancelled
                    self._leave(group)
                raise
        try:
            yield
        finally:
            self._leave(group)

    async def run_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a thread, in a turn of the request's group."""
        group = GROUP.get()
        if group is None:
            return await anyio.to_thread.run_sync(fn, *args)
        crowded = self.refusal(group)
        if crowded is not None:
            raise crowded
        async with self.turn(group):
            return await anyio.to_thread.run_sync(fn, *args)

    def _has_room(self, group: str) -> bool:
        return self.in_flight < self.at_once and self._running.get(group, 0) < self.per_group

    def _enter(self, group: str) -> None:
        self.in_flight += 1
        self._running[group] = self._running.get(group, 0) + 1

    def _leave(self, group: str) -> None:
        self.in_flight -= 1
        left = self._running[group] - 1
        if left:
            self._running[group] = left
        else:
            del self._running[group]
        self._admit()

    def _withdraw(self, group: str, granted: asyncio.Future[None]) -> None:
        queue = self._queues.get(group)
        if queue is not None and granted in queue:
            queue.remove(granted)
            if not queue:
                del self._queues[group]

    def _admit(self) -> None:
        """Give the free places to the waiting groups in turn, one each a round, each group at
        most its share."""
        admitted = True
        while admitted and self.in_flight < self.at_once:
            admitted = False
            for group in list(self._queues):
                if self.in_flight >= self.at_once:
                    return
                if self._running.get(group, 0) >= self.per_group:
                    continue
                queue = self._queues.pop(group)
                while queue and queue[0].cancelled():  # its request is gone
                    queue.popleft()
                if queue:
                    queue.popleft().set_result(None)
                    self._enter(group)
                    admitted = True
                if queue:
                    self._queues[group] = queue  # to the end of the round
