"""The ``d100`` command: a thin layer that parses, calls the library and renders."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from .. import __version__, plugins
from ..errors import D100Error
from . import advise, chart, demo, jsonl, odds, roll, serve, sheet, shell, simulate, verify
from .parser import EXIT_USAGE, Parser

COMMANDS = [roll, odds, sheet, advise, simulate, chart, shell, jsonl, demo, serve, verify]


def build_parser() -> Parser:
    parser = Parser(
        prog="d100",
        description="Percentile skill tests for openquest, brp and chances, with exact odds.",
        epilog='Start with: d100 demo  |  echo \'{"system":"brp","skill":65}\' | d100 odds',
    )
    parser.add_argument("--version", action="version", version=f"d100 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        plugins.load(os.environ)
    except D100Error as err:
        print(f"d100: error: {err.message}", file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        status: int = args.run(args)
    except D100Error as err:
        if getattr(args, "json", False):  # the error object itself, as the HTTP API sends it
            print(json.dumps({"error": err.to_dict()}))
        print(f"d100: error: {err.message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return status
