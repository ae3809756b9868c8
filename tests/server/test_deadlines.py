"""What a previous attack still held against a real ``d100 serve``: a connection that sent only
HTTP/2's preface and then nothing, one address filling the server's cap on connections, an
early answer closing a kept-alive connection unannounced, and a member's roll while one
address opens hundreds of connections at once (2,000 at ``D100_TEST_DEPTH=deep``)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from d100.server.serving import listen, per_address_cap
from tests.conftest import FIGURES, depth

from .services import migrated_sqlite, serve
from .tablehelp import Api, bearer
from .test_slow_clients import error_of, read_all

# real servers held to their deadlines: CI's, not the development loop's (make quick)
pytestmark = pytest.mark.slow

HEAD_SECONDS = 2.0
# The head deadline of a server whose connections must close before any deadline: no wait
# here comes near it, so a connection it closed was closed on its answer.
LONG_HEAD_SECONDS = 600.0
# A connection still open by then is held for good. Only a failing run waits this long.
GIVE_UP = HEAD_SECONDS + 30.0
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # an empty SETTINGS frame


def test_an_accepted_connection_sends_without_waiting_for_acks() -> None:
    """The server makes its own listening socket (the caps, the watchdog): it must turn off
    Nagle's algorithm, as Hypercorn and uvicorn do on theirs, or every keep-alive answer
    written in two parts waits 40 ms for the client's delayed ACK (a /health p50 of 44 ms
    against 1.7 ms, in the bench's one-client row)."""
    listener = listen("127.0.0.1", 0, cap=8)
    try:
        with socket.create_connection(listener.getsockname()[:2]):
            for _ in range(100):  # the listener does not block
                try:
                    conn, _ = listener.accept()
                    break
                except BlockingIOError:
                    time.sleep(0.01)
            with conn:
                assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        listener.close()


def test_connections_per_address_from_the_environment() -> None:
    assert per_address_cap({}) == 64
    assert per_address_cap({"D100_MAX_CONNECTIONS_PER_ADDRESS": "5000"}) == 5000
    for bad in ("0", "-1", "many", "1.5"):
        with pytest.raises(ValueError, match="D100_MAX_CONNECTIONS_PER_ADDRESS"):
            per_address_cap({"D100_MAX_CONNECTIONS_PER_ADDRESS": bad})


def _address(base: str) -> tuple[str, int]:
    where = urlsplit(base)
    return where.hostname or "", where.port or 0


def _closed_after(address: tuple[str, int], first: bytes) -> tuple[float | None, bytes]:
    """Send ``first`` and nothing more: the seconds from before connecting till the server
    closed (None: open at ``GIVE_UP``), and what it sent."""
    start, received = time.monotonic(), b""  # the server's deadline cannot start before this
    with socket.create_connection(address, timeout=GIVE_UP) as sock:
        sock.sendall(first)
        sock.settimeout(0.5)
        while time.monotonic() - start < GIVE_UP:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return time.monotonic() - start, received
            if not chunk:
                return time.monotonic() - start, received
            received += chunk
    return None, received


@pytest.fixture(scope="module")
def short_heads(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the tests of its head deadline, ``HEAD_SECONDS``."""
    where = tmp_path_factory.mktemp("heads")
    url = migrated_sqlite(where / "d100.sqlite3")
    with serve(url, where / "server.log", D100_HEADER_SECONDS=str(HEAD_SECONDS)) as base:
        yield base


@pytest.mark.parametrize("first", [PREFACE, PREFACE + SETTINGS, b"", b"GET /health HTTP/1.1\r\n"],
                         ids=["preface", "preface and settings", "silent", "a head begun"])
def test_a_connection_with_no_request_closes_at_the_head_deadline(
    short_heads: str, first: bytes
) -> None:
    seconds, _ = _closed_after(_address(short_heads), first)
    assert seconds is not None, "still open well past the head deadline"
    print(f"closed after {seconds:.2f} s")  # how late is a figure, not a bound
    assert seconds > HEAD_SECONDS - 0.5, seconds  # not before it


def test_h2c_upgrade_is_refused(short_heads: str) -> None:
    """Asking to switch to HTTP/2 in clear text is answered (505 on HTTP/2's stream, or on
    HTTP/1.1) and the connection then closes by the head deadline, not held."""
    host = urlsplit(short_heads).netloc.encode()
    head = (b"GET /health HTTP/1.1\r\nHost: " + host + b"\r\nConnection: Upgrade, "
            b"HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
    seconds, answer = _closed_after(_address(short_heads), head)
    assert seconds is not None, "still open well past the head deadline"
    # refused, on HTTP/2's stream (its 505 is HPACK's) or on HTTP/1.1: HTTP/1.1 only
    assert b'"field": "http_version"' in answer, answer[:500]


async def _open_many(address: tuple[str, int], n: int, first: bytes,
                     ) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    opened = []
    for _ in range(n):
        reader, writer = await asyncio.open_connection(*address)
        writer.write(first)
        opened.append((reader, writer))
    return opened


async def _answers(opened: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]],
                   ) -> list[bytes]:
    """Each connection's first bytes: a refusal, or HTTP/2's settings of one held; both come
    at once (b"": none by ``GIVE_UP``)."""
    async def one(reader: asyncio.StreamReader) -> bytes:
        try:
            return await asyncio.wait_for(reader.read(4096), GIVE_UP)
        except (TimeoutError, OSError):
            return b""
    return list(await asyncio.gather(*(one(reader) for reader, _ in opened)))


CAP, PER_ADDRESS = 96, 64  # the server's cap here (set lower), and its default per address


@pytest.mark.slow
def test_one_address_cannot_fill_the_connection_cap(tmp_path: Path) -> None:
    """100 connections that sent the preface, from one address, against a cap of 96: past
    the address's 64 they are told 429 at once and closed, and a client at another address
    is answered; the 64 close by the head deadline."""
    url = migrated_sqlite(tmp_path / "d100.sqlite3")
    with serve(url, tmp_path / "server.log", D100_MAX_CONNECTIONS=str(CAP),
               D100_HEADER_SECONDS=str(HEAD_SECONDS)) as base:
        address = _address(base)

        async def flood() -> tuple[list[bytes], int, list[Any]]:
            opened = await _open_many(address, CAP + 4, PREFACE)
            answers = await _answers(opened)
            other = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
            async with httpx.AsyncClient(transport=other, timeout=GIVE_UP) as client:
                status = (await client.get(f"{base}/health")).status_code
            held = [r for (r, _), a in zip(opened, answers, strict=True)
                    if not a.startswith(b"HTTP/1.1 ")]
            closed = await asyncio.gather(*(asyncio.wait_for(r.read(), GIVE_UP) for r in held),
                                          return_exceptions=True)
            for _, writer in opened:
                writer.close()
            return answers, status, closed

        answers, status, closed = asyncio.run(flood())
    told = [a for a in answers if a.startswith(b"HTTP/1.1 ")]  # the held had HTTP/2's settings
    assert status == 200, status
    assert b"" not in answers, "a connection had no answer"
    extra = CAP + 4 - PER_ADDRESS
    assert extra <= len(told) <= extra + 2, len(told)  # the startup probe may count
    status_line, error = error_of(told[0])
    assert status_line.startswith("429") and error["field"] == "connections", told[0]
    assert b"retry-after:" in told[0].lower() and b"connection: close" in told[0].lower()
    # the held were closed by the server (a read to the end), none still open at GIVE_UP
    assert not [c for c in closed if isinstance(c, BaseException)], closed


def _answered(sock: socket.socket) -> bytes:
    """One whole answer read from ``sock`` (its head, and its body by its length)."""
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(65536)
        assert chunk, answer
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.lower().split(b"\r\n")
                  if line.startswith(b"content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, answer
        body += chunk
    return head + b"\r\n\r\n" + body


def test_an_early_answer_that_closes_says_so(tmp_path: Path) -> None:
    """A kept-alive connection whose request is answered before its body is read (the rate
    limit's 429) is closed after it: the answer says ``connection: close``. The server's
    head deadline is far off: a close before it is the early answer's."""
    url = migrated_sqlite(tmp_path / "d100.sqlite3")
    with serve(url, tmp_path / "server.log", D100_RATE_BURST="1", D100_RATE_PER_SECOND="0.01",
               D100_HEADER_SECONDS=str(LONG_HEAD_SECONDS)) as base:
        host = urlsplit(base).netloc.encode()
        body = b'{"name": "K", "system": "brp"}'
        post = (b"POST /api/tables HTTP/1.1\r\nHost: " + host + b"\r\ncontent-type: "
                b"application/json\r\ncontent-length: " + str(len(body) + 10).encode() +
                b"\r\n\r\n" + body)
        with socket.create_connection(_address(base), timeout=GIVE_UP) as sock:
            # The one request of the burst; the next is over the rate limit.
            sock.sendall(b"GET /api/systems HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
            answer = _answered(sock)  # the connection is kept alive, its answer in
            with contextlib.suppress(OSError):
                sock.sendall(post)
            try:
                answer += read_all(sock)
                closed = True
            except TimeoutError:  # still open at GIVE_UP
                closed = False
    assert closed, "the connection stayed open after the early answer"
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    head = (b"HTTP/1.1 " + answer.rpartition(b"HTTP/1.1 ")[2]).partition(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"http/1.1 429"), answer[:300]
    assert b"connection: close" in head, head


def _roll(client: httpx.Client, table: str, gm: str, alice: str) -> float:
    start = time.monotonic()
    answer = client.post(f"/api/tables/{table}/rolls", headers=bearer(gm),
                         json={"actor": {"character_id": alice, "skill": "stealth"}})
    assert answer.status_code == 201, answer.text
    return time.monotonic() - start


async def _waves(address: tuple[str, int], n: int, going: Any, stop: Any) -> tuple[int, int]:
    """``n`` silent connections opened at once, each re-opened at once as it is closed, till
    ``stop`` is set (``going`` once the first ``n`` are opened): how many were opened, and
    how many of them were told 429."""
    opened = refused = 0

    async def hold() -> None:
        nonlocal opened, refused
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(*address)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            opened += 1
            if opened >= n:
                going.set()
            seen = b""
            while not stop.is_set():
                try:
                    chunk = await asyncio.wait_for(reader.read(4096), 0.5)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            refused += seen.startswith(b"HTTP/1.1 429")
            writer.close()

    await asyncio.gather(*(hold() for _ in range(n)))
    return opened, refused


def _attacker(address: tuple[str, int], n: int, going: Any, stop: Any, out: Any) -> None:
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n * 2), hard))
    out.put(asyncio.run(_waves(address, n, going, stop)))


# Five times the address's cap (64), each re-opened as it is turned away: 2,000 deep.
ATTACKERS, ROLLS = depth(320, 2000), depth(5, 10)


@pytest.mark.slow
def test_a_storm_of_connections_from_one_address_leaves_another_s_roll_answered(
    tmp_path: Path, record_property: Any
) -> None:
    """One address opens ``ATTACKERS`` connections at once (five times its cap in CI, 2,000
    deep), re-opening each as it closes: it is
    told 429 past its 64, and another address's rolls meanwhile are all answered. How fast
    is printed: before the cap per address, the 2,000 came back in waves the server accepted
    all at once, 6 of 57 rolls over 0.25 s (to 0.4 s; past 1 s in the attack), against 28 ms
    at most with it; on a shared machine a bound on it fails by the machine's load."""
    import multiprocessing
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 2 * ATTACKERS + 400
    if hard != resource.RLIM_INFINITY and hard < need:
        pytest.skip(f"this process may open {hard} files, the test needs {need}")
    url = migrated_sqlite(tmp_path / "d100.sqlite3")
    with serve(url, tmp_path / "server.log", open_files=(1024, 4096),
               D100_HEADER_SECONDS=str(HEAD_SECONDS)) as base:
        address = _address(base)
        other = httpx.HTTPTransport(local_address="127.0.0.2", limits=httpx.Limits(
            max_keepalive_connections=0))
        with httpx.Client(base_url=base, timeout=GIVE_UP, transport=other) as client:
            table = Api(client).table()
            gm, alice = table.gm, table.character(table.gm, "Alice")
            spawn = multiprocessing.get_context("spawn")
            going, stop, out = spawn.Event(), spawn.Event(), spawn.Queue()
            attacker = spawn.Process(target=_attacker,
                                     args=(address, ATTACKERS, going, stop, out))
            attacker.start()
            try:
                assert going.wait(120), "the attacker never opened its connections"
                rolls = []
                for _ in range(ROLLS):  # each answered 201, on a fresh connection
                    rolls.append(_roll(client, table.id, gm, alice))
                    time.sleep(0.2)
            finally:
                stop.set()
                attacker.join(60)
                if attacker.is_alive():
                    attacker.kill()
            opened, refused = out.get(timeout=10)
    record_property(FIGURES, (
        f"while one address opened {opened} connections ({refused} told 429), another's "
        f"roll p50 {statistics.median(rolls) * 1e3:.0f} ms, max {max(rolls) * 1e3:.0f} ms"))
    assert refused >= ATTACKERS // 2, (opened, refused)  # the cap per address turned them away


# Many addresses of one host holding silent connections, as the attack that kept a member out
# (20 loopback addresses x 60 each, 503 on 36 of 40 rolls), at a small scale: two /24s of ten
# addresses each, six silent connections an address, against caps a fraction of that.
FLOOD_CAP, FLOOD_NETWORK, FLOOD_ADDRESS = 40, 24, 8
FLOOD_NETWORKS, FLOOD_ADDRESSES, FLOOD_EACH = ("127.0.0", "127.0.1"), 10, 6


async def _silent_flood(address: tuple[str, int]) -> list[asyncio.StreamReader]:
    opened = []
    for network in FLOOD_NETWORKS:
        for i in range(FLOOD_ADDRESSES):
            for _ in range(FLOOD_EACH):
                reader, _writer = await asyncio.open_connection(
                    *address, local_addr=(f"{network}.{10 + i}", 0))
                opened.append(reader)
    return opened


def test_silent_connections_from_many_addresses_keep_no_member_out(tmp_path: Path) -> None:
    """120 silent connections from 20 addresses of two /24s, one of them the member's: past
    each network's share and the cap, the oldest silent ones are shut (told nothing) to make
    room, the member's kept-alive connection stays, and the member's rolls on fresh
    connections from the crowded /24 are each answered 201. The head deadline is far off:
    every connection closed was shut to make room."""
    url = migrated_sqlite(tmp_path / "d100.sqlite3")
    caps = {"D100_MAX_CONNECTIONS": str(FLOOD_CAP),
            "D100_MAX_CONNECTIONS_PER_NETWORK": str(FLOOD_NETWORK),
            "D100_MAX_CONNECTIONS_PER_ADDRESS": str(FLOOD_ADDRESS),
            "D100_HEADER_SECONDS": str(LONG_HEAD_SECONDS)}
    with serve(url, tmp_path / "server.log", **caps) as base:
        address = _address(base)
        with httpx.Client(base_url=base, timeout=GIVE_UP) as setup:
            table = Api(setup).table()
            alice = table.character(table.gm, "Alice")
        with httpx.Client(base_url=base, timeout=GIVE_UP) as kept:
            _roll(kept, table.id, table.gm, alice)  # kept alive, vouched for by this roll

            async def flood() -> tuple[list[int], list[bytes]]:
                opened = await _silent_flood(address)
                fresh = httpx.AsyncHTTPTransport(local_address="127.0.0.1", retries=0)
                rolls = []
                for _ in range(5):
                    async with httpx.AsyncClient(base_url=base, transport=fresh,
                                                 timeout=GIVE_UP) as member:
                        answer = await member.post(
                            f"/api/tables/{table.id}/rolls", headers=bearer(table.gm),
                            json={"actor": {"character_id": alice, "skill": "stealth"}})
                        rolls.append(answer.status_code)
                rolls.append(await asyncio.to_thread(
                    lambda: kept.post(f"/api/tables/{table.id}/rolls", headers=bearer(table.gm),
                                      json={"actor": {"character_id": alice,
                                                      "skill": "stealth"}}).status_code))
                # At most the cap are open: wait till the rest have been shut, each told what.
                told = [asyncio.ensure_future(r.read()) for r in opened]
                shut = len(opened) - FLOOD_CAP
                give_up = time.monotonic() + GIVE_UP
                while sum(t.done() for t in told) < shut:
                    assert time.monotonic() < give_up, "silent connections never made room"
                    await asyncio.sleep(0.05)
                for t in told:
                    t.cancel()
                return rolls, [t.result() for t in told if t.done() and not t.cancelled()]

            rolls, said = asyncio.run(flood())
    assert rolls == [201] * 6, rolls
    assert len(said) >= FLOOD_NETWORKS.__len__() * FLOOD_ADDRESSES * FLOOD_EACH - FLOOD_CAP
    assert set(said) == {b""}, said[:3]  # shut to make room: no 503, no 429


def test_a_connection_its_client_closed_lets_its_place_go_at_once(tmp_path: Path) -> None:
    """Hypercorn kept a connection in no request that its client closed open till the head
    deadline, and its place with it: one address's four, closed, kept a fifth out (429) for
    as long. The deadline is far off here: the places come back once the server sees the
    closes, and the address is answered again."""
    url = migrated_sqlite(tmp_path / "d100.sqlite3")
    with serve(url, tmp_path / "server.log", D100_MAX_CONNECTIONS_PER_ADDRESS="4",
               D100_HEADER_SECONDS=str(LONG_HEAD_SECONDS)) as base:
        address = _address(base)
        for _ in range(2):  # a second round: the places came back each time
            held = [socket.create_connection(address, timeout=GIVE_UP) for _ in range(4)]
            for sock in held:
                sock.close()
            give_up = time.monotonic() + GIVE_UP
            while True:
                with socket.create_connection(address, timeout=GIVE_UP) as sock:
                    sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    answer = _answered(sock)
                if answer.startswith(b"HTTP/1.1 200"):
                    break
                assert answer.startswith(b"HTTP/1.1 429"), answer[:200]
                assert time.monotonic() < give_up, "the closed connections kept their places"
                time.sleep(0.05)


def test_the_access_line_is_hypercorn_s_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The served app's access line is the one Hypercorn's own logger writes (its common log
    format), made from the few values it shows rather than a copy of every header and the
    environment for each request."""
    import logging

    from hypercorn.config import Config
    from hypercorn.logging import Logger

    from d100.server.serving import access_log

    lines: list[str] = []

    class Kept(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    # one clock for both loggers: a second turning between their lines is no difference
    monkeypatch.setattr(time, "strftime", lambda *_: "[06/Dec/2026:02:40:00 +0000]")
    kept = logging.getLogger("d100.test.access")
    kept.handlers, kept.propagate = [Kept()], False
    kept.setLevel(logging.INFO)
    config = Config()
    config.accesslog = kept
    request = {
        "type": "http",
        "method": "POST",
        "path": "/api/tables/t/rolls",
        "query_string": b"after=3",
        "http_version": "1.1",
        "scheme": "http",
        "client": ("127.0.0.1", 5040),
        "headers": [(b"User-Agent", b"d100 test"), (b"referer", b"http://x/t/t")],
    }
    answers = [{"status": 201, "headers": [(b"content-length", b"812")]}, {"status": 404}, None]
    for response in answers:
        for logger in (Logger(config), access_log()(config)):
            asyncio.run(logger.access(request, response, 0.01))  # type: ignore[arg-type]
    for theirs, ours in zip(lines[::2], lines[1::2], strict=True):
        assert ours == theirs
    assert lines[0].startswith("127.0.0.1:5040 - - [06/Dec") and "d100 test" in lines[0]
