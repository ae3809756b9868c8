"""Slowloris against a real ``d100 serve``: whatever a client sends a byte at a time, or
withholds, its connection closes within a deadline: a head (on a fresh or a kept-alive
connection), a body a route reads, a body no route reads, an idle connection."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from d100.server.config import header_seconds
from d100.server.guard import Limits

from .services import migrated_sqlite, serve

# real servers held by slow clients: CI's, not the development loop's (make quick)
pytestmark = pytest.mark.slow

HEAD_SECONDS = 2.0  # the server's deadline for a head here, shortened from the default
BODY_SECONDS = 3.0  # and for a body a route reads (10 s by default): apart from the head's
# The head deadline of a server whose connections must close once answered: no wait here
# comes near it, so a connection it closed was closed on its answer, not by a deadline.
LONG_HEAD_SECONDS = 600.0
# A connection still open by then is held for good. Only a failing run waits this long: the
# server closes each one by its deadline, or on its answer, however loaded the machine.
GIVE_UP = Limits().body_seconds + 30.0


def attacks(host: bytes) -> dict[str, tuple[bytes, bytes, str]]:
    """Each way of holding a connection: what is sent first, what is dripped after it a
    byte a second, and when the server must close it: ``head`` (the head deadline),
    ``answer`` (at once, once answered) or ``body`` (the body deadline, with a 408)."""
    health = b"GET /health HTTP/1.1\r\n" + host + b"\r\n"
    length = b"content-length: 1000\r\n\r\n"
    return {
        "silent": (b"", b"", "head"),
        "a head trickled": (b"GET /health HTTP/1.1\r\n" + host, b"x", "head"),
        "kept alive, then a head trickled": (health + b"GET /health HTTP/1.1\r\n", b"x", "head"),
        "kept alive, then idle": (health, b"", "head"),
        "GET /health, its body trickled": (b"GET /health HTTP/1.1\r\n" + host + length, b"a",
                                           "answer"),
        "GET /, its body trickled": (b"GET / HTTP/1.1\r\n" + host + length, b"a", "answer"),
        "GET a table's state, its body trickled": (
            b"GET /api/tables/AAAAAAAAAAAA HTTP/1.1\r\n" + host + length, b"a", "answer"),
        "GET /health chunked, trickled": (
            b"GET /health HTTP/1.1\r\n" + host + b"transfer-encoding: chunked\r\n\r\n",
            b"1\r\na\r\n", "answer"),
        "POST /static, its body trickled": (
            b"POST /static/app.js HTTP/1.1\r\n" + host + length, b"a", "answer"),
        "kept alive, then a byte of the next body and silence": (
            health + b"GET /health HTTP/1.1\r\n" + host + b"content-length: 5\r\n\r\na", b"",
            "answer"),
        "POST /api/tables, its body trickled": (
            b"POST /api/tables HTTP/1.1\r\n" + host + b"content-type: application/json\r\n"
            + length + b"{", b" ", "body"),
    }


def trickle(address: tuple[str, int], first: bytes, drip: bytes,
            sent: threading.Semaphore | None = None) -> tuple[float | None, bytes]:
    """Send ``first``, then ``drip`` once a second until the server closes the connection:
    the seconds that took from before connecting (None: still open at ``GIVE_UP``) and all
    the server sent. ``sent`` is released once ``first`` is sent."""
    received = b""
    start = time.monotonic()  # the server's deadline cannot start before this
    with socket.create_connection(address, timeout=GIVE_UP) as sock:
        sock.settimeout(1.0)
        sock.sendall(first)
        if sent is not None:
            sent.release()
        while time.monotonic() - start < GIVE_UP:
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                if drip:
                    try:
                        sock.sendall(drip)
                    except OSError:  # reset: closed under the drip
                        return time.monotonic() - start, received
                continue
            except OSError:
                return time.monotonic() - start, received
            if not chunk:
                return time.monotonic() - start, received
            received += chunk
    return None, received


def error_of(answer: bytes) -> tuple[str, dict[str, str]]:
    """The status line and the JSON error of the last answer in ``answer``."""
    head, _, body = answer.rpartition(b"HTTP/1.1 ")[2].partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), json.loads(body)["error"]


def test_header_deadline_from_the_environment() -> None:
    assert header_seconds({}) == 10.0
    assert header_seconds({"D100_HEADER_SECONDS": "2.5"}) == 2.5
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(ValueError, match="D100_HEADER_SECONDS"):
            header_seconds({"D100_HEADER_SECONDS": bad})


@pytest.mark.parametrize(
    ("name", "field", "default"),
    [("D100_BODY_SECONDS", "body_seconds", 10.0), ("D100_JOB_SECONDS", "job_seconds", 5.0)],
)
def test_deadlines_from_the_environment(name: str, field: str, default: float) -> None:
    """A body's deadline and a request's time on an odds worker, each from its setting."""
    assert getattr(Limits.from_env({}), field) == getattr(Limits(), field) == default
    assert getattr(Limits.from_env({name: "2.5"}), field) == 2.5
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(ValueError, match=name):
            Limits.from_env({name: bad})


@pytest.fixture(scope="module")
def answering(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server whose head deadline is far off, for the tests of what closes a connection
    before any deadline: its answer, or a refusal."""
    where = tmp_path_factory.mktemp("answered")
    url = migrated_sqlite(where / "answered.sqlite3")
    with serve(url, where / "answered.log", D100_HEADER_SECONDS=str(LONG_HEAD_SECONDS)) as base:
        yield base


def test_every_way_of_holding_a_connection_meets_a_deadline(
    tmp_path: Path, answering: str
) -> None:
    """Each way is held against a server of its deadline: closed by it (never before it), or,
    where the server answers without the body, on its answer (``connection: close``), well
    before any deadline of its server's. Meanwhile the server answers others."""
    with contextlib.ExitStack() as stack:
        held_base = stack.enter_context(
            serve(migrated_sqlite(tmp_path / "held.sqlite3"), tmp_path / "held.log",
                  D100_HEADER_SECONDS=str(HEAD_SECONDS), D100_BODY_SECONDS=str(BODY_SECONDS)))
        answered_base = answering
        kinds = attacks(b"Host: 127.0.0.1\r\n")
        sent = threading.Semaphore(0)
        with ThreadPoolExecutor(len(kinds)) as pool:
            held = {}
            for name, (first, drip, due) in kinds.items():
                where = urlsplit(answered_base if due == "answer" else held_base)
                address = (where.hostname or "", where.port or 0)
                held[name] = pool.submit(trickle, address, first, drip, sent)
            for _ in kinds:  # every connection is being held
                assert sent.acquire(timeout=GIVE_UP), "a connection was never opened"
            for base in (held_base, answered_base):
                with httpx.Client(base_url=base, timeout=GIVE_UP) as client:
                    assert client.get("/health").status_code == 200  # others are answered
                    made = client.post("/api/tables", json={"name": "K", "system": "brp"})
                    assert made.is_success, made.text
            results = {name: slow.result() for name, slow in held.items()}

    for name, (_, _, due) in kinds.items():
        seconds, answer = results[name]
        assert seconds is not None, f"{name}: held its connection past {GIVE_UP} s"
        print(f"{name}: closed after {seconds:.2f} s ({due})")  # how late: figures, not bounds
        if due == "head":  # closed, not before the head deadline, and told nothing
            assert seconds > HEAD_SECONDS - 0.5, (name, seconds)
            assert answer.count(b"HTTP/1.1 ") == name.startswith("kept alive"), (name, answer)
        elif due == "answer":  # closed on its answer: its server's deadline is far off
            status, _, rest = answer.partition(b"\r\n\r\n")[0].partition(b"\r\n")
            assert status.startswith(b"HTTP/1.1 ") and b" 408 " not in status, (name, answer)
            if name.startswith("kept alive"):
                assert b"connection: close" in answer.rpartition(b"HTTP/1.1 ")[2].lower()
            else:
                assert b"connection: close" in rest.lower(), (name, answer[:300])
        else:
            assert seconds > BODY_SECONDS - 0.5, (name, seconds)
            status, error = error_of(answer)
            assert status.startswith("408") and error["field"] == "body", answer
        if name.startswith("kept alive"):
            assert answer.startswith(b"HTTP/1.1 200"), (name, answer[:200])


def test_a_head_the_http_parser_refuses_is_answered_and_closed(answering: str) -> None:
    """A 200 KB header, or a request line that is no HTTP, is refused by the HTTP parser
    before any route: a 4xx, and the connection closed at once (its server's head deadline
    is far off: a close before it is the refusal's)."""
    where = urlsplit(answering)
    address = (where.hostname or "", where.port or 0)
    host = f"Host: {where.netloc}\r\n".encode()
    for head, status in (
        (b"GET /health HTTP/1.1\r\n" + host + b"x-big: " + b"a" * 200_000 + b"\r\n\r\n",
         b"431"),
        (b"NOT HTTP AT ALL\r\n\r\n", b"400"),
    ):
        with socket.create_connection(address, timeout=GIVE_UP) as sock:
            with contextlib.suppress(OSError):  # closed under the rest of a refused head
                sock.sendall(head)
            try:
                answer = read_all(sock)
            except TimeoutError:
                pytest.fail(f"still open {GIVE_UP} s after a refused head")
        assert answer.startswith(b"HTTP/1.1 " + status), answer[:300]


def read_all(sock: socket.socket) -> bytes:
    """What the server sent till it closed; its close may be a reset (the rest of a refused
    head unread), which comes after the answer."""
    answer = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            answer += chunk
    return answer
