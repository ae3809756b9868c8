"""(e) the table server: durable rolls per second and latency under concurrent clients.

For SQLite (a fresh file) and PostgreSQL (a fresh database on 127.0.0.1:5432, created and
dropped here), the real server runs as ``d100 serve`` in its own process on a free port of
127.0.0.1. Through the HTTP API the bench opens a table and makes a character, then, with 1, 10
and 100 concurrent clients (asyncio + httpx, each client one keep-alive connection, a bounded
number of requests), times:

- ``POST /api/tables/{id}/rolls``: a public check of the character's skill, with a fresh
  ``Idempotency-Key`` each (the safe-retry path), the GM's bearer token; every answer must be
  201. Each roll commits durably before it is answered.
- ``GET /health`` on the same server: the no-op endpoint (one ``SELECT 1`` read), the ceiling
  the HTTP stack and the client leave for any route.
- the raw durable commit rate of the same database, measured just before and just after each
  roll phase while the server is idle: one connection, a loop of single-row INSERT + COMMIT
  (SQLite: WAL, ``synchronous=FULL``, as the server sets it; PostgreSQL: its default
  ``fsync``/``synchronous_commit``).

Clients are closed-loop (each sends its next request when the last is answered), so with N
clients the mean latency is N / throughput (Little's law). The clients run in this process, on
the same CPUs as the server.

A burst phase sends the most expensive odds the open routes take (charts of a hundred points
with two bonus dice and a hundred Luck rerolls) from a few clients while one client times
``/health`` and one times a roll at the table: what the worker pools (server/work.py) keep
from the rest of the server.

A table's players do not roll back to back, so a last phase paces 100 clients (open loop):
each rolls at random moments, on average every ``PACED_EVERY`` seconds, and each latency is
counted from the moment the roll was due, so a roll held up behind a slow one counts its wait
too (no coordinated omission).
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.server.services import postgres_available, postgres_database, serve

from .report import Report

FSYNC_DELAY_ENV = "D100_FSYNC_DELAY_US"  # set by --fsync-delay-ms: the shim's delay
PG_ADMIN = os.environ.get("D100_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
CLIENTS = (1, 10, 100)
# Requests timed per phase (after a warm-up of one per client), full run and --quick.
ROLLS = {1: 200, 10: 500, 100: 1500}
ROLLS_QUICK = {1: 40, 10: 100, 100: 300}
NOOPS = {1: 500, 10: 2000, 100: 4000}
NOOPS_QUICK = {1: 100, 10: 300, 100: 600}
COMMITS, COMMITS_QUICK = 300, 100
PHASE_LIMIT = 90.0  # seconds: a phase stops early past this (the count is then what finished)
P99_TARGET = 0.050
PACED_CLIENTS, PACED_EVERY = 100, 2.0  # 50 rolls/s offered: far busier than any real table
PACED_SECONDS, PACED_SECONDS_QUICK = 30.0, 8.0
BURST_CLIENTS, BURST_SECONDS = 8, 5.0
BURST_TARGET = 0.5  # seconds: a fraction of a second, where the burst once cost seconds
EXPENSIVE_CHART = {
    "request": {
        "system": "brp",
        "skill": 1,
        "bonus_dice": 2,
        "luck_rerolls": 100,
        "house_rules": {"bonus_dice_method": "tens"},
    },
    "low": 0,
    "high": 1000,
    "step": 10,
}
COMMIT_SHARE = 0.5
ROW = "x" * 1000  # about the size of a roll's event row
SHEET = """name = "Bench"
system = "brp"
luck = { current = 3, maximum = 5 }
skills = { stealth = 65 }
"""


@dataclass(frozen=True)
class Phase:
    done: int
    seconds: float
    latencies: list[float]

    @property
    def rate(self) -> float:
        return self.done / self.seconds

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rolls(report: Report, quick: bool) -> None:
    print("(e) server", flush=True)
    delay = int(os.environ.get(FSYNC_DELAY_ENV, "0"))
    sqlite = f"SQLite, fsync +{delay / 1000:g} ms (emulated)" if delay else "SQLite"
    databases: list[tuple[str, Callable[[], Any]]] = [(sqlite, _sqlite_database)]
    if delay:  # the shim slows this process and the server's, not PostgreSQL's own
        report.note(f"(e) every fsync of SQLite waited {delay / 1000:g} ms first "
                    "(bench/slow_fsync.c, preloaded): a slow disk, emulated; PostgreSQL skipped")
    elif postgres_available(PG_ADMIN):
        databases.append(("PostgreSQL", _postgres_database))
    else:
        report.note(f"(e) PostgreSQL not measured: no server answers at {PG_ADMIN}")
    for label, database in databases:
        with (
            database() as (url, commit_rate),
            tempfile.TemporaryDirectory() as work,
            _serve(url, Path(work)) as base,
        ):
            _measure(report, label, base, commit_rate, quick)
    report.note(
        "(e) clients are closed-loop in the bench process, on the same CPUs as the server; "
        "rolls/s and the no-op's req/s are completed requests over the phase's wall time; "
        "raw commits/s is one connection's loop of single-row INSERT + COMMIT on the same "
        "database with the server's durability settings, measured just before and after each "
        "roll phase (the mean is the baseline)"
    )


def _measure(
    report: Report, label: str, base: str, commit_rate: Callable[[int], float], quick: bool
) -> None:
    rolls_n, noops_n = (ROLLS_QUICK, NOOPS_QUICK) if quick else (ROLLS, NOOPS)
    with httpx.Client(base_url=base, timeout=30) as setup:
        made = setup.post("/api/tables", json={"name": "Bench", "system": "brp", "gm_name": "G"})
        made.raise_for_status()
        table_id = made.json()["table"]["id"]
        gm = made.json()["gm_link"].split("#", 1)[1]
        auth = {"authorization": f"Bearer {gm}"}
        setup.cookies.clear()
        char = setup.post(f"/api/tables/{table_id}/characters", headers=auth, json={"sheet": SHEET})
        char.raise_for_status()
        character_id = char.json()["id"]
    commits = COMMITS_QUICK if quick else COMMITS
    roll_path = f"/api/tables/{table_id}/rolls"
    roll_body = {"actor": {"character_id": character_id, "skill": "stealth"}}

    waited = [0]  # rolls answered 429 (more than a table's queue holds), in this phase

    async def roll(client: httpx.AsyncClient) -> None:
        headers = {**auth, "idempotency-key": secrets.token_urlsafe(12)}
        r = await client.post(roll_path, json=roll_body, headers=headers)
        # 100 clients at one table pass its queue of 32 waiting rolls: told to retry, each
        # sends again after Retry-After with its key, as the table's page does; the wait counts.
        while r.status_code == 429:
            waited[0] += 1
            await asyncio.sleep(float(r.headers.get("retry-after", "1")))
            r = await client.post(roll_path, json=roll_body, headers=headers)
        if r.status_code != 201:
            raise SystemExit(f"(e) a roll failed: {r.status_code} {r.text[:300]}")

    def told() -> str:
        """How many rolls of the phase were told to retry (429), counted afresh after."""
        count, waited[0] = waited[0], 0
        return f"; {count} told to retry (429) and sent again" if count else ""

    async def noop(client: httpx.AsyncClient) -> None:
        r = await client.get("/health")
        if r.status_code != 200:
            raise SystemExit(f"(e) /health failed: {r.status_code} {r.text[:300]}")

    for clients in CLIENTS:
        noops = asyncio.run(_load(base, clients, noops_n[clients], noop))
        # The disk's fsync time drifts by several times within minutes on a shared machine:
        # the raw commit rate is measured just before and just after the rolls, the mean used.
        before = commit_rate(commits)
        told()
        rolled = asyncio.run(_load(base, clients, rolls_n[clients], roll))
        retried = told()
        after = commit_rate(commits)
        raw = (before + after) / 2
        share = rolled.rate / raw
        report.line(
            "e",
            f"{label}, {clients} client{'s' if clients > 1 else ''}, "
            f"{rolled.done} rolls, {noops.done} no-ops",
            f"{rolled.rate:.0f} rolls/s; p50 {_ms(rolled.pct(0.5))}, p99 {_ms(rolled.pct(0.99))}"
            + retried,
            f"no-op /health {noops.rate:.0f} req/s ({noops.rate / rolled.rate:.1f}x rolls/s), "
            f"p50 {_ms(noops.pct(0.5))}, p99 {_ms(noops.pct(0.99))}; raw commits "
            f"{raw:.0f}/s ({before:.0f} before, {after:.0f} after; rolls/s = {share:.2f}x)",
            f">= {COMMIT_SHARE:g}x raw commits/s",
            share >= COMMIT_SHARE,
        )
    health, rolled_then, charts = asyncio.run(_burst(base, roll, noop))
    answered = [t for status, t in charts if status == 200]
    refused = [t for status, t in charts if status == 422]
    busy = sum(status == 503 for status, _ in charts)
    report.line(
        "e",
        f"{label}, the dearest request the open routes take (a chart of 101 points, 2 bonus "
        f"dice, 100 Luck rerolls), {len(answered)} answered, {len(refused)} refused and "
        f"{busy} turned away busy (503) during the burst",
        f"{_spread('answered', answered)}; {_spread('refused', refused)}",
        f"{BURST_CLIENTS} clients asking it back to back; refused: 422 too much work, once it "
        "has had its share of a worker (server/work.py)",
        "",
        None,
    )
    report.line(
        "e",
        f"{label}, a burst of {BURST_CLIENTS} clients asking expensive charts, "
        f"{len(rolled_then)} rolls and {len(health)} no-ops meanwhile",
        f"/health p99 {_ms(_pct(health, 0.99))}, max {_ms(max(health))}; "
        f"a roll p99 {_ms(_pct(rolled_then, 0.99))}, max {_ms(max(rolled_then))}",
        "one client each for /health and for rolls, timed while the burst runs",
        f"max < {BURST_TARGET * 1e3:.0f} ms",
        max(max(health), max(rolled_then)) < BURST_TARGET,
    )
    told()  # the burst's rolls are not the paced phase's
    paced = asyncio.run(
        _paced(base, PACED_SECONDS_QUICK if quick else PACED_SECONDS, roll)
    )
    report.line(
        "e",
        f"{label}, {PACED_CLIENTS} clients paced, each a roll every {PACED_EVERY:g} s on "
        f"average ({PACED_CLIENTS / PACED_EVERY:.0f} rolls/s offered), {paced.done} rolls",
        f"{paced.rate:.0f} rolls/s; p50 {_ms(paced.pct(0.5))}, p99 {_ms(paced.pct(0.99))}"
        + told(),
        "latency counted from each roll's due time",
        f"p99 < {P99_TARGET * 1e3:.0f} ms (paced)",
        paced.pct(0.99) < P99_TARGET,
    )


async def _load(
    base: str,
    clients: int,
    count: int,
    request: Callable[[httpx.AsyncClient], Awaitable[None]],
) -> Phase:
    """``count`` requests from ``clients`` closed-loop clients after one warm-up each. Each
    client is its own ``httpx.AsyncClient`` with one connection: one shared client's pool of
    100 connections costs more CPU than the server does and would measure httpx."""
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    pool = [httpx.AsyncClient(base_url=base, timeout=60, limits=limits) for _ in range(clients)]
    try:
        await asyncio.gather(*(request(client) for client in pool))  # connections open
        latencies: list[float] = []
        left = count
        deadline = time.perf_counter() + PHASE_LIMIT

        async def worker(client: httpx.AsyncClient) -> None:
            nonlocal left
            while left > 0 and time.perf_counter() < deadline:
                left -= 1
                start = time.perf_counter()
                await request(client)
                latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(worker(client) for client in pool))
        return Phase(len(latencies), time.perf_counter() - start, latencies)
    finally:
        await asyncio.gather(*(client.aclose() for client in pool))


async def _burst(
    base: str,
    roll: Callable[[httpx.AsyncClient], Awaitable[None]],
    noop: Callable[[httpx.AsyncClient], Awaitable[None]],
) -> tuple[list[float], list[float], list[tuple[int, float]]]:
    """Latencies of /health and of rolls while ``BURST_CLIENTS`` clients ask expensive charts
    back to back (each is answered, or refused once it has had its share of a worker), and
    each chart's status and time."""
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    pool = [
        httpx.AsyncClient(base_url=base, timeout=60, limits=limits)
        for _ in range(BURST_CLIENTS + 2)
    ]
    attackers, (health_client, roll_client) = pool[:-2], pool[-2:]
    end = time.perf_counter() + BURST_SECONDS

    charts: list[tuple[int, float]] = []  # (status, seconds) of each expensive chart

    async def attack(client: httpx.AsyncClient) -> None:
        while time.perf_counter() < end:
            start = time.perf_counter()
            r = await client.post("/api/odds/chart", json=EXPENSIVE_CHART)
            if r.status_code >= 500:
                raise SystemExit(f"(e) a chart failed: {r.status_code} {r.text[:300]}")
            charts.append((r.status_code, time.perf_counter() - start))

    async def timed(
        client: httpx.AsyncClient, request: Callable[[httpx.AsyncClient], Awaitable[None]]
    ) -> list[float]:
        await asyncio.sleep(0.5)  # the burst under way
        out = []
        while time.perf_counter() < end:
            start = time.perf_counter()
            await request(client)
            out.append(time.perf_counter() - start)
        return out

    try:
        await asyncio.gather(roll(roll_client), noop(health_client))  # connections open
        _, health, rolled = await asyncio.gather(
            asyncio.gather(*(attack(c) for c in attackers)),
            timed(health_client, noop),
            timed(roll_client, roll),
        )
        return health, rolled, charts
    finally:
        await asyncio.gather(*(client.aclose() for client in pool))


def _pct(latencies: list[float], q: float) -> float:
    if not latencies:
        return float("nan")
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _paced(
    base: str, seconds: float, request: Callable[[httpx.AsyncClient], Awaitable[None]]
) -> Phase:
    """Open-loop clients: each sends a request at exponentially spaced due times (a Poisson
    stream), over its own keep-alive connection, for ``seconds``."""
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    pool = [
        httpx.AsyncClient(base_url=base, timeout=60, limits=limits) for _ in range(PACED_CLIENTS)
    ]
    try:
        await asyncio.gather(*(request(client) for client in pool))  # connections open
        latencies: list[float] = []
        start = time.perf_counter()
        end = start + seconds

        async def client_loop(client: httpx.AsyncClient, rng: random.Random) -> None:
            due = start + rng.expovariate(1 / PACED_EVERY)
            while due < end:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                await request(client)
                latencies.append(time.perf_counter() - due)
                due += rng.expovariate(1 / PACED_EVERY)

        await asyncio.gather(
            *(client_loop(client, random.Random(i)) for i, client in enumerate(pool))
        )
        return Phase(len(latencies), time.perf_counter() - start, latencies)
    finally:
        await asyncio.gather(*(client.aclose() for client in pool))


def _ms(t: float) -> str:
    return f"{t * 1e3:.1f} ms"


# -- the databases and the server ------------------------------------------------------------


@contextmanager
def _sqlite_database() -> Iterator[tuple[str, Callable[[int], float]]]:
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "bench.sqlite3"

        def commit_rate(n: int) -> float:
            db = sqlite3.connect(path, isolation_level=None)
            try:
                for pragma in ("journal_mode=WAL", "synchronous=FULL", "busy_timeout=30000"):
                    db.execute(f"PRAGMA {pragma}")
                db.execute("CREATE TABLE bench_commit (id INTEGER PRIMARY KEY, v TEXT)")
                start = time.perf_counter()
                for _ in range(n):
                    db.execute("BEGIN IMMEDIATE")
                    db.execute("INSERT INTO bench_commit (v) VALUES (?)", (ROW,))
                    db.execute("COMMIT")
                rate = n / (time.perf_counter() - start)
                db.execute("DROP TABLE bench_commit")
                return rate
            finally:
                db.close()

        yield f"sqlite:///{path}", commit_rate


@contextmanager
def _postgres_database() -> Iterator[tuple[str, Callable[[int], float]]]:
    import psycopg

    def commit_rate(n: int) -> float:
        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1)) as db:
            db.execute("CREATE TABLE bench_commit (id SERIAL PRIMARY KEY, v TEXT)")
            db.commit()
            start = time.perf_counter()
            for _ in range(n):
                db.execute("INSERT INTO bench_commit (v) VALUES (%s)", (ROW,))
                db.commit()
            rate = n / (time.perf_counter() - start)
            db.execute("DROP TABLE bench_commit")
            db.commit()
            return rate

    with postgres_database(PG_ADMIN, "d100_bench") as url:
        yield url, commit_rate


# The server's limits raised for a load from this one address: the rate limits, and the cap
# of connections from one address (the bench's clients are all 127.0.0.1).
LOAD = {
    "D100_RATE_BURST": "1000000",
    "D100_RATE_PER_SECOND": "1000000",
    "D100_MAX_CONNECTIONS_PER_ADDRESS": "1000000",
}


@contextmanager
def _serve(database_url: str, work: Path) -> Iterator[str]:
    """``d100 serve`` on a free port of 127.0.0.1, limits raised; stopped on exit."""
    with serve(database_url, work / "server.log", **LOAD) as base:
        yield base


def _spread(what: str, times: list[float]) -> str:
    """The median and the slowest of ``times``, or that there were none."""
    if not times:
        return f"none {what}"
    return f"{what} p50 {_ms(_pct(times, 0.5))}, max {_ms(max(times))}"
