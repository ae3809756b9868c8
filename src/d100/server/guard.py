"""What every API request passes before a route sees it: a cap on the body's size, a refusal of
other sites' pages (the ``Origin`` header), and a per-token rate limit.

The rate limit lives in this process's memory: each server process counts on its own, and a
restart forgets the counts. Several processes behind one address therefore allow that many times
the rate; nothing about a table's state depends on it.
"""

from __future__ import annotations

import math
import os
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import cookie_parser
from starlette.responses import JSONResponse

from .access import cookie_name, foreign_origin
from .errors import ApiError
from .tokens import token_hash

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

API = "/api/"
TABLES = "/api/tables/"
WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})
RATE_BURST_ENV = "D100_RATE_BURST"
RATE_PER_SECOND_ENV = "D100_RATE_PER_SECOND"


@dataclass(frozen=True)
class Limits:
    """``burst`` requests at once, then ``per_second`` on average, per token (per client address
    where a request names no table); bodies up to ``body_bytes``."""

    burst: int = 120  # a page load is a handful; a busy scene a roll every few seconds
    per_second: float = 4.0
    body_bytes: int = 64 * 1024  # the largest body is a 20,000-character sheet
    keys: int = 10_000  # buckets remembered; the least recently used is forgotten first

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, with ``D100_RATE_BURST`` and ``D100_RATE_PER_SECOND`` overriding the
        rate limit where set (a load test raises them; ``d100 serve`` reads them)."""
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
        return cls(
            burst=burst_value, per_second=rate_value, body_bytes=limits.body_bytes, keys=limits.keys
        )


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


class Guard:
    """ASGI middleware in front of the app's ``/api/`` routes; pages and static files pass."""

    def __init__(self, app: App, limits: Limits) -> None:
        self.app = app
        self.limits = limits
        self.buckets = Buckets(limits)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(API):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
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
        wait = self.buckets.take(_key(scope, headers))
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
            body = await _read_body(receive, self.limits.body_bytes)
            if body is None:
                too_big = ApiError(
                    413,
                    "body",
                    None,
                    f"at most {self.limits.body_bytes} bytes",
                    "request body too large",
                )
                await _answer(too_big, scope, receive, send)
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)


def _key(scope: Scope, headers: dict[str, str]) -> str:
    """Whose bucket: the token a table route authenticates with, else the client address (a
    made-up token on an open route must not buy a fresh bucket)."""
    path: str = scope["path"]
    if path.startswith(TABLES):
        table_id = path[len(TABLES) :].split("/", 1)[0]
        scheme, _, value = headers.get("authorization", "").partition(" ")
        token = value.strip() if scheme.lower() == "bearer" else ""
        if not token:  # parsed as the route will parse it
            token = cookie_parser(headers.get("cookie", "")).get(cookie_name(table_id), "")
        if token:
            return "token:" + token_hash(token)  # the hash: no token kept in memory
    client = scope.get("client")
    return "address:" + (client[0] if client else "")


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None once it passes ``limit`` bytes (the rest is not read)."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


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
