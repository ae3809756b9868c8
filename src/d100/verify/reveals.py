"""Sheets the GM revealed (``reveal_sheet`` events): each the sheet an earlier event of the
character committed to, opened by the proof the export gives of that event's character and
sheet (``chain.proof``), which must give that event's own digest in this export, whether the
export shows it withheld or as a stub; and every sheet the export shows withheld before the
reveal must be among them. A sheet so opened is replayed as if its event had shown it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..chain import REVEAL_SHEET, Unproven, recompute, root_of
from .values import brief

SHEET, CHARACTER = "sheet", "character"  # what a reveal opens of each event


@dataclass(frozen=True)
class Opened:
    character: Mapping[str, Any]  # as the event named it
    sheet: Mapping[str, Any]


def opened(
    entries: list[tuple[int, dict[str, Any]]],
) -> tuple[dict[int, Opened], list[tuple[int, Any, str]]]:
    """The sheets the log's reveals open, by the event that kept each; and each reveal that
    does not hold, as (line, event, reason)."""
    by_seq = {entry.get("seq"): entry for _, entry in entries}
    found: dict[int, Opened] = {}
    failures = []
    for number, entry in entries:
        if entry.get("kind") == REVEAL_SHEET:
            reason = _reveal(entry, by_seq, found)
            if reason is not None:
                failures.append((number, entry.get("seq"), reason))
    return found, failures


def _reveal(
    entry: Mapping[str, Any], by_seq: Mapping[Any, Mapping[str, Any]], found: dict[int, Opened]
) -> str | None:
    ref, shown, chained = entry.get(CHARACTER), entry.get("sheets"), entry.get("chain")
    proofs = chained.get("opens") if isinstance(chained, Mapping) else None
    cid = ref.get("id") if isinstance(ref, Mapping) else None
    if not (isinstance(cid, str) and isinstance(shown, list) and isinstance(proofs, Mapping)):
        return "reveals no character's sheets, or opens none of their commitments"
    now: dict[int, Opened] = {}
    for item in shown:
        seq = item.get("seq") if isinstance(item, Mapping) else None
        named = item.get(CHARACTER) if isinstance(item, Mapping) else None
        sheet = item.get(SHEET) if isinstance(item, Mapping) else None
        kept = by_seq.get(seq)
        if not (
            isinstance(seq, int)
            and kept is not None
            and seq < entry["seq"]
            and isinstance(named, Mapping)
            and named.get("id") == cid
            and isinstance(sheet, Mapping)
        ):
            return f"reveals a sheet of #{brief(seq)}, which is no earlier event of {cid}"
        if not _commits(kept, named, sheet, proofs.get(str(seq))):
            return f"reveals #{seq}'s sheet otherwise than #{seq} committed to it"
        now[seq] = Opened(named, sheet)
    for seq, kept in by_seq.items():
        named = kept.get(CHARACTER)
        of = (
            isinstance(named, Mapping)
            and named.get("id") == cid
            and kept.get("kind") == "character"
        )
        if of and "withheld" in kept and seq < entry["seq"] and seq not in now:
            return f"reveals {cid}'s sheets but not the one #{seq} kept"
    found.update(now)
    return None


def _commits(kept: Mapping[str, Any], named: Any, sheet: Any, given: Any) -> bool:
    """Whether the event ``kept`` (as this export shows it, a stub or withheld) committed to
    this character and sheet: the proof of them gives its digest."""
    chained = kept.get("chain")
    try:
        root = root_of(kept, chained.get("proof") if isinstance(chained, Mapping) else None)
        return recompute({CHARACTER: dict(named), SHEET: dict(sheet)}, given) == root
    except (Unproven, TypeError, ValueError, RecursionError):
        return False
