"""The d100 itself (G1) and the sources dice come from (G2, G3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .errors import D100Error


class RandomSource(Protocol):
    """Anything with ``randint(low, high)``, inclusive: ``random.Random(seed)`` is one (G2)."""

    def randint(self, a: int, b: int, /) -> int: ...


@dataclass(frozen=True, slots=True)
class D100:
    """A d100 read from a tens die and a units die, "00" being 100 (G1)."""

    value: int

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 100:
            raise D100Error("dice", self.value, "d100 values 1..100")

    @classmethod
    def from_digits(cls, tens: int, units: int) -> D100:
        return cls(read_digits(tens, units))

    @property
    def tens(self) -> int:
        return (self.value // 10) % 10

    @property
    def units(self) -> int:
        return self.value % 10

    @property
    def doubles(self) -> bool:
        return self.tens == self.units

    def __str__(self) -> str:
        return show_roll(self.value)


def read_digits(tens: int, units: int) -> int:
    """Tens 0..9 and units 0..9 as one d100 value; 0 and 0 read as 100 (G1)."""
    return 10 * tens + units or 100


def is_doubles(value: int) -> bool:
    return (value // 10) % 10 == value % 10


def show_roll(value: int) -> str:
    """Two digits, as the dice show them (07), with 100 written out."""
    return f"{value:02d}"


def show_span(lo: int, hi: int) -> str:
    """A run of d100 values as bands read (``01``, ``02-13``), or "none" when it is empty."""
    if lo > hi:
        return "none"
    return show_roll(lo) if lo == hi else f"{show_roll(lo)}-{show_roll(hi)}"
