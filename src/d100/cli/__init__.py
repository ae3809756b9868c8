"""The ``d100`` command: a thin layer that parses, calls the library and renders."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import D100Error
from . import demo, jsonl

EXIT_USAGE = 2

COMMANDS = [jsonl, demo]


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one clean line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"d100: error: {message}\n(see: {self.prog} --help)\n")


def build_parser() -> Parser:
    parser = Parser(
        prog="d100",
        description="Percentile skill tests for openquest, brp and chances, with exact odds.",
        epilog="Start with: d100 demo  |  echo '{\"system\":\"brp\",\"skill\":65}' | d100 odds",
    )
    parser.add_argument("--version", action="version", version=f"d100 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        status: int = args.run(args)
    except D100Error as err:
        print(f"d100: error: {err.message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return status
