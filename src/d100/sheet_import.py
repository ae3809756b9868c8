"""Characters from other tools' exports (``d100 sheet import``): each system names the
formats its sheets read (``Investigator.formats``); the first that recognises the parsed
JSON reads it, and the sheet's own reader checks every value it gives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import D100Error
from .investigators import SheetFormat
from .sheets import Character, from_table
from .systems import REGISTRY


@dataclass(frozen=True)
class Import:
    """A character read from an export, the format it was read as, and what it left out."""

    character: Character
    source: str
    notes: tuple[str, ...]


def formats() -> tuple[tuple[str, SheetFormat], ...]:
    """Every format a sheet imports from, with the system reading it."""
    return tuple(
        (s.name, f)
        for s in REGISTRY
        if (rules := s.declares.investigator) is not None
        for f in rules.formats
    )


def read(data: Any, where: str, name: str | None = None) -> Import:
    """The character an export holds (``name``: its name on the sheet instead of the
    export's); refused naming ``where`` and every format read if it is none of them."""
    for system, f in formats():
        if f.recognises(data):
            got = f.read(data)
            table = {"system": system, **got.table}
            return Import(from_table(name or got.name, table), f.name, got.notes)
    looks = (
        "keys " + ", ".join(list(map(str, data))[:8])
        if isinstance(data, dict)
        else f"a JSON {type(data).__name__}"
    )
    allowed = " or ".join(f.shape for _, f in formats())
    raise D100Error(where, looks, allowed, "none of the exports d100 reads")
