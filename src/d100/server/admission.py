"""Turns: the one way the server shares what it has little of. Three queues are made of it
(docs/architecture.md, *Which queue a request waits in*): the server's threads (``AT_ONCE``,
the guard's), the tables' write transactions (``work.Writes``) and the worker processes
(``work.Pool``).

Requests come in groups (a table's: its members', whoever's token; an address's: anonymous
and unknown-token work). At most ``at_once`` places are taken in all, at most a group's share
by each group (``Share``: its kind's, the part of its name before ``:``); a request beyond
waits, holding no thread, and a freed place goes to the waiting groups in turn (round robin),
so a group waits behind one request of each other busy group, not behind all of them. At
most ``waiting`` requests wait per group (429 beyond).

A table's request takes a place of the server's threads from the guard until it answers, or
until it joins the write queue or the worker pool (``step_out``), which bound their own
threads: waiting there it holds none of its table's places. A live stream takes none: it is
open for hours, handed its events by their writer, and it reads the log only to catch up
(``live.py``)."""

from __future__ import annotations

import asyncio
import contextvars
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass

from .errors import ApiError

AT_ONCE = 40  # anyio's threads: beyond, the turns go round the tables, not first come
PER_TABLE = 6  # a page load is a handful of requests; a table's rolls write one at a time
WAITING = 64  # per table, beyond the ones in flight


@dataclass(frozen=True)
class Share:
    """What one group of a kind may take: ``per_group`` places at once, ``waiting`` requests
    waiting, and all groups of the kind together at most ``together`` places (None: any).
    ``what`` and ``per`` word the refusal."""

    per_group: int = PER_TABLE
    waiting: int = WAITING
    together: int | None = None
    what: str = "requests"
    per: str = "table"


class Place:
    """A place taken: left once, when the request is done or steps out of its turn."""

    def __init__(self, turns: Admission, group: str) -> None:
        self.turns, self.group, self.held = turns, group, True

    def leave(self) -> None:
        if self.held:
            self.held = False
            self.turns._leave(self.group)


# The place of the server's threads the request running here holds (set by the guard).
_PLACE: contextvars.ContextVar[Place | None] = contextvars.ContextVar("place", default=None)


@contextmanager
def holding(place: Place) -> Iterator[None]:
    """The request running in this block holds ``place`` (until it steps out)."""
    token = _PLACE.set(place)
    try:
        yield
    finally:
        _PLACE.reset(token)


def step_out() -> None:
    """Leave the request's place of the server's threads for the rest of it: it waits in the
    write queue or the worker pool now, each bounding its own threads."""
    place = _PLACE.get()
    if place is not None:
        place.leave()


class Admission:
    """One per use and app (its futures belong to the app's event loop)."""

    def __init__(
        self,
        at_once: int = AT_ONCE,
        per_group: int = PER_TABLE,
        waiting: int = WAITING,
        kinds: Mapping[str, Share] | None = None,
    ) -> None:
        """``at_once`` places in all; a group's share is its kind's in ``kinds``, else
        ``per_group`` places at once and ``waiting`` waiting."""
        self.at_once = at_once
        self.default = Share(per_group, waiting)
        self.kinds = dict(kinds or {})
        self.in_flight = 0
        self._running: dict[str, int] = {}  # groups with a request in flight: how many
        self._kinds_running: dict[str, int] = {}  # kinds with a cap together: places held
        # Groups with a request waiting, in the order their turn comes (round robin).
        self._queues: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def share(self, group: str) -> Share:
        return self.kinds.get(group.partition(":")[0], self.default)

    def refusal(self, group: str) -> ApiError | None:
        """Why ``group``'s next request may not wait its turn (429), None when it may."""
        queue, share = self._queues.get(group), self.share(group)
        if queue is None or len(queue) < share.waiting:
            return None
        return ApiError(
            429,
            "request",
            None,
            f"at most {share.per_group} {share.what} at once and {share.waiting} waiting "
            f"per {share.per}",
            f"too many {share.what} at this {share.per} at once; try again in 1 s",
            {"retry-after": "1"},
        )

    @asynccontextmanager
    async def turn(self, group: str, urgent: bool = False) -> AsyncIterator[Place]:
        """Hold one of ``group``'s places while the block runs (after ``refusal``); an
        ``urgent`` request waits ahead of its group's others."""
        queue = self._queues.get(group)
        if queue is None and self._has_room(group):
            self._enter(group)
        else:
            granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            waiting = self._queues.setdefault(group, deque())
            if urgent:
                waiting.appendleft(granted)
            else:
                waiting.append(granted)
            try:
                await granted
            except asyncio.CancelledError:
                if granted.cancelled():  # still in its queue, unless a turn passed it by
                    self._withdraw(group, granted)
                else:  # admitted just as its request was cancelled
                    self._leave(group)
                raise
        place = Place(self, group)
        try:
            yield place
        finally:
            place.leave()

    def _has_room(self, group: str) -> bool:
        share = self.share(group)
        kind = group.partition(":")[0]
        return (
            self.in_flight < self.at_once
            and self._running.get(group, 0) < share.per_group
            and (share.together is None or self._kinds_running.get(kind, 0) < share.together)
        )

    def _enter(self, group: str) -> None:
        self.in_flight += 1
        self._running[group] = self._running.get(group, 0) + 1
        kind = group.partition(":")[0]
        self._kinds_running[kind] = self._kinds_running.get(kind, 0) + 1

    def _leave(self, group: str) -> None:
        self.in_flight -= 1
        left = self._running[group] - 1
        if left:
            self._running[group] = left
        else:
            del self._running[group]
        self._kinds_running[group.partition(":")[0]] -= 1
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
                if not self._has_room(group):
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
