"""Slowloris against a real ``d100 serve``: a client that sends its request a byte at a time
must not hold a connection open for good, whether it dawdles over the head or the body."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from d100.server.config import header_seconds
from d100.server.guard import Limits

from .services import serve

HEAD_SECONDS = 2.0  # the server's deadline for a head here, shortened from the default
SLACK = 2.0
GIVE_UP = Limits().body_seconds + 3 * SLACK  # a trickle still open by then is held for good


def trickle(address: tuple[str, int], first: bytes, drip: bytes) -> tuple[float | None, bytes]:
    """Send ``first``, then ``drip`` once a second until the server closes the connection:
    the seconds that took from the first byte (None: still open at ``GIVE_UP``) and all the
    server sent."""
    received = b""
    with socket.create_connection(address, timeout=1.0) as sock:
        start = time.monotonic()
        sock.sendall(first)
        while time.monotonic() - start < GIVE_UP:
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
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


def test_slow_heads_are_cut_off_and_slow_bodies_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'd100.sqlite3'}"
    with serve(url, tmp_path / "server.log", D100_HEADER_SECONDS=str(HEAD_SECONDS)) as base:
        where = urlsplit(base)
        address = (where.hostname or "", where.port or 0)
        host = f"Host: {where.netloc}\r\n".encode()
        health = b"GET /health HTTP/1.1\r\n" + host + b"\r\n"
        body_head = (
            b"POST /api/tables HTTP/1.1\r\n" + host + b"content-type: application/json\r\n"
            b"content-length: 1000\r\n\r\n{"
        )
        with ThreadPoolExecutor(4) as pool:
            fresh = pool.submit(trickle, address, b"GET /health HTTP/1.1\r\n" + host, b"x")
            # A kept-alive connection: a whole request answered, then the next one dawdles.
            kept = pool.submit(trickle, address, health + b"GET /health HTTP/1.1\r\n", b"x")
            silent = pool.submit(trickle, address, b"", b"")
            body = pool.submit(trickle, address, body_head, b" ")
            time.sleep(0.5)
            with httpx.Client(base_url=base, timeout=5) as client:
                assert client.get("/health").status_code == 200  # others are still answered
                assert client.post("/api/tables", json={"name": "K", "system": "brp"}).is_success

            for name, slow in (("fresh", fresh), ("kept alive", kept)):
                seconds, answer = slow.result()
                assert seconds is not None, f"{name}: a slow head held its connection"
                assert HEAD_SECONDS - 0.5 < seconds < HEAD_SECONDS + SLACK, (name, seconds)
                status, error = error_of(answer)
                assert status == "408 Request Timeout" and error["field"] == "headers", answer
                assert error["kind"] == "too_slow"
            assert answer.startswith(b"HTTP/1.1 200")  # the kept-alive one's first answer
            seconds, answer = silent.result()
            assert seconds is not None and seconds < HEAD_SECONDS + SLACK and answer == b""

            # A slow body is past the head's deadline: the guard's body timeout answers it,
            # and the connection closes rather than taking the rest of the trickle.
            seconds, answer = body.result()
            assert seconds is not None, "a slow body held its connection after its refusal"
            limit = Limits().body_seconds
            assert limit - 0.5 < seconds < limit + SLACK, seconds
            status, error = error_of(answer)
            assert status.startswith("408") and error["field"] == "body", answer


def test_a_head_the_http_parser_refuses_gets_the_json_error_shape(tmp_path: Path) -> None:
    """A 200 KB header, or a request line that is no HTTP, is refused by the HTTP parser
    before any route: a 400 in the JSON error shape, not uvicorn's plain text."""
    url = f"sqlite:///{tmp_path / 'd100.sqlite3'}"
    with serve(url, tmp_path / "server.log") as base:
        where = urlsplit(base)
        address = (where.hostname or "", where.port or 0)
        host = f"Host: {where.netloc}\r\n".encode()
        for head in (
            b"GET /health HTTP/1.1\r\n" + host + b"x-big: " + b"a" * 200_000 + b"\r\n\r\n",
            b"NOT HTTP AT ALL\r\n\r\n",
        ):
            with socket.create_connection(address, timeout=5.0) as sock:
                with contextlib.suppress(OSError):  # closed under the rest of a refused head
                    sock.sendall(head)
                answer = read_all(sock)
            status, error = error_of(answer)
            assert status.startswith("400"), answer[:300]
            assert b"content-type: application/json" in answer.lower()
            assert error["kind"] == "bad_input" and error["field"] == "headers", error


def read_all(sock: socket.socket) -> bytes:
    """What the server sent till it closed; its close may be a reset (the rest of a refused
    head unread), which comes after the answer."""
    answer = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            answer += chunk
    return answer
