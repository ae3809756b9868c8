"""The ``d100`` command: a thin layer that parses, calls the library and renders.

Only the module of the command being run is imported (start-up is most of a quick roll's
time); the others appear in ``d100 --help`` by their one-line help from ``COMMANDS``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..errors import D100Error
from ..systems import REGISTRY
from . import extras
from .parser import ERRORS, EXIT_USAGE, Parser, fail

# command: (the module that registers it, its line in d100 --help)
COMMANDS: dict[str, tuple[str, str]] = {
    "roll": ("quick", "a quick roll: d100 roll [SYSTEM] SKILL [WORDS], as in chat dice bots"),
    "check": ("roll", "roll one check, shown with its exact odds"),
    "contest": ("roll", "roll an opposed check (OQ7, BRP6, CH6)"),
    "group": ("roll", "everyone tests the same skill (OQ10, CH8)"),
    "odds": ("odds", "exact odds from flags, an odds table, or JSON Lines"),
    "sheet": ("sheet", "create, show and check character sheets (TOML)"),
    "rest": ("sheet", "a full night's rest: Luck back to maximum (BRP7)"),
    "develop": ("develop", "the development phase: improvement rolls with their exact odds"),
    "luck": ("spend", "spend a character's Luck outside a check (Pulp Cthulhu)"),
    "wound": ("spend", "a character takes a hit: hit points left, dying or a CON roll"),
    "advise": ("advise", "every option for a check, with its exact odds and cost"),
    "simulate": ("simulate", "N seeded rolls beside the exact odds"),
    "chart": ("chart", "PNG/SVG charts of the odds against skill"),
    "shell": ("shell", "an interactive prompt for a session at the table"),
    "resolve": ("jsonl", "resolve JSON Lines requests"),
    "demo": ("demo", "a short tour: a few checks, a contest and their odds"),
    "completion": ("completion", "print a tab-completion script for bash, zsh or fish"),
    "serve": ("serve", "run the table server (web page and HTTP API)"),
    "verify": ("verify", "recompute every roll of an exported table log"),
    "ledger": ("ledger", "a table log's rolls against their exact odds: is the table lucky?"),
    "discord": ("discord", "set d100 up on Discord: d100 discord register"),
}


class _Commands:
    """The subparsers, giving each command its help line from ``COMMANDS``."""

    def __init__(self, sub: Any) -> None:
        self.sub = sub

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        kwargs.setdefault("help", COMMANDS[name][1])
        # a command's own option wins over a system's field flag of the same name
        kwargs.setdefault("conflict_handler", "resolve")
        return self.sub.add_parser(name, **kwargs)


def build_parser(command: str | None = None) -> Parser:
    """The parser. Given the command about to run, only its module is imported and the rest
    are listed by name (``""``: none imported, for ``d100 --help``); without one (completion
    scripts, tests) every command in full, but for a command whose extra is not installed,
    listed by name."""
    parser = Parser(
        prog="d100",
        description=f"Percentile skill tests for {', '.join(REGISTRY.names())}, with exact odds.",
        epilog="Start with: d100 roll brp 65 hard  |  d100 demo  |  "
        'echo \'{"system":"brp","skill":65}\' | d100 odds',
    )
    parser.add_argument("--version", action="version", version=f"d100 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    wanted = COMMANDS[command][0] if command in COMMANDS else None
    registered: set[str] = set()
    unmet: set[str] = set()  # modules whose extra is not installed (without a command only)
    for name, (module, help_) in COMMANDS.items():
        if (command is not None and module != wanted) or module in unmet:
            sub.add_parser(name, help=help_, add_help=False)
        elif module not in registered:
            registered.add(module)
            try:
                with extras.needed(name):
                    importlib.import_module(f"{__name__}.{module}").register(_Commands(sub))
            except extras.MissingExtra:
                if command is not None:
                    raise
                unmet.add(module)
                sub.add_parser(name, help=help_, add_help=False)
    return parser


def command_of(argv: Sequence[str]) -> str | None:
    """The command word: the first word that is not an option (d100's own take no values)."""
    return next((word for word in argv if not word.startswith("-")), None)


def parse(parser: Parser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse, and answer words nobody takes with the usage of the command that was given them
    (``d100 odds --skil``: odds' usage and a did-you-mean, not d100's)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        deepest: argparse.ArgumentParser = parser
        while True:
            action = next(
                (a for a in deepest._actions if isinstance(a, argparse._SubParsersAction)), None
            )
            chosen = getattr(args, action.dest, None) if action is not None else None
            if action is None or chosen not in action.choices:
                break
            deepest = action.choices[chosen]
        deepest.error("unrecognized arguments: " + " ".join(extra))
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ERRORS["json"] = "--json" in argv
    command = command_of(argv)
    try:
        with extras.needed(command):  # a command whose extra is missing says which: exit 2
            from .. import plugins

            plugins.load_named(os.environ)
            parser = build_parser(command or "")
            args = parse(parser, argv)
            if not getattr(args, "run", None):
                parser.print_help()
                return EXIT_USAGE
            status: int = args.run(args)
    except D100Error as err:
        try:
            fail(err)
        except SystemExit as done:
            return int(done.code or 0)
    except SystemExit as done:
        return int(done.code or 0) if isinstance(done.code, int | None) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return status
