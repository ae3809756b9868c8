"""What every request passes before a route sees it: a ``Host`` from the configured names
(DNS rebinding), a refusal of other sites' pages (the ``Origin`` header), a rate limit per
member's token (per client address for anything else), a cap on the body's size and on the time
it may take to arrive, a JSON body that the routes can answer without a 5xx (no NaN,
Infinity, numbers out of range, lone surrogates or deep nesting), and a table's turn among
the others (``admission.py``). Every answer carries the security headers.

A table's request takes its table's turn only once its token is known to be a member's of
that table: any other (no token, a made-up one, a revoked one, another table's) is answered
``401`` here, as the routes would, before it waits anywhere a member waits. A token not seen
yet is looked up in its address's turn, apart from the tables'. The token is read once, here
(``access.Credential``), and the routes take it from the request.

The rate limit lives in this process's memory: each server process counts on its own, and a
restart forgets the counts. Several processes behind one address therefore allow that many times
the rate; nothing about a table's state depends on it.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import anyio
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Match

from .access import CREDENTIAL, Credential, foreign_origin, read_credential, unreadable_origin
from .admission import AT_ONCE, PER_TABLE, WAITING, Admission, Share, holding
from .errors import ApiError, database_busy, unauthorised, wrong_method
from .serving import vouch
from .store import DATABASE_BUSY
from .work import CLIENT

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

API = "/api/"
TABLES = "/api/tables/"
STREAM = "/events/stream"
SIGN_OUT = "/session"  # DELETE: anyone may clear a table's cookie, signed in or not
# An address's turns (unseen tokens' lookups, and its table requests without a member's
# token): one at a time, and up to this many waiting. No real wait reaches it (each waiting
# request holds a connection of its own): a lower one was a refusal a flood from a member's
# own address could keep full, the member's first request with it.
LOOKUPS_WAITING = 1024
# The server's threads the addresses' turns may hold together: however many addresses send
# made-up tokens, members' requests are admitted ahead of them to the other three quarters.
ANONYMOUS_AT_ONCE = AT_ONCE // 4
WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})
RATE_BURST_ENV = "D100_RATE_BURST"
RATE_PER_SECOND_ENV = "D100_RATE_PER_SECOND"
BODY_SECONDS_ENV = "D100_BODY_SECONDS"
JOB_SECONDS_ENV = "D100_JOB_SECONDS"
HOSTS_ENV = "D100_HOSTS"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
MAX_DEPTH = 20  # the deepest body a route takes is 5 levels; 900 levels cost a 5xx before
DOCS = ("/docs", "/redoc")  # Swagger UI and ReDoc load their scripts from a CDN
# The table page sets the odds bars' widths in style attributes, hence style-src-attr.
CSP = (
    "default-src 'self'; style-src-attr 'unsafe-inline'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'"
)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


@dataclass(frozen=True)
class Limits:
    """``burst`` requests at once, then ``per_second`` on average, per token (per client address
    where a request names no table); bodies up to ``body_bytes``."""

    burst: int = 120  # a page load is a handful; a busy scene a roll every few seconds
    per_second: float = 4.0
    body_bytes: int = 64 * 1024  # the largest body is a 20,000-character sheet
    keys: int = 10_000  # buckets remembered; the least recently used is forgotten first
    body_seconds: float = 10.0  # a body (64 KiB at most) trickling in slower is refused
    hosts: frozenset[str] | None = None  # the names this server answers to; None: any
    job_seconds: float = 5.0  # of a worker's time for one request's odds (server/work.py)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, with ``D100_RATE_BURST`` and ``D100_RATE_PER_SECOND`` overriding the
        rate limit where set (a load test raises them; ``d100 serve`` reads them), and
        ``D100_HOSTS`` the names the server is reached by, comma-separated (default: the
        loopback names only; ``*`` for any), ``D100_BODY_SECONDS`` the body's deadline (a test
        shortens it) and ``D100_JOB_SECONDS`` a request's time on an odds worker (a slow
        machine, or a test suite sharing two cores, lengthens it)."""
        env = os.environ if environ is None else environ
        limits = cls()
        burst = env.get(RATE_BURST_ENV, "").strip()
        rate = env.get(RATE_PER_SECOND_ENV, "").strip()
        try:
            burst_value = int(burst) if burst else limits.burst
            rate_value = float(rate) if rate else limits.per_second
        except ValueError:
            raise ValueError(
                f"{RATE_BURST_ENV} must be a whole number and {RATE_PER_SECOND_ENV} a number"
            ) from None
        if burst_value < 1 or not rate_value > 0 or math.isinf(rate_value):
            raise ValueError(f"{RATE_BURST_ENV} must be >= 1 and {RATE_PER_SECOND_ENV} > 0")
        names = [n.strip().lower() for n in env.get(HOSTS_ENV, "").split(",") if n.strip()]
        hosts = None if names == ["*"] else frozenset(names) if names else LOOPBACK
        return cls(
            burst=burst_value,
            per_second=rate_value,
            hosts=hosts,
            body_seconds=_seconds(env, BODY_SECONDS_ENV, limits.body_seconds),
            job_seconds=_seconds(env, JOB_SECONDS_ENV, limits.job_seconds),
        )


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """The setting ``name`` as a number of seconds > 0, ``default`` where it is not set."""
    given = env.get(name, "").strip()
    try:
        seconds = float(given) if given else default
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise ValueError(f"{name} must be a number of seconds > 0, not {given!r}")
    return seconds


class Buckets:
    """Token buckets by key, oldest use first so the longest idle is dropped when full."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> float:
        """Spend one request for ``key``: 0 when allowed, else the seconds until one is."""
        now = self.clock()
        tokens, then = self._buckets.pop(key, (float(self.limits.burst), now))
        tokens = min(float(self.limits.burst), tokens + (now - then) * self.limits.per_second)
        wait = 0.0 if tokens >= 1 else (1 - tokens) / self.limits.per_second
        self._buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
        while len(self._buckets) > self.limits.keys:
            self._buckets.popitem(last=False)
        return wait

    def wait(self, key: str) -> float:
        """The seconds until ``key`` may spend one (0: now), spending nothing."""
        found = self._buckets.get(key)
        if found is None:
            return 0.0
        tokens, then = found
        tokens = tokens + (self.clock() - then) * self.limits.per_second
        return 0.0 if tokens >= 1 else (1 - tokens) / self.limits.per_second


def server_turns() -> Admission:
    """The server's threads: ``PER_TABLE`` of a table's requests at once, one of an
    address's (its lookups, its requests without a member's token), and all addresses
    together at most ``ANONYMOUS_AT_ONCE``: members' requests always have the rest."""
    tables = Share(PER_TABLE, WAITING)
    addresses = Share(1, LOOKUPS_WAITING, together=ANONYMOUS_AT_ONCE, per="address")
    return Admission(AT_ONCE, kinds={"table": tables, "address": addresses})


class Guard:
    """ASGI middleware in front of the app: the Host check and security headers everywhere,
    the rest on the ``/api/`` routes. ``member_table(token hash)`` is the table of the member
    whose token it is (not revoked), None for any other (only a real token gets a bucket of
    its own)."""

    def __init__(
        self,
        app: App,
        limits: Limits,
        member_table: Callable[[str], str | None],
        routes: Sequence[BaseRoute] = (),
    ) -> None:
        self.app = app
        self.routes = routes  # the app's, to tell a path's wrong method before sign-in
        self.limits = limits
        self.buckets = Buckets(limits)
        self.admission = server_turns()
        self.member_table = member_table
        self._members: OrderedDict[str, str] = OrderedDict()  # members' tokens' hashes: table

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _secured(scope, send)
        # The first of a repeated header, as the routes read it (Starlette's headers.get): the
        # last let a member's request be answered as theirs but counted with their address.
        headers: dict[str, str] = {}
        for k, v in scope["headers"]:
            headers.setdefault(k.decode("latin-1"), v.decode("latin-1"))
        hosts = self.limits.hosts
        if hosts is not None and _hostname(headers.get("host")) not in hosts:
            wrong = ApiError(
                421,
                "host",
                headers.get("host"),
                "one of the names this server is configured for (D100_HOSTS)",
                "this server does not answer to that name",
            )
            await _answer(wrong, scope, receive, send)
            return
        if not scope["path"].startswith(API):
            await self.app(scope, receive, send)
            return
        unreadable = unreadable_origin(headers.get("origin"))
        if unreadable is not None:
            await _answer(unreadable, scope, receive, send)
            return
        if foreign_origin(headers.get("origin"), headers.get("host")):
            refusal = ApiError(
                403,
                "origin",
                headers.get("origin"),
                "a page served by this server",
                "requests from other sites' pages are refused",
            )
            await _answer(refusal, scope, receive, send)
            return
        path: str = scope["path"]
        unknown = scope.get("query_string") and unknown_query(self.routes, scope)
        if unknown:
            await _answer(unknown, scope, receive, send)
            return
        table_id = path[len(TABLES) :].split("/", 1)[0] if path.startswith(TABLES) else None
        credential = None if table_id is None else read_credential(table_id, headers)
        scope[CREDENTIAL] = credential  # read once: the routes take it from here
        try:
            key, table, wait = await self._key(scope, credential)
        except DATABASE_BUSY:  # the token's lookup: answered here, outside the app's handlers
            busy = database_busy()
            await _answer(busy, scope, receive, send, busy.headers)
            return
        CLIENT.set(key)  # the worker pool's fair share is counted per bucket too
        if wait:
            seconds = math.ceil(wait)
            limited = ApiError(
                429,
                "token",
                None,
                f"{self.limits.burst} requests at once, then {self.limits.per_second:g} a second",
                f"too many requests; try again in {seconds} s",
            )
            await _answer(limited, scope, receive, send, {"retry-after": str(seconds)})
            return
        if scope["method"] in WITH_BODY:
            try:
                body = await _read_body(receive, self.limits, headers.get("content-length"))
            except ApiError as err:  # the rest of the body, unread, would keep the connection
                await _answer(err, scope, receive, send, {"connection": "close"})
                return
            problem = body_problem(body)
            if problem is not None:
                await _answer(problem, scope, receive, send)
                return
            receive = _replay(body, receive)
        # The open routes' work has its own fair share (server/work.py).
        if table_id is None:
            await self.app(scope, receive, send)
            return
        signing_out = scope["method"] == "DELETE" and path == TABLES + table_id + SIGN_OUT
        if table != table_id and not signing_out:
            # Not a member of this table: the routes' own 401, before any turn is taken; but
            # a method no route of the path takes is that 405 first, as on the open routes.
            allow = refused_method(self.routes, scope)
            if allow is not None:
                await _answer(wrong_method(path), scope, receive, send, {"allow": allow})
                return
            await _answer(unauthorised(), scope, receive, send)
            return
        assert credential is not None
        if table == table_id:
            vouch(scope)  # a member's connection is never shut to make room for another
        send = self._forgetting(credential.hashed, send)
        if path.endswith(STREAM):  # open for hours, its reads one per table woken
            await self.app(scope, receive, send)
            return
        # A member's requests queue with their table's, whoever's token: a player who joined
        # again and again from the invite has that many buckets, but one table's share.
        group = "table:" + table_id if table == table_id else key
        crowded = self.admission.refusal(group)
        if crowded is not None:
            await _answer(crowded, scope, receive, send, crowded.headers)
            return
        # Held until it answers, or until it waits in the write queue or the worker pool.
        async with self.admission.turn(group) as place:
            with holding(place):
                await self.app(scope, receive, send)

    def _forgetting(self, hashed: str | None, send: Send) -> Send:
        """``send``, forgetting the member's token if the route refused it (revoked since it
        was seen, perhaps by another server process): it is looked up again next time."""
        if hashed is None or hashed not in self._members:
            return send

        async def forgetting(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                self._members.pop(hashed, None)
            await send(message)

        return forgetting

    async def _key(
        self, scope: Scope, credential: Credential | None
    ) -> tuple[str, str | None, float]:
        """Whose bucket, the member's table, and the seconds to wait before the request is
        allowed (0 when it is): a member's token where the request names a real one, else the
        client address. A made-up token buys no fresh bucket nor evicts the real ones. A token
        not seen yet is looked up (a thread and a query) one at a time per address: made-up
        tokens hold one thread an address however fast they come, and a member at the same
        address (a NAT, the table's wifi) is looked up in turn, delayed by the flood's lookups
        in flight, never kept out by it nor by the address's spent allowance."""
        client = scope.get("client")
        address = "address:" + (client[0] if client else "")
        hashed = None if credential is None else credential.hashed
        if hashed is None:
            return address, None, self.buckets.take(address)
        table = self._members.get(hashed)
        if table is not None:
            self._members.move_to_end(hashed)
            return "token:" + hashed, table, self.buckets.take("token:" + hashed)
        if self.admission.refusal(address) is not None:
            return address, None, 1.0
        async with self.admission.turn(address):
            table = await anyio.to_thread.run_sync(self.member_table, hashed)
        if table is None:
            return address, None, self.buckets.take(address)
        self._members[hashed] = table
        while len(self._members) > self.limits.keys:
            self._members.popitem(last=False)
        return "token:" + hashed, table, self.buckets.take("token:" + hashed)


def _hostname(host: str | None) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8100`` is ``::1``)."""
    value = (host or "").strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _secured(scope: Scope, send: Send) -> Send:
    """``send`` adding the security headers to the answer: no sniffing of types, no referrer,
    never framed, and the pages' scripts, styles and connections only from this server."""
    csp = b"frame-ancestors 'none'" if scope["path"].startswith(DOCS) else CSP.encode()

    async def secured(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [
                *message.get("headers", []),
                *SECURITY_HEADERS,
                (b"content-security-policy", csp),
            ]
        await send(message)

    return secured


@dataclass(frozen=True)
class _Constant:
    """NaN or Infinity as the JSON reader met it, kept to be refused with its field's name."""

    name: str


def body_problem(body: bytes) -> ApiError | None:
    """Why a JSON body would trip a route up where its schema cannot look, naming the field:
    NaN or Infinity, a number too large for a float, a lone surrogate (no UTF-8 for it, so no
    database or JSON answer can hold it), or nesting deeper than any request has. None when
    it is fine, or when it is not JSON at all (the route answers that with a 400)."""
    if not body.strip():
        return None
    try:
        data = json.loads(body, parse_constant=_Constant)
    except (ValueError, RecursionError):
        return None
    pending: list[tuple[Any, str, int]] = [(data, "", 0)]
    while pending:
        value, where, depth = pending.pop()
        field = where or "body"
        if depth > MAX_DEPTH:
            allowed = f"at most {MAX_DEPTH} levels of nesting"
            return ApiError(422, field, None, allowed, f"{field}: nested too deep")
        if isinstance(value, _Constant):
            allowed = "a finite number (JSON has no NaN or Infinity)"
            return ApiError(422, field, value.name, allowed, f"{field}: not a number")
        if isinstance(value, float) and not math.isfinite(value):
            return ApiError(422, field, None, "a number in range", f"{field}: number too large")
        texts = (
            [value] if isinstance(value, str) else list(value) if isinstance(value, dict) else []
        )
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                shown = text.encode("utf-8", "backslashreplace").decode()[:80]
                allowed = "Unicode text (no lone surrogates)"
                return ApiError(422, field, shown, allowed, f"{field}: not valid Unicode text")
        if isinstance(value, dict):
            pending.extend((v, _at(where, k), depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend((v, _at(where, i), depth + 1) for i, v in enumerate(value))
    return None


def _at(where: str, key: object) -> str:
    return f"{where}.{key}" if where else str(key)


async def _read_body(receive: Receive, limits: Limits, declared: str | None = None) -> bytes:
    """The whole body; an ApiError once it passes the size limit (the rest is not read) or is
    not all in within the time limit (a client trickling bytes holds a connection open). A
    ``Content-Length`` over the limit is refused before a byte is read: waiting for a body
    that would be refused anyway only held the connection till the time limit."""
    too_large = ApiError(
        413, "body", None, f"at most {limits.body_bytes} bytes", "request body too large"
    )
    if declared is not None and _over(declared, limits.body_bytes):
        raise too_large
    chunks, size = [], 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limits.body_seconds
    while True:
        try:
            async with asyncio.timeout_at(deadline):  # no task of its own, as wait_for makes
                message = await receive()
        except TimeoutError:
            raise ApiError(
                408,
                "body",
                None,
                f"the whole body within {limits.body_seconds:g} s",
                "request body too slow",
            ) from None
        if message["type"] != "http.request":
            break
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limits.body_bytes:
            raise too_large
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _over(declared: str, cap: int) -> bool:
    """Whether a ``Content-Length`` says more than ``cap`` bytes (read as digits only: a
    number of thousands of digits is over, without converting it)."""
    digits = declared.strip().lstrip("0")
    if not (digits.isascii() and digits.isdigit()):
        return False  # none or zero, or no number: the body as it comes is measured
    return len(digits) > len(str(cap)) or int(digits) > cap


def _replay(body: bytes, receive: Receive) -> Receive:
    """Hand the body read here to the app, then pass on what the server says next (a
    disconnect, which a streaming answer listens for)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _answer(
    err: ApiError, scope: Scope, receive: Receive, send: Send, headers: dict[str, str] | None = None
) -> None:
    await JSONResponse(err.to_dict(), status_code=err.status, headers=headers)(scope, receive, send)


def refused_method(routes: Sequence[BaseRoute], scope: Scope) -> str | None:
    """The ``Allow`` header of a path some route takes by another method than the request's,
    or None (a route takes it, or none has the path)."""
    methods: set[str] = set()
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return None
        if match is Match.PARTIAL:
            methods |= getattr(route, "methods", None) or set()
    return ", ".join(sorted(methods)) or None


def unknown_query(routes: Sequence[BaseRoute], scope: Scope) -> ApiError | None:
    """A 422 naming a query parameter the route does not take, as a body's unknown field is
    refused (a misspelt ``after`` read as none would answer the whole log); None when it
    takes them all, or when no route has the path (its own 404 or 405 follows)."""
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            dependant = getattr(route, "dependant", None)
            if dependant is None:
                return None
            taken = {p.alias for p in dependant.query_params}
            for name, _value in parse_qsl(scope["query_string"].decode("latin-1"), True):
                if name not in taken:
                    allowed = ", ".join(sorted(taken)) or "none"
                    message = f"{name}: not a parameter of this path; allowed: {allowed}"
                    return ApiError(422, name[:80], None, allowed, message)
            return None
    return None
