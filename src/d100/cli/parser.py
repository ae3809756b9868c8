"""The argparse parser every ``d100`` command uses: errors are one clean line, exit status 2,
with the command's usage and a did-you-mean; with ``--json``, a JSON object on stdout."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, NoReturn

from ..errors import D100Error, echoed

EXIT_USAGE = 2
ERRORS = {"json": False}  # set by main() when the command line asks for --json


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions keep their line breaks; the width is found without importing shutil (and
    its compression modules), which argparse would do for every flag added."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        if kwargs.get("width") is None:
            kwargs["width"] = _columns() - 2  # argparse's own margin
        super().__init__(prog, **kwargs)


def _columns() -> int:
    """$COLUMNS, else the terminal's width, else 80: shutil.get_terminal_size's order."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 80
    except (OSError, ValueError, AttributeError):
        return 80


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one clean line and exit status 2, descriptions keep their line
    breaks (every command's help ends with a block of examples), and flags are never
    abbreviated (``--skill`` must not quietly mean ``--skills``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        message += self.suggestion(message)
        if ERRORS["json"]:
            usage = self.format_usage().strip()
            fail(D100Error("arguments", message, usage, message))
        self.exit(
            EXIT_USAGE,
            f"d100: error: {message}\n{self.format_usage()}"
            f"(see: {self.prog.split(' --')[0]} --help)\n",
        )

    def suggestion(self, message: str) -> str:
        """``; did you mean --skill?`` for a mistyped flag or command, when one is close."""
        import difflib  # only on an error

        unknown = re.search(r"unrecognized arguments: (.*)", message)
        if unknown:
            options = list(self._option_string_actions)
            for word in unknown[1].split():
                if word.startswith("-"):
                    close = difflib.get_close_matches(word.split("=")[0], options, n=1)
                    if close:
                        return f"; did you mean {close[0]}?"
            return ""
        choice = re.search(r"invalid choice: '(.*?)' \(choose from (.*)\)", message)
        if choice:
            choices = [c.strip(" '") for c in choice[2].split(",")]
            close = difflib.get_close_matches(choice[1], choices, n=1)
            return f"; did you mean {close[0]}?" if close else ""
        return ""


def fail(err: D100Error) -> NoReturn:
    """Report a usage or input error and exit 2: one line on stderr, and with ``--json`` the
    error object on stdout too (the shape the HTTP API and JSON Lines send)."""
    if ERRORS["json"]:
        print(json.dumps({"error": {**err.to_dict(), "message": describe(err)}}))
    print(f"d100: error: {describe(err)}", file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


def describe(err: D100Error) -> str:
    """The error's message, with the value it was given whenever the reason leaves it out."""
    if err.value is None or err.reason is None:
        return err.message
    small = echoed(err.value)  # a long value's prefix, never the whole of it
    bare = small if isinstance(small, str) else json.dumps(small)
    if bare in err.reason:
        return err.message
    shown = repr(small) if isinstance(err.value, str) else bare
    text = f"{err.field}: {err.reason}: {shown}"
    return f"{text}; allowed: {err.allowed}" if err.allowed else text
