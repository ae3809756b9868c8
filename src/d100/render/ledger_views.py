"""The luck ledger's view: each level observed against its exact expected count, the
successes' exact tails in plain words, and the rolls left out and why."""

from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any

from ..ledger import Ledger, Successes
from .view import View, frac, level_seg, level_style, line, pct, seg, table


def ledger_view(book: Ledger) -> View:
    span = f", events {book.seqs[0]}..{book.seqs[-1]}" if book.seqs else ""
    typed = f" ({book.typed} with dice typed by hand)" if book.typed else ""
    rolls = "roll" if book.rolls == 1 else "rolls"
    title = f"Luck ledger of {book.whose}: {book.rolls} {rolls}{typed}{span}"
    out = View((line(seg(title, "title")),))
    several = len({t.system for t in book.levels}) > 1
    rows = [
        [
            level_seg(t.level, t.system, upper=False),
            *([seg(t.system)] if several else []),
            seg(str(t.observed)),
            seg(f"{float(t.expected):.2f}"),
            seg(frac(t.expected)),
        ]
        for t in book.levels
    ]
    won = book.successes
    rows.append(
        [
            seg("any success", "bold"),
            *([seg("")] if several else []),
            seg(str(won.observed), "bold"),
            seg(f"{float(won.expected):.2f}", "bold"),
            seg(frac(won.expected), "bold"),
        ]
    )
    if book.rolls:
        header = ["level", *(["system"] if several else []), "observed", "expected", "exact"]
        out += table(header, rows)
        out += View(
            (
                line(
                    "  P(as many successes or more) ",
                    seg(pct(won.at_least), "bold"),
                    f" = {frac(won.at_least)}",
                ),
                line(
                    "  P(as few successes or fewer) ",
                    seg(pct(won.at_most), "bold"),
                    f" = {frac(won.at_most)}",
                ),
            )
        )
    said, _, rest = won.verdict.partition(": ")
    out += View(tuple(line(f"  {part}") for part in (said, *rest.split("; ")) if part))
    for left in book.left_out:
        out += View((line(seg(f"  left out: {left.rolls} {left.reason}", "dim")),))
    return out


# -- the ledger as a card: what the page and Discord format ---------------------------------

EXACT_DIGITS = 24  # an exact fraction longer than this is left to the ledger's own numbers


@dataclass(frozen=True)
class LedgerRow:
    """One level of the card (or its successes): observed beside expected, in the level's
    declared style (``level_style``: best..worst), ``exact`` empty where the fraction runs
    too long to read."""

    label: str
    system: str
    style: str
    success: bool
    observed: int
    expected: str  # to two decimals
    exact: str

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class LedgerCard:
    """The luck ledger as every door but the terminal shows it: its title and counts, a row
    per level, the successes' row, the tail probability in words ("a run this lucky or
    luckier: 1 in 12 (8.33%)"), the verdict's sentences and the rolls left out. Built once
    here from the ledger; the page and Discord only format it."""

    title: str
    whose: str
    rolls: int
    summary: str
    several: bool  # rolls of more than one system: each row names its system
    rows: tuple[LedgerRow, ...]
    successes: LedgerRow
    tail: str
    verdict: tuple[str, ...]
    left_out: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "whose": self.whose,
            "rolls": self.rolls,
            "summary": self.summary,
            "several": self.several,
            "rows": [r.to_dict() for r in self.rows],
            "successes": self.successes.to_dict(),
            "tail": self.tail,
            "verdict": list(self.verdict),
            "left_out": list(self.left_out),
        }


def _exact(p: Fraction) -> str:
    text = f"{p.numerator}/{p.denominator}"
    return text if len(text) <= EXACT_DIGITS else ""


def once_in(p: Fraction) -> str:
    """How often fair dice do something of chance ``p``: "1 in 12 (8.33%)"."""
    if p > Fraction(1, 2):
        return f"more often than not ({pct(p)})"
    return f"1 in {round(1 / p):,} ({pct(p)})"


def tail_words(won: Successes) -> str:
    """The tail probability of the successes, in words: how often fair dice give a run this
    lucky (or unlucky) or more so."""
    if won.rolls == 0:
        return "no rolls to judge yet"
    if won.observed == won.expected:
        return "exactly as many successes as the odds expected"
    if won.observed > won.expected:
        return f"a run this lucky or luckier: {once_in(won.at_least)}"
    return f"a run this unlucky or unluckier: {once_in(won.at_most)}"


def ledger_card(book: Ledger, whose: str | None = None) -> LedgerCard:
    """The card of ``book``; ``whose`` names it where the ledger was asked for by an id (a
    character's name, as its viewer knows it)."""
    whose = whose or book.whose
    rolls = "roll" if book.rolls == 1 else "rolls"
    typed = f" ({book.typed} with dice typed by hand)" if book.typed else ""
    span = f", events {book.seqs[0]} to {book.seqs[-1]}" if book.seqs else ""
    rows = tuple(
        LedgerRow(
            t.level,
            t.system,
            level_style(t.level, t.system),
            t.success,
            t.observed,
            f"{float(t.expected):.2f}",
            _exact(t.expected),
        )
        for t in book.levels
    )
    won = book.successes
    said, _, rest = won.verdict.partition(": ")
    return LedgerCard(
        f"Luck ledger of {whose}",
        whose,
        book.rolls,
        f"{book.rolls} {rolls} counted{typed}{span}",
        len({t.system for t in book.levels}) > 1,
        rows,
        LedgerRow(
            "any success",
            "",
            "bold",
            True,
            won.observed,
            f"{float(won.expected):.2f}",
            _exact(won.expected),
        ),
        tail_words(won),
        tuple(part for part in (said, *rest.split("; ")) if part),
        tuple(f"{left.rolls} left out: {left.reason}" for left in book.left_out),
    )
