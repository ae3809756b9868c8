"""``POST /discord/interactions``: Discord's door into the table server, mounted when
``D100_DISCORD_PUBLIC_KEY`` is set.

Each request's signature is checked over its timestamp and raw body before anything else
(401 otherwise); a PING is answered PONG. A command's answer comes within Discord's 3 s:
worked out on the preview workers, it is sent at once when it is ready within
``answer_seconds``, else the answer is deferred ("thinking...") and the message follows
through the outbox. Rate limits count per verified guild and user (a Discord request's
address is always Discord's), commands and completions apart; a refusal is a private "busy,
try again in N s", as Discord ignores ``Retry-After`` (a completion refused offers nothing).
Badly signed posts count per client address: past a few, the address is refused (429) before
its body is read."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import math
import os
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import httpx
from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from ..errors import D100Error
from ..ledger import MAX_ROLLS
from ..server import awaiting, calculator, declared, rolls, rounds
from ..server import ledgers as ledger_views
from ..server.errors import ApiError
from ..server.events import DISCORD, DOOR
from ..server.guard import Buckets, Limits
from ..server.quotas import TABLES
from ..server.store import Store
from ..server.work import ANONYMOUS, CLIENT, Pool
from . import answers, calls, clicks, interactions, ledgers, mirror, outbox, play, sheets, tables
from .commands import (
    CALL,
    CLOSE,
    DELETE,
    FILE,
    LEDGER,
    LINK,
    OPEN,
    PUBLIC,
    QUICK,
    ROLL_AS,
    SECRET,
    SHEET,
    SYSTEM,
    TABLE,
    WORDS,
)
from .complete import suggest
from .interactions import AUTOCOMPLETE, PING, PONG, BadPayload, Interaction, message
from .render import busy_message, error_message, failed_message
from .signature import BadSignature, Verifier

PUBLIC_KEY_ENV = "D100_DISCORD_PUBLIC_KEY"
APPLICATION_ID_ENV = "D100_DISCORD_APPLICATION_ID"
BOT_TOKEN_ENV = "D100_DISCORD_BOT_TOKEN"
SECRET_ENV = "D100_DISCORD_SECRET"
API_ENV = "D100_DISCORD_API"  # Discord's REST API base: a proxy's, or a stand-in under test
PATH = "/discord/interactions"
BODY_BYTES = 64 * 1024  # an interaction is a few KB; the guard's cap, as it reads no body here
BODY_SECONDS = 10.0  # as the guard's: a body trickling in holds a connection
ANSWER_SECONDS = 2.0  # of Discord's 3 s: past this, a deferred answer and a follow-up
# A person's commands: a few at once, then one every two seconds.
RATE = Limits(burst=5, per_second=0.5)
# A person typing: a completion a keystroke, a line's worth at once, then five a second
# (each reads the channel's table; 124 a second once slowed another table's rolls).
TYPING = Limits(burst=20, per_second=5.0)
# Posts whose signature fails, per client address: Discord's own never fail, so past a few
# the address is refused before its body is read or checked.
UNSIGNED = Limits(burst=10, per_second=1.0)
log = logging.getLogger("d100.discord")


@dataclass
class Discord:
    """The endpoint's state, one per app."""

    verifier: Verifier
    application_id: str
    outbox: outbox.Outbox
    secret: bytes  # the dice's key: the same interaction draws the same dice in any process
    answer_seconds: float = ANSWER_SECONDS
    buckets: Buckets = field(default_factory=lambda: Buckets(RATE))
    typing: Buckets = field(default_factory=lambda: Buckets(TYPING))  # completions, per user
    unsigned: Buckets = field(default_factory=lambda: Buckets(UNSIGNED))  # per address
    pending: set[asyncio.Task[None]] = field(default_factory=set)  # deferred answers' work
    sender: asyncio.Task[None] | None = None  # posts other doors' rolls to their channels
    due: asyncio.Event | None = None  # set when this process has queued channel posts
    loop: asyncio.AbstractEventLoop | None = None

    def start(self, store: Store) -> None:
        """The channel posts' sender, where there is a bot token to post with (till then
        the posts wait in the database)."""
        if self.outbox.bot_token:
            self.loop, self.due = asyncio.get_running_loop(), asyncio.Event()
            self.sender = self.loop.create_task(mirror.run(store, self.outbox, self.due))

    def posted(self) -> None:
        """A commit queued channel posts: the sender looks now, not at its next idle look.
        Called from the thread that committed."""
        if self.loop is not None and self.due is not None:
            self.loop.call_soon_threadsafe(self.due.set)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Discord | None:
        """None unless ``D100_DISCORD_PUBLIC_KEY`` is set."""
        env = os.environ if environ is None else environ
        key = env.get(PUBLIC_KEY_ENV, "").strip()
        if not key:
            return None
        token = env.get(BOT_TOKEN_ENV, "").strip() or None
        return cls(
            verifier=Verifier.from_hex(key),
            application_id=env.get(APPLICATION_ID_ENV, "").strip(),
            outbox=outbox.Outbox(
                httpx.AsyncClient(timeout=10.0), token, env.get(API_ENV, "").strip() or outbox.API
            ),
            secret=dice_secret(env.get(SECRET_ENV, "").strip() or None, token),
        )

    async def close(self) -> None:
        if self.sender is not None:
            self.sender.cancel()
            await asyncio.gather(self.sender, return_exceptions=True)
        for task in list(self.pending):
            task.cancel()
        await asyncio.gather(*self.pending, return_exceptions=True)
        await self.outbox.close()


def dice_secret(secret: str | None, bot_token: str | None) -> bytes:
    """The dice's key: ``D100_DISCORD_SECRET``, else one derived from the bot token (secret,
    and the same in every process of the deployment), else a fresh one for this process (a
    payload replayed to another process, or after a restart, then rolls anew)."""
    if secret:
        return secret.encode()
    if bot_token:
        return hmac.new(bot_token.encode(), b"d100 discord dice", hashlib.sha256).digest()
    log.warning("discord: neither %s nor %s set: dice keyed per process", SECRET_ENV, BOT_TOKEN_ENV)
    return secrets.token_bytes(32)


def _state(request: Request) -> tuple[Discord, Pool]:
    discord: Discord = request.app.state.discord
    pool: Pool = request.app.state.server.pool
    return discord, pool


async def _body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > BODY_BYTES:
        raise ApiError(413, "body", None, f"at most {BODY_BYTES} bytes", "request body too large")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > BODY_BYTES:
            raise ApiError(
                413, "body", None, f"at most {BODY_BYTES} bytes", "request body too large"
            )
        chunks.append(chunk)
    return b"".join(chunks)


async def interactions_endpoint(request: Request) -> JSONResponse:
    discord, pool = _state(request)
    DOOR.set(DISCORD)  # what this request writes is answered in the channel: not posted again
    address = request.client.host if request.client else ""
    refused = discord.unsigned.wait(address)
    if refused:
        seconds = math.ceil(refused)
        raise ApiError(
            429,
            "signature",
            None,
            f"at most {UNSIGNED.burst} badly signed requests, then "
            f"{UNSIGNED.per_second:g} a second, per address",
            f"too many badly signed requests; try again in {seconds} s",
            {"retry-after": str(seconds)},
        )
    try:
        body = await asyncio.wait_for(_body(request), BODY_SECONDS)
    except TimeoutError:
        raise ApiError(
            408, "body", None, f"the body within {BODY_SECONDS:g} s", "too slow"
        ) from None
    try:
        discord.verifier.verify(
            request.headers.get("x-signature-ed25519"),
            request.headers.get("x-signature-timestamp"),
            body,
        )
    except BadSignature as why:
        discord.unsigned.take(address)
        raise ApiError(401, "signature", None, "a request signed by Discord", str(why)) from None
    try:
        it = interactions.read(json.loads(body))
    except (ValueError, BadPayload) as err:
        raise ApiError(400, "body", None, "an interaction", str(err)) from None
    if it.type == PING:
        return JSONResponse({"type": PONG})
    if it.type == AUTOCOMPLETE:  # a person typing: past their share, no choices this time
        if discord.typing.take(it.who):
            return JSONResponse(interactions.choices([]))
        options = it.options()
        name, typed = it.focused()
        store = request.app.state.server.store
        if it.command in (ROLL_AS, CALL, LEDGER):
            complete = calls.suggest if it.command == CALL else play.suggest
            found = await run_in_threadpool(complete, store, it, name, typed)
        else:
            found = suggest(typed, options.get(SYSTEM)) if name == WORDS else []
        return JSONResponse(interactions.choices(found))
    wait = discord.buckets.take(it.who)
    if wait:
        return JSONResponse(interactions.answer(busy_message(math.ceil(wait))))
    if it.type == interactions.MESSAGE_COMPONENT:
        return JSONResponse(await _in_time(discord, it, _guarded(_click(request, discord, it))))
    if it.type == interactions.APPLICATION_COMMAND and it.command in OURS:
        work = _guarded(_table_command(request, discord, it))
        return JSONResponse(await _in_time(discord, it, work))
    store = request.app.state.server.store
    table = await run_in_threadpool(tables.channel_settings, store, it.channel_id)
    return JSONResponse(await _command(discord, pool, it, table))


OURS = (TABLE, LINK, SHEET, ROLL_AS, CALL, LEDGER)  # the commands of a channel's table


async def _guarded(work: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    """The answer, its refusals as the user may read them: the error's own words, which name
    the field and what is allowed; never a repr, a dump of a value or a traceback."""
    try:
        return await work
    except ApiError as err:
        return interactions.answer(_refused(err, refusal(err)))
    except D100Error as err:
        return interactions.answer(error_message(err.message))
    except Exception:
        log.exception("discord: a table command failed")
        return interactions.answer(failed_message())


ANSWERED_PRIVATELY = "Answered privately."


async def _in_time(
    discord: Discord, it: Interaction, work: Awaitable[dict[str, Any]]
) -> dict[str, Any]:
    """A table's answer within Discord's 3 s: as it is when ready within ``answer_seconds``;
    else acknowledged now (a click's deferred update, a command's "thinking...", private
    for ``/link``) and the answer sent when the work is done, as a deferred ``/roll``'s is.
    The work itself waits its turn (the write queue) however long that takes."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=discord.answer_seconds)
    if done:
        return task.result()
    clicked = it.type == interactions.MESSAGE_COMPONENT
    private = not clicked and (
        it.command == LINK or (it.command == LEDGER and not it.options().get(PUBLIC))
    )
    later = asyncio.ensure_future(_answer_later(discord, it, task, clicked, private))
    discord.pending.add(later)
    later.add_done_callback(discord.pending.discard)
    if clicked:
        return {"type": interactions.DEFERRED_UPDATE}
    return interactions.deferred(private)


async def _answer_later(
    discord: Discord,
    it: Interaction,
    task: asyncio.Future[dict[str, Any]],
    clicked: bool,
    private: bool,
) -> None:
    """The answer of work acknowledged before it was done: a message replaces the command's
    "thinking..." (one meant for the user alone, where that was public, follows privately);
    a click's message follows it (its own edits and follow-ups are the click's work's)."""
    answer = await task
    app = discord.application_id or it.application_id
    data = answer.get("data") or {}
    if answer.get("type") == interactions.UPDATE:  # the clicked message, as it now is
        discord.outbox.put(outbox.edit_original(app, it.token, data))
    elif answer.get("type") != interactions.MESSAGE:
        return  # a click that acted: its edits and follow-ups are queued already
    elif clicked:
        discord.outbox.put(outbox.follow_up(app, it.token, data))
    elif bool(data.get("flags", 0) & interactions.EPHEMERAL) and not private:
        discord.outbox.put(outbox.edit_original(app, it.token, message(ANSWERED_PRIVATELY)))
        discord.outbox.put(outbox.follow_up(app, it.token, data))
    else:  # an edit keeps the message's own flags (it may not set them)
        edit = {k: v for k, v in data.items() if k != "flags"}
        discord.outbox.put(outbox.edit_original(app, it.token, edit))


def refusal(err: ApiError) -> str:
    """An API error as the words a Discord user reads: its message, led by the value typed
    when that is a short text the message does not already hold (a person's own words), and
    followed by what is allowed when the message does not say it ("not allowed: ...")."""
    text, value = err.message, err.value
    if err.allowed and err.allowed not in text and "; allowed:" not in text:
        text = f"{text}; allowed: {err.allowed}"
    if isinstance(value, str) and value and value not in text and len(value) <= 100:
        return f"{value}: {text}"
    return text


async def _table_command(request: Request, discord: Discord, it: Interaction) -> dict[str, Any]:
    return interactions.answer(await _table_message(request, discord, it))


async def _table_message(request: Request, discord: Discord, it: Interaction) -> dict[str, Any]:
    """A command of the channel's table: a few rows written, on a worker thread as the web
    API's are."""
    store = request.app.state.server.store
    options = it.options()
    if it.command == LINK:
        return await _written(request, it, tables.link, store, it, str(request.base_url))
    if it.command == SHEET:
        return await _sheet(request, discord, it, options)
    if it.command == ROLL_AS:
        rolled = await _with_odds(request, it, lambda p: play.roll_as(store, it, options, p))
        return _shown(discord, it, rolled)
    if it.command == CALL:
        return await _written(request, it, calls.call_command, store, it, options)
    if it.command == LEDGER:
        return await _ledger(request, it, options)
    if options.get("subcommand") == OPEN:
        server = request.app.state.server
        counted = (server.openings, server.quotas)
        return await _written(request, it, tables.open_table, store, it, options, *counted)
    if options.get("subcommand") == CLOSE:
        return await _written(request, it, tables.close_table, store, it)
    if options.get("subcommand") == DELETE:
        return await _written(request, it, tables.delete_table, store, it, options)
    return interactions.message("Not a command of this server.", private=True)


Made = TypeVar("Made")
LAST = MAX_ROLLS  # a ledger's rolls: the most it counts, the latest of a longer log


async def _ledger(request: Request, it: Interaction, options: dict[str, Any]) -> dict[str, Any]:
    """``/ledger``: the user seated in the write queue's turn (a member on first use), the
    log read in a thread, the ledger of the last ``LAST`` rolls counted on a worker in the
    table's lane, one at a time for each member, as the web's."""
    server = request.app.state.server
    wanted = await _written(request, it, ledgers.asked, server.store, it, options)
    if isinstance(wanted, dict):
        return wanted
    with server.ledger_reads.place(wanted.viewer):
        events, names = await run_in_threadpool(ledgers.read, server.store, wanted)
        lane, asked = f"table:{wanted.viewer.table_id}", (wanted.character, wanted.member)
        answer = await server.pool.run(lane, ledger_views.answer, events, names, *asked, LAST)
    return ledgers.shown(answer, wanted)


async def _written(request: Request, it: Interaction, fn: Callable[..., Made], *args: Any) -> Made:
    """A write at the channel's table, in a turn of the web's write queue (``work.Writes``):
    on SQLite one write runs at a time in all, and one from a thread of its own would take
    the lock ahead of the page's rolls waiting their turn."""
    written: Made = await request.app.state.server.writing.run(_lane(it), fn, *args)
    return written


def _lane(it: Interaction) -> str:
    return f"table:discord-{it.channel_id or 'dm-' + it.user_id}"


async def _with_odds(
    request: Request, it: Interaction, make: Callable[[rolls.Planned | None], Made]
) -> Made:
    """A roll, as the web API's: dear odds worked out on the workers first, then the roll
    made with them; at a table with the beacon, a round not kept yet fetched off the lock."""
    server = request.app.state.server
    planned, tried = None, 0
    while True:
        try:
            return await _written(request, it, make, planned)
        except rounds.Unfetched as unfetched:
            await awaiting.fetch(server.writing, server.store, _lane(it), unfetched, tried)
            tried += 1
        except rolls.Dear as dear:
            assert planned is None  # with its odds planned, a roll is never dear
            lane = f"{ANONYMOUS}:{it.who}"
            work = declared.planned_odds if isinstance(dear, declared.Dear) else calculator.odds_of
            chance = await server.pool.run(lane, work, dear.request, urgent=True)
            planned = rolls.Planned(dear.request, chance)


async def _click(request: Request, discord: Discord, it: Interaction) -> dict[str, Any]:
    """A button: acknowledged at once when it acts, the clicked message's buttons then set as
    they now are and the new roll posted (``clicks``); otherwise a private answer."""
    store = request.app.state.server.store
    done = await _with_odds(request, it, lambda p: clicks.click(store, it, p))
    if isinstance(done, play.Rolled):
        return interactions.answer(_shown(discord, it, done))
    if isinstance(done, clicks.Updated):
        return {"type": interactions.UPDATE, "data": done.body}
    app = discord.application_id or it.application_id
    discord.outbox.put(outbox.edit_original(app, it.token, {"components": done.components}))
    discord.outbox.put(outbox.follow_up(app, it.token, done.rolled.public))
    if done.rolled.own is not None:
        discord.outbox.put(_own(discord, it, done.rolled))
    return {"type": interactions.DEFERRED_UPDATE}


def _shown(discord: Discord, it: Interaction, rolled: play.Rolled) -> dict[str, Any]:
    """The channel's message, answered now; the roller's own view follows privately (a
    follow-up message needs the answer sent first, which the outbox's turn gives it)."""
    if rolled.own is not None:
        discord.outbox.put(_own(discord, it, rolled))
    return rolled.public


def _own(discord: Discord, it: Interaction, rolled: play.Rolled) -> outbox.Post:
    """The roller's own message. One offering follow-ups is kept once Discord has made it,
    so that taking one on the page disables its buttons (``mirror``)."""
    assert rolled.own is not None
    app = discord.application_id or it.application_id
    post = outbox.follow_up(app, it.token, rolled.own)
    offers = rolled.offers
    if offers is None:
        return post

    def sent(outcome: outbox.Outcome) -> None:
        made = outcome.body.get("id") if isinstance(outcome.body, dict) else None
        if outcome.sent and made:
            used = {"components": offers.used}
            discord.outbox.offered(offers.roll, outbox.edit_message(app, it.token, str(made), used))

    return replace(post, then=sent)


async def _command(
    discord: Discord, pool: Pool, it: Interaction, table: Mapping[str, Any]
) -> dict[str, Any]:
    quick = {name for name, _, _ in QUICK}
    if it.type != interactions.APPLICATION_COMMAND or it.command not in quick:
        return interactions.answer(
            interactions.message("Not a command of this server.", private=True)
        )
    options = it.options()
    private = bool(options.get(SECRET))
    CLIENT.set(it.who)
    job = pool.run(
        f"{ANONYMOUS}:{it.who}",  # an open route's lane: with the addresses' share
        answers.quick_answer,
        it.command,
        str(options.get(WORDS) or ""),
        options.get(SYSTEM),
        private,
        it.user_name,
        discord.secret,
        it.id,
        table,
    )
    task = asyncio.ensure_future(_settled(job))
    done, _ = await asyncio.wait({task}, timeout=discord.answer_seconds)
    if done:
        return interactions.answer(_own_later(discord, it, task.result()))
    later = asyncio.ensure_future(_follow(discord, it, task))
    discord.pending.add(later)
    later.add_done_callback(discord.pending.discard)
    return interactions.deferred(private)


async def _settled(job: Any) -> dict[str, Any]:
    """The message a job answers, its refusals and failures included."""
    try:
        found: dict[str, Any] = await job
        return found
    except ApiError as err:
        return _refused(err, err.message)
    except Exception:
        log.exception("discord: a command failed")
        return failed_message()


def _refused(err: ApiError, words: str) -> dict[str, Any]:
    """A refusal's message: "busy" where the server is (a queue full, the database busy); a
    quota's in its own words, which say how long it lasts (hours, not a moment's busy)."""
    if err.status in (429, 503) and err.field != TABLES:
        return busy_message(int(err.headers.get("retry-after", "1")) if err.headers else 1)
    return error_message(words)


async def _follow(discord: Discord, it: Interaction, task: asyncio.Future[dict[str, Any]]) -> None:
    body = await task
    app = discord.application_id or it.application_id
    discord.outbox.put(outbox.edit_original(app, it.token, _own_later(discord, it, body)))


def _own_later(discord: Discord, it: Interaction, body: dict[str, Any]) -> dict[str, Any]:
    """The answer for the channel; its roller's own part (a hidden roll) is queued to follow
    it privately, the outbox's turn sending it after the answer it follows."""
    own = body.get(answers.OWN)
    if own is None:
        return body
    app = discord.application_id or it.application_id
    discord.outbox.put(outbox.follow_up(app, it.token, own))
    return {k: v for k, v in body.items() if k != answers.OWN}


async def _sheet(
    request: Request, discord: Discord, it: Interaction, options: dict[str, Any]
) -> dict[str, Any]:
    store = request.app.state.server.store
    system = await run_in_threadpool(sheets.table_system, store, it)
    if system is None:
        return tables.no_table()
    found = sheets.attachment(it, options.get(FILE))
    text = await sheets.fetch(discord.outbox.client, str(found["url"]))
    return await _written(request, it, sheets.make, store, it, system, text)


def mount(app: Any, discord: Discord) -> None:
    """Put the endpoint in ``app`` (the table server's), with its state."""
    app.state.discord = discord
    app.add_api_route(PATH, interactions_endpoint, methods=["POST"], include_in_schema=False)
