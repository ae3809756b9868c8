"""Kill -9 under load: every acknowledged roll survives, unchanged, exactly once, and verifies.

A real ``d100 serve`` process takes rolls from CLIENTS concurrent clients and is killed with
SIGKILL at random moments, KILLS times, then restarted on the same database. Each client
retries a request it got no answer to with the same Idempotency-Key until it is answered, so
at the end every request was acknowledged once: the log must hold exactly those rolls, each
as it was acknowledged, with gapless nonces, and each must verify once the seed is revealed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from d100.cli.verify import VERIFIED, audit_log
from tests.conftest import FIGURES, depth, need_service

from .services import ROOT, free_port, postgres_available, postgres_database
from .tablehelp import Api, Table, bearer

pytestmark = pytest.mark.slow

# 3 kills of 40 clients in CI; 20 of 100 at D100_TEST_DEPTH=deep. Each kill lands on requests
# in flight (the test asserts it), so more kills only try more moments of the same commit
# (3: each database's kills were the suite's longest tests, a minute apiece at 8; each kill
# is a restart, an interpreter's start and imports).
CLIENTS = depth(40, 100)
PLAYERS = depth(10, 25)  # a few clients per token, each well inside the rate limit
KILLS = depth(3, 20)
UP_BETWEEN_KILLS = (0.2, 0.9)  # seconds of load before each kill, drawn at random
START_TIMEOUT = 30


# ``d100 serve`` with its imports done ahead, waiting for a line on stdin: the next server is
# warmed up while the current one takes load, so a restart costs seconds less on two cores.
WARM = """
import sys
from d100.cli import main
from d100.server import app
sys.stdin.readline()
sys.exit(main(sys.argv[1:]))
"""


class Server:
    """``d100 serve`` on a fixed port and database, started again after each kill."""

    def __init__(self, database_url: str, log: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.command = [
            sys.executable,
            "-c",
            WARM,
            "serve",
            "--port",
            str(self.port),
            "--database",
            database_url,
        ]
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.warm = self._spawn()
        self.kills = 0
        # Set while the server answers: clients wait on it instead of hammering a dead port,
        # which on two cores would slow every restart down.
        self.up = threading.Event()

    def _spawn(self) -> subprocess.Popen[bytes]:
        with self.log.open("ab") as out:
            return subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                env=os.environ.copy(),
            )

    def start(self) -> None:
        self.proc = self.warm
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"go\n")
        self.proc.stdin.close()
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    self.up.set()
                    self.warm = self._spawn()  # importing while this one serves
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.05)

    def kill(self) -> None:
        assert self.proc is not None
        self.up.clear()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.kills += 1

    def stop(self) -> None:
        for proc in (self.proc, self.warm):
            if proc is not None:
                proc.kill()
                proc.wait()


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    with database(request.param, tmp_path) as url:
        running = Server(url, tmp_path / "server.log")
        try:
            running.start()
            yield running
        finally:
            running.stop()


def database(kind: str, tmp_path: Path) -> AbstractContextManager[str]:
    """A database of the test's own: a fresh PostgreSQL database, or a SQLite file."""
    if kind == "postgresql":
        need_service(postgres_available(), "PostgreSQL is not running at 127.0.0.1:5432")
        return postgres_database()
    return nullcontext(f"sqlite:///{tmp_path / 'd100.sqlite3'}")


@dataclass
class Acks:
    """What the clients were told: key -> (body, answer); and what went wrong for them."""

    made: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    retries: int = 0
    refused: list[str] = field(default_factory=list)  # a 4xx: never expected here
    lock: threading.Lock = field(default_factory=threading.Lock)


def client(
    server: Server,
    table: Table,
    who: tuple[str, str, str],
    stop: threading.Event,
    acks: Acks,
    seed: int,
) -> None:
    """Roll until told to stop, never leaving a request unanswered."""
    token, character, rival = who  # a contest opposes the player's own second character
    rng = random.Random(seed)
    with httpx.Client(base_url=server.base, timeout=10, headers=bearer(token)) as http:
        while not stop.is_set():
            key = uuid.uuid4().hex
            body: dict[str, Any] = {
                "actor": {"character_id": character, "skill": rng.choice(["stealth", "dodge"])}
            }
            if rng.random() < 0.3:
                body["opponent"] = {"character_id": rival, "skill": "spot"}
            while True:  # the same key until answered: a retry must never roll again
                try:
                    r = http.post(
                        f"/api/tables/{table.id}/rolls", json=body, headers={"idempotency-key": key}
                    )
                except httpx.HTTPError:
                    r = None
                if r is not None and r.status_code == 201:
                    with acks.lock:
                        acks.made[key] = (body, r.json())
                    break
                if r is not None and r.status_code < 500 and r.status_code != 429:
                    with acks.lock:
                        acks.refused.append(r.text)
                    return
                with acks.lock:
                    acks.retries += 1
                server.up.wait(START_TIMEOUT)
                limited = r is not None and r.status_code == 429  # the rate limit: as told
                time.sleep(float(r.headers["retry-after"]) if limited else rng.uniform(0, 0.05))


@pytest.mark.parametrize(
    "server", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_acknowledged_rolls_survive_kill_9(server: Server, record_property: Any) -> None:
    began = time.monotonic()
    with httpx.Client(base_url=server.base, timeout=10) as setup:
        table = Api(setup).table("brp")
        players = [table.join(f"P{i}") for i in range(PLAYERS)]
        who = [
            (p, table.character(p, f"C{i}"), table.character(p, f"R{i}"))
            for i, p in enumerate(players)
        ]
    stop = threading.Event()
    acks = Acks()
    threads = [
        threading.Thread(target=client, args=(server, table, who[i % PLAYERS], stop, acks, i))
        for i in range(CLIENTS)
    ]
    for t in threads:
        t.start()
    chaos = random.Random()
    for _ in range(KILLS):
        time.sleep(chaos.uniform(*UP_BETWEEN_KILLS))
        server.kill()
        server.start()
    time.sleep(UP_BETWEEN_KILLS[1])
    stop.set()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a client never got its answer"
    assert acks.refused == []

    with httpx.Client(base_url=server.base, timeout=30) as http:
        gm = Table(Api(http), table.id, "brp", table.gm, table.invite)
        gm.ok("POST", "/seeds/rotate", table.gm)  # reveal: every roll becomes verifiable
        lines = gm.req("GET", "/log.jsonl", table.gm).text.splitlines()
    log = {e["seq"]: e for e in map(json.loads, lines)}
    rolls = [e for e in log.values() if e["kind"] in ("roll", "contest")]
    answers = [answer for _, answer in acks.made.values()]
    # Every acknowledged roll is in the log exactly as it was acknowledged, the link its
    # answer gave as the head the one it holds in the log ...
    assert all(_as_acknowledged(log.get(a["seq"]), a) for a in answers)
    # ... and nothing else rolled: every request was answered once, retries included.
    assert sorted(a["seq"] for a in answers) == sorted(e["seq"] for e in rolls)
    assert sorted(e["provable"]["nonce"] for e in rolls) == list(range(len(rolls)))
    audit = audit_log(lines)
    assert audit.ok and audit.count(VERIFIED) == len(rolls), [
        c for c in audit.checks if c.status != VERIFIED
    ][:5]
    # Rolls were acknowledged between the kills, and kills landed on requests in flight.
    assert server.kills >= KILLS and len(answers) >= 2 * KILLS and acks.retries >= KILLS

    figures = (
        f"{server.kills} kills survived, {len(answers)} acknowledged rolls checked in "
        f"the log, {audit.count(VERIFIED)} verified, {acks.retries} retries, "
        f"{CLIENTS} clients, {time.monotonic() - began:.0f} s"
    )
    record_property(FIGURES, figures)
    print(figures)


def _as_acknowledged(logged: dict[str, Any] | None, answer: dict[str, Any]) -> bool:
    """The logged event is the answer: the same fields but for the chain's (the answer's head
    is the log as it stood; the export's line carries its link and proof instead)."""
    if logged is None:
        return False
    chained = ("head", "chain")
    same = {k: v for k, v in logged.items() if k not in chained} == {
        k: v for k, v in answer.items() if k not in chained
    }
    head = answer.get("head", {})
    linked = head.get("seq") != answer["seq"] or head.get("link") == logged["chain"]["link"]
    return same and linked
