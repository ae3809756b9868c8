"""``d100 verify``: recompute every roll of a table's exported log (no server needed).

A roll is checked against the seed the log reveals for it: the seed must hash to the
commitment the roll was made under, the client seed must be the roller's, and resolving the
logged request with ``ProvableSource(seed, client seed, nonce)`` must give the logged result.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..engine import resolve
from ..errors import D100Error
from ..provable import ProvableSource, commitment
from .jsonl import parse_line

HELP = """\
Check a table's log, exported from the table page (or GET /api/tables/ID/log.jsonl): every
roll made with a server seed the log reveals is recomputed and compared. Rolls whose seed is
not revealed yet are listed as not yet verifiable (the GM reveals it with "Reveal and
rotate"); rolls this export does not show (blind, or another's gm or self roll, or a
called contest against a side whose sheet its viewer may not read) are listed as hidden,
and their seeds and nonces are still checked: each nonce once, in order.

exit status: 0 every verifiable roll verifies, 1 a roll or seed does not, 2 unreadable log
(or not a d100 log: empty, or not a table's events from its opening).

A log can come straight from the server: curl -s -H "authorization: Bearer $TOKEN"
$SERVER/api/tables/$ID/log.jsonl piped into d100 verify -.

examples:
  d100 verify d100-table.jsonl
  d100 verify --json d100-table.jsonl
  d100 verify - < d100-table.jsonl
"""
ROLL_KINDS = ("roll", "contest", "unblind")
HIDDEN_KIND = "hidden"  # an event this export's viewer may not see: its number, seed and nonce
TEXT = frozenset({"explanation", "bands"})  # words about a result, not the result
VERIFIED, MISMATCH, UNVERIFIABLE, HIDDEN = "verified", "mismatch", "unverifiable", "hidden"


@dataclass
class Check:
    line: int
    seq: Any
    kind: str
    status: str
    reason: str = ""


@dataclass
class Audit:
    checks: list[Check] = field(default_factory=list)
    seeds: int = 0  # seeds revealed in the log

    def count(self, status: str) -> int:
        return sum(1 for c in self.checks if c.status == status)

    @property
    def ok(self) -> bool:
        return self.count(MISMATCH) == 0

    def to_dict(self) -> dict[str, Any]:
        counts = {s: self.count(s) for s in (VERIFIED, MISMATCH, UNVERIFIABLE, HIDDEN)}
        checks = [asdict(c) for c in self.checks]
        return {"ok": self.ok, "seeds_revealed": self.seeds, **counts, "checks": checks}


def register(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help="recompute every roll of an exported table log",
        description=HELP,
    )
    p.add_argument("log", help="the exported log.jsonl, or - for standard input")
    p.add_argument("--json", action="store_true", help="the report as one JSON object")
    p.set_defaults(run=run)


def run(ns: argparse.Namespace) -> int:
    try:
        if ns.log == "-":
            audit = audit_log(sys.stdin)
        else:
            with Path(ns.log).open(encoding="utf-8") as lines:
                audit = audit_log(lines)
    except OSError as err:
        raise D100Error("log", ns.log, "a readable file", err.strerror) from None
    except UnicodeDecodeError as err:
        raise D100Error(
            "log", ns.log, "a table log in UTF-8 text", f"not UTF-8 text (byte {err.start})"
        ) from None
    if ns.json:
        print(json.dumps(audit.to_dict()))
    else:
        print(summary(audit))
        for check in audit.checks:
            if check.status != VERIFIED:
                print(f"  #{check.seq} {check.kind} (line {check.line}): {check.reason}")
    return 0 if audit.ok else 1


def summary(audit: Audit) -> str:
    return (
        f"{len(audit.checks)} rolls: {audit.count(VERIFIED)} verified, "
        f"{audit.count(MISMATCH)} mismatched, {audit.count(UNVERIFIABLE)} not yet verifiable "
        f"(seed not revealed), {audit.count(HIDDEN)} hidden from this viewer; "
        f"{audit.seeds} seeds revealed"
    )


def audit_log(lines: Iterable[str]) -> Audit:
    """Every roll in the log, checked; D100Error if the input is not a d100 log.

    Beyond recomputing each roll it checks what a dishonest server could otherwise choose:
    each seed's nonces are used once each, in order from 0, and (once the seed is revealed
    with its roll count) none is missing or past the count, so a roll cannot have been moved to
    a nonce the server liked better; and each roll used the client seed its roller had set when
    it was made (the GM's is bound when the table opens, a change is an event)."""
    entries = [(n, _entry(n, line)) for n, line in enumerate(lines, 1) if line.strip()]
    _is_a_log(entries)
    audit = Audit()
    seeds: dict[str, bytes] = {}
    counts: dict[str, int] = {}  # seed id -> the rolls it made, as its reveal says
    for number, entry in entries:  # seeds revealed later in the log count for earlier rolls
        for revealed in _revealed(entry):
            seed = _seed(number, revealed)
            audit.seeds += 1
            if commitment(seed) != revealed.get("commitment"):
                audit.checks.append(
                    Check(
                        number,
                        entry.get("seq"),
                        "seed",
                        MISMATCH,
                        "revealed seed does not hash to its commitment",
                    )
                )
            seeds[str(revealed.get("id"))] = seed
            if isinstance(revealed.get("rolls"), int):
                counts[str(revealed.get("id"))] = revealed["rolls"]
    history: dict[str, list[tuple[int, str]]] = {}  # member id -> (from event, client seed)
    made: dict[tuple[str, int], tuple[int, Any]] = {}  # (seed, nonce) -> first line, roll
    drawn: dict[int, tuple[str, int]] = {}  # event number -> (seed, nonce) it drew
    due: dict[str, int] = {}  # seed id -> the next nonce in order
    for number, entry in entries:
        kind, seq = entry["kind"], entry["seq"]
        for member_id, client_seed in _client_seeds(entry):
            history.setdefault(member_id, []).append((seq, client_seed))
        if kind not in ROLL_KINDS and not isinstance(entry.get("provable"), Mapping):
            continue
        if kind == "unblind":
            status, reason = _check_unblind(number, entry, seeds, history, made, drawn)
        else:
            out_of_order = _order(number, entry, counts, due, drawn)
            if out_of_order is not None:
                status, reason = MISMATCH, out_of_order
            else:
                roller = _in_force(history, entry.get("actor_id"), seq)
                status, reason = _check(number, entry, seeds, roller, made)
        audit.checks.append(Check(number, seq, str(kind), status, reason))
    for seed_id, rolls in counts.items():
        if due.get(seed_id, 0) != rolls:
            audit.checks.append(
                Check(
                    0,
                    None,
                    "seed",
                    MISMATCH,
                    f"seed {seed_id} made {rolls} rolls; the log shows {due.get(seed_id, 0)}",
                )
            )
    return audit


def _is_a_log(entries: list[tuple[int, dict[str, Any]]]) -> None:
    """A d100 log: events numbered in order from the table's opening, each with a kind."""
    if not entries:
        raise D100Error("log", "", "a table's exported log (JSON Lines)", "empty")
    last = 0
    for number, entry in entries:
        seq, kind = entry.get("seq"), entry.get("kind")
        if not (isinstance(seq, int) and not isinstance(seq, bool) and isinstance(kind, str)):
            raise D100Error(
                f"line {number}", entry, "an event with a number (seq) and a kind", "not an event"
            )
        if seq <= last:
            raise D100Error(
                f"line {number}.seq", seq, f"a number above {last}", "events out of order"
            )
        last = seq
    if entries[0][1]["kind"] != "table":
        raise D100Error(
            "line 1", entries[0][1], "the table's opening event first", "not a whole table log"
        )


def _client_seeds(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The client seeds an event sets: the GM's at the table's opening, a player's at their
    join, and each change."""
    kind = entry.get("kind")
    member = entry.get("gm" if kind == "table" else "member") if kind in ("table", "join") else None
    if isinstance(member, Mapping):
        return [(str(member.get("id")), str(member.get("client_seed")))]
    if kind == "client_seed":
        return [(str(entry.get("member_id")), str(entry.get("client_seed")))]
    return []


def _in_force(history: Mapping[str, list[tuple[int, str]]], member_id: Any, seq: int) -> str | None:
    """The client seed ``member_id`` had set before event ``seq``."""
    earlier = [seed for since, seed in history.get(str(member_id), []) if since < seq]
    return earlier[-1] if earlier else None


def _order(
    number: int,
    entry: Mapping[str, Any],
    counts: Mapping[str, int],
    due: dict[str, int],
    drawn: dict[int, tuple[str, int]],
) -> str | None:
    """Each seed's nonces once each, in order from 0, below its roll count: a reason if not."""
    seed_id, nonce = _drawn(number, entry)
    drawn[entry["seq"]] = (seed_id, nonce)
    expected = due.get(seed_id, 0)
    due[seed_id] = max(expected, nonce + 1)
    if nonce != expected:
        return f"seed {seed_id} nonce {nonce} where nonce {expected} was due"
    if seed_id in counts and nonce >= counts[seed_id]:
        return f"seed {seed_id} nonce {nonce} past its {counts[seed_id]} rolls"
    return None


def _drawn(number: int, entry: Mapping[str, Any]) -> tuple[str, int]:
    provable = entry.get("provable")
    seed_id = provable.get("seed_id") if isinstance(provable, Mapping) else None
    nonce = provable.get("nonce") if isinstance(provable, Mapping) else None
    if not (isinstance(seed_id, str) and isinstance(nonce, int) and not isinstance(nonce, bool)):
        raise D100Error(
            f"line {number}.provable",
            provable,
            "the roll's provable-dice record: seed_id (string) and nonce (integer)",
            "missing or incomplete",
        )
    return seed_id, nonce


def _check_unblind(
    number: int,
    entry: Mapping[str, Any],
    seeds: Mapping[str, bytes],
    history: Mapping[str, list[tuple[int, str]]],
    made: dict[tuple[str, int], tuple[int, Any]],
    drawn: Mapping[int, tuple[str, int]],
) -> tuple[str, str]:
    """A blind roll shown: the roll it repeats, checked as of when it was made."""
    rolled = entry.get("unblinds")
    if not isinstance(rolled, int) or drawn.get(rolled) != _drawn(number, entry):
        return MISMATCH, f"shows roll #{rolled}, which the log does not have with this nonce"
    return _check(number, entry, seeds, _in_force(history, entry.get("roller_id"), rolled), made)


def _entry(number: int, line: str) -> dict[str, Any]:
    entry = parse_line(line, f"line {number}")
    if not isinstance(entry, dict):
        raise D100Error(f"line {number}", entry, "one JSON object per line", "not an object")
    return entry


def _revealed(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The seeds a rotation event reveals: the open one, and the blind one when shown."""
    if entry.get("kind") != "seed":
        return []
    blind = entry.get("blind")
    found = [entry.get("revealed"), blind.get("revealed") if isinstance(blind, Mapping) else None]
    return [s for s in found if isinstance(s, Mapping)]


def _seed(number: int, revealed: Mapping[str, Any]) -> bytes:
    try:
        return bytes.fromhex(str(revealed["server_seed"]))
    except (KeyError, ValueError):
        raise D100Error(
            f"line {number}.revealed.server_seed",
            revealed.get("server_seed"),
            "the revealed seed in hex",
            "missing or not hex",
        ) from None


def _check(
    number: int,
    entry: Mapping[str, Any],
    seeds: Mapping[str, bytes],
    roller_seed: str | None,
    made: dict[tuple[str, int], tuple[int, Any]],
) -> tuple[str, str]:
    provable = entry.get("provable")
    if not isinstance(provable, Mapping):
        raise D100Error(
            f"line {number}.provable", provable, "the roll's provable-dice record", "missing"
        )
    if entry.get("kind") == HIDDEN_KIND:
        return HIDDEN, "not shown to this viewer: its seed and nonce are checked in order"
    if "withheld" in entry:  # a contest against a side whose sheet this viewer may not read
        return HIDDEN, (
            f"its {entry['withheld']}'s side is not shown to this viewer (the GM's export has "
            "it): its seed and nonce are checked in order"
        )
    seed_id, client_seed, nonce = (provable.get(k) for k in ("seed_id", "client_seed", "nonce"))
    if not (isinstance(seed_id, str) and isinstance(client_seed, str) and isinstance(nonce, int)):
        raise D100Error(
            f"line {number}.provable",
            dict(provable),
            "seed_id, client_seed (strings) and nonce (integer)",
            "incomplete",
        )
    if "request" not in provable:
        return UNVERIFIABLE, "logged without its resolved request (made before d100 kept it)"
    if "result" not in entry:
        return HIDDEN, "a blind roll: this export does not show its result"
    roll = {"request": provable["request"], "client_seed": client_seed, "result": entry["result"]}
    first = made.setdefault((seed_id, nonce), (number, roll))
    if first[1] != roll:  # an unblind event repeats its roll; anything else reuses a nonce
        return MISMATCH, f"seed {seed_id} nonce {nonce} also gave line {first[0]} another roll"
    if roller_seed is None:
        return MISMATCH, "the log does not say which client seed its roller had set"
    if roller_seed != client_seed:
        return MISMATCH, f"client seed {client_seed!r} is not the roller's ({roller_seed!r})"
    seed = seeds.get(seed_id)
    if seed is None:
        return UNVERIFIABLE, f"seed {seed_id} not revealed yet (the GM reveals it by rotating)"
    if commitment(seed) != provable.get("commitment"):
        return MISMATCH, f"made under commitment {provable.get('commitment')}, not seed {seed_id}'s"
    try:
        again = resolve(provable["request"], ProvableSource(seed, client_seed, nonce)).to_dict()
    except D100Error as err:
        return MISMATCH, f"the logged request does not resolve: {err.message}"
    if _outcome(json.loads(json.dumps(again))) != _outcome(entry["result"]):
        engine = provable.get("engine")
        other = (
            f" (logged by engine {engine}, this is {__version__})" if engine != __version__ else ""
        )
        return MISMATCH, f"recomputed {_dice(again)}, logged {_dice(entry['result'])}{other}"
    return VERIFIED, ""


def _outcome(value: Any) -> Any:
    """The dice and the outcome, without the words explaining them: a later engine may say
    the same result in other words."""
    if isinstance(value, Mapping):
        return {k: _outcome(v) for k, v in value.items() if k not in TEXT}
    if isinstance(value, list):
        return [_outcome(v) for v in value]
    return value


def _dice(result: Any) -> str:
    """What a person compares first: the explanation line (it names every die)."""
    return repr(result.get("explanation")) if isinstance(result, Mapping) else repr(result)
