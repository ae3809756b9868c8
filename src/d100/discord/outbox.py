"""What d100 sends to Discord's REST API (follow-ups, edits of a deferred answer, channel
posts, the commands' registration), one request at a time per process through one queue,
honouring Discord's rate limits: a 429's ``retry_after`` (global or the route's), and each
bucket's ``X-RateLimit-Remaining``/``X-RateLimit-Reset-After`` before it is used again.

A message Discord will never take (unknown interaction: the 15 minutes of its token are
over; unknown webhook; missing access to the channel) is logged and dropped, not retried;
a 5xx or a broken connection is retried a few times, then logged and dropped."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from .interactions import GIVE_UP

API = "https://discord.com/api/v10"
TRIES = 5  # a request's attempts before it is dropped (rate limits do not count)
MOST_WAIT = 60.0  # seconds: a longer retry_after is Discord's way of saying "not now"
# An interaction's token takes edits of its messages for 15 minutes; a minute kept in hand.
TOKEN_SECONDS = 14 * 60.0
log = logging.getLogger("d100.discord")


@dataclass(frozen=True)
class Post:
    """One request to Discord's API: ``route`` names its rate-limit bucket until Discord
    says which bucket it is (the path with its major parameter, webhook or channel)."""

    method: str
    path: str
    body: Any
    bot: bool = False  # authorised with the bot token (webhook routes carry their token)
    # told what Discord answered, once sent (a message it made: its id)
    then: Callable[[Outcome], None] | None = field(default=None, compare=False, repr=False)

    @property
    def route(self) -> str:
        return f"{self.method} {self.path.split('/messages/')[0]}"


@dataclass(frozen=True)
class Outcome:
    status: int  # Discord's last answer (0: none came)
    sent: bool
    code: int | None = None  # Discord's JSON error code, where it gave one
    body: Any = None


@dataclass
class Outbox:
    client: httpx.AsyncClient
    bot_token: str | None = None
    api: str = API
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    _queue: asyncio.Queue[Post] = field(default_factory=asyncio.Queue)
    _sender: asyncio.Task[None] | None = None
    _buckets: dict[str, str] = field(default_factory=dict)  # route: Discord's bucket id
    _until: dict[str, float] = field(default_factory=dict)  # bucket (or route): free again at
    _global_until: float = 0.0
    # a roll (table, seq): the edit disabling the buttons of the message that offers its
    # follow-ups, and until when its token takes it
    _offers: dict[tuple[str, int], tuple[float, Post]] = field(default_factory=dict)

    def put(self, post: Post) -> None:
        """Queue ``post``; the one sender drains the queue in order."""
        self._queue.put_nowait(post)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._drain())

    async def flush(self) -> None:
        """Return once everything queued is sent or dropped."""
        await self._queue.join()

    async def close(self) -> None:
        if self._sender is not None:
            self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)
        await self.client.aclose()

    async def _drain(self) -> None:
        while True:
            post = await self._queue.get()
            try:
                outcome = await self.send(post)
                if post.then is not None:
                    post.then(outcome)
            except Exception:  # a bug must not stop the sender: what follows still goes
                log.exception("discord: sending %s %s failed", post.method, post.path)
            finally:
                self._queue.task_done()

    def offered(self, roll: tuple[str, int], edit: Post) -> None:
        """Keep, for its token's life, the edit that disables the buttons of a message sent
        offering this roll's follow-ups: taken elsewhere (the page), it is sent (``taken``).
        In this process only: another's message is set right by its first click."""
        now = self.clock()
        self._offers = {k: v for k, v in self._offers.items() if v[0] > now}
        self._offers[roll] = (now + TOKEN_SECONDS, edit)

    def taken(self, roll: tuple[str, int]) -> Post | None:
        """The edit kept for this roll's offering message, once: None if none or too late."""
        until, edit = self._offers.pop(roll, (0.0, None))
        return edit if until > self.clock() else None

    async def send(self, post: Post) -> Outcome:
        """Send ``post`` now, waiting out rate limits; its outcome."""
        headers = {"user-agent": "DiscordBot (https://github.com/d100, 1)"}
        if post.bot:
            if not self.bot_token:
                log.error("discord: %s needs D100_DISCORD_BOT_TOKEN; dropped", post.route)
                return Outcome(0, False)
            headers["authorization"] = f"Bot {self.bot_token}"
        failures = 0
        while True:
            await self._wait(post.route)
            try:
                answer = await self.client.request(
                    post.method, self.api + post.path, json=post.body, headers=headers
                )
            except httpx.HTTPError as err:
                failures += 1
                if failures >= TRIES:
                    log.warning("discord: %s unreachable (%s); dropped", post.route, err)
                    return Outcome(0, False)
                await self.sleep(min(2.0**failures, MOST_WAIT))
                continue
            self._note(post.route, answer)
            body = _json(answer)
            code = body.get("code") if isinstance(body, dict) else None
            if answer.status_code == 429:
                wait = _float(body.get("retry_after") if isinstance(body, dict) else None)
                wait = wait if wait is not None else _float(answer.headers.get("retry-after"))
                wait = 1.0 if wait is None else wait
                if wait > MOST_WAIT:
                    log.warning("discord: %s limited for %.0f s; dropped", post.route, wait)
                    return Outcome(429, False, code, body)
                if (isinstance(body, dict) and body.get("global")) or answer.headers.get(
                    "x-ratelimit-global"
                ):
                    self._global_until = self.clock() + wait
                else:
                    self._until[self._buckets.get(post.route, post.route)] = self.clock() + wait
                continue
            if answer.status_code < 400:
                return Outcome(answer.status_code, True, None, body)
            if answer.status_code >= 500:
                failures += 1
                if failures < TRIES:
                    await self.sleep(min(2.0**failures, MOST_WAIT))
                    continue
            why = "gave up" if code in GIVE_UP else "refused"
            log.warning(
                "discord: %s %s %s (%s, code %s): %s",
                post.method,
                post.route,
                why,
                answer.status_code,
                code,
                body.get("message") if isinstance(body, dict) else "",
            )
            return Outcome(answer.status_code, False, code, body)

    async def _wait(self, route: str) -> None:
        """Sleep until neither the global limit nor the route's bucket holds it back."""
        while True:
            bucket = self._buckets.get(route, route)
            until = max(self._global_until, self._until.get(bucket, 0.0))
            wait = until - self.clock()
            if wait <= 0:
                return
            await self.sleep(wait)

    def _note(self, route: str, answer: httpx.Response) -> None:
        """Remember the route's bucket and, when it is spent, when it is free again."""
        bucket = answer.headers.get("x-ratelimit-bucket")
        if bucket:
            self._buckets[route] = bucket
        remaining = answer.headers.get("x-ratelimit-remaining")
        reset = _float(answer.headers.get("x-ratelimit-reset-after"))
        if remaining == "0" and reset is not None:
            self._until[bucket or route] = self.clock() + reset


def _json(answer: httpx.Response) -> Any:
    try:
        return answer.json()
    except ValueError:
        return None


def _float(value: Any) -> float | None:
    try:
        found = float(value)
    except (TypeError, ValueError):
        return None
    return found if found >= 0 else None


def edit_original(application_id: str, token: str, body: dict[str, Any]) -> Post:
    """The message that replaces a deferred answer's 'thinking...'."""
    return Post("PATCH", f"/webhooks/{application_id}/{token}/messages/@original", body)


def edit_message(application_id: str, token: str, message_id: str, body: dict[str, Any]) -> Post:
    """A message sent for an interaction (a follow-up), edited through its webhook."""
    return Post("PATCH", f"/webhooks/{application_id}/{token}/messages/{message_id}", body)


def follow_up(application_id: str, token: str, body: dict[str, Any]) -> Post:
    return Post("POST", f"/webhooks/{application_id}/{token}", body)


def channel_post(channel_id: str, body: dict[str, Any]) -> Post:
    return Post("POST", f"/channels/{channel_id}/messages", body, bot=True)
