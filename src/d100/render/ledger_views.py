"""The luck ledger's view: each level observed against its exact expected count, the
successes' exact tails in plain words, and the rolls left out and why."""

from __future__ import annotations

from ..ledger import Ledger
from .view import View, frac, level_seg, line, pct, seg, table


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
