"""A system's action (full auto, several shots) as lines: its report's title, rows with each
level in its declared style, BCDice-style notes, and the exact chances beside the roll."""

from __future__ import annotations

from fractions import Fraction

from ..actions import Report
from .dice_views import SECRET
from .view import FRACTION_DIGITS, Line, Segment, View, joined, level_style, line, pct, seg


def report_view(report: Report, label: str | None = None, secret: bool = False) -> View:
    head = label or report.title
    shown = f" — {report.title}" if label else ""
    lines: list[Line] = [line(seg(head, "title"), seg(shown, "dim"))]
    lines += [_row("note", seg(note, "warn")) for note in report.notes]
    for row in report.rows:
        style = level_style(row.level, report.system) if row.level else ""
        lines.append(_row(row.label, seg(row.text, style)))
    if report.chances:
        said = [
            [seg(f"{what} {pct(p)}", "bold"), seg(exact(p), "dim")] for what, p in report.chances
        ]
        lines.append(_row("odds", *joined(said)))
    if secret:
        lines.append(_row("secret", seg(SECRET, "warn")))
    return View(tuple(lines))


def _row(label: str, *parts: Segment) -> Line:
    return (seg(f"  {label:<9} ", "label"), *parts)


def exact(p: Fraction) -> str:
    """The exact fraction where a person can read it, else nothing (the JSON gives it)."""
    text = f"{p.numerator}/{p.denominator}"
    return f" ({text})" if len(text) <= FRACTION_DIGITS else ""
