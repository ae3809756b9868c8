"""``d100 discord register``: put d100's slash commands on Discord with the bot token, for
every server the application is in (global commands: up to an hour to appear) or, with
``--guild``, one server's (at once: for trying it out)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

import httpx

from .commands import definitions
from .outbox import API, Outbox, Outcome, Post
from .router import APPLICATION_ID_ENV, BOT_TOKEN_ENV

HELP = f"""\
Register d100's slash commands (/roll, /odds, /advise, /table, /sheet, /link, /r,
/call) with Discord. Needs the application's id (${APPLICATION_ID_ENV} or
--application) and its bot token (${BOT_TOKEN_ENV}; never on the command line, where
other users of the machine see it).

Without --guild the commands are global (every server the bot is invited to; Discord
may take up to an hour to show them); with --guild ID they are that server's, at once.
Registering again replaces the list (a command d100 no longer has goes).

examples:
  d100 discord register --guild 123456789012345678
  d100 discord register
  d100 discord register --print      (the commands as JSON, nothing sent)
"""


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


def add(sub: Any) -> None:
    p = sub.add_parser("discord", description="d100 on Discord: set-up commands.")
    inner = p.add_subparsers(dest="discord_command", metavar="COMMAND")
    r = inner.add_parser(
        "register",
        help="register the slash commands with Discord",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("--guild", metavar="ID", help="one server's commands (at once), not global")
    r.add_argument(
        "--application", metavar="ID", help=f"the application id (${APPLICATION_ID_ENV})"
    )
    r.add_argument("--print", action="store_true", help="print the commands' JSON, send nothing")
    r.set_defaults(run=run)


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
