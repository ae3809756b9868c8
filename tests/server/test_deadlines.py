"""What a previous attack still held against a real ``d100 serve``: a connection that sent only
HTTP/2's preface and then nothing, one address filling the server's cap on connections, an
early answer closing a kept-alive connection unannounced, and a member's roll while one
address opens 2,000 connections at once."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import statistics
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from d100.server.serving import listen, per_address_cap

from .services import serve
from .tablehelp import Api, bearer
from .test_slow_clients import error_of, read_all

HEAD_SECONDS = 2.0
SLACK = 3.0  # generous: a shared machine
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


def _closed_after(address: tuple[str, int], first: bytes, give_up: float) -> float | None:
    """Send ``first`` and nothing more: the seconds till the server closed (None: open at
    ``give_up``)."""
    with socket.create_connection(address, timeout=0.5) as sock:
        start = time.monotonic()
        sock.sendall(first)
        while time.monotonic() - start < give_up:
            try:
                if not sock.recv(65536):
                    return time.monotonic() - start
            except TimeoutError:
                continue
            except OSError:
                return time.monotonic() - start
    return None


@pytest.mark.parametrize("first", [PREFACE, PREFACE + SETTINGS, b"", b"GET /health HTTP/1.1\r\n"],
                         ids=["preface", "preface and settings", "silent", "a head begun"])
def test_a_connection_with_no_request_closes_at_the_head_deadline(
    tmp_path: Path, first: bytes
) -> None:
    url = f"sqlite:///{tmp_path / 'd100.sqlite3'}"
    with serve(url, tmp_path / "server.log", D100_HEADER_SECONDS=str(HEAD_SECONDS)) as base:
        seconds = _closed_after(_address(base), first, HEAD_SECONDS + 4 * SLACK)
    assert seconds is not None, "still open well past the head deadline"
    assert HEAD_SECONDS - 0.5 < seconds < HEAD_SECONDS + SLACK, seconds


def test_h2c_upgrade_is_refused(tmp_path: Path) -> None:
    """Asking to switch to HTTP/2 in clear text is answered (505 on HTTP/2's stream, or on
    HTTP/1.1) and the connection then closes by the head deadline, not held."""
    url = f"sqlite:///{tmp_path / 'd100.sqlite3'}"
    with serve(url, tmp_path / "server.log", D100_HEADER_SECONDS=str(HEAD_SECONDS)) as base:
        host = urlsplit(base).netloc.encode()
        head = (b"GET /health HTTP/1.1\r\nHost: " + host + b"\r\nConnection: Upgrade, "
                b"HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
        seconds = _closed_after(_address(base), head, HEAD_SECONDS + 4 * SLACK)
    assert seconds is not None and seconds < HEAD_SECONDS + SLACK, seconds


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
    async def one(reader: asyncio.StreamReader) -> bytes:
        try:
            return await asyncio.wait_for(reader.read(4096), 0.5)
        except (TimeoutError, OSError):
            return b""
    return list(await asyncio.gather(*(one(reader) for reader, _ in opened)))


def test_one_address_cannot_fill_the_connection_cap(tmp_path: Path) -> None:
    """900 connections that sent the preface, from one address, against a cap of 896: past
    the address's 64 they are told 429 at once and closed, and a client at another address
    is answered; the 64 close by the head deadline."""
    url = f"sqlite:///{tmp_path / 'd100.sqlite3'}"
    with serve(url, tmp_path / "server.log", open_files=(1024, 1024),
               D100_HEADER_SECONDS=str(HEAD_SECONDS)) as base:
        address = _address(base)

        async def flood() -> tuple[list[bytes], int, float]:
            opened = await _open_many(address, 900, PREFACE)
            await asyncio.sleep(0.5)
            answers = await _answers(opened)
            other = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
            async with httpx.AsyncClient(transport=other, timeout=5) as client:
                status = (await client.get(f"{base}/health")).status_code
            start = time.monotonic()
            held = [r for (r, _), a in zip(opened, answers, strict=True) if not a]
            await asyncio.gather(*(asyncio.wait_for(r.read(), HEAD_SECONDS + 4 * SLACK)
                                   for r in held), return_exceptions=True)
            closed = time.monotonic() - start
            for _, writer in opened:
                writer.close()
            return answers, status, closed

        answers, status, closed = asyncio.run(flood())
    told = [a for a in answers if a.startswith(b"HTTP/1.1 ")]  # the held had HTTP/2's settings
    assert status == 200, status
    assert 900 - 64 <= len(told) <= 900 - 64 + 2, len(told)  # the startup probe may count
    status_line, error = error_of(told[0])
    assert status_line.startswith("429") and error["field"] == "connections", told[0]
    assert b"retry-after:" in told[0].lower() and b"connection: close" in told[0].lower()
    assert closed < HEAD_SECONDS + SLACK, closed


def test_an_early_answer_that_closes_says_so(tmp_path: Path) -> None:
    """A kept-alive connection whose request is answered before its body is read (the rate
    limit's 429) is closed after it: the answer says ``connection: close``."""
    url = f"sqlite:///{tmp_path / 'd100.sqlite3'}"
    with serve(url, tmp_path / "server.log", D100_RATE_BURST="1",
               D100_RATE_PER_SECOND="0.01") as base:
        host = urlsplit(base).netloc.encode()
        body = b'{"name": "K", "system": "brp"}'
        post = (b"POST /api/tables HTTP/1.1\r\nHost: " + host + b"\r\ncontent-type: "
                b"application/json\r\ncontent-length: " + str(len(body) + 10).encode() +
                b"\r\n\r\n" + body)
        with socket.create_connection(_address(base), timeout=5.0) as sock:
            # The one request of the burst; the next is over the rate limit.
            sock.sendall(b"GET /api/systems HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
            time.sleep(0.5)
            with contextlib.suppress(OSError):
                sock.sendall(post)
            sock.settimeout(SLACK)
            try:
                answer = read_all(sock)
                closed = True
            except TimeoutError:  # read_all's part is lost: ask again on a new connection
                closed = False
                answer = b""
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


async def _waves(address: tuple[str, int], n: int, seconds: float) -> int:
    """``n`` silent connections opened at once, each re-opened at once as it is closed."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    opened = 0

    async def hold() -> None:
        nonlocal opened
        while loop.time() < until:
            try:
                reader, writer = await asyncio.open_connection(*address)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            opened += 1
            with contextlib.suppress(TimeoutError, OSError):
                await asyncio.wait_for(reader.read(), until - loop.time())
            writer.close()

    await asyncio.gather(*(hold() for _ in range(n)))
    return opened


def _attacker(address: tuple[str, int], n: int, seconds: float) -> None:
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n * 2), hard))
    asyncio.run(_waves(address, n, seconds))


@pytest.mark.slow
def test_2000_connections_from_one_address_leave_another_s_roll_fast(tmp_path: Path) -> None:
    import multiprocessing
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 4400:
        pytest.skip(f"this process may open {hard} files, the test needs 4400")
    url = f"sqlite:///{tmp_path / 'd100.sqlite3'}"
    with serve(url, tmp_path / "server.log", open_files=(1024, 4096),
               D100_HEADER_SECONDS=str(HEAD_SECONDS)) as base:
        address = _address(base)
        other = httpx.HTTPTransport(local_address="127.0.0.2", limits=httpx.Limits(
            max_keepalive_connections=0))
        with httpx.Client(base_url=base, timeout=10, transport=other) as client:
            table = Api(client).table()
            gm, alice = table.gm, table.character(table.gm, "Alice")
            attacker = multiprocessing.get_context("spawn").Process(
                target=_attacker, args=(address, 2000, 20.0))
            attacker.start()
            try:
                time.sleep(2)
                rolls = []
                end = time.monotonic() + 15
                while time.monotonic() < end:
                    rolls.append(_roll(client, table.id, gm, alice))
                    time.sleep(0.2)
            finally:
                attacker.join(30)
                if attacker.is_alive():
                    attacker.kill()
    # Before the cap per address, the 2,000 came back in waves the server accepted all at
    # once: 6 of 57 rolls over 0.25 s (to 0.4 s; past 1 s in the attack), against 28 ms at
    # most with it. Two slow ones are allowed for a shared machine's pauses.
    slow = [r for r in rolls if r > 0.25]
    assert statistics.median(rolls) < 0.25 and len(slow) <= 2, sorted(rolls)
