"""(g) many tables with live pages: the load a hosted service sees.

``TABLES`` tables of ``MEMBERS`` members each (a GM and five players, each with a character of
their own), every member holding the table's live event stream (Server-Sent Events) open, and
members rolling at random moments (open loop: a Poisson stream of rolls at a total rate, each
by a member picked at random, each counted from the moment it was due, so a roll held up behind
a slow one counts its wait). For each rate it reports, from one phase:

- roll latency p50/p99: from the roll's due time until its 201 answer (committed durably);
- delivery p50/p99: from the roll's event time (``at``, stamped in the roll's transaction just
  before it commits; millisecond resolution) until the last of its table's streams has read it,
  measured by clients that read every stream: commit-to-every-stream, plus the commit itself;
- ``/health`` p99, timed by one client back to back during the phase;
- the raw durable commit rate of the same database (section (e)'s loop), measured just before
  the phase.

On SQLite with one server process, and on PostgreSQL with one and with two processes on the
same database (rolls and streams spread over both; a roll made on one reaches the other's
streams through LISTEN/NOTIFY, as in production). With ``IDLE`` more streams held open at idle
tables of their own (one process), the phase at ``IDLE_RATE`` runs again and the server's
resident memory per idle stream is reported.

The stream readers, the rolls and ``/health`` go over raw asyncio sockets (HTTP/1.1 keep-alive,
one line read per event, no SSE library), so the bench's own CPU stays small beside the
server's: both share the machine's cores (httpx cost this process 9 to 21 ms of CPU per roll at
30 to 60 rolls/s, as much as the server's own; the raw connections, streams included, 2.5 ms).
Each phase reports its own CPU per roll beside the server's.

An overloaded phase is reported, not stopped: a roll the server refuses (429, 503) is counted
by status, one whose connection drops is sent again with its ``Idempotency-Key`` (counted),
one unanswered after ``RETRIES`` or within ``TIMEOUT`` is counted as failed; the latencies are
those of the rolls answered 201, and a phase with any of these does not meet the target.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from tests.server.services import postgres_available, serve

from . import server as single
from .report import Report

TABLES, MEMBERS = 50, 6
RATES = (10, 30, 60)  # rolls per second, over all tables
SCALE_RATES = (90, 120)  # PostgreSQL also (full run): where one process stops meeting it
SECONDS, SECONDS_QUICK = 20.0, 4.0
RETRIES = 3  # a roll whose connection drops is sent again, with its key, this many times
TIMEOUT = 60.0  # seconds: a request unanswered past this counts as failed
PER_MEMBER = 5  # requests at once per member: a browser's 6 connections a host, less a stream
KEEPALIVE = 2.0  # seconds: an idle connection is closed here first (uvicorn's is 5 s)
IDLE, IDLE_RATE = 1000, 30
IDLE_TABLES, IDLE_MEMBERS = 25, 5  # 25 x 5 members x 8 streams each = 1,000 idle streams
P99_TARGET = 0.100
TARGET_RATE = 30
SCALE_TARGET = 1.6
SHEET = single.SHEET


@dataclass
class Member:
    table: str
    token: str
    character: str
    base: str  # the server process this member talks to


@dataclass
class Result:
    rate: int
    rolls: list[float] = field(default_factory=list)
    delivery: list[float] = field(default_factory=list)
    health: list[float] = field(default_factory=list)
    made: list[tuple[str, int, float]] = field(default_factory=list)  # (table, seq, event time)
    undelivered: int = 0
    retried: int = 0  # rolls sent again after their connection dropped (same Idempotency-Key)
    refused: dict[int, int] = field(default_factory=dict)  # answers other than 201, by status
    failed: int = 0  # rolls unanswered after every retry, or within ``TIMEOUT`` in all
    health_failed: int = 0  # /health requests not answered 200
    raw: float = 0.0
    cpu: float = 0.0  # server processes' CPU seconds over the phase
    bench_cpu: float = 0.0  # this process's CPU seconds over the phase (clients and streams)
    database_cpu: float = 0.0  # PostgreSQL's processes' CPU seconds over the phase (0: SQLite)

    def ok(self) -> bool:
        return (
            bool(self.rolls)
            and not (self.undelivered or self.refused or self.failed or self.health_failed)
            and _pct(self.rolls, 0.99) < P99_TARGET
            and _pct(self.delivery, 0.99) < P99_TARGET
        )

    def worst_p99(self) -> float:
        return max(_pct(self.rolls, 0.99), _pct(self.delivery, 0.99))

    def troubles(self) -> str:
        """What went wrong in the phase, counted (empty when nothing did)."""
        out = [f"{n} refused ({status})" for status, n in sorted(self.refused.items())]
        if self.failed:
            out.append(f"{self.failed} unanswered (after {RETRIES} retries or {TIMEOUT:g} s)")
        if self.retried:
            out.append(f"{self.retried} sent again after a dropped connection")
        if self.undelivered:
            out.append(f"{self.undelivered} not delivered to every stream")
        if self.health_failed:
            out.append(f"{self.health_failed} /health not answered")
        return "; " + ", ".join(out) if out else ""


def many_tables(report: Report, quick: bool) -> None:
    print("(g) many tables", flush=True)
    seconds = SECONDS_QUICK if quick else SECONDS
    scale = () if quick else SCALE_RATES
    setups: list[tuple[str, Callable[[], Any], tuple[int, ...]]] = [
        ("SQLite", single._sqlite_database, (1,))
    ]
    if postgres_available(single.PG_ADMIN):
        setups.append(("PostgreSQL", single._postgres_database, (1, 2)))
    else:
        report.note(f"(g) PostgreSQL not measured: no server answers at {single.PG_ADMIN}")
    for label, database, counts in setups:
        measured: dict[int, list[Result]] = {}  # processes: each rate's phase
        with (
            database() as (url, commit_rate),
            tempfile.TemporaryDirectory() as work,
            ExitStack() as stack,
        ):
            bases = [stack.enter_context(_serve(url, Path(work), 0))]
            members = asyncio.run(_setup(bases, TABLES, MEMBERS))
            for processes in counts:  # the same tables, served by one process, then by two
                while len(bases) < processes:
                    bases.append(stack.enter_context(_serve(url, Path(work), len(bases))))
                for n, member in enumerate(members):
                    member.base = bases[n % processes]
                name = f"{label}, {processes} process{'es' if processes > 1 else ''}"
                rates = RATES + (scale if 2 in counts else ())
                measured[processes] = asyncio.run(
                    _rates(report, name, processes, members, rates, seconds, commit_rate)
                )
                if processes == 1 and label == "SQLite":
                    _idle(report, name, bases[0], members, seconds, commit_rate)
        if 2 in counts:
            _scaling(report, label, measured)
    report.note(
        f"(g) {TABLES} tables x {MEMBERS} members, each member's live stream open "
        f"({TABLES * MEMBERS} streams, held from one rate to the next); rolls open loop "
        "(Poisson) by random members; roll latency from the due time to the answer; delivery "
        "from the event's time (stamped in "
        "its transaction, before commit) to the last of its table's streams reading it; "
        f"{seconds:g} s per rate; raw commits/s as in (e), measured before each phase"
    )


async def _rates(
    report: Report, name: str, processes: int, members: list[Member], rates: tuple[int, ...],
    seconds: float, commit_rate: Callable[[int], float],
) -> list[Result]:
    """A phase at each rate, reported as it ends; the members' streams stay open from one rate
    to the next, as pages do (opening 300 took seconds before each phase)."""
    streams = [await _Stream.open(m) for m in members]
    out = []
    try:
        for rate in rates:
            raw = commit_rate(100)
            result = await _phase(members, rate, seconds, members[0].base, streams)
            result.raw = raw
            _line(report, name, result, processes)
            out.append(result)
        return out
    finally:
        for s in streams:
            s.close()


def _line(report: Report, name: str, r: Result, processes: int) -> None:
    target = r.rate == TARGET_RATE and processes == 1
    report.line(
        "g",
        f"{name}, {TABLES * MEMBERS} streams, {r.rate} rolls/s offered, {len(r.rolls)} rolls "
        "answered",
        f"roll p50 {_ms(_pct(r.rolls, 0.5))}, p99 {_ms(_pct(r.rolls, 0.99))}; delivery to "
        f"every stream p50 {_ms(_pct(r.delivery, 0.5))}, p99 {_ms(_pct(r.delivery, 0.99))}"
        + r.troubles(),
        f"server CPU {_ms(r.cpu / max(1, len(r.rolls)))} per roll (its delivery included), "
        f"the bench's own {_ms(r.bench_cpu / max(1, len(r.rolls)))}"
        + (f", PostgreSQL's {_ms(r.database_cpu / max(1, len(r.rolls)))}" if r.database_cpu else "")
        + "; "
        f"/health p99 {_ms(_pct(r.health, 0.99))}; raw commits {r.raw:.0f}/s "
        f"(rolls offered = {r.rate / r.raw:.3f}x)",
        f"p99 < {P99_TARGET * 1e3:.0f} ms" if target else "",
        r.ok() if target else None,
    )


def _scaling(report: Report, label: str, measured: dict[int, list[Result]]) -> None:
    """The highest rate each process count met the target at, and the worst p99 (roll or
    delivery) at every rate tried, so the row says what it measured even when neither met it."""

    def best(results: list[Result]) -> int:
        return max((r.rate for r in results if r.ok()), default=0)

    def told(processes: int) -> str:
        results = measured.get(processes, [])
        top = best(results)
        worst = ", ".join(
            f"{r.rate}: {r.worst_p99() * 1e3:.0f} ms"
            + (" and rolls refused or unanswered" if r.refused or r.failed else "")
            for r in results
        )
        met = f"{top} rolls/s" if top else "none of the rates"
        return f"{met} (worst p99 by rolls/s offered: {worst or 'not measured'})"

    one, two = best(measured.get(1, [])), best(measured.get(2, []))
    report.line(
        "g",
        f"{label}, two processes against one: the highest rate offered whose roll and "
        f"delivery p99 stay under {P99_TARGET * 1e3:.0f} ms (every roll answered 201 and "
        "delivered)",
        f"one process {told(1)}; two {told(2)}",
        f"two / one = {two / one:.2f}x" if one else
        "one process met it at no rate tried: no ratio",
        f">= {SCALE_TARGET:g}x",
        one > 0 and two >= SCALE_TARGET * one,
    )


def _idle(
    report: Report, name: str, base: str, members: list[Member], seconds: float,
    commit_rate: Callable[[int], float],
) -> None:
    pid = _server_pid(base)
    before = _rss(pid)
    idle = asyncio.run(_setup([base], IDLE_TABLES, IDLE_MEMBERS, characters=False))

    async def held() -> tuple[Result, int]:
        streams = [s for m in idle for s in [m] * 8][:IDLE]
        readers = [await _Stream.open(m) for m in streams]
        try:
            await asyncio.sleep(1.0)  # every stream has read its table's log and waits
            rss = _rss(pid)
            raw = commit_rate(100)
            result = await _phase(members, IDLE_RATE, seconds, base)
            result.raw = raw
            return result, rss
        finally:
            for reader in readers:
                reader.close()

    result, rss = asyncio.run(held())
    per = (rss - before) / IDLE
    report.line(
        "g",
        f"{name}, {IDLE} idle streams more (at {IDLE_TABLES} quiet tables), "
        f"{IDLE_RATE} rolls/s offered, {len(result.rolls)} rolls",
        f"roll p99 {_ms(_pct(result.rolls, 0.99))}, delivery p99 "
        f"{_ms(_pct(result.delivery, 0.99))}{result.troubles()}; "
        f"{per / 1024:.1f} KiB per idle stream",
        f"server RSS {before / 2**20:.0f} MiB before, {rss / 2**20:.0f} MiB with them held; "
        f"/health p99 {_ms(_pct(result.health, 0.99))}",
        f"p99 < {P99_TARGET * 1e3:.0f} ms",
        result.ok(),
    )


# -- the clients ------------------------------------------------------------------------------


async def _setup(
    bases: list[str], tables: int, members: int, characters: bool = True
) -> list[Member]:
    """Tables, members and characters through the API; members spread over ``bases``."""
    out: list[Member] = []
    async with httpx.AsyncClient(base_url=bases[0], timeout=60) as client:

        async def one_table(n: int) -> list[Member]:
            made = await client.post(
                "/api/tables", json={"name": f"T{n}", "system": "brp", "gm_name": "G"}
            )
            made.raise_for_status()
            table = made.json()["table"]["id"]
            tokens = [made.json()["gm_link"].split("#", 1)[1]]
            invite = made.json()["invite_link"].split("#", 1)[1]
            for i in range(members - 1):
                joined = await client.post("/api/join", json={"invite": invite, "name": f"P{i}"})
                joined.raise_for_status()
                tokens.append(joined.json()["rejoin_link"].split("#", 1)[1])
            found = []
            for i, token in enumerate(tokens):
                character = ""
                if characters:
                    made_char = await client.post(
                        f"/api/tables/{table}/characters",
                        headers={"authorization": f"Bearer {token}"},
                        json={"sheet": SHEET.replace('"Bench"', f'"C{i}"')},
                    )
                    made_char.raise_for_status()
                    character = made_char.json()["id"]
                found.append(Member(table, token, character, bases[(n + i) % len(bases)]))
            return found

        client.cookies.clear()
        sem = asyncio.Semaphore(8)

        async def bounded(n: int) -> list[Member]:
            async with sem:
                return await one_table(n)

        for found in await asyncio.gather(*(bounded(n) for n in range(tables))):
            out.extend(found)
    return out


class _Stream:
    """One member's live stream over a raw socket: notes when each event number arrives."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.seen: dict[int, float] = {}
        self.task: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, member: Member) -> _Stream:
        host, port = member.base.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port), limit=2**20)
        writer.write(
            f"GET /api/tables/{member.table}/events/stream HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {member.token}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            raise SystemExit(f"(g) a stream was refused: {status!r}")
        stream = cls(reader, writer)
        stream.task = asyncio.create_task(stream._read())
        return stream

    async def _read(self) -> None:
        while line := await self.reader.readline():
            if line.startswith(b"id: "):
                self.seen[int(line[4:])] = time.time()

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()


class _Connections:
    """Rolls and ``/health`` over raw asyncio HTTP/1.1 keep-alive connections, as the streams
    are read: httpx's per-request cost in this process is CPU the server's cores lose. Each
    key (a member) has at most ``PER_MEMBER`` requests at once, a browser's six connections to
    a host less the one its stream holds; the rest wait their turn, their wait counted. A
    connection idle ``KEEPALIVE`` seconds is closed here rather than reused: uvicorn closes
    one idle 5 s, and a request sent as it does is reset (under overload the server's loop
    lags, and that window grows to seconds)."""

    def __init__(self) -> None:
        self.idle: dict[str, list[tuple[float, asyncio.StreamReader, asyncio.StreamWriter]]] = {}
        self.turns: dict[str, asyncio.Semaphore] = {}
        self.opened = 0

    async def request(
        self, key: str, base: str, method: str, path: str, headers: str = "", body: bytes = b""
    ) -> tuple[int, bytes]:
        """The answer's status and body; ``OSError`` (or ``asyncio.IncompleteReadError``) when
        the connection drops before it is in, which a retry may resend."""
        host, port = base.removeprefix("http://").split(":")
        turn = self.turns.setdefault(key, asyncio.Semaphore(PER_MEMBER))
        async with turn:
            reader, writer = await self._take(key, host, int(port))
            try:
                writer.write(
                    f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\n{headers}"
                    f"Content-Length: {len(body)}\r\n\r\n".encode() + body
                )
                await writer.drain()
                status, length, chunked, close = await self._head(reader)
                answer = await (_chunked(reader) if chunked else reader.readexactly(length))
            except BaseException:
                writer.close()
                raise
            if close:
                writer.close()
            else:
                self.idle.setdefault(key, []).append((time.monotonic(), reader, writer))
            return status, answer

    async def _take(
        self, key: str, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        idle = self.idle.get(key, [])
        while idle:
            since, reader, writer = idle.pop()
            if time.monotonic() - since < KEEPALIVE and not reader.at_eof():
                return reader, writer
            writer.close()
        self.opened += 1
        return await asyncio.open_connection(host, port)

    @staticmethod
    async def _head(reader: asyncio.StreamReader) -> tuple[int, int, bool, bool]:
        line = await reader.readline()
        if not line:
            raise ConnectionResetError("closed before an answer")
        status = int(line.split(b" ", 2)[1])
        length, chunked, close = 0, False, False
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding":
                chunked = value == b"chunked"
            elif name == b"connection":
                close = value == b"close"
        if not line:
            raise ConnectionResetError("closed in an answer's head")
        return status, length, chunked, close

    def close(self) -> None:
        for idle in self.idle.values():
            for _, _, writer in idle:
                writer.close()
        self.idle.clear()


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    chunks = []
    while size := int((await reader.readline()).split(b";")[0], 16):
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)
    await reader.readline()  # the last chunk's (empty) trailer
    return b"".join(chunks)


async def _phase(
    members: list[Member], rate: int, seconds: float, health_base: str,
    held: list[_Stream] | None = None,
) -> Result:
    """One rate's phase over the members' streams ``held`` open (else opened for it)."""
    result = Result(rate)
    streams = held if held is not None else [await _Stream.open(m) for m in members]
    by_table: dict[str, list[_Stream]] = {}
    for m, s in zip(members, streams, strict=True):
        by_table.setdefault(m.table, []).append(s)
    connections = _Connections()
    rng = random.Random(rate)
    try:
        await asyncio.sleep(0.5)  # every stream has read the log so far

        async def roll(member: Member, due: float) -> None:
            headers = (f"Authorization: Bearer {member.token}\r\nIdempotency-Key: "
                       f"{secrets.token_urlsafe(12)}\r\nContent-Type: application/json\r\n")
            body = json.dumps(
                {"actor": {"character_id": member.character, "skill": "stealth"}}
            ).encode()
            path = f"/api/tables/{member.table}/rolls"
            try:
                async with asyncio.timeout(TIMEOUT):
                    for attempt in range(RETRIES + 1):
                        # A kept-alive connection the server closes as the client reuses it
                        # drops the request: a client sends it again with the same key, as a
                        # table's page does.
                        try:
                            status, answer = await connections.request(
                                member.token, member.base, "POST", path, headers, body
                            )
                            break
                        except (OSError, asyncio.IncompleteReadError):
                            if attempt == RETRIES:
                                raise
                            result.retried += 1
            except (OSError, asyncio.IncompleteReadError, TimeoutError):
                result.failed += 1
                return
            if status != 201:  # the server's refusal under load (429, 503): counted, not hidden
                result.refused[status] = result.refused.get(status, 0) + 1
                return
            result.rolls.append(time.perf_counter() - due)
            event = json.loads(answer)
            result.made.append((member.table, event["seq"],
                                datetime.fromisoformat(event["at"]).timestamp()))

        async def health(end: float) -> None:
            while time.perf_counter() < end:
                start = time.perf_counter()
                try:
                    async with asyncio.timeout(TIMEOUT):
                        status, _ = await connections.request("health", health_base, "GET",
                                                              "/health")
                except (OSError, asyncio.IncompleteReadError, TimeoutError):
                    status = 0
                if status == 200:
                    result.health.append(time.perf_counter() - start)
                else:
                    result.health_failed += 1
                await asyncio.sleep(0.05)

        pids = [_server_pid(base) for base in {m.base for m in members}]
        cpu = sum(_cpu(pid) for pid in pids)
        bench_cpu = time.process_time()
        database_cpu = _postgres_cpu()
        start = time.perf_counter()
        end = start + seconds
        watcher = asyncio.create_task(health(end))
        tasks = []
        due = start + rng.expovariate(rate)
        while due < end:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            tasks.append(asyncio.create_task(roll(rng.choice(members), due)))
            due += rng.expovariate(rate)
        await asyncio.gather(*tasks, watcher)
        result.cpu = sum(_cpu(pid) for pid in pids) - cpu
        result.bench_cpu = time.process_time() - bench_cpu
        ended = _postgres_cpu()
        result.database_cpu = sum(t - database_cpu.get(pid, 0.0) for pid, t in ended.items())
        await asyncio.sleep(1.0)  # the last events reach their streams
        for table, seq, at in result.made:
            arrived = [s.seen.get(seq) for s in by_table[table]]
            if any(a is None for a in arrived):
                result.undelivered += 1
            else:
                result.delivery.append(max(a for a in arrived if a is not None) - at)
        return result
    finally:
        if held is None:
            for s in streams:
                s.close()
        connections.close()


# -- the server -------------------------------------------------------------------------------


@contextmanager
def _serve(url: str, work: Path, n: int) -> Iterator[str]:
    # Past its capacity the server's loop falls seconds behind, and its 10 s deadline for a
    # request's head (slowloris) would close the bench's waiting keep-alive connections.
    with serve(url, work / f"server{n}.log", D100_HEADER_SECONDS="600", **single.LOAD) as base:
        yield base


def _server_pid(base: str) -> int:
    """The ``d100 serve`` process listening on ``base``'s port (started by ``serve``)."""
    port = base.rsplit(":", 1)[1]
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in argv and b"--port" in argv and port.encode() in argv:
            return int(proc.name)
    raise SystemExit(f"(g) no server process found for {base}")


def _cpu(pid: int) -> float:
    """The process's user + system CPU seconds so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _postgres_cpu() -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL process on this machine (its server, a backend per
    connection, its background workers): the database's share of the same CPUs."""
    found: dict[int, float] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "comm").read_text().strip() == "postgres":
                    found[int(proc.name)] = _cpu(int(proc.name))
            except OSError:  # gone meanwhile
                continue
    return found


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(t: float) -> str:
    return f"{t * 1e3:.1f} ms"
