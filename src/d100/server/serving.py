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
is answered ``429`` at once and closed, so one client cannot fill the cap. One /24 (IPv4) or
/64 (IPv6) may hold at most ``D100_MAX_CONNECTIONS_PER_NETWORK`` (256), as many addresses
are one client's to take. Past a network's share or the cap, the oldest connection in no
request that never carried a member's (the guard vouches for those) is shut to make room,
so connections held open by anyone never keep a member out; only where there is none to
shut is the newcomer refused.

Hypercorn stops its timer once a request line is in and restarts it only when an answer is
done; a client that sends HTTP/2's preface (a request line Hypercorn takes as HTTP/2, then
no stream) was never timed again. d100's own watchdog backs the timer up: the outermost ASGI
layer counts each connection's requests in progress, and a connection in none since
``header_seconds`` (and a little) after its opening or its last answer is shut down."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import resource
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from .errors import ApiError

if TYPE_CHECKING:
    from hypercorn.logging import Logger

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
PER_NETWORK_ENV = "D100_MAX_CONNECTIONS_PER_NETWORK"
# A /24 (IPv4) or /64 (IPv6) is one client's to take: one host or one customer's line holds
# any number of its addresses, so a cap per address alone is a cap per attacker's whim.
PER_NETWORK = 256
# Connections shut to make room keep their files till Hypercorn sees the end and closes them
# (a burst of accepts comes before): past this many not yet closed, or half the files beyond
# the cap where ``run`` knows them, a newcomer is refused instead.
EVICTING_AT_ONCE = 64
# The ASGI scope's key for the connection a request came on (``watched``): the guard vouches
# for it once it carries a member's request (``vouch``).
CONNECTION = "d100.connection"
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


def per_network_cap(environ: Mapping[str, str] | None = None) -> int:
    """How many connections one /24 (IPv4) or /64 (IPv6) may have open at once:
    ``D100_MAX_CONNECTIONS_PER_NETWORK`` if set, else ``PER_NETWORK``."""
    env = os.environ if environ is None else environ
    raw = env.get(PER_NETWORK_ENV, "").strip()
    if not raw:
        return PER_NETWORK
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{PER_NETWORK_ENV} must be a whole number >= 1, not {raw!r}")
    return int(raw)


def network_of(host: str) -> str:
    """The network an address is counted in: its /24 for IPv4 (an IPv4-mapped IPv6 address
    too), its /64 for IPv6; a name that is no address, itself."""
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network((address, prefix), strict=False))


def vouch(scope: Scope) -> None:
    """The guard's word that the request in ``scope`` is a member's: its connection is never
    shut to make room for another."""
    connection = scope.get(CONNECTION)
    if connection is not None:
        connection.vouch()


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


def _crowded_answer(most: int, per: str) -> bytes:
    crowded = ApiError(
        429,
        "connections",
        None,
        f"at most {most} connections open at once from one {per}",
        f"too many connections from your {per}; close some and try again",
    )
    return _refusal(crowded, "Too Many Requests")


class Listener(socket.socket):
    """A listening TCP socket whose ``accept`` hands out at most ``cap`` open connections,
    at most ``per_network`` of them to one /24 or /64 and ``per_address`` to one address
    (``exempt`` ones aside from both).

    Past the cap or a network's share, room is made by shutting the oldest connection of the
    network with the most (of the newcomer's network, for its share) that is in no request
    and never carried a member's (``vouch``): connections held silent, or trickling a head,
    make way for the newest, and a member's connection is never shut. Where there is none
    to shut, or past one address's share, a connection is accepted only to be answered
    (``503``, ``429``) and closed: its file is back at once, and the client is told rather
    than left waiting in the kernel's queue. The open connections are kept by their peer's
    address and port, as an ASGI scope's ``client`` names them. The event loop accepts and
    closes on its own thread, so plain counts do."""

    def __init__(
        self,
        family: int,
        cap: int,
        per_address: int = PER_ADDRESS,
        exempt: Iterable[str] = (),
        per_network: int = PER_NETWORK,
        evicting_at_once: int = EVICTING_AT_ONCE,
    ) -> None:
        super().__init__(family, socket.SOCK_STREAM)
        self.cap = cap
        self.evicting_at_once = evicting_at_once
        self.per_address = per_address
        self.per_network = per_network
        self.exempt = frozenset(exempt)
        self.open = 0
        self.refused = 0
        self.evicted = 0
        self.evicting = 0  # shut to make room, not yet closed
        self.connections: dict[tuple[str, int], _Connection] = {}
        self._by_address: dict[str, int] = {}
        self._by_network: dict[str, int] = {}
        # Each network's connections no member's request has vouched for, oldest first.
        self._unvouched: dict[str, dict[tuple[str, int], _Connection]] = {}
        self._busy = _busy_answer(cap)
        self._crowded = _crowded_answer(per_address, "address")
        self._crowded_network = _crowded_answer(per_network, "network")

    def accept(self) -> tuple[socket.socket, Any]:
        if self.open >= self.cap and self.evicting >= self.evicting_at_once:
            # Full, and the connections shut to make room not closed yet: the rest wait in
            # the kernel's queue for the loop's next turn, in which Hypercorn closes those.
            raise BlockingIOError
        for _ in range(REFUSALS_AT_ONCE):  # BlockingIOError ends it when none is waiting
            conn, address = super().accept()
            host = str(address[0])
            answer = self._room_for(host)
            if answer is None:
                # An answer's head and body go as written: with Nagle's wait, a body after its
                # head waited for the client's delayed ACK (40 ms a request, on keep-alive).
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                connection = _Connection(self, conn, (host, int(address[1])))
                self._opened(connection)
                return connection, address
            self.refused += 1
            _refuse(conn, answer)
        raise BlockingIOError  # the loop's turn; the rest are accepted at its next

    def _room_for(self, host: str) -> bytes | None:
        """None when a connection from ``host`` may be opened (room made for it if need be),
        else the refusal to answer it with."""
        exempt = host in self.exempt
        if not exempt and self._by_address.get(host, 0) >= self.per_address:
            return self._crowded
        network = network_of(host)
        full = not exempt and self._by_network.get(network, 0) >= self.per_network
        if full and not self._evict(network):
            return self._crowded_network
        if self.open >= self.cap:
            heaviest = sorted(self._unvouched, key=lambda n: -self._by_network.get(n, 0))
            if not any(self._evict(n) for n in heaviest):
                return self._busy
        return None

    def _evict(self, network: str) -> bool:
        """Shut the network's oldest connection in no request that no member vouched for,
        if any (and if not too many are closing already): its place is free at once."""
        if self.evicting >= self.evicting_at_once:
            return False
        for connection in self._unvouched.get(network, {}).values():
            if connection.requests == 0:
                self._forget(connection)
                connection.evicted = True
                self.evicting += 1
                self.evicted += 1
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                return True
        return False

    def _opened(self, connection: _Connection) -> None:
        host, network = connection.peer[0], connection.network
        self.open += 1
        self._by_address[host] = self._by_address.get(host, 0) + 1
        self._by_network[network] = self._by_network.get(network, 0) + 1
        self.connections[connection.peer] = connection
        self._unvouched.setdefault(network, {})[connection.peer] = connection

    def vouched(self, connection: _Connection) -> None:
        unvouched = self._unvouched.get(connection.network, {})
        if unvouched.get(connection.peer) is connection:
            del unvouched[connection.peer]
            if not unvouched:
                del self._unvouched[connection.network]

    def _forget(self, connection: _Connection) -> None:
        """Count ``connection`` out: closed, or shut to make room."""
        self.open -= 1
        for counts, key in (
            (self._by_address, connection.peer[0]),
            (self._by_network, connection.network),
        ):
            left = counts.get(key, 1) - 1
            if left:
                counts[key] = left
            else:
                counts.pop(key, None)
        self.vouched(connection)
        if self.connections.get(connection.peer) is connection:
            del self.connections[connection.peer]

    def closed_one(self, connection: _Connection) -> None:
        if connection.evicted:
            self.evicting -= 1  # counted out when it was shut
        else:
            self._forget(connection)

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
        self.network = network_of(peer[0])
        self.requests = 0
        self.idle_since = time.monotonic()
        self.member = False  # it carried a member's request: never shut to make room
        self.evicted = False  # shut to make room: counted out already

    def vouch(self) -> None:
        if not self.member:
            self.member = True
            if self._listener is not None:
                self._listener.vouched(self)

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
    host: str,
    port: int,
    cap: int,
    per_address: int = PER_ADDRESS,
    exempt: Iterable[str] = (),
    per_network: int = PER_NETWORK,
    evicting_at_once: int = EVICTING_AT_ONCE,
) -> Listener:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = Listener(family, cap, per_address, exempt, per_network, evicting_at_once)
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
        scope[CONNECTION] = connection
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


def close_when_the_client_does() -> None:
    """Hypercorn keeps an HTTP/1.1 connection in no request whose client has closed it (or
    that the listener shut to make room) open till its keep-alive deadline, its file and its
    place with it: the connection's task group waits for the idle timer. Its protocol is made
    to close such a connection at once, as it closes one after a failed request."""
    from hypercorn.events import Closed
    from hypercorn.protocol.h11 import H11Protocol

    handle = H11Protocol.handle
    if getattr(handle, "closes", False):
        return

    async def closing(self: H11Protocol, event: Any) -> None:
        await handle(self, event)
        if isinstance(event, Closed) and self.stream is None:
            await self.send(Closed())

    closing.closes = True  # type: ignore[attr-defined]
    H11Protocol.handle = closing  # type: ignore[method-assign]


def access_log() -> type[Logger]:
    """Hypercorn's logger, its access line (the same common log format) made from the few
    values it shows: Hypercorn's own copies every request and answer header and the whole
    environment into a dictionary for each line, a few percent of a roll's CPU."""
    from hypercorn.logging import Logger

    class AccessLog(Logger):
        async def access(self, request: Any, response: Any, request_time: float) -> None:
            if self.access_logger is None:
                return
            client = request.get("client")
            where = "-" if client is None else ":".join(str(part) for part in client)
            method = request["method"] if request["type"] == "http" else "GET"
            said = _headers(request["headers"], (b"referer", b"user-agent"))
            length = "-"
            status = "-"
            if response is not None:
                status = str(response["status"])
                length = _headers(response.get("headers", ()), (b"content-length",))[0]
            self.access_logger.info(
                '%s - - %s "%s %s %s" %s %s "%s" "%s"',
                where,
                time.strftime("[%d/%b/%Y:%H:%M:%S %z]"),
                method,
                request["path"],
                request.get("http_version", "ws"),
                status,
                length,
                *said,
            )

    return AccessLog


def _headers(headers: Iterable[tuple[bytes, bytes]], names: tuple[bytes, ...]) -> list[str]:
    """The first value of each of these headers (names in lower case), "-" where absent."""
    found: dict[bytes, str] = {}
    for name, value in headers:
        name = name.lower()
        if name in names and name not in found:
            found[name] = value.decode("latin1")
    return [found.get(name, "-") for name in names]


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

    close_when_the_client_does()
    open_files = raise_open_files_limit()
    cap = connection_cap(open_files, environ)
    trusted = [a.strip() for a in (proxies or "").split(",") if a.strip()]
    # half the files beyond the cap may be held by connections shut to make room
    evicting = max(EVICTING_AT_ONCE, (open_files - cap) // 2)
    sock = listen(
        host, port, cap, per_address_cap(environ), trusted, per_network_cap(environ), evicting
    )

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
    config.logger_class = access_log()
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
