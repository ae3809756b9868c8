"""Work that costs CPU (odds, advice, charts) runs here, on small pools of worker processes,
and never inside a write transaction: in the server's own threads it held the interpreter
against every other request (a chart of expensive points made ``/health`` wait seconds), and
inside the transaction it held SQLite's one write lock against every table.

A server has two pools: one for rolls, one for previews and the odds page, so no burst of
what-if questions delays a roll. Each has ``workers`` processes; each requester (a table,
or a client address on the open routes) runs one job at a time, the rest of its jobs waiting
their turn, so one requester's burst never takes more than one worker; a job gets
``job_seconds`` of a worker, after which the worker is killed and replaced and the request
refused (422, too much work). Admission is fair: each client (its rate-limit bucket: a
member's token, else its address) has at most ``PER_CLIENT`` jobs waiting or running (429
beyond, so one address cannot fill the queue); anonymous work (the odds page, keyed by
address) may hold at most ``workers - 1`` workers, so a table's preview always finds one
soon; and anonymous and table work each have ``WAITING`` places (503, busy, beyond).
A waiting request holds no thread. Each exact enumeration is also held to the engine's work
budget (``TooMuchWork``), refused before it starts.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import multiprocessing
import os
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

import anyio

from ..errors import D100Error
from .errors import ApiError, invalid

WORKERS = 2
JOB_SECONDS = 5.0
WAITING = 256
PER_CLIENT = 4
WRITERS = 4  # write transactions at once: SQLite takes one, PostgreSQL a table's lock each
WRITES_WAITING = 32
ANONYMOUS = "address:"  # the prefix of an open route's key (no table, no member)
# Whose request this is, as the rate limit counts it (set by the guard for each request).
CLIENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("client", default=None)
NICENESS = 10
MAX_FD = 1 << 20
T = TypeVar("T")
# Forked from the server when first needed, a worker holds what the server holds: the systems
# registered (from entry points, D100_SYSTEMS or at run time) and the engine's work budget. The
# server is threaded, but a worker only reads its pipe and computes: no lock another thread
# may have held at the fork is ever taken in it (nor does it log, or touch the database), and
# it closes every file it inherited.
_CONTEXT = multiprocessing.get_context("fork")


def _serve(conn: Connection) -> None:
    """A worker's life: run each job sent, answer with its value or its refusal. Workers run
    at a lower priority than the server, so on a busy machine its answers come first."""
    os.nice(NICENESS)
    # Let go of every file the fork copied (the listening socket, the database, the other
    # workers' pipes): a server killed and restarted must find its port free, and each pipe
    # must close when its end in the server does, so that a worker outlives no server.
    keep = conn.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, MAX_FD)
    while True:
        try:
            fn, args = conn.recv()
        except EOFError:
            return
        try:
            conn.send(("ok", fn(*args)))
        except ApiError as err:
            conn.send(("refused", (err.status, err.field, err.value, err.allowed, err.message)))
        except D100Error as err:  # pickles whole: its kind (too much work...) stays
            conn.send(("library", err))
        except Exception as err:  # a bug: the server logs it as a 500
            conn.send(("failed", repr(err)))


class _Worker:
    def __init__(self) -> None:
        self.conn, theirs = _CONTEXT.Pipe()
        self.process: BaseProcess = _CONTEXT.Process(target=_serve, args=(theirs,), daemon=True)
        self.process.start()
        theirs.close()

    def ask(
        self, fn: Callable[..., Any], args: tuple[Any, ...], seconds: float
    ) -> tuple[str, Any] | None:
        """The job's answer, or None when it ran out of time."""
        self.conn.send((fn, args))
        if not self.conn.poll(seconds):
            return None
        answer: tuple[str, Any] = self.conn.recv()
        return answer

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


class _Turn:
    """A requester's queue: one job at a time."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class Pool:
    """One per app (its locks belong to the app's event loop); workers start at first use."""

    def __init__(self, workers: int = WORKERS, job_seconds: float = JOB_SECONDS) -> None:
        self.job_seconds = job_seconds
        self._idle: list[_Worker | None] = [None] * workers
        self._free = asyncio.Semaphore(workers)
        # Anonymous work takes a share first, then a worker: it never holds them all.
        self._anonymous = asyncio.Semaphore(max(1, workers - 1))
        self._turns: dict[str, _Turn] = {}  # requesters with a job running or waiting
        self._clients: dict[str, int] = {}  # jobs waiting or running, per client
        self._waiting = {True: 0, False: 0}  # per kind: anonymous or not

    async def run(self, key: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker, for requester ``key``: ``fn`` is a module-level function,
        its arguments and value plain data (they cross to another process)."""
        client = CLIENT.get() or key
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
        anonymous = key.startswith(ANONYMOUS)
        if self._waiting[anonymous] >= WAITING:
            raise ApiError(
                503, "request", None, "a moment's patience", "the server is busy computing"
            )
        turn = self._turns.setdefault(key, _Turn())
        turn.users += 1
        self._clients[client] = self._clients.get(client, 0) + 1
        self._waiting[anonymous] += 1
        waiting = True
        try:
            async with turn.lock, self._share(anonymous), self._free:
                self._waiting[anonymous], waiting = self._waiting[anonymous] - 1, False
                return await self._run(fn, args)
        finally:
            if waiting:  # refused or cancelled before its turn came
                self._waiting[anonymous] -= 1
            turn.users -= 1
            if not turn.users:
                del self._turns[key]
            self._clients[client] -= 1
            if not self._clients[client]:
                del self._clients[client]

    def _share(self, anonymous: bool) -> AbstractAsyncContextManager[Any]:
        return self._anonymous if anonymous else nullcontext()

    async def _run(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        # A live worker first: starting one (after a kill) is the slow path.
        live = [i for i, w in enumerate(self._idle) if w is not None]
        found = self._idle.pop(live[-1] if live else -1)
        try:
            worker = found if found is not None else await anyio.to_thread.run_sync(_Worker)
        except BaseException:
            self._idle.append(None)  # the slot stays, for the next job to start a worker in
            raise
        try:
            answer = await anyio.to_thread.run_sync(worker.ask, fn, args, self.job_seconds)
        except (EOFError, OSError):  # it died: the next job starts another
            worker.stop()
            self._idle.append(None)
            raise ApiError(503, "request", None, "a retry", "a computation failed") from None
        if answer is None:  # the requester who ran out of time waits for the replacement
            worker.stop()
            try:
                self._idle.append(await anyio.to_thread.run_sync(_Worker))
            except BaseException:
                self._idle.append(None)
                raise
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
    """Write transactions that queue for the database's one write lock (a table's rolls): one
    at a time per key (a table's rolls take its lock one at a time anyway), at most ``writers``
    at once in all, and at most ``waiting`` per key (429 beyond, whatever the number of the
    table's members: each has its own rate limit, and a new member would bring a fresh one).
    A waiting request holds no thread, so ``/health`` and other tables' rolls never queue for
    one behind a burst."""

    def __init__(self, writers: int = WRITERS, waiting: int = WRITES_WAITING) -> None:
        self.waiting = waiting
        self._writers = asyncio.Semaphore(writers)
        self._turns: dict[str, _Turn] = {}

    async def run(self, key: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a thread, in ``key``'s turn."""
        turn = self._turns.setdefault(key, _Turn())
        if turn.users >= self.waiting:
            raise ApiError(
                429,
                "request",
                None,
                f"at most {self.waiting} rolls waiting at once per table",
                "too many rolls at this table at once; try again in 1 s",
                {"retry-after": "1"},
            )
        turn.users += 1
        try:
            async with turn.lock, self._writers:
                return await anyio.to_thread.run_sync(fn, *args)
        finally:
            turn.users -= 1
            if not turn.users:
                del self._turns[key]
