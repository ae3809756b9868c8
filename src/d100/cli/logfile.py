"""A table's exported log read from a file or standard input, for the commands that read one
(``verify``, ``ledger``): what cannot be read is one error naming the file."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from ..errors import D100Error

T = TypeVar("T")


def read_log(path: str, parse: Callable[[Iterable[str]], T]) -> T:
    """``parse`` over the lines of ``path`` (``-``: standard input), read as it goes."""
    try:
        if path == "-":
            return parse(sys.stdin)
        with Path(path).open(encoding="utf-8") as lines:
            return parse(lines)
    except OSError as err:
        raise D100Error("log", path, "a readable file", err.strerror) from None
    except UnicodeDecodeError as err:
        raise D100Error(
            "log", path, "a table log in UTF-8 text", f"not UTF-8 text (byte {err.start})"
        ) from None
