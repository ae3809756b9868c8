"""What a renderer draws: lines of styled segments, the same for every output format.

Views say *what* to show and how columns line up; the renderers (``plain``, ``terminal``)
only decide whether the style names become colour. JSON output skips views altogether."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

NUMBER = re.compile(r"^[+-]?\d[\d.,/]*%?$")  # cells right-aligned in tables
Segment = tuple[str, str]  # (text, style name; "" for none)
Line = tuple[Segment, ...]


@dataclass(frozen=True)
class View:
    lines: tuple[Line, ...]

    def __add__(self, other: View) -> View:
        return View(self.lines + other.lines)


def seg(text: str, style: str = "") -> Segment:
    return (text, style)


def line(*parts: Segment | str) -> Line:
    return tuple(p if isinstance(p, tuple) else (p, "") for p in parts)


def level_seg(level: str, system: str | None, upper: bool = True) -> Segment:
    """A level in its system's declared style (best..worst, which renderers colour); anything
    else a view shows in a level's place (a contest's winner) is bold."""
    return (level.upper() if upper else level, level_style(level, system))


def level_style(level: str, system: str | None) -> str:
    from ..systems import REGISTRY  # here: views of plain text need no system

    if system is None or system not in REGISTRY:
        return "bold"
    try:
        return REGISTRY.get(system).declares.level(level).style
    except KeyError:
        return "bold"


def pct(p: Fraction | float) -> str:
    """A probability as a percentage with two decimals, the way a person reads odds, worked
    out exactly (a fraction with hundreds of digits still has one); odds that would round to
    0 or 100 without being so say "< 0.01%" or "> 99.99%"."""
    exact = Fraction(p) * 100
    sign, size = ("-" if exact < 0 else ""), abs(exact)
    if 0 < size < Fraction(1, 100):
        return f"< {sign}0.01%"
    if Fraction(9999, 100) < size < 100:
        return f"> {sign}99.99%"
    hundredths = round(size * 100)
    return f"{sign}{hundredths // 100}.{hundredths % 100:02d}%"


FRACTION_DIGITS = 24  # past this a fraction is no use to read: its size is said instead


def frac(p: Fraction) -> str:
    """The exact fraction, or, where it runs to more digits than a person reads, how many it
    has (``--json`` and the library give it whole)."""
    text = f"{p.numerator}/{p.denominator}"
    if len(text) <= FRACTION_DIGITS:
        return text
    return f"exact over a {len(str(p.denominator))}-digit denominator (--json gives it)"


def joined(items: Iterable[Sequence[Segment]], sep: str = " · ") -> list[Segment]:
    out: list[Segment] = []
    for i, item in enumerate(items):
        if i:
            out.append((sep, "dim"))
        out.extend(item)
    return out


def table(header: Sequence[str], rows: Sequence[Sequence[Segment]], indent: str = "  ") -> View:
    """Columns padded to their widest cell: numbers right-aligned, words left-aligned."""
    widths = [len(h) for h in header]
    for row in rows:
        for i, (text, _) in enumerate(row):
            widths[i] = max(widths[i], len(text))

    def cells(row: Sequence[Segment]) -> Line:
        out: list[Segment] = [(indent, "")]
        for i, (text, style) in enumerate(row):
            numeric = NUMBER.match(text) is not None
            padded = text.rjust(widths[i]) if numeric else text.ljust(widths[i])
            out += [(padded, style), ("  " if i < len(row) - 1 else "", "")]
        return tuple(out)

    head = cells([(h, "head") for h in header])
    return View((head, *(cells(r) for r in rows)))
