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
1,024 limit, and every client then waited). One address may hold at most
``D100_MAX_CONNECTIONS_PER_ADDRESS`` of them (64; the trusted proxies are exempt): one more
is answered ``429`` at once and closed, so one client cannot fill the cap.

Hypercorn stops its timer once a request line is in and restarts it only when an answer is
done; a client that sends HTTP/2's preface (a request line Hypercorn takes as HTTP/2, then
no stream) was never timed again. d100's own watchdog backs the timer up: the outermost ASGI
layer counts each connection's requests in progress, and a connection in none since
``header_seconds`` (and a little) after its opening or its last answer is shut down."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import socket
import time
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
PER_ADDRESS_ENV = "D100_MAX_CONNECTIONS_PER_ADDRESS"
# A table behind one address (a NAT, the table's wifi) is a browser's 6 connections a player
# and their live streams; 64 is a dozen players.
PER_ADDRESS = 64
# Refusals made in one call to accept before the event loop gets its turn back: a client
# reconnecting as fast as it is refused never holds the loop for longer than that.
REFUSALS_AT_ONCE = 64
# Seconds the watchdog leaves Hypercorn's own timer to close a connection first.
WATCHDOG_GRACE = 0.5


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


def per_address_cap(environ: Mapping[str, str] | None = None) -> int:
    """How many connections one address may have open at once:
    ``D100_MAX_CONNECTIONS_PER_ADDRESS`` if set, else ``PER_ADDRESS``."""
    env = os.environ if environ is None else environ
    raw = env.get(PER_ADDRESS_ENV, "").strip()
    if not raw:
        return PER_ADDRESS
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{PER_ADDRESS_ENV} must be a whole number >= 1, not {raw!r}")
    return int(raw)


def _refusal(refusal: ApiError, reason: str) -> bytes:
    body = json.dumps(refusal.to_dict()).encode()
    head = (
        f"HTTP/1.1 {refusal.status} {reason}\r\ncontent-type: application/json\r\n"
        f"retry-after: 1\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


def _busy_answer(cap: int) -> bytes:
    busy = ApiError(
        503,
        "connections",
        None,
        f"at most {cap} connections open at once",
        "the server has too many connections open; try again in a moment",
    )
    return _refusal(busy, "Service Unavailable")


def _crowded_answer(per_address: int) -> bytes:
    crowded = ApiError(
        429,
        "connections",
        None,
        f"at most {per_address} connections open at once from one address",
        "too many connections from your address; close some and try again",
    )
    return _refusal(crowded, "Too Many Requests")


class Listener(socket.socket):
    """A listening TCP socket whose ``accept`` hands out at most ``cap`` open connections,
    at most ``per_address`` of them to one address (``exempt`` ones aside). Past either a
    connection is accepted only to be answered (``503``, ``429``) and closed: its file is
    back at once, and the client is told rather than left waiting in the kernel's queue.
    The open connections are kept by their peer's address and port, as an ASGI scope's
    ``client`` names them. The event loop accepts and closes on its own thread, so plain
    counts do."""

    def __init__(
        self,
        family: int,
        cap: int,
        per_address: int = PER_ADDRESS,
        exempt: Iterable[str] = (),
    ) -> None:
        super().__init__(family, socket.SOCK_STREAM)
        self.cap = cap
        self.per_address = per_address
        self.exempt = frozenset(exempt)
        self.open = 0
        self.refused = 0
        self.connections: dict[tuple[str, int], _Connection] = {}
        self._by_address: dict[str, int] = {}
        self._busy = _busy_answer(cap)
        self._crowded = _crowded_answer(per_address)

    def accept(self) -> tuple[socket.socket, Any]:
        for _ in range(REFUSALS_AT_ONCE):  # BlockingIOError ends it when none is waiting
            conn, address = super().accept()
            host = str(address[0])
            if self.open >= self.cap:
                answer = self._busy
            elif host not in self.exempt and self._by_address.get(host, 0) >= self.per_address:
                answer = self._crowded
            else:
                self.open += 1
                self._by_address[host] = self._by_address.get(host, 0) + 1
                # An answer's head and body go as written: with Nagle's wait, a body after its
                # head waited for the client's delayed ACK (40 ms a request, on keep-alive).
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                connection = _Connection(self, conn, (host, int(address[1])))
                self.connections[connection.peer] = connection
                return connection, address
            self.refused += 1
            _refuse(conn, answer)
        raise BlockingIOError  # the loop's turn; the rest are accepted at its next

    def closed_one(self, connection: _Connection) -> None:
        self.open -= 1
        host = connection.peer[0]
        left = self._by_address.get(host, 1) - 1
        if left:
            self._by_address[host] = left
        else:
            self._by_address.pop(host, None)
        if self.connections.get(connection.peer) is connection:
            del self.connections[connection.peer]

    def shut_idle(self, seconds: float, now: float) -> int:
        """Shut down each connection in no request since ``seconds`` before ``now``: its
        reader sees the end, and Hypercorn closes it. How many."""
        shut = 0
        for connection in list(self.connections.values()):
            if connection.requests == 0 and now - connection.idle_since > seconds:
                connection.idle_since = now  # once a deadline: it is closing
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                shut += 1
        return shut


class _Connection(socket.socket):
    """An accepted connection that gives its place back to its listener when closed, with
    the requests in progress on it and when it last had none (its opening, its last
    answer)."""

    def __init__(self, listener: Listener, conn: socket.socket, peer: tuple[str, int]) -> None:
        family, kind, proto = conn.family, conn.type, conn.proto
        super().__init__(family, kind, proto, fileno=conn.detach())
        self._listener: Listener | None = listener
        self.peer = peer
        self.requests = 0
        self.idle_since = time.monotonic()

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.closed_one(self)
        super().close()

    def detach(self) -> int:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.closed_one(self)
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


def listen(
    host: str, port: int, cap: int, per_address: int = PER_ADDRESS, exempt: Iterable[str] = ()
) -> Listener:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = Listener(family, cap, per_address, exempt)
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


def watched(app: App, listener: Listener) -> App:
    """The outermost layer: each connection's requests in progress counted, and the end of
    its last one noted, for the watchdog (``Listener.shut_idle``)."""

    async def counted(scope: Scope, receive: Any, send: Any) -> None:
        client = scope.get("client")
        connection = listener.connections.get((client[0], client[1])) if client else None
        if connection is None:
            await app(scope, receive, send)
            return
        connection.requests += 1
        try:
            await app(scope, receive, send)
        finally:
            connection.requests -= 1
            connection.idle_since = time.monotonic()

    return counted


async def watchdog(listener: Listener, seconds: float) -> None:
    """Shut down, every quarter of the head deadline (a second at most), each connection in
    no request past it: Hypercorn's timer closes them first, save in the states it leaves
    untimed (HTTP/2's preface and nothing after it)."""
    tick = min(1.0, seconds / 4)
    while True:
        await asyncio.sleep(tick)
        listener.shut_idle(seconds + WATCHDOG_GRACE, time.monotonic())


def _expects_body(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    for name, value in headers:
        key = name.lower()
        if key == b"transfer-encoding":
            return True
        if key == b"content-length" and value.strip().lstrip(b"0"):
            return True
    return False


def close_said(app: App) -> App:
    """An HTTP/1.1 answer sent before its request's body was read to the end says
    ``connection: close``: the connection is closed after it (the rest of the body is
    unread), and the client is told so rather than finding it closed under its next
    request. The header also makes the HTTP parser close it, so what is said is done."""

    async def said(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not _expects_body(scope["headers"]):
            await app(scope, receive, send)
            return
        read = False

        async def reading() -> Any:
            nonlocal read
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                read = True
            return message

        async def telling(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start" and not read:
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": [*kept, (b"connection", b"close")]}
            await send(message)

        await app(scope, reading, telling)

    return said


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
    trusted = [a.strip() for a in (proxies or "").split(",") if a.strip()]
    sock = listen(host, port, cap, per_address_cap(environ), exempt=trusted)

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
    inner = trusted_proxies(app, trusted) if trusted else app
    served = watched(http1_only(close_said(inner)), sock)

    async def serving() -> None:
        dog = asyncio.create_task(watchdog(sock, header_seconds))
        try:
            await serve(served, config, mode="asgi")  # type: ignore[arg-type]
        finally:
            dog.cancel()

    asyncio.run(serving())
