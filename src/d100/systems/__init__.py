"""The registered rule systems: every module of this package that exposes ``SYSTEM`` (a
module of helpers, such as ``common``, exposes none), found when the package is imported, so
that a new edition is one new module and no line here."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Protocol

from ..system import Registry

REGISTRY = Registry()
# The seeds keep their place at the head of every list of systems; the rest follow by name.
FIRST = ("openquest", "brp", "chances")


def discover() -> tuple[str, ...]:
    """Register every module's ``SYSTEM`` not yet registered; answer the names added. A module
    that registered its system itself is left as it is."""
    names = sorted(
        (m.name for m in pkgutil.iter_modules(__path__) if not m.ispkg),
        key=lambda n: (FIRST.index(n) if n in FIRST else len(FIRST), n),
    )
    added = []
    for name in names:
        system = getattr(importlib.import_module(f"{__name__}.{name}"), "SYSTEM", None)
        if system is not None and system.name not in REGISTRY:
            REGISTRY.register(system)
            added.append(system.name)
    return tuple(added)


discover()

# A result's level, for type checkers: a string, one of its system's declared levels
# (``declares.levels``, checked when a system registers). Not a union of every system's names,
# so that a new system needs no edit here.
Level = str


class CheckRequest(Protocol):
    """A parsed check, for type checkers: what ``d100.parse`` answers and ``d100.resolve``
    takes. Each system has its own frozen class (``BrpCheck``...); any of them fits. Its
    ``dice`` (the contract's given dice, on every check) is what a contest has not."""

    @property
    def system(self) -> str: ...

    @property
    def dice(self) -> Any: ...

    def to_dict(self) -> dict[str, Any]: ...


class ContestRequest(Protocol):
    """A parsed contest: a check request's shape with its two sides."""

    @property
    def system(self) -> str: ...

    @property
    def actor(self) -> Any: ...

    @property
    def opponent(self) -> Any: ...

    def to_dict(self) -> dict[str, Any]: ...


__all__ = ["FIRST", "REGISTRY", "CheckRequest", "ContestRequest", "Level", "discover"]
