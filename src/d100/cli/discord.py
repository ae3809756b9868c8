"""``d100 discord``: setting d100 up on Discord (``d100.discord.register``)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    from ..discord.register import add  # the server extra's dependencies: only when asked

    add(sub)
