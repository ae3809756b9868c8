"""``d100 ledger``: a table log's rolls against their exact odds, for a character, a member
or the table (no server needed)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from ..errors import D100Error
from ..ledger import MAX_ROLLS, Window, ledger
from .jsonl import parse_line
from .logfile import read_log
from .output import show

HELP = f"""\
The luck ledger of a table's exported log (from the table page, or GET
/api/tables/ID/log.jsonl): how often each level came up against how often the odds recorded
beside each roll expected it, and how likely a run of successes this good (or this bad) is
with fair dice, exactly. It counts only the rolls the export shows with their odds and
result: a roll hidden from its viewer, a blind roll not yet shown and a contest (whose odds
are of its winner) are left out, and counted as such. At most {MAX_ROLLS:,} rolls a ledger:
narrow a longer one with --last, --from/--to or --since/--until.

exit status: 0 the ledger, 2 an unreadable log, an unknown character or member, or too many
rolls.

examples:
  d100 ledger d100-table.jsonl
  d100 ledger --character Alice d100-table.jsonl
  d100 ledger --member Pat --last 50 --json d100-table.jsonl
"""


def register(sub: Any) -> None:
    p = sub.add_parser("ledger", description=HELP)
    p.add_argument("log", help="the exported log.jsonl, or - for standard input")
    whose = p.add_mutually_exclusive_group()
    whose.add_argument("--character", metavar="NAME", help="one character's rolls (name or id)")
    whose.add_argument("--member", metavar="NAME", help="a member's characters (name or id)")
    p.add_argument("--last", type=int, metavar="N", help="only the last N rolls counted")
    p.add_argument("--from", dest="first", type=int, metavar="SEQ", help="from event SEQ on")
    p.add_argument("--to", dest="final", type=int, metavar="SEQ", help="up to event SEQ")
    p.add_argument("--since", metavar="TIME", help="rolled at or after TIME (ISO 8601)")
    p.add_argument("--until", metavar="TIME", help="rolled at or before TIME (ISO 8601)")
    p.add_argument("--json", action="store_true", help="the ledger as one JSON object")
    p.add_argument("--plain", action="store_true", help="no colour")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    from ..render.ledger_views import ledger_view

    window = Window(ns.first, ns.final, ns.since, ns.until, ns.last)
    events = read_log(ns.log, lambda lines: list(_events(lines)))
    book = ledger(events, ns.character, ns.member, window)
    show(ns, ledger_view(book), book.to_dict())
    return 0


def _events(lines: Iterable[str]) -> Iterable[dict[str, Any]]:
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        event = parse_line(text, f"line {number}")
        if not isinstance(event, dict):
            raise D100Error(f"line {number}", None, "one JSON object per line", "not an object")
        yield event
