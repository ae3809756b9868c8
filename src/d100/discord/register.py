"""``d100 discord register``: put d100's slash commands on Discord with the bot token, for
every server the application is in (global commands: up to an hour to appear) or, with
``--guild``, one server's (at once: for trying it out).

Its parser is ``d100.cli.discord``'s (built without the server's stack); this module sends."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

import httpx

from .commands import definitions
from .outbox import API, Outbox, Outcome, Post
from .router import APPLICATION_ID_ENV, BOT_TOKEN_ENV


def commands_path(application_id: str, guild: str | None) -> str:
    if guild:
        return f"/applications/{application_id}/guilds/{guild}/commands"
    return f"/applications/{application_id}/commands"


async def register(
    client: httpx.AsyncClient,
    application_id: str,
    bot_token: str,
    guild: str | None = None,
    api: str = API,
) -> Outcome:
    """PUT the commands (bulk overwrite): Discord's answer."""
    box = Outbox(client, bot_token, api=api)
    return await box.send(
        Post("PUT", commands_path(application_id, guild), definitions(), bot=True)
    )


def run(args: argparse.Namespace) -> int:
    import json

    if args.print:
        print(json.dumps(definitions(), indent=2, ensure_ascii=False))
        return 0
    application = args.application or os.environ.get(APPLICATION_ID_ENV, "").strip()
    token = os.environ.get(BOT_TOKEN_ENV, "").strip()
    if not application or not token:
        missing = [
            n for n, v in ((APPLICATION_ID_ENV, application), (BOT_TOKEN_ENV, token)) if not v
        ]
        print(
            f"d100: error: set {' and '.join(missing)} (see d100 discord register --help)",
            file=sys.stderr,
        )
        return 2

    async def go() -> Outcome:
        async with httpx.AsyncClient(timeout=20.0) as client:
            return await register(client, application, token, args.guild)

    done = asyncio.run(go())
    where = f"server {args.guild}" if args.guild else "every server (global; up to an hour to show)"
    if done.sent:
        names = ", ".join("/" + c["name"] for c in definitions())
        print(f"registered {names} for {where}")
        return 0
    message = done.body.get("message") if isinstance(done.body, dict) else ""
    print(
        f"d100: error: Discord refused the commands ({done.status}, code {done.code}): {message}",
        file=sys.stderr,
    )
    if done.status == 401:
        print(
            "  check the bot token (Bot tab of the developer portal; reset it if in doubt)",
            file=sys.stderr,
        )
    elif done.status in (403, 404) and args.guild:
        print(
            "  invite the bot to that server with the applications.commands scope first",
            file=sys.stderr,
        )
    return 1
