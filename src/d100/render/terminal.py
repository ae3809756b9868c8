"""A colour terminal through rich: the same text as ``plain``, with the style names coloured."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.text import Text

from .view import View

STYLES = {
    "title": "bold",
    "head": "bold underline",
    "label": "cyan",
    "dim": "dim",
    "bold": "bold",
    "warn": "yellow",
    "best": "bold bright_green",
    "good": "bold green",
    "ok": "green",
    "bad": "yellow",
    "worst": "bold red",
}


def render(view: View, out: TextIO) -> None:
    # asked for colour, so colour: force a terminal and ignore NO_COLOR (the caller weighed it)
    console = Console(
        file=out, highlight=False, soft_wrap=True, force_terminal=True, no_color=False
    )
    for ln in view.lines:
        text = Text()
        for part, style in ln:
            text.append(part, style=STYLES.get(style, ""))
        text.rstrip()
        console.print(text)
