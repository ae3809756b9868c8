"""Where a command's answer goes: the contract JSON, plain text, or colour on a terminal."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..render import json_out, plain, terminal
from ..render.view import View


def colour(ns: argparse.Namespace) -> bool:
    """Colour only on a terminal, and never with --plain or NO_COLOR (no-color.org)."""
    if getattr(ns, "plain", False) or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def show(ns: argparse.Namespace, view: View, data: Any) -> None:
    if getattr(ns, "json", False):
        print(json_out.render(data))
    elif colour(ns):
        terminal.render(view, sys.stdout)
    else:
        print(plain.render(view))
