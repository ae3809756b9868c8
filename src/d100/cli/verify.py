"""``d100 verify``: recompute every roll of a table's exported log (no server needed).

The checks are the library's (``d100.verify``); this reads the log, given as a file or on
standard input, and renders the report.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import Any

from .. import verify
from ..chain import SHORTEST, Head, extends, found_head, parse_head
from ..errors import D100Error
from ..verify import HIDDEN, MISMATCH, TYPED, UNVERIFIABLE, VERIFIED, Audit, Check, witnessed
from ..verify.values import brief
from .extras import needed
from .jsonl import parse_line
from .logfile import read_log

HELP = """\
Check a table's log, exported from the table page (or GET /api/tables/ID/log.jsonl): every
roll made with a server seed the log reveals is recomputed and compared. The table's opening
announces its first seeds' commitments and each rotation ("Reveal and rotate") the next ones,
revealing the last with its roll count: each roll must be made under the commitment announced
for its seed, each reveal must match its announcement, each seed's nonces must be used once
each, in order, and every event must be there (numbered from 1 with no gap). Each roll must
draw from the chain of seeds its visibility allows (the open chain serves only rolls every
member sees whole; a gm or self roll, an NPC's part, has a chain revealed only to whoever sees
it whole, in a reveal event the others get as a stub). A roll whose
dice were typed by hand is listed as typed: its outcome is recomputed from those dice, which
no seed drew. Rolls whose seed is not revealed yet are listed as not yet verifiable; rolls
this export does not show (blind, or another's gm or self roll, or a called contest against
a side whose sheet its viewer may not read) are listed as hidden, and their seeds and nonces
are still checked. A contest's side shown whole beside a withheld one is recomputed from its
own request and dice where its system declares each side stands alone (its dice drew from a
seed this viewer is never revealed, so they are not checked against it). Each roll must show
the character and skill its provable record binds (rolls made before d100 bound them bind
neither).

The table is replayed in order: each character's sheet as created and edited (in the export
of its player and the GMs), its Luck as rolls spend it, its improvement marks, and each
called test. A roll's request must follow from that state (the skill on the sheet then, the
call's skill, mode and fields, a helper's skill; what a dice, Sanity or development roll or an
action's words ask of the sheet, a phase rolling exactly the marked skills); each roll says
what it proves (dice, target, level, outcome) and what it takes on trust, and each sheet this
export does not hold is named.

Every event links to the one before it (a hash chain; what this viewer may not see enters it
as a salted commitment): the first link that does not follow is named. The report ends with
the log's head (SEQ:HASH); --head checks that the log extends a head seen earlier (a roll's
answer gives one). A head given by its first hex digits (a Discord post's footer, log #42 ·
6f1c0e9a: --head 42:6f1c0e9a, at least 8 digits) must match exactly one event's link; it is
a check by eye, not a proof (the server's operator could try rewritten histories until one
link starts alike), and the report says so. A second export (or --against) checks that
one history extends the other.
Events logged before d100 linked its log are reported as before the chain.

exit status: 0 every verifiable roll verifies, 1 a roll, seed, event or link does not, 2
unreadable log (or not a d100 log: empty, binary, nested too deeply, or not a table's events
from its opening).

A log can come straight from the server: curl -s -H "authorization: Bearer $TOKEN"
$SERVER/api/tables/$ID/log.jsonl piped into d100 verify -.

examples:
  d100 verify d100-table.jsonl
  d100 verify --json d100-table.jsonl
  d100 verify - < d100-table.jsonl
  d100 verify d100-table.jsonl --head 42:6f1c0e...   (all 64 hex digits)
  d100 verify d100-table.jsonl --head 42:6f1c0e9a    (a Discord footer's: by eye)
  d100 verify mine.jsonl theirs.jsonl
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help="recompute every roll of an exported table log",
        description=HELP,
    )
    p.add_argument("log", help="the exported log.jsonl, or - for standard input")
    p.add_argument(
        "other",
        nargs="?",
        help="another export of the same table (another member's, or earlier): one history "
        "must extend the other",
    )
    p.add_argument("--against", metavar="OTHER", help="the same as giving OTHER second")
    p.add_argument(
        "--head",
        metavar="SEQ:HASH",
        action="append",
        default=[],
        help="a head witnessed earlier (an answer's, the page's Copy, an export's last): the "
        "log must extend it (repeatable); a Discord post's SEQ:PREFIX (at least 8 hex digits, "
        "or PREFIX alone) must match exactly one event's link, a check by eye, not a proof",
    )
    p.add_argument("--json", action="store_true", help="the report as one JSON object")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    if ns.other is not None and ns.against is not None:
        raise D100Error("--against", ns.against, "one other export", f"{ns.other} is given already")
    heads = [parse_head(h) for h in ns.head]
    audit = _read(ns.log)
    other = ns.other if ns.other is not None else ns.against
    if other is not None:
        witnessed(audit, _read(other).chain, other)
    for head in heads:
        _witnessed_head(audit, head)
    if ns.json:
        print(json.dumps(audit.to_dict()))
    else:
        print(summary(audit))
        for note in audit.unchecked:
            print(f"  not checked: {note}")
        if audit.choosable:
            print(f"  the operator could have chosen: {choosable(audit.choosable)}")
        for check in audit.checks:
            where = f" (line {check.line})" if check.line else ""
            said = [check.reason] if check.status != VERIFIED else []
            if check.trusted:  # what the roll proves, and what rests on trust
                said.append(f"proven {', '.join(check.proven) or 'nothing'}")
                said.append(f"on trust: {'; '.join(check.trusted)}")
            if said:
                print(f"  #{check.seq} {check.kind}{where}: {'; '.join(said)}")
        last = audit.chain.head
        if last is not None:
            print(f"  head: {last[0]}:{last[1]}")
    return 0 if audit.ok else 1


def _witnessed_head(audit: Audit, head: Head) -> None:
    """The log must extend a head a member saw; one given by its first hex digits is matched
    by them alone, which the report says is a check by eye, not a proof."""
    found = found_head(audit.chain, head)
    if found is None:
        audit.checks.append(
            Check(
                0,
                head.text,
                "chain",
                MISMATCH,
                f"not the head witnessed: no event of this history has a link starting "
                f"{head.hashed} (the head is not in it, or was mistyped)",
            )
        )
        return
    seq, hashed = found
    why = extends(audit.chain, seq, hashed)
    if why:
        audit.checks.append(Check(0, seq, "chain", MISMATCH, f"not the head witnessed: {why}"))
    if not head.whole:
        audit.unchecked.append(
            f"the head {head.text} is {len(head.hashed)} hex digits of #{seq}'s link, matched "
            "by eye, not a proof: whoever runs the server can rewrite the history and try "
            f"events' secrets until a link starts alike (about 16^{len(head.hashed)} tries; "
            f"{SHORTEST} digits are about four billion); the whole head (the page's Copy) "
            "proves it"
        )


def _read(path: str) -> Audit:
    return read_log(path, audit_log)


def summary(audit: Audit) -> str:
    return (
        f"{audit.rolls} rolls: {audit.count(VERIFIED)} verified, "
        f"{audit.count(MISMATCH)} mismatched, {audit.count(TYPED)} typed by hand, "
        f"{audit.count(UNVERIFIABLE)} not yet verifiable (seed not revealed), "
        f"{audit.count(HIDDEN)} hidden from this viewer; {audit.whole} proven whole (dice, "
        f"target, level, outcome); {audit.seeds} seeds revealed"
    )


def audit_log(lines: Iterable[str]) -> Audit:
    """The report on a log's lines (``d100.verify.audit``); D100Error if it is not a d100 log."""
    entries = [(n, _entry(n, line)) for n, line in enumerate(lines, 1) if line.strip()]
    with needed("verify"):  # a beacon round's signature is checked with an extra's package
        return verify.audit(entries)


def _entry(number: int, line: str) -> dict[str, Any]:
    entry = parse_line(line, f"line {number}")
    if not isinstance(entry, dict):
        raise D100Error(f"line {number}", brief(entry), "one JSON object per line", "not an object")
    return entry


def choosable(rolls: list[Any]) -> str:
    """The report's line of the rolls the operator could have chosen (``Audit.choosable``)."""
    shown = ", ".join(f"#{seq}" for seq in rolls)
    return (
        f"{shown} (no beacon round binds their seeds, and the server knew their roller's "
        "client seed when it committed: the GM's own and NPCs' rolls, and a player's under "
        "the client seed the server gave; on a self-hosted table the GM runs the server)"
    )
