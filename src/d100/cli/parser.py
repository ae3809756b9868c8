"""The argparse parser every ``d100`` command uses: errors are one clean line, exit status 2."""

from __future__ import annotations

import argparse
from typing import Any

EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one clean line and exit status 2, and descriptions keep their
    line breaks (every command's help ends with a block of examples)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"d100: error: {message}\n(see: {self.prog} --help)\n")
