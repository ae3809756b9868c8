"""``d100 discord``: setting d100 up on Discord (``d100.discord.register`` sends).

The parser is built here, without the server's stack (a second to load: a completion script
builds every command's parser). The packages of the server extra that the command loads are
looked for all the same, so without them ``d100 discord ...``, ``--help`` too, names the
extra and exits 2, as when the parser came from the module that sends."""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any

# The server extra's packages that d100.discord.register loads (a test compares the two), and
# d100.discord.router's names of the application's id and bot token (a test compares them).
LOADS = (
    "fastapi",
    "starlette",
    "pydantic",
    "anyio",
    "sqlalchemy",
    "alembic",
    "httpx",
    "cryptography",
)
APPLICATION_ID_ENV = "D100_DISCORD_APPLICATION_ID"
BOT_TOKEN_ENV = "D100_DISCORD_BOT_TOKEN"

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


def register(sub: Any) -> None:
    for package in LOADS:  # not imported: found (an extra's missing package is its error)
        if importlib.util.find_spec(package) is None:
            raise ModuleNotFoundError(f"No module named {package!r}", name=package)
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
    from ..discord.register import run as send  # the server extra's stack: only when run

    status: int = send(args)
    return status
