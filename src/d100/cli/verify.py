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

from ..engine import resolve
from ..errors import D100Error
from ..provable import ProvableSource, commitment

HELP = """\
Check a table's log, exported from the table page (or GET /api/tables/ID/log.jsonl): every
roll made with a server seed the log reveals is recomputed and compared. Rolls whose seed is
not revealed yet are listed as not yet verifiable (the GM reveals it with "Reveal and
rotate"); blind rolls this export does not show are listed as hidden.

exit status: 0 every verifiable roll verifies, 1 a roll or seed does not, 2 unreadable log.

examples:
  d100 verify d100-table.jsonl
  d100 verify --json d100-table.jsonl
  curl -s -H "authorization: Bearer $TOKEN" $SERVER/api/tables/$ID/log.jsonl | d100 verify -
"""
ROLL_KINDS = ("roll", "contest", "unblind")
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
    if ns.log == "-":
        audit = audit_log(sys.stdin)
    else:
        try:
            with Path(ns.log).open(encoding="utf-8") as lines:
                audit = audit_log(lines)
        except OSError as err:
            raise D100Error("log", ns.log, "a readable file", err.strerror) from None
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
        f"(seed not revealed), {audit.count(HIDDEN)} hidden (blind); "
        f"{audit.seeds} seeds revealed"
    )


def audit_log(lines: Iterable[str]) -> Audit:
    """Every roll in the log, checked; D100Error if a line is not a d100 log entry."""
    entries = [(n, _entry(n, line)) for n, line in enumerate(lines, 1) if line.strip()]
    audit = Audit()
    seeds: dict[str, bytes] = {}
    client_seeds: dict[str, str] = {}  # member id -> client seed, as the log goes
    made: dict[tuple[str, int], tuple[int, Any]] = {}  # (seed, nonce) -> first line, roll
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
    for number, entry in entries:
        kind = entry.get("kind")
        if kind == "join" and isinstance(entry.get("member"), Mapping):
            client_seeds[str(entry["member"].get("id"))] = str(entry["member"].get("client_seed"))
        elif kind == "client_seed":
            client_seeds[str(entry.get("member_id"))] = str(entry.get("client_seed"))
        elif kind in ROLL_KINDS:
            roller = entry.get("roller_id" if kind == "unblind" else "actor_id")
            status, reason = _check(number, entry, seeds, client_seeds.get(str(roller)), made)
            audit.checks.append(Check(number, entry.get("seq"), str(kind), status, reason))
    return audit


def _entry(number: int, line: str) -> dict[str, Any]:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as err:
        raise D100Error(
            f"line {number}", line.strip()[:80], "one JSON object per line", f"not JSON: {err.msg}"
        ) from None
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
    if roller_seed is not None and roller_seed != client_seed:
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
    if json.loads(json.dumps(again)) != entry["result"]:
        return MISMATCH, f"recomputed {_dice(again)}, logged {_dice(entry['result'])}"
    return VERIFIED, ""


def _dice(result: Any) -> str:
    """What a person compares first: the explanation line (it names every die)."""
    return repr(result.get("explanation")) if isinstance(result, Mapping) else repr(result)
