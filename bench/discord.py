"""(i) Discord under load: signed interactions at 50 channels' tables beside (g)'s live pages.

One server process with its Discord endpoint on (a signing key made here, Discord's REST API
stood in for by a server in this process that answers every request at once and notes when
each arrived). Set up through the endpoint as people do: ``/table open`` in each of
``tables.TABLES`` channels by its GM, ``/link`` by each of its ``tables.MEMBERS`` members
(making the players members), and each member's character made on the page with that link.
Each member then holds the table's live stream open and the members roll on the page at
``WEB_RATE`` rolls/s, as in (g); those rolls are the ones the server posts to the table's
channel (``discord/mirror.py``: a row written with the roll, sent by the outbox).

Meanwhile slash commands arrive open loop (Poisson) at each rate of ``RATES``, signed as
Discord signs, each from a member of a table picked at random, in ``MIX``'s shares: ``/roll``
quick rolls of every edition's forms, ``/r`` rolls as the member's character, and ``/call``
by the table's GM naming ``CALLED`` of its players' characters. The buttons those offer are
clicked by the member they are for, after a person's delay (``CLICK_DELAY`` s on average,
from the button's arrival at Discord): a called test's Roll, and a failed roll's follow-ups
(its roller's private offer, "Spend 1 Luck to reroll"), a click's own roll's included.

Each rate reports, for the commands and for the clicks apart: the answer time from the due
time to the HTTP answer, p50 and p99 (and each command's and button's p99), against
Discord's 3 s (an answer later than that is lost: Discord shows "the application did not
respond"), and the share deferred (a command answered "thinking..." and edited later; a
click acknowledged, its roll following); the outbox's follow-up lag (from the HTTP answer to
the stand-in receiving the first request on the same token: a deferred answer's edit, a
roll's private offer, a clicked message's buttons set as they now are, the click's roll
right behind it in the same queue); the channel posts' delivery lag (from a web roll's event
time, stamped in its transaction, to the stand-in receiving its channel post); the requests
the server sent Discord's API, per second (one outbox a process, one request at a time:
against Discord's own round trip, not the stand-in's, that rate is what the outbox must keep
up with); and the web rolls' own p99 beside them, so the Discord door's cost to the page
shows.

The target, at every rate: answer p99 under a third of Discord's 3 s, every interaction
answered, every deferred one followed up, every web roll posted (a person's "busy" answer
from the endpoint's own limit is counted and shown, not a miss).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
import random
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from tests.server.services import serve

from d100.discord.interactions import (
    APPLICATION_COMMAND,
    CHAT_INPUT,
    DEFERRED,
    DEFERRED_UPDATE,
    MANAGE_CHANNELS,
    MESSAGE,
    MESSAGE_COMPONENT,
    STRING,
    SUB_COMMAND,
)
from d100.discord.play import BUTTON

from . import server as single
from . import tables
from .report import Report

RATES = (5, 10, 20, 30)  # slash commands per second, over all tables
WEB_RATE = 10  # (g)'s web rolls per second meanwhile
MIX = (("roll", 5), ("r", 4), ("call", 1))  # the commands' shares
CALLED = 2  # characters a /call names
CLICK_DELAY = 1.5  # seconds, on average, from a button's arrival to its click
SECONDS, SECONDS_QUICK = 20.0, 4.0
WARM_SECONDS = 5.0
SETTLE = 2.5  # seconds after a phase for the last follow-ups and posts (the sender idles 1 s)
DISCORD_SECONDS = 3.0  # Discord's own deadline for the first answer
TARGET = 1.0  # p99 well inside Discord's 3 s: a third of it
APPLICATION = "100000000000000001"
SKILL = "stealth"  # (g)'s web rolls' skill, on every sheet
# What people type into a dice bot, one of every edition's habits.
WORDS = ("brp 65 hard", "coc7 60 hard b1", "CC<=65", "rqg 80 -20", "RES(13-10)",
         "openquest 55 hard", "chances 70 tough", "coc6 CC<=50", "brp 45 p1")


@dataclass
class Seat:
    """A Discord user at a channel's table: its GM (the first seat) or a player."""

    user: int
    table: int
    character: str  # their character's name at the table
    web: tables.Member | None = None  # the same member on the page (their /link)

    @property
    def permissions(self) -> int:
        """The GM's seat may manage the channel, which opening its table takes."""
        return MANAGE_CHANNELS if self.user % tables.MEMBERS == 0 else 0

    def payload(self, kind: int, data: dict[str, Any], id: str, token: str) -> dict[str, Any]:
        return {
            "id": id, "type": kind, "application_id": APPLICATION, "token": token,
            "version": 1, "guild_id": str(200000000000000000 + self.table),
            "channel_id": channel_of(self.table),
            "member": {"user": {"id": str(400000000000000000 + self.user),
                                "username": f"u{self.user}", "global_name": f"U{self.user}"},
                       "permissions": str(self.permissions)},
            "data": data,
        }


def channel_of(table: int) -> str:
    return str(500000000000000000 + table)


@dataclass
class Kind:
    """One kind of interaction's answers in a phase (the commands, or the clicks)."""

    answered: list[float] = field(default_factory=list)  # seconds from due to answer
    by_name: dict[str, list[float]] = field(default_factory=dict)  # the same, by what it was
    deferred: int = 0  # "thinking..." or a click acknowledged: the rest follows
    refused: dict[int, int] = field(default_factory=dict)  # HTTP statuses other than 200
    busy: int = 0  # answered with the endpoint's private "busy"
    failed: int = 0  # dropped or unanswered
    follow: list[float] = field(default_factory=list)  # answer to what followed on its token
    unfollowed: int = 0  # deferred, and nothing followed

    def ok(self) -> bool:
        return (
            bool(self.answered)
            and not (self.refused or self.failed or self.unfollowed)
            and tables._pct(self.answered, 0.99) < TARGET
        )

    def shown(self) -> str:
        n = len(self.answered)
        late = sum(1 for t in self.answered if t >= DISCORD_SECONDS)
        troubles = [f"{k} answered {s}" for s, k in sorted(self.refused.items())]
        if self.busy:
            troubles.append(f"{self.busy} told busy")
        if self.failed:
            troubles.append(f"{self.failed} unanswered")
        if self.unfollowed:
            troubles.append(f"{self.unfollowed} deferred and never followed")
        if not self.answered:
            return "none answered" + ("; " + ", ".join(troubles) if troubles else "")
        return (
            f"answer p50 {tables._ms(tables._pct(self.answered, 0.5))}, p99 "
            f"{tables._ms(tables._pct(self.answered, 0.99))}, {late} past Discord's "
            f"{DISCORD_SECONDS:g} s; {self.deferred} deferred "
            f"({100 * self.deferred / max(1, n):.1f}%)"
            + ("; " + ", ".join(troubles) if troubles else "")
        )

    def each(self) -> str:
        """Each command's (or button's) answer p99."""
        return ", ".join(f"{name} {tables._ms(tables._pct(times, 0.99))} ({len(times)})"
                         for name, times in sorted(self.by_name.items())) or "none"

    def followed(self) -> str:
        if not self.follow:
            return "none followed up"
        return (f"follow-ups through the outbox p50 {tables._ms(tables._pct(self.follow, 0.5))}, "
                f"p99 {tables._ms(tables._pct(self.follow, 0.99))} ({len(self.follow)})")


@dataclass
class Answers:
    rate: int
    seconds: float
    commands: Kind = field(default_factory=Kind)
    clicks: Kind = field(default_factory=Kind)
    posts: list[float] = field(default_factory=list)  # web roll's event time to channel post
    unposted: int = 0
    sent: int = 0  # requests the server sent Discord's API (its one outbox: one at a time)
    web: tables.Result | None = None
    cpu: float = 0.0


def discord_load(report: Report, quick: bool) -> None:
    print("(i) Discord under load", flush=True)
    seconds = SECONDS_QUICK if quick else SECONDS
    run(report, RATES, seconds)
    report.note(
        f"(i) one SQLite server process; {tables.TABLES} tables, each opened in its own "
        f"channel by /table open, its {tables.MEMBERS} members joined by /link, characters "
        f"made on the page; {tables.TABLES * tables.MEMBERS} live web streams and "
        f"{WEB_RATE} web rolls/s at those tables as in (g); signed slash commands open loop "
        "(Poisson) from their members, /roll, /r and /call as "
        + ":".join(str(w) for _, w in MIX)
        + f"; every button they offer (a called test's Roll, a failed roll's Luck reroll) "
        f"clicked by its member {CLICK_DELAY:g} s on average after it arrives; answer time "
        "from the due time; follow-ups from the HTTP answer to the stand-in receiving what "
        "follows on its token; channel posts from the web roll's event time (in its "
        "transaction) to the stand-in receiving the post; Discord's REST API stood in for "
        f"by a server answering at once; {seconds:g} s per rate"
    )


def run(report: Report, rates: tuple[int, ...], seconds: float,
        warm: float = WARM_SECONDS) -> None:
    """The row's phases at ``rates``, each reported as it ends."""
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    with (
        single._sqlite_database() as (url, _),
        tempfile.TemporaryDirectory() as work,
        _StandIn.running() as stand_in,
        serve(url, Path(work) / "server.log", D100_HEADER_SECONDS="600", **single.LOAD,
              D100_DISCORD_PUBLIC_KEY=public, D100_DISCORD_API=stand_in.api,
              D100_DISCORD_APPLICATION_ID=APPLICATION, D100_DISCORD_BOT_TOKEN="bench",
              D100_DISCORD_SECRET="bench dice") as base,
    ):
        doors = _Doors(key, base, stand_in)
        seats = asyncio.run(doors.seat())
        # Not counted: the workers' start and each form's first odds, as a running server has.
        asyncio.run(doors.phase(seats, rates[0], warm))
        for rate in rates:
            _lines(report, asyncio.run(doors.phase(seats, rate, seconds)))


class _Doors:
    """Discord's side of the endpoint (signed interactions) and the page's, for one server."""

    def __init__(self, key: Ed25519PrivateKey, base: str, stand_in: _StandIn) -> None:
        self.key, self.base, self.stand_in = key, base, stand_in
        self.ids = itertools.count(700000000000000000)  # Discord's ids: one per interaction
        self.channels: dict[str, str] = {}  # table id: its channel

    def signed(self, payload: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
        body = json.dumps(payload).encode()
        stamp = str(int(time.time()))
        return body, {"X-Signature-Ed25519": self.key.sign(stamp.encode() + body).hex(),
                      "X-Signature-Timestamp": stamp, "Content-Type": "application/json"}

    async def seat(self) -> list[Seat]:
        """Every table opened in its channel, its members joined and their characters made."""
        seats = [Seat(n * tables.MEMBERS + i, n, f"C{i}")
                 for n in range(tables.TABLES) for i in range(tables.MEMBERS)]
        async with httpx.AsyncClient(base_url=self.base, timeout=60) as client:

            async def said(seat: Seat, data: dict[str, Any]) -> str:
                payload = seat.payload(APPLICATION_COMMAND, data, str(next(self.ids)), "setup")
                body, headers = self.signed(payload)
                answer = await client.post("/discord/interactions", content=body,
                                           headers=headers)
                answer.raise_for_status()
                found = answer.json()
                if found.get("type") != MESSAGE:
                    raise SystemExit(f"(i) set-up answered {found}")
                return str(found["data"].get("content", ""))

            async def one_table(n: int) -> None:
                here = seats[n * tables.MEMBERS:(n + 1) * tables.MEMBERS]
                opened = await said(here[0], _command("table", "open", system="brp", name=f"T{n}"))
                if "opened a table" not in opened:
                    raise SystemExit(f"(i) /table open answered {opened!r}")
                for seat in here:
                    link = await said(seat, _command("link"))
                    url = next(w for w in link.split() if "/t/" in w)
                    table, token = url.rsplit("/", 1)[1].split("#", 1)
                    made = await client.post(
                        f"/api/tables/{table}/characters",
                        headers={"authorization": f"Bearer {token}"},
                        json={"sheet": _sheet(seat.character)},
                    )
                    made.raise_for_status()
                    seat.web = tables.Member(table, token, made.json()["id"], self.base)
                    self.channels[table] = channel_of(n)

            sem = asyncio.Semaphore(8)

            async def bounded(n: int) -> None:
                async with sem:
                    await one_table(n)

            await asyncio.gather(*(bounded(n) for n in range(tables.TABLES)))
        return seats

    async def phase(self, seats: list[Seat], rate: int, seconds: float) -> Answers:
        found = Answers(rate, seconds)
        connections = tables._Connections()
        rng = random.Random(rate)
        members = [s.web for s in seats if s.web is not None]
        streams = [await tables._Stream.open(m) for m in members]
        pid = tables._server_pid(self.base)
        by_table: dict[int, list[Seat]] = {}
        for s in seats:
            by_table.setdefault(s.table, []).append(s)
        ours: dict[str, Seat] = {}  # this phase's tokens: whose
        answered: dict[str, tuple[Kind, float, bool]] = {}  # token: its kind, when, deferred
        clicks: list[tuple[float, int, Seat, str, str]] = []  # a heap: due, n, who, id, what
        self.stand_in.offers.clear()
        try:
            await asyncio.sleep(0.5)

            async def interact(seat: Seat, kind: Kind, kind_id: int, data: dict[str, Any],
                               due: float, name: str) -> dict[str, Any] | None:
                token = f"bench-{rate}-{seconds:g}-{next(self.ids)}"
                ours[token] = seat
                body, head = self.signed(seat.payload(kind_id, data, str(next(self.ids)), token))
                headers = "".join(f"{k}: {v}\r\n" for k, v in head.items())
                try:
                    async with asyncio.timeout(tables.TIMEOUT):
                        status, answer = await connections.request(
                            f"user{seat.user}", self.base, "POST", "/discord/interactions",
                            headers, body)
                except (OSError, asyncio.IncompleteReadError, TimeoutError):
                    kind.failed += 1
                    return None
                if status != 200:
                    kind.refused[status] = kind.refused.get(status, 0) + 1
                    return None
                kind.answered.append(time.perf_counter() - due)
                kind.by_name.setdefault(name, []).append(kind.answered[-1])
                reply: dict[str, Any] = json.loads(answer)
                deferred = reply.get("type") in (DEFERRED, DEFERRED_UPDATE)
                answered[token] = (kind, time.time(), deferred)
                if deferred:
                    kind.deferred += 1
                elif "busy" in json.dumps(reply).lower():
                    kind.busy += 1
                return reply

            def command(seat: Seat) -> tuple[Seat, dict[str, Any]]:
                """One of ``MIX``'s commands, from ``seat`` (a /call: from its GM)."""
                name = rng.choices([m for m, _ in MIX], [w for _, w in MIX])[0]
                if name == "roll":
                    return seat, _command("roll", words=rng.choice(WORDS))
                if name == "r":
                    return seat, _command("r", character=seat.character, skill=SKILL)
                # the GM calls a test of some of the players' characters
                gm, *players = by_table[seat.table]
                called = ", ".join(c.character for c in rng.sample(players, CALLED))
                return gm, _command("call", skill=SKILL, characters=called)

            async def slash(seat: Seat, data: dict[str, Any], due: float) -> None:
                reply = await interact(seat, found.commands, APPLICATION_COMMAND, data, due,
                                       f"/{data['name']}")
                if reply is None or data["name"] != "call":
                    return
                # each called character's Roll button, clicked by its player
                names = {s.character: s for s in by_table[seat.table]}
                at = time.perf_counter()
                for button in _buttons(reply.get("data") or {}):
                    player = names.get(button["label"].removeprefix("Roll: "))
                    if player is not None:
                        later(at, player, button["custom_id"], "a called test's Roll")

            def later(at: float, seat: Seat, custom_id: str, what: str) -> None:
                due = at + rng.expovariate(1 / CLICK_DELAY)
                heapq.heappush(clicks, (due, next(self.ids), seat, custom_id, what))

            async def click(seat: Seat, custom_id: str, due: float, what: str) -> None:
                data = {"custom_id": custom_id, "component_type": BUTTON}
                await interact(seat, found.clicks, MESSAGE_COMPONENT, data, due, what)

            cpu, sent = tables._cpu(pid), self.stand_in.requests
            start = time.perf_counter()
            end = start + seconds
            web = asyncio.create_task(tables._phase(members, WEB_RATE, seconds, self.base,
                                                    streams))
            tasks = []
            due = start + rng.expovariate(rate)
            while True:
                now = time.perf_counter()
                while self.stand_in.offers:  # a follow-up's buttons reached "Discord"
                    token, arrived, ids = self.stand_in.offers.popleft()
                    if token in ours:
                        later(now - (time.time() - arrived), ours[token], rng.choice(ids),
                              "a roll's follow-up")
                while clicks and clicks[0][0] <= now:
                    at, _, seat, custom_id, what = heapq.heappop(clicks)
                    if at < end:
                        tasks.append(asyncio.create_task(click(seat, custom_id, at, what)))
                if due <= now and due < end:
                    seat, data = command(rng.choice(seats))
                    tasks.append(asyncio.create_task(slash(seat, data, due)))
                    due += rng.expovariate(rate)
                    continue
                if now >= end:
                    break
                await asyncio.sleep(max(0.0, min(due, clicks[0][0] if clicks else due,
                                                 now + 0.01) - time.perf_counter()))
            await asyncio.gather(*tasks)
            found.web = await web
            found.cpu = tables._cpu(pid) - cpu
            await asyncio.sleep(SETTLE)  # the last follow-ups and channel posts arrive
            found.sent = self.stand_in.requests - sent
            self._delivered(found, answered)
            return found
        finally:
            for s in streams:
                s.close()
            connections.close()

    def _delivered(self, found: Answers, answered: dict[str, tuple[Kind, float, bool]]) -> None:
        """The follow-ups' and channel posts' lags, from what the stand-in received."""
        arrived = self.stand_in.arrived
        for token, (kind, at, deferred) in answered.items():
            if token in arrived:
                kind.follow.append(arrived[token] - at)
            elif deferred:
                kind.unfollowed += 1
        for table, seq, at in found.web.made if found.web else ():
            posted = arrived.get(f"{self.channels[table]}#{seq}")
            if posted is None:
                found.unposted += 1
            else:
                found.posts.append(posted - at)


def _command(name: str, sub: str | None = None, /, **options: str) -> dict[str, Any]:
    """A slash command's data as Discord sends it: its text options, in ``sub``'s if given."""
    given: list[dict[str, Any]] = [
        {"name": k, "type": STRING, "value": v} for k, v in options.items()]
    if sub is not None:
        given = [{"name": sub, "type": SUB_COMMAND, "options": given}]
    return {"id": "1", "name": name, "type": CHAT_INPUT, "options": given}


def _sheet(name: str) -> str:
    """A character with Luck enough for every reroll a phase's failures offer."""
    return (f'name = "{name}"\nsystem = "brp"\nluck = {{ current = 99, maximum = 99 }}\n'
            f"skills = {{ {SKILL} = 65 }}\n")


def _buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's buttons that may be clicked."""
    return [b for row in message.get("components") or () for b in row.get("components") or ()
            if not b.get("disabled")]


def _lines(report: Report, r: Answers) -> None:
    web = r.web
    rolls = len(web.rolls) if web else 0
    n, clicked = len(r.commands.answered), len(r.clicks.answered)
    cpu = tables._ms(r.cpu / max(1, n + clicked + rolls))
    target = f"p99 < {TARGET * 1e3:.0f} ms"
    report.line(
        "i",
        f"SQLite, 1 process, {r.rate} slash commands/s offered (/roll, /r, /call) at "
        f"{tables.TABLES} channels' tables beside {WEB_RATE} web rolls/s there, {n} answered",
        r.commands.shown(),
        f"p99 by command {r.commands.each()}; {r.commands.followed()}; "
        + (f"web rolls p99 {tables._ms(tables._pct(web.rolls, 0.99))}, delivery p99 "
           f"{tables._ms(tables._pct(web.delivery, 0.99))}{web.troubles()}; " if web else "")
        + f"server CPU {cpu} per request (every kind)",
        target,
        r.commands.ok(),
    )
    posts = (f"p50 {tables._ms(tables._pct(r.posts, 0.5))}, p99 "
             f"{tables._ms(tables._pct(r.posts, 0.99))}" if r.posts else "none")
    report.line(
        "i",
        f"SQLite, 1 process, at {r.rate} commands/s: their buttons clicked, "
        f"{clicked} clicks answered ({clicked / r.seconds:.1f}/s)",
        r.clicks.shown(),
        f"p99 by button {r.clicks.each()}; {r.clicks.followed()}; web rolls' channel posts "
        f"from their event time {posts} "
        f"({len(r.posts)} of {len(r.posts) + r.unposted} posted); {r.sent} requests to "
        f"Discord's API in all ({r.sent / r.seconds:.1f}/s)",
        target,
        r.clicks.ok() and not r.unposted,
    )


class _StandIn:
    """Discord's REST API, answering every request 200 at once, in a thread of its own (its
    clock is not held up by the bench's loop): when the first request on each interaction
    token (a follow-up or an edit) and each channel post (by channel and roll number)
    arrived, and the buttons each follow-up offered."""

    def __init__(self) -> None:
        self.api = ""  # its address, once it listens
        self.arrived: dict[str, float] = {}  # token, or "{channel}#{seq}": first arrival
        self.requests = 0
        self.offers: deque[tuple[str, float, list[str]]] = deque()  # token, at, button ids

    @classmethod
    @contextmanager
    def running(cls) -> Iterator[_StandIn]:
        stand_in, loop = cls(), asyncio.new_event_loop()
        started = loop.run_until_complete(asyncio.start_server(stand_in.handle, "127.0.0.1", 0))
        stand_in.api = f"http://127.0.0.1:{started.sockets[0].getsockname()[1]}/api/v10"
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        try:
            yield stand_in
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(5)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                path = line.split(b" ")[1].decode()
                length = 0
                while (head := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = head.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                self.note(path, await reader.readexactly(length), time.time())
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 2\r\n\r\n{}")
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            pass
        finally:
            writer.close()

    def note(self, path: str, body: bytes, at: float) -> None:
        # /api/v10/webhooks/{app}/{token}[/messages/@original] or /channels/{id}/messages
        self.requests += 1
        parts = path.split("/")
        message = json.loads(body) if body else {}
        if "webhooks" in parts:
            token = parts[parts.index("webhooks") + 2]
            self.arrived.setdefault(token, at)
            offered = [b["custom_id"] for b in _buttons(message)]
            if offered and "messages" not in parts:  # a follow-up's, not an edit's
                self.offers.append((token, at, offered))
        elif "channels" in parts:
            title = str(((message.get("embeds") or [{}])[0]).get("title", ""))
            seq = title.rsplit("#", 1)[-1]
            self.arrived.setdefault(f"{parts[parts.index('channels') + 1]}#{seq}", at)
