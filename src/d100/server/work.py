"""Work that costs CPU (odds, advice, charts) runs here, on one pool of worker processes, and
never inside a write transaction: in the server's own threads it held the interpreter against
every other request (a chart of expensive points made ``/health`` wait seconds), and inside
the transaction it held SQLite's one write lock against every table. And the tables' write
transactions queue here, one at a time per table (``Writes``).

The pool's workers are shared in turns (``admission.Admission``): each requester (a table, or
a client address on the open routes) is a lane with one slice of work on a worker at a time,
and the free workers go round the lanes waiting. A chart is worked out a slice at a time
(``SLICE`` of a worker, then the next lane's turn), so one address looping charts holds the
others up by one slice, not one chart; anonymous work (the odds page, keyed by address) holds
at most ``workers - 1`` workers, so a table's roll or preview always finds one soon, and a
roll's odds go ahead of its own table's previews. A request has ``job_seconds`` of a worker
in all, after which the worker is killed and the request refused (422, too much work). Each
client (its rate-limit bucket: a member's token, else its address) has at most
``PER_CLIENT`` requests in the pool (429 beyond, so one address cannot fill it), and
anonymous and table work each at most ``WAITING`` (503, busy, beyond). A waiting request
holds no thread. Each exact enumeration is also held to the engine's work budget
(``TooMuchWork``), refused before it starts.

Workers are started from a fork server (``multiprocessing``'s ``forkserver``): a process of
its own, started clean, that forks each worker from its one thread. Forked from the server,
which is threaded, a worker could inherit a lock another thread held at that moment (the
odds memos' own) and hang on it till its time ran out. A worker is told at its start what the
server's engine holds that its own import does not: the systems registered (from entry
points, ``D100_SYSTEMS`` or at run time) and the engine's work budget.
"""

from __future__ import annotations

import contextvars
import math
import multiprocessing
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

import anyio

from .. import tallies
from ..errors import D100Error
from ..system import System
from ..systems import REGISTRY
from .admission import Admission, Share, step_out
from .errors import ApiError, invalid

WORKERS = 2
JOB_SECONDS = 5.0
SLICE = 0.02  # seconds of a worker a chart takes (a point at least) before the next lane's turn
WAITING = 256
PER_CLIENT = 4
UNBOUNDED = 1 << 30
WRITERS = 4  # write transactions at once: SQLite takes one, PostgreSQL a table's lock each
WRITES_WAITING = 32
ANONYMOUS = "address"  # the kind of an open route's lane (no table, no member)
# Whose request this is, as the rate limit counts it (set by the guard for each request).
CLIENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("client", default=None)
NICENESS = 10
# A worker's start (the fork server's own, the first time) and a job's arrival (importing the
# module of its function) are not the job's work: generous limits, apart from its time.
STARTING = 60.0
T = TypeVar("T")
_CONTEXT = multiprocessing.get_context("forkserver")
# The fork server imports the engine once, so each worker forked from it starts with it
# loaded, not in the second an interpreter of its own takes to import it.
_CONTEXT.set_forkserver_preload(["d100.server.calculator"])


def _serve(conn: Connection, systems: Sequence[System], budget: int) -> None:
    """A worker's life: take on the server's systems and budget, then run each job sent and
    answer with its value or its refusal. Workers run at a lower priority than the server,
    so on a busy machine its answers come first. A worker ends when its pipe does."""
    os.nice(NICENESS)
    _adopt(systems)
    tallies.BUDGET = budget
    conn.send(("ready", None))
    while True:
        try:
            fn, args = conn.recv()
        except EOFError:
            return
        conn.send(("started", None))
        try:
            conn.send(("ok", fn(*args)))
        except ApiError as err:
            conn.send(("refused", (err.status, err.field, err.value, err.allowed, err.message)))
        except D100Error as err:  # pickles whole: its kind (too much work...) stays
            conn.send(("library", err))
        except Exception as err:  # a bug: the server logs it as a 500
            conn.send(("failed", repr(err)))


def _adopt(systems: Sequence[System]) -> None:
    """Make this process's registry the server's: the same systems under the same names."""
    wanted = {system.name: system for system in systems}
    for name in REGISTRY.names():
        if name not in wanted or type(REGISTRY.get(name)) is not type(wanted[name]):
            REGISTRY.unregister(name)
    for name, system in wanted.items():
        if name not in REGISTRY:
            REGISTRY.register(system)


class _Worker:
    def __init__(self) -> None:
        self.conn, theirs = _CONTEXT.Pipe()
        systems = [REGISTRY.get(name) for name in REGISTRY.names()]
        self.process: BaseProcess = _CONTEXT.Process(
            target=_serve, args=(theirs, systems, tallies.BUDGET), daemon=True
        )
        self.process.start()
        theirs.close()
        if not self.conn.poll(STARTING) or self.conn.recv()[0] != "ready":
            self.stop()
            raise OSError("a worker did not start")

    def ask(
        self, fn: Callable[..., Any], args: tuple[Any, ...], seconds: float
    ) -> tuple[str, Any] | None:
        """The job's answer, or None when it ran out of time (counted from its start)."""
        self.conn.send((fn, args))
        if not self.conn.poll(STARTING) or self.conn.recv()[0] != "started":
            raise OSError("a worker did not take its job")
        if not self.conn.poll(seconds):
            return None
        answer: tuple[str, Any] = self.conn.recv()
        return answer

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


class Job:
    """One request's work in the pool, slice by slice: ``job_seconds`` of a worker in all."""

    def __init__(self, pool: Pool, lane: str, urgent: bool) -> None:
        self.pool, self.lane, self.urgent = pool, lane, urgent
        self.left = pool.job_seconds

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a worker, in the lane's next turn."""
        async with self.pool.turns.turn(self.lane, self.urgent):
            start = time.monotonic()
            try:
                return await self.pool._run(fn, args, self.left)
            finally:
                self.left -= time.monotonic() - start


class Pool:
    """One per app (its turns belong to the app's event loop); workers start at first use."""

    def __init__(self, workers: int = WORKERS, job_seconds: float = JOB_SECONDS) -> None:
        self.job_seconds = job_seconds
        self._idle: list[_Worker | None] = [None] * workers
        # One slice at a time per lane; anonymous lanes together leave a worker to the tables.
        # Their waits are bounded per client and per kind here (``job``), not per lane.
        anonymous, tables = Share(1, UNBOUNDED, max(1, workers - 1)), Share(1, UNBOUNDED)
        self.turns = Admission(workers, kinds={ANONYMOUS: anonymous, "table": tables})
        self._clients: dict[str, int] = {}  # requests in the pool, per client
        self._kinds = {True: 0, False: 0}  # requests in the pool: anonymous or not

    async def run(self, lane: str, fn: Callable[..., T], *args: Any, urgent: bool = False) -> T:
        """``fn(*args)`` on a worker, for the requester ``lane`` (``table:ID``, ``address:IP``):
        ``fn`` is a module-level function, its arguments and value plain data (they cross to
        another process). An ``urgent`` one (a roll's odds) goes ahead of its lane's others."""
        async with self.job(lane, urgent) as job:
            return await job.run(fn, *args)

    async def sliced(
        self, lane: str, fn: Callable[..., list[T]], items: Sequence[Any], *args: Any
    ) -> list[T]:
        """``fn(items, seconds, *args)`` for every item, a slice at a time: each call works out
        a first part of the items it is given (at least one) within ``seconds``, and the rest
        wait for the lane's next turn."""
        out: list[T] = []
        async with self.job(lane) as job:
            while len(out) < len(items):
                done = await job.run(fn, items[len(out) :], SLICE, *args)
                assert done, "a slice works out at least one item"
                out += done
        return out

    @asynccontextmanager
    async def job(self, lane: str, urgent: bool = False) -> AsyncIterator[Job]:
        """A request's place in the pool: refused past its client's share (429) or the pool's
        (503). Its request leaves its place of the server's threads: it waits here."""
        client = CLIENT.get() or lane
        if self._clients.get(client, 0) >= PER_CLIENT:
            seconds = math.ceil(self.job_seconds)
            raise ApiError(
                429,
                "request",
                None,
                f"at most {PER_CLIENT} computations waiting or running per client",
                f"too many computations at once; try again in {seconds} s",
                {"retry-after": str(seconds)},
            )
        anonymous = lane.partition(":")[0] == ANONYMOUS
        if self._kinds[anonymous] >= WAITING:
            raise ApiError(
                503, "request", None, "a moment's patience", "the server is busy computing"
            )
        step_out()
        self._clients[client] = self._clients.get(client, 0) + 1
        self._kinds[anonymous] += 1
        try:
            yield Job(self, lane, urgent)
        finally:
            self._kinds[anonymous] -= 1
            self._clients[client] -= 1
            if not self._clients[client]:
                del self._clients[client]

    async def _run(self, fn: Callable[..., T], args: tuple[Any, ...], seconds: float) -> T:
        # A live worker first: starting one (after a kill) is the slow path.
        live = [i for i, w in enumerate(self._idle) if w is not None]
        found = self._idle.pop(live[-1] if live else -1)
        failed = ApiError(503, "request", None, "a retry", "a computation failed")
        try:
            worker = found if found is not None else await anyio.to_thread.run_sync(_Worker)
        except BaseException as err:
            self._idle.append(None)  # the slot stays, for the next job to start a worker in
            if isinstance(err, EOFError | OSError):
                raise failed from None
            raise
        try:
            answer = await anyio.to_thread.run_sync(worker.ask, fn, args, max(0.0, seconds))
        except BaseException as err:  # it died, or its job never reached it whole: the slot
            worker.stop()  # stays, and the next job starts a fresh worker in it
            self._idle.append(None)
            if isinstance(err, EOFError | OSError):
                raise failed from None
            raise
        if answer is None:  # out of time: killed, and the next job starts a fresh worker
            worker.stop()
            self._idle.append(None)
            raise ApiError(
                422,
                "request",
                None,
                f"a request whose odds take at most {self.job_seconds:g} s to work out",
                "too much work: ask for fewer points, dice or Luck rerolls",
            )
        self._idle.append(worker)
        status, value = answer
        if status == "refused":
            raise ApiError(*value)
        if status == "library":
            raise invalid(value)
        if status == "failed":
            raise RuntimeError(f"{getattr(fn, '__name__', fn)} failed in a worker: {value}")
        result: T = value
        return result

    def close(self) -> None:
        for worker in self._idle:
            if worker is not None:
                worker.stop()
        self._idle = [None] * len(self._idle)


class Writes:
    """Write transactions that queue for the database's write lock (a table's rolls): one at
    a time per table (its transactions take its lock one at a time anyway), at most
    ``writers`` at once in all, the free turns going round the tables waiting, and at most
    ``waiting`` per table (429 beyond, whatever the number of the table's members: each has
    its own rate limit, and a new member would bring a fresh one). A waiting request holds no
    thread, so ``/health`` and other tables' rolls never queue for one behind a burst."""

    def __init__(self, writers: int = WRITERS, waiting: int = WRITES_WAITING) -> None:
        share = Share(1, waiting, what="rolls")
        self.turns = Admission(writers, kinds={"table": share})

    async def run(self, key: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a thread, in table ``key``'s turn (``table:ID``)."""
        crowded = self.turns.refusal(key)
        if crowded is not None:
            raise crowded
        step_out()
        async with self.turns.turn(key):
            return await anyio.to_thread.run_sync(fn, *args)
