"""Views of dice expressions: a roll with its mean and the chance of its total or more, and
an expression's whole distribution, every total as an exact fraction."""

from __future__ import annotations

from fractions import Fraction

from ..errors import TooMuchWork
from ..expressions import DiceOdds, DiceRequest, DiceResult
from .view import Line, Segment, View, frac, joined, line, pct, seg, table

SECRET = "asked secretly (S): the command line has no audience, so nothing is hidden"


def asked(request: DiceRequest) -> str:
    """The expression as typed, with what its DB stands for."""
    bonus = request.damage_bonus
    return request.expression if bonus is None else f"{request.expression}, DB {bonus}"


def number(p: Fraction) -> str:
    """A mean: whole, or two decimals and the exact fraction."""
    if p.denominator == 1:
        return str(p.numerator)
    return f"{float(p):.2f} ({frac(p)})"


def roll_view(
    request: DiceRequest,
    result: DiceResult,
    chance: DiceOdds | TooMuchWork,
    secret: bool = False,
) -> View:
    """The dice of each term, the total, the mean and the chance of this total or more (or
    why they are not worked out), and the roll in words."""
    head = request.label or asked(request)
    shown = f" — {asked(request)}" if request.label else ""
    lines: list[Line] = [line(seg(head, "title"), seg(shown, "dim"))]
    rolled = [
        (seg(f"{'DB ' if t.bonus else ''}{t.term.lstrip('+-')} "), seg(" ".join(map(str, t.dice))))
        for t in result.terms
        if t.dice
    ]
    if rolled:
        lines.append(_row("dice", *joined(rolled)))
    lines.append(_row("total", seg(str(result.total), "bold")))
    if isinstance(chance, DiceOdds):
        p = chance.at_least(result.total)
        lines.append(
            _row(
                "odds",
                seg(f"{result.total} or more {pct(p)} ({frac(p)})", "bold"),
                seg(f" · mean {number(chance.mean)}"),
            )
        )
    else:
        lines.append(_row("odds", seg(f"not worked out: {chance.reason}", "dim")))
    lines.append(_row("why", seg(result.explanation, "dim")))
    if secret:
        lines.append(_row("secret", seg(SECRET, "warn")))
    return View(tuple(lines))


def odds_view(request: DiceRequest, chance: DiceOdds) -> View:
    """Every total with its exact chance, and the chance of it or more."""
    head = f"{request.label or asked(request)}: every total, exactly"
    rows = []
    above = Fraction(1)
    for total, p in chance.totals.items():
        rows.append([seg(str(total), "bold"), seg(pct(p)), seg(frac(p)), seg(pct(above))])
        above -= p
    title = line(seg(head, "title"), seg(f" — mean {number(chance.mean)}", "dim"))
    return View((title,)) + table(["total", "chance", "exact", "or more"], rows)


def _row(label: str, *parts: Segment) -> Line:
    return (seg(f"  {label:<8} ", "label"), *parts)
