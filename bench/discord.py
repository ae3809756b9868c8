"""(i) Discord under load: signed interactions beside (g)'s live tables.

One server process with its Discord endpoint on (a signing key made here, Discord's REST API
stood in for by a server in this process that answers every post at once and notes when each
arrived). (g)'s ``TABLES`` x ``MEMBERS`` web members hold their live streams open and roll at
``WEB_RATE`` rolls/s, while interactions arrive open loop (Poisson) at each rate of ``RATES``:
``/roll`` quick rolls of every edition's forms, from one user of ``USERS`` picked at random
(each user under the endpoint's own rate limit, as people are), signed as Discord signs.

Each rate reports the answer time from the interaction's due time to its HTTP answer, p50 and
p99, against Discord's 3 s (an answer later than that is lost: Discord shows "the application
did not respond"); the share deferred (answered "thinking..." and followed by an edit through
the outbox); the outbox's delivery lag (from the deferred answer to the edit reaching Discord's
stand-in); and the web rolls' own p99 beside them, so the Discord door's cost to the page shows.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from tests.server.services import serve

from . import server as single
from . import tables
from .report import Report

RATES = (10, 30)  # interactions per second
WEB_RATE = 10  # (g)'s web rolls per second meanwhile
USERS = 300  # Discord users: a rate of 30/s is 0.1/s each, inside the endpoint's limit
SECONDS, SECONDS_QUICK = 20.0, 4.0
WARM_SECONDS = 3.0
DISCORD_SECONDS = 3.0  # Discord's own deadline for the first answer
TARGET = 1.0  # p99 well inside Discord's 3 s: a third of it
APPLICATION = "100000000000000001"
# What people type into a dice bot, one of every edition's habits.
WORDS = ("brp 65 hard", "coc7 60 hard b1", "CC<=65", "rqg 80 -20", "RES(13-10)",
         "openquest 55 hard", "chances 70 tough", "coc6 CC<=50", "brp 45 p1")


@dataclass
class Answers:
    rate: int
    answered: list[float] = field(default_factory=list)  # seconds from due to answer
    deferred: dict[str, float] = field(default_factory=dict)  # token: when answered
    lag: list[float] = field(default_factory=list)  # deferred answer to the edit's arrival
    refused: dict[int, int] = field(default_factory=dict)  # HTTP statuses other than 200
    busy: int = 0  # answered with the endpoint's private "busy"
    failed: int = 0  # dropped or unanswered
    web: tables.Result | None = None
    cpu: float = 0.0

    def ok(self) -> bool:
        return (
            bool(self.answered)
            and not (self.refused or self.failed or self.busy)
            and tables._pct(self.answered, 0.99) < TARGET
        )


def discord_load(report: Report, quick: bool) -> None:
    print("(i) Discord under load", flush=True)
    seconds = SECONDS_QUICK if quick else SECONDS
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    with (
        single._sqlite_database() as (url, _),
        tempfile.TemporaryDirectory() as work,
        _discord_stand_in() as (api, arrived),
        serve(url, Path(work) / "server.log", D100_HEADER_SECONDS="600", **single.LOAD,
              D100_DISCORD_PUBLIC_KEY=public, D100_DISCORD_API=api,
              D100_DISCORD_APPLICATION_ID=APPLICATION, D100_DISCORD_BOT_TOKEN="bench",
              D100_DISCORD_SECRET="bench dice") as base,
    ):
        members = asyncio.run(tables._setup([base], tables.TABLES, tables.MEMBERS))
        # Not counted: the workers' start and each form's first odds, as a running server has.
        asyncio.run(_phase(key, base, members, RATES[0], WARM_SECONDS, arrived))
        for rate in RATES:
            found = asyncio.run(_phase(key, base, members, rate, seconds, arrived))
            _line(report, found)
    report.note(
        f"(i) one SQLite server process, {tables.TABLES * tables.MEMBERS} live web streams "
        f"and {WEB_RATE} web rolls/s as in (g), signed /roll interactions open loop from "
        f"{USERS} users; answer time from the due time; Discord's REST API stood in for by a "
        f"server answering at once; {seconds:g} s per rate"
    )


async def _phase(
    key: Ed25519PrivateKey, base: str, members: list[tables.Member], rate: int, seconds: float,
    arrived: dict[str, float],
) -> Answers:
    found = Answers(rate)
    connections = tables._Connections()
    rng = random.Random(rate)
    streams = [await tables._Stream.open(m) for m in members]
    pid = tables._server_pid(base)
    try:
        await asyncio.sleep(0.5)

        async def interact(n: int, due: float) -> None:
            user = rng.randrange(USERS)
            token = f"bench-{rate}-{seconds:g}-{n}"
            body = json.dumps({
                "id": f"7{rate:03d}{int(seconds * 10):05d}{n:07d}", "type": 2,
                "application_id": APPLICATION, "token": token, "version": 1,
                "guild_id": str(200000000000000000 + user % tables.TABLES),
                "channel_id": str(500000000000000000 + user % tables.TABLES),
                "member": {"user": {"id": str(400000000000000000 + user),
                                    "username": f"u{user}", "global_name": f"U{user}"}},
                "data": {"id": "1", "name": "roll", "type": 1, "options": [
                    {"name": "words", "type": 3, "value": rng.choice(WORDS)}]},
            }).encode()
            stamp = str(int(time.time()))
            headers = (f"X-Signature-Ed25519: {key.sign(stamp.encode() + body).hex()}\r\n"
                       f"X-Signature-Timestamp: {stamp}\r\nContent-Type: application/json\r\n")
            try:
                async with asyncio.timeout(tables.TIMEOUT):
                    status, answer = await connections.request(
                        f"user{user}", base, "POST", "/discord/interactions", headers, body)
            except (OSError, asyncio.IncompleteReadError, TimeoutError):
                found.failed += 1
                return
            if status != 200:
                found.refused[status] = found.refused.get(status, 0) + 1
                return
            now = time.perf_counter()
            found.answered.append(now - due)
            reply = json.loads(answer)
            if reply.get("type") == 5:
                found.deferred[token] = time.time()
            elif "busy" in json.dumps(reply).lower():
                found.busy += 1

        cpu = tables._cpu(pid)
        start = time.perf_counter()
        end = start + seconds
        web = asyncio.create_task(tables._phase(members, WEB_RATE, seconds, base, streams))
        tasks, n = [], 0
        due = start + rng.expovariate(rate)
        while due < end:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            tasks.append(asyncio.create_task(interact(n, due)))
            n += 1
            due += rng.expovariate(rate)
        await asyncio.gather(*tasks)
        found.web = await web
        found.cpu = tables._cpu(pid) - cpu
        await asyncio.sleep(2.0)  # the last deferred edits reach the stand-in
        for token, at in found.deferred.items():
            if token in arrived:
                found.lag.append(arrived[token] - at)
            else:
                found.failed += 1
        return found
    finally:
        for s in streams:
            s.close()
        connections.close()


def _line(report: Report, r: Answers) -> None:
    n = len(r.answered)
    troubles = [f"{k} answered {s}" for s, k in sorted(r.refused.items())]
    if r.busy:
        troubles.append(f"{r.busy} told busy")
    if r.failed:
        troubles.append(f"{r.failed} unanswered or never delivered")
    late = sum(1 for t in r.answered if t >= DISCORD_SECONDS)
    lag = (f"outbox lag p50 {tables._ms(tables._pct(r.lag, 0.5))}, p99 "
           f"{tables._ms(tables._pct(r.lag, 0.99))}" if r.lag else "no edits to deliver")
    web = r.web
    rolls = len(web.rolls) if web else 0
    report.line(
        "i",
        f"SQLite, 1 process, {r.rate} interactions/s offered beside {WEB_RATE} web rolls/s, "
        f"{n} interactions answered",
        f"answer p50 {tables._ms(tables._pct(r.answered, 0.5))}, p99 "
        f"{tables._ms(tables._pct(r.answered, 0.99))}, {late} past Discord's "
        f"{DISCORD_SECONDS:g} s; {len(r.deferred)} deferred "
        f"({100 * len(r.deferred) / max(1, n):.1f}%); {lag}"
        + ("; " + ", ".join(troubles) if troubles else ""),
        (f"web rolls p99 {tables._ms(tables._pct(web.rolls, 0.99))}, delivery p99 "
         f"{tables._ms(tables._pct(web.delivery, 0.99))}{web.troubles()}; " if web else "")
        + f"server CPU {tables._ms(r.cpu / max(1, n + rolls))} per request (both kinds)",
        f"p99 < {TARGET * 1e3:.0f} ms",
        r.ok(),
    )


@contextmanager
def _discord_stand_in() -> Iterator[tuple[str, dict[str, float]]]:
    """Discord's REST API, answering every request 200 at once: its address, and when each
    interaction token's edit (or each channel's post) arrived."""
    arrived: dict[str, float] = {}
    loop = asyncio.new_event_loop()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                path = line.split(b" ")[1].decode()
                length = 0
                while (head := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = head.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                await reader.readexactly(length)
                parts = path.split("/")
                # /api/v10/webhooks/{app}/{token}/messages/@original or /channels/{id}/messages
                token = parts[parts.index("webhooks") + 2] if "webhooks" in parts else path
                arrived.setdefault(token, time.time())
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 2\r\n\r\n{}")
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            pass
        finally:
            writer.close()

    async def start() -> asyncio.AbstractServer:
        return await asyncio.start_server(handle, "127.0.0.1", 0)

    server = loop.run_until_complete(start())
    port = server.sockets[0].getsockname()[1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/api/v10", arrived
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
