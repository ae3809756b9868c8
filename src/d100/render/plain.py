"""Plain text: the view's text without colour (pipes, files, NO_COLOR, ``--plain``)."""

from __future__ import annotations

from .view import View


def render(view: View) -> str:
    return "\n".join("".join(text for text, _ in ln).rstrip() for ln in view.lines)
