"""Where a command's answer goes: the contract JSON, plain text, or colour on a terminal."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..render.view import View


def colour(ns: argparse.Namespace) -> bool:
    """``--color`` first (``--plain`` is ``never``), then NO_COLOR (no-color.org), then
    FORCE_COLOR (force-color.org; ``0``/``false`` mean off), else colour only on a terminal."""
    choice = "never" if getattr(ns, "plain", False) else getattr(ns, "color", None) or "auto"
    if choice != "auto":
        return bool(choice == "always")
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR", "").strip().lower()
    if force:  # 0 and false are the usual ways to say off (Node, chalk, many tools read it so)
        return force not in ("0", "false", "no", "off")
    return sys.stdout.isatty()


def show(ns: argparse.Namespace, view: View, data: Any) -> None:
    if getattr(ns, "json", False):
        from ..render import json_out

        print(json_out.render(data))
    elif colour(ns):
        from ..render import terminal  # rich, only when colour is wanted

        terminal.render(view, sys.stdout)
    else:
        from ..render import plain

        print(plain.render(view))
