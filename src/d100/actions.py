"""Requests a system makes beside its check and contest (CoC7's full auto and multiple shots):
what a system declares of each (``Declaration.actions``) so that the doors read words into
one, roll it, count its odds and show it without knowing whose it is."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .dice import RandomSource


@dataclass(frozen=True)
class Row:
    """A line of a report: its label, its text and the level it shows, if any (drawn in the
    level's declared style)."""

    label: str
    text: str
    level: str | None = None


@dataclass(frozen=True)
class Report:
    """A rolled action in words, for any door to draw: a title, its rows, BCDice-style notes
    of what was changed in what was typed, and the exact chances worth showing beside it."""

    system: str
    title: str
    rows: tuple[Row, ...]
    chances: tuple[tuple[str, Fraction], ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Action:
    """One kind of request: ``read`` takes the words after the system's name (``FAR(30,62,98)``,
    ``55 shots3 long``) and answers its typed request and the label written after it, or None
    when they are not this action;
    ``roll`` resolves it with a random source (the request's own dice first); ``odds`` counts
    it exactly; ``report`` puts a result and its odds in words; ``to_dict`` is the result and
    odds as contract JSON."""

    name: str
    form: str  # what a person types, for help: "FAR(bullets,skill,malfunction[,...])"
    summary: str
    read: Callable[[Sequence[str]], tuple[Any, str | None] | None]
    roll: Callable[[Any, RandomSource | None], Any]
    odds: Callable[[Any], Any]
    report: Callable[[Any, Any], Report]
    to_dict: Callable[[Any, Any], dict[str, Any]]
