"""How ``d100 serve`` meets the network: Hypercorn, configured so that nothing a client sends
or withholds holds a connection for long, and a listening socket that never lets the process
run out of open files.

Hypercorn gives the deadlines on its own terms (``keep_alive_timeout``): a connection must
have sent a whole request head within ``header_seconds`` of its opening or of its last
answer, else it is closed; that one timer covers a silent connection, a head trickled in a
byte at a time and an idle kept-alive connection, and data arriving does not restart it. A
body no route reads closes its connection once the answer is sent (Hypercorn recycles a
connection only when the request is all in). A body a route reads is timed by the guard (the
public ASGI ``receive``, ``guard.py``). uvicorn has none of the first three by its options: a
silent or trickled head held its connection for good, and any byte after an answer cancelled
its keep-alive timer.

The open-files soft limit is raised to the hard limit at start, and the listening socket
hands out connections only while fewer than ``cap`` are open (the limit less a reserve for
the database, the worker pools and the logs): one more is answered ``503`` at once and
closed, so ``accept`` never fails for want of a file (it did at 1,014 connections of a
1,024 limit, and every client then waited)."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import socket
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

from .errors import ApiError

Scope = MutableMapping[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]

CONNECTIONS_ENV = "D100_MAX_CONNECTIONS"
# Files kept for everything but connections: the database's (a pool of SQLite files with
# their journals, or PostgreSQL sockets and the listener), the worker pools' pipes, logs.
RESERVE = 128
MOST_CONNECTIONS = 10_000  # a table server's crowd; the cap is lower where files are fewer
LINUX_NR_OPEN = 1_048_576  # the most a hard limit of "unlimited" can be raised to
BACKLOG = 2048  # connections the kernel queues before they are accepted


def raise_open_files_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit; the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = LINUX_NR_OPEN if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= target:
        return target if soft == resource.RLIM_INFINITY else soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):  # above the kernel's nr_open: keep what we have
        return soft
    return target


def connection_cap(open_files: int, environ: Mapping[str, str] | None = None) -> int:
    """How many connections may be open at once: ``D100_MAX_CONNECTIONS`` if set, never more
    than the open-files limit less its reserve (an eighth, at least ``RESERVE``)."""
    env = os.environ if environ is None else environ
    room = max(1, open_files - max(RESERVE, open_files // 8))
    raw = env.get(CONNECTIONS_ENV, "").strip()
    if not raw:
        return min(room, MOST_CONNECTIONS)
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{CONNECTIONS_ENV} must be a whole number >= 1, not {raw!r}")
    return min(int(raw), room)


def _busy_answer(cap: int) -> bytes:
    busy = ApiError(
        503,
        "connections",
        None,
        f"at most {cap} connections open at once",
        "the server has too many connections open; try again in a moment",
    )
    body = json.dumps(busy.to_dict()).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"retry-after: 1\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class Listener(socket.socket):
    """A listening TCP socket whose ``accept`` hands out at most ``cap`` open connections.
    Past that a connection is accepted only to be answered ``503`` and closed: its file is
    back at once, and the client is told rather than left waiting in the kernel's queue.
    The event loop accepts and closes on its own thread, so plain counts do."""

    def __init__(self, family: int, cap: int) -> None:
        super().__init__(family, socket.SOCK_STREAM)
        self.cap = cap
        self.open = 0
        self.refused = 0
        self._busy = _busy_answer(cap)

    def accept(self) -> tuple[socket.socket, Any]:
        while True:  # BlockingIOError ends it when none is waiting, as the loop expects
            conn, address = super().accept()
            if self.open < self.cap:
                self.open += 1
                return _Connection(self, conn), address
            self.refused += 1
            _refuse(conn, self._busy)

    def closed_one(self) -> None:
        self.open -= 1


class _Connection(socket.socket):
    """An accepted connection that gives its place back to its listener when closed."""

    def __init__(self, listener: Listener, conn: socket.socket) -> None:
        family, kind, proto = conn.family, conn.type, conn.proto
        super().__init__(family, kind, proto, fileno=conn.detach())
        self._listener: Listener | None = listener

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.closed_one()
        super().close()

    def detach(self) -> int:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.closed_one()
        return super().detach()


def _refuse(conn: socket.socket, answer: bytes) -> None:
    with conn:
        try:
            conn.setblocking(False)
            conn.send(answer)  # a fresh socket's buffer takes a few hundred bytes at once
            conn.shutdown(socket.SHUT_WR)
            conn.recv(65536)  # what the client sent already: unread, close would reset
        except OSError:
            pass


def listen(host: str, port: int, cap: int) -> Listener:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = Listener(family, cap)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(BACKLOG)
    sock.setblocking(False)
    return sock


def trusted_proxies(app: App, trusted: Iterable[str]) -> App:
    """``X-Forwarded-For`` and ``X-Forwarded-Proto`` believed only from a connection whose
    address is listed (``D100_TRUSTED_PROXIES``): the client is the last address in
    ``X-Forwarded-For`` that is not one of them."""
    proxies = frozenset(a.strip() for a in trusted if a.strip())

    async def forwarded(scope: Scope, receive: Any, send: Any) -> None:
        client = scope.get("client")
        if scope["type"] in ("http", "websocket") and client and client[0] in proxies:
            headers = dict(scope["headers"])
            hops = [h.strip() for h in headers.get(b"x-forwarded-for", b"").decode().split(",")]
            outside = [h for h in hops if h and h not in proxies]
            if outside:
                scope = {**scope, "client": (outside[-1], 0)}
            proto = headers.get(b"x-forwarded-proto", b"").decode().strip().lower()
            if proto in ("http", "https"):
                scope = {**scope, "scheme": proto}
        await app(scope, receive, send)

    return forwarded


def http1_only(app: App) -> App:
    """HTTP/2 refused: Hypercorn speaks it in clear text to a client that asks (``h2c``, or
    the preface), with deadlines of its own; the page and the API are HTTP/1.1."""

    async def only(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("http_version") not in ("1.0", "1.1"):
            refusal = ApiError(505, "http_version", scope.get("http_version"), "HTTP/1.1", "")
            refusal.message = "this server speaks HTTP/1.1 only"
            body = json.dumps(refusal.to_dict()).encode()
            start = {
                "type": "http.response.start",
                "status": 505,
                "headers": [(b"content-type", b"application/json")],
            }
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return only


def run(
    app: App,
    host: str,
    port: int,
    header_seconds: float,
    grace: float,
    proxies: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Serve ``app`` until SIGINT or SIGTERM (open answers get ``grace`` seconds)."""
    from hypercorn.asyncio import serve
    from hypercorn.config import Config, Sockets

    cap = connection_cap(raise_open_files_limit(), environ)
    sock = listen(host, port, cap)

    class Listening(Config):  # the socket made here, cap and all, not one Hypercorn binds
        def create_sockets(self) -> Sockets:
            return Sockets(secure_sockets=[], insecure_sockets=[sock], quic_sockets=[])

    config = Listening()
    config.keep_alive_timeout = header_seconds
    config.read_timeout = None  # a live stream's client sends nothing for hours
    config.graceful_timeout = grace
    config.backlog = BACKLOG
    config.include_server_header = False
    config.accesslog = "-"
    config.errorlog = "-"
    served = http1_only(trusted_proxies(app, (proxies or "").split(",")) if proxies else app)
    asyncio.run(serve(served, config, mode="asgi"))  # type: ignore[arg-type]
