"""``d100 verify``'s checks of a table's exported log, with no server: its seeds
(``seeds``), its rolls against them (``rolls``), what a viewer is shown of a roll kept from
them in part (``sides``), the table replayed (``replay``: sheets, calls, Luck), and its hash
chain (``d100.chain``). The command line only reads the file and renders the report."""

from __future__ import annotations

from typing import Any

from ..chain import Followed, extends, first_difference, follow
from .report import HIDDEN, MISMATCH, STATUSES, TYPED, UNVERIFIABLE, VERIFIED, Audit, Check
from .rolls import Auditor
from .values import is_a_log, too_deep

__all__ = [
    "HIDDEN",
    "MISMATCH",
    "STATUSES",
    "TYPED",
    "UNVERIFIABLE",
    "VERIFIED",
    "Audit",
    "Check",
    "audit",
    "witnessed",
]


def audit(entries: list[tuple[int, dict[str, Any]]]) -> Audit:
    """Every roll of a log's events (each with its line number), checked; D100Error if
    they are not a d100 log.

    Beyond recomputing each roll it checks what a dishonest server could otherwise choose:
    each seed is the one announced before its rolls (a seed swapped for another after its
    commitment was published is caught, by its reveal and by each roll made under it); each
    seed's nonces are used once each, in order from 0, and (once the seed is revealed with
    its roll count) none is missing or past the count, so a roll cannot have been moved to a
    nonce the server liked better; no event is missing (a roll left out with its seed's count
    lowered leaves a gap in the numbers); each roll used the client seed its roller had set
    when it was made (the GM's is bound when the table opens, a change is an event); what the
    roll shows (its request, whether its dice were typed, its result) is what its provable
    record resolved, shown for the character and skill the record binds; and a roll said to
    be hidden from this viewer has the form only a hidden roll has (a blind roll drawn from a
    blind seed, an NPC's part withheld), the side of a contest it shows whole following from
    that side's own dice."""
    is_a_log(entries)
    report = Auditor(entries).run()
    try:
        report.chain = followed = follow(entries)
    except RecursionError:  # a proof nested past what the log's own parts may be
        raise too_deep(entries[0][0]) from None
    if followed.before:
        first, last = followed.before[0], followed.before[-1]
        events = f"#{first}" if first == last else f"#{first} to #{last}"
        report.unchecked.append(
            f"events {events} are before the chain (logged before d100 linked each event to "
            "the one before it): their history is checked by their numbers alone"
        )
    if followed.broken is not None:
        broken = followed.broken
        report.checks.append(Check(broken.line, broken.seq, "chain", MISMATCH, broken.reason))
    return report


def witnessed(audit: Audit, other: Followed, name: str) -> None:
    """Whether one of two exports' histories extends the other: the shorter one's head is a
    link of the longer, so every event up to it is the same (seen by each as it may)."""
    mine = audit.chain
    if other.broken is not None:
        audit.checks.append(
            Check(0, other.broken.seq, "chain", MISMATCH, f"{name}: {other.broken.reason}")
        )
        return
    differs = first_difference(mine, other)
    if differs is not None:
        audit.checks.append(
            Check(
                0,
                differs,
                "chain",
                MISMATCH,
                f"{name} has another #{differs}: the two histories part there",
            )
        )
        return
    shorter, longer = (
        (other, mine) if (other.head or (0, ""))[0] <= (mine.head or (0, ""))[0] else (mine, other)
    )
    if shorter.head is None:
        audit.unchecked.append(f"{name}: no linked event to compare")
        return
    why = extends(longer, *shorter.head)
    if why:
        audit.checks.append(Check(0, shorter.head[0], "chain", MISMATCH, f"{name}: {why}"))
