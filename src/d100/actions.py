"""Requests a system makes beside its check and contest (CoC7's full auto and multiple shots):
what a system declares of each (``Declaration.actions``) so that the doors read words into
one, roll it, count its odds and show it without knowing whose it is."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .dice import RandomSource
from .errors import read_words


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


@dataclass(frozen=True)
class Found:
    """Words read as an action: the action, its typed request and the label after it."""

    action: Action
    request: Any
    label: str | None


def find(words: Sequence[str], system: str | None) -> Found | None:
    """The action ``words`` ask for (``[SYSTEM] FAR(30,62,98)``, ``[SYSTEM] 55 shots3``), else
    None: a form led by a skill is the named system's, else ``system``'s (the one chosen where
    the words name none); any other form a named system's, else any system's in the
    registry's order."""
    from .systems import REGISTRY  # here: the systems' declarations import this module

    said = list(words)
    named = said.pop(0).lower() if said and said[0].lower() in REGISTRY else None
    if not said:
        return None
    if named is None and said[0].isdigit():
        named = system
        if named is None or named not in REGISTRY:
            return None  # no system chosen: the check's own reading says so
    systems = [REGISTRY.get(named)] if named is not None else list(REGISTRY)
    for spec in systems:
        for action in spec.declares.actions:
            found = read_words(action.read, said)
            if found is not None:
                return Found(action, found[0], found[1])
    return None
