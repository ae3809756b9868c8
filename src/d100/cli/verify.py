"""``d100 verify``: recompute every roll of a table's exported log (no server needed).

A roll is checked against the seed the log announces and reveals for it: the table's opening
announces the first seeds' commitments and each rotation the next ones, revealing the last
with its roll count; a roll must be made under the commitment announced for its seed, the
revealed seed must hash to it, the client seed must be the roller's, and resolving the
logged request with ``ProvableSource(seed, client seed, nonce)`` must give the logged result.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from .. import __version__, beacon, development, expressions, sanity
from ..actions import named
from ..chain import Followed, extends, first_difference, follow, parse_head
from ..engine import parse, resolve
from ..errors import D100Error
from ..provable import ProvableSource, commitment
from ..systems import REGISTRY
from ..tallies import plan_of
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

Every event links to the one before it (a hash chain; what this viewer may not see enters it
as a salted commitment): the first link that does not follow is named. The report ends with
the log's head (SEQ:HASH); --head checks that the log extends a head seen earlier (a roll's
answer gives one), and a second export (or --against) that one history extends the other.
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
  d100 verify d100-table.jsonl --head 42:6f1c0e...
  d100 verify mine.jsonl theirs.jsonl
"""
ROLL_KINDS = ("roll", "contest", "unblind")
DECLARED_KIND = "declared"  # a dice expression or a Sanity roll at a table
DECLARED_UNBLIND = "unblind_declared"  # a blind one shown to everyone
DECLARED_ROLLS: dict[str, Callable[..., Any]] = {
    "dice": expressions.roll,
    "sanity": sanity.roll,
    "development": development.roll,
}


def declared_roll(kind: object) -> Callable[..., Any] | None:
    """What resolves a declared roll's request again: a dice expression's, a Sanity roll's,
    or the action of that name a system declares (made again from its JSON); None if none."""
    if not isinstance(kind, str):
        return None
    if kind in DECLARED_ROLLS:
        return DECLARED_ROLLS[kind]
    action = named(kind)
    if action is None:
        return None
    return lambda request, source: action.roll(action.build(request), source)


HIDDEN_KIND = "hidden"  # an event this export's viewer may not see: its number, seed and nonce
TEXT = frozenset({"explanation", "bands"})  # words about a result, not the result
VERIFIED, TYPED, MISMATCH = "verified", "typed", "mismatch"
UNVERIFIABLE, HIDDEN = "unverifiable", "hidden"
STATUSES = (VERIFIED, TYPED, MISMATCH, UNVERIFIABLE, HIDDEN)
NOT_A_ROLL = ("seed", "log", "chain")  # checks of a seed or of the log as a whole, not of one roll
_MISSING = object()  # what a path reaches in a value that does not have it
# A table's chains of seeds, by audience (the server's ``access.Chain``): open (every member
# sees its rolls whole), blind (blind rolls), the GM's ("gm": rolls only the GMs see whole),
# and per member their gm and self rolls' ("gm:<member>", "self:<member>").
# A self roll with a part kept from its roller (an NPC's help) draws from a sealed chain,
# revealed to no one.
OPEN, BLIND, GM_CHAIN, SELF_CHAIN, SEALED = "open", "blind", "gm", "self", "sealed"
PRIVATE = (GM_CHAIN, SELF_CHAIN, SEALED)  # announced in "chains", revealed to their audience


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
    unchecked: list[str] = field(default_factory=list)  # what this log cannot show, and why
    # rolls the server's operator could have chosen (by trying seeds before committing): the
    # GM's own and NPCs', and a player's made under the client seed the server gave them,
    # each drawn from a seed no beacon round binds (see ``choosable``)
    choosable: list[Any] = field(default_factory=list)
    chain: Followed = field(default_factory=Followed)  # its links (``d100.chain``)

    def count(self, status: str) -> int:
        return sum(1 for c in self.checks if c.status == status)

    @property
    def rolls(self) -> int:
        return sum(1 for c in self.checks if c.kind not in NOT_A_ROLL)

    @property
    def ok(self) -> bool:
        return self.count(MISMATCH) == 0

    def to_dict(self) -> dict[str, Any]:
        counts = {s: self.count(s) for s in STATUSES}
        checks = [asdict(c) for c in self.checks]
        return {
            "ok": self.ok,
            "rolls": self.rolls,
            "seeds_revealed": self.seeds,
            **counts,
            "unchecked": self.unchecked,
            "checks": checks,
            "operator_could_choose": self.choosable,
            "chain": self.chain_dict(),
        }

    def chain_dict(self) -> dict[str, Any]:
        head = self.chain.head
        return {
            "linked": len(self.chain.links),
            "before": len(self.chain.before),
            "head": None if head is None else {"seq": head[0], "link": head[1]},
        }


@dataclass
class Seed:
    """A server seed as the log tells it: announced (its commitment, before any roll drawn
    from it) by the table's opening or a rotation, revealed (the seed and how many rolls it
    made) by a later rotation."""

    id: str
    # OPEN, BLIND, GM_CHAIN or "gm:<member>", "self:<member>"; None: an older log's first
    # seed, seen in a roll only
    chain: str | None
    commitment: str | None  # the one announced (an older log's first seed: its reveal's)
    announced: int = 0  # the line announcing it; 0: announced nowhere (an older log)
    revealed: int = 0  # the line revealing it; 0: not revealed yet
    # the line announcing its successor, where this export does not reveal it (a private
    # chain's seed revealed to another audience): no roll is drawn from it after
    retired: int = 0
    seed: bytes | None = None
    rolls: int | None = None
    # a seed bound to the beacon (d100.beacon): the round its announcement named, when it
    # was committed (Unix seconds: the later of its creation and its announcement), and the
    # seed its draws use once its round is checked (the server seed mixed with the round's)
    round: int | None = None
    committed: float | None = None
    drawing: bytes | None = None


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
        help="a head witnessed earlier (an answer's, a post's, an export's last): the log "
        "must extend it (repeatable)",
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
    for seq, hashed in heads:
        why = extends(audit.chain, seq, hashed)
        if why:
            audit.checks.append(Check(0, seq, "chain", MISMATCH, f"not the head witnessed: {why}"))
    if ns.json:
        print(json.dumps(audit.to_dict()))
    else:
        print(summary(audit))
        for note in audit.unchecked:
            print(f"  not checked: {note}")
        if audit.choosable:
            print(f"  the operator could have chosen: {choosable(audit.choosable)}")
        for check in audit.checks:
            if check.status != VERIFIED:
                where = f" (line {check.line})" if check.line else ""
                print(f"  #{check.seq} {check.kind}{where}: {check.reason}")
        head = audit.chain.head
        if head is not None:
            print(f"  head: {head[0]}:{head[1]}")
    return 0 if audit.ok else 1


def _read(path: str) -> Audit:
    return read_log(path, audit_log)


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


def summary(audit: Audit) -> str:
    return (
        f"{audit.rolls} rolls: {audit.count(VERIFIED)} verified, "
        f"{audit.count(MISMATCH)} mismatched, {audit.count(TYPED)} typed by hand, "
        f"{audit.count(UNVERIFIABLE)} not yet verifiable (seed not revealed), "
        f"{audit.count(HIDDEN)} hidden from this viewer; {audit.seeds} seeds revealed"
    )


def audit_log(lines: Iterable[str]) -> Audit:
    """Every roll in the log, checked; D100Error if the input is not a d100 log.

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
    entries = [(n, _entry(n, line)) for n, line in enumerate(lines, 1) if line.strip()]
    _is_a_log(entries)
    audit = _Auditor(entries).run()
    try:
        audit.chain = followed = follow(entries)
    except RecursionError:  # a proof nested past what the log's own parts may be
        raise _too_deep(entries[0][0]) from None
    if followed.before:
        first, last = followed.before[0], followed.before[-1]
        events = f"#{first}" if first == last else f"#{first} to #{last}"
        audit.unchecked.append(
            f"events {events} are before the chain (logged before d100 linked each event to "
            "the one before it): their history is checked by their numbers alone"
        )
    if followed.broken is not None:
        broken = followed.broken
        audit.checks.append(Check(broken.line, broken.seq, "chain", MISMATCH, broken.reason))
    return audit


class _Auditor:
    """One pass for the seeds (announced, revealed), one for the rolls, then what only the
    whole log tells (each seed's roll count, every blind roll shown before its seed)."""

    def __init__(self, entries: list[tuple[int, dict[str, Any]]]) -> None:
        self.entries = entries
        self.entries_seq = {n: e.get("seq") for n, e in entries}  # a line -> its event's number
        self.audit = Audit()
        self.seeds: dict[str, Seed] = {}
        self.chains: dict[str, Seed | None] = {OPEN: None, BLIND: None}
        # The line from which each roll is bound to the chain its visibility allows: the
        # first event announcing chains (the opening, for a table opened since).
        self.bound_from: int | None = None
        self.gms: set[str] = set()  # the GM's member id, from the opening
        self.system = entries[0][1].get("system")  # the table's: every roll's request is of it
        # An older table's opening announces no seed: its first seeds are taken as they come.
        self.older = "active" not in entries[0][1]
        self.history: dict[str, list[tuple[int, str]]] = {}  # member id -> (from, client seed)
        self.made: dict[tuple[str, int], tuple[int, Any]] = {}  # (seed, nonce) -> line, roll
        self.drawn: dict[int, tuple[str, int]] = {}  # event number -> (seed, nonce) it drew
        self.due: dict[str, int] = {}  # seed id -> the next nonce in order
        self.blind: dict[str, list[Check]] = {}  # blind seed id -> the rolls drawn from it
        self.shown: dict[int, int] = {}  # a blind roll's number -> the line showing it
        self.results: dict[int, Any] = {}  # a roll's number -> its result, as shown
        self.status: dict[int, str] = {}  # a roll's number -> how it checked
        self.at: Any = None  # the time of the event whose seeds are being read
        self.bound_table = False  # the opening's seeds name beacon rounds: every seed must
        self.own: dict[str, list[int]] = {}  # member id -> events setting their client seed
        self.verified_rounds: dict[tuple[int, str], bool] = {}  # each round checked once

    def run(self) -> Audit:
        self._numbers()
        for number, entry in self.entries:
            try:
                self._seed_event(number, entry)
            except RecursionError:
                raise _too_deep(number) from None
        if self.older:
            self.audit.unchecked.append(
                "the table's opening announces no seed (a table opened before d100 announced "
                "its first seeds there): its first open and blind seeds are checked against "
                "their own reveal, not against a commitment announced before their rolls"
            )
        if self.bound_from != self.entries[0][0]:
            before = "" if self.bound_from is None else f" before line {self.bound_from}"
            self.audit.unchecked.append(
                f"rolls{before} are not checked against the chain of seeds their visibility "
                "allows (made before d100 drew each audience's rolls from seeds of its own, "
                "a gm or self roll or an NPC's part drew from the open seed)"
            )
        for number, entry in self.entries:
            try:
                self._roll_event(number, entry)
            except RecursionError:
                raise _too_deep(number) from None
        self._counts()
        self._blind_rolls_shown()
        return self.audit

    def _fail(self, line: int, seq: Any, kind: str, reason: str) -> None:
        self.audit.checks.append(Check(line, seq, kind, MISMATCH, reason))

    def _numbers(self) -> None:
        """Every event numbered from 1, none missing: an export holds every event, as a
        stub when its viewer may not see it, so a gap is an event left out."""
        last = 0
        for number, entry in self.entries:
            seq = entry["seq"]
            if seq != last + 1:
                missing = f"#{last + 1}" if seq == last + 2 else f"#{last + 1} to #{seq - 1}"
                self._fail(
                    number,
                    last + 1,
                    "log",
                    f"event {missing} missing: the log goes from #{last} to #{seq} (an export "
                    "holds every event, as a stub if its viewer may not see it)",
                )
            last = seq

    # -- seeds ------------------------------------------------------------------------------

    def _seed_event(self, number: int, entry: Mapping[str, Any]) -> None:
        kind, seq = entry.get("kind"), entry.get("seq")
        self.at = entry.get("at")
        if kind == "table" and number == self.entries[0][0]:
            gm = entry.get("gm")
            if isinstance(gm, Mapping) and isinstance(gm.get("id"), str):
                self.gms.add(gm["id"])
            if not self.older:
                self._announce(OPEN, number, seq, entry.get("active"))
                blind = entry.get("blind")
                if isinstance(blind, Mapping) and "active" in blind:
                    self._announce(BLIND, number, seq, blind["active"])
            self._chains(number, seq, entry)
            return
        if kind == "reveal":  # a private chain's seed, in its audience's export
            record = entry.get("revealed")
            self._reveal(_private(number, "revealed", record), number, seq, record)
            return
        if kind == "chain":
            self._chains(number, seq, entry)
            return
        if kind != "seed":
            return
        self._reveal(OPEN, number, seq, entry.get("revealed"))
        self._announce(OPEN, number, seq, entry.get("active"))
        blind = entry.get("blind")
        if isinstance(blind, Mapping):
            self._reveal(BLIND, number, seq, blind.get("revealed"))
            self._announce(BLIND, number, seq, blind.get("active"))
        self._chains(number, seq, entry)

    def _chains(self, number: int, seq: Any, entry: Mapping[str, Any]) -> None:
        """The private chains an event announces (a chain's first seed, or each rotated
        one's next): from the first such event on, rolls are bound to their chains. A seed
        announced while this export has not seen its predecessor revealed (revealed to
        another audience) retires that one."""
        if "chains" not in entry:
            return
        if self.bound_from is None:
            self.bound_from = number
        records = entry["chains"]
        if not isinstance(records, list):
            raise D100Error(
                f"line {number}.chains", _brief(records), "a list of seeds", "not a list"
            )
        for record in records:
            chain = _private(number, "chains", record)
            current = self.chains.get(chain)
            if current is not None:
                current.retired = number
            self._announce(chain, number, seq, record)

    def _announce(self, chain: str, number: int, seq: Any, record: Any) -> None:
        seed_id, promised = _named(number, chain, "active", record)
        if seed_id in self.seeds:
            self._fail(number, seq, "seed", f"seed {seed_id} announced a second time")
            return
        self.seeds[seed_id] = self.chains[chain] = Seed(seed_id, chain, promised, number)
        self._round_named(self.seeds[seed_id], number, seq, record)

    def _reveal(self, chain: str, number: int, seq: Any, record: Any) -> None:
        seed_id, stated = _named(number, chain, "revealed", record)
        assert isinstance(record, Mapping)
        seed = _seed(number, record)
        self.audit.seeds += 1
        if commitment(seed) != stated:
            self._fail(
                number, seq, "seed", f"revealed seed {seed_id} does not hash to its commitment"
            )
        current = self.chains.get(chain)
        self.chains[chain] = None  # until the rotation announces the next
        if current is None and self.older and seed_id not in self.seeds:
            current = self.seeds[seed_id] = Seed(seed_id, chain, stated)
        elif current is None:
            self._fail(number, seq, "seed", f"reveals {chain} seed {seed_id}, never announced")
            current = self.seeds.setdefault(seed_id, Seed(seed_id, chain, None))
        elif (current.id, current.commitment) != (seed_id, stated):
            self._fail(
                number,
                seq,
                "seed",
                f"reveals {chain} seed {seed_id} under commitment {stated}, where line "
                f"{current.announced} announced seed {current.id} under {current.commitment}",
            )
            if current.id != seed_id:
                current = self.seeds.setdefault(seed_id, Seed(seed_id, chain, None))
        current.revealed, current.seed = number, seed
        rolls = record.get("rolls")
        if isinstance(rolls, int) and not isinstance(rolls, bool):
            current.rolls = rolls
        self._round_shown(current, number, seq, record)

    # -- rolls ------------------------------------------------------------------------------

    def _roll_event(self, number: int, entry: Mapping[str, Any]) -> None:
        kind, seq = entry["kind"], entry["seq"]
        for member_id, client_seed in _client_seeds(entry):
            self.history.setdefault(member_id, []).append((seq, client_seed))
        if kind == "client_seed":
            self.own.setdefault(str(entry.get("member_id")), []).append(seq)
        if kind not in ROLL_KINDS and not isinstance(entry.get("provable"), Mapping):
            return
        check = Check(number, seq, str(kind), VERIFIED)
        self.audit.checks.append(check)
        if kind in ("unblind", DECLARED_UNBLIND):
            check.status, check.reason = self._unblind(number, entry)
            return
        seed_id, nonce = _drawn(number, entry)
        self.drawn[seq] = (seed_id, nonce)
        seed = self._seed_of(seed_id)
        if seed is not None and seed.chain == BLIND:
            self.blind.setdefault(seed_id, []).append(check)
        reason = self._order(seed_id, nonce) or self._bound(number, entry, seed_id, seed)
        if reason is not None:
            check.status, check.reason = MISMATCH, reason
            return
        roller = _in_force(self.history, entry.get("actor_id"), seq)
        assert seed is not None  # else _bound gave the reason
        check.status, check.reason = self._check(number, entry, seed, roller)
        # Its chain is checked once its form is (a forged form is named as such first).
        bound = self.bound_from is not None and number > self.bound_from
        formed = check.status != MISMATCH and entry["kind"] != HIDDEN_KIND
        if bound and formed and (reason := self._chain_allows(entry, seed)) is not None:
            check.status, check.reason = MISMATCH, reason
        self.status[seq] = check.status
        if self._choosable(entry, seed):
            self.audit.choosable.append(seq)

    def _followed(self, entry: Mapping[str, Any], request: Any, given: list[str]) -> int | None:
        """The roll a follow-up reads the dice of (Luck spent on the roll already made,
        C7-4), when every die its request gives is that roll's, as this log shows it."""
        seq = entry.get("reroll_of")
        earlier = self.results.get(seq) if isinstance(seq, int) else None
        if earlier is None:
            return None
        for stream in given:
            mine, theirs = _at(request, _path(stream)), _at(earlier, _path(stream))
            if mine is _MISSING or mine != theirs:
                return None
        assert isinstance(seq, int)
        return seq

    def _seed_of(self, seed_id: str) -> Seed | None:
        """The seed a roll drew from; an older log's first seeds (at most one open and one
        blind) are taken as they come, announced nowhere."""
        seed = self.seeds.get(seed_id)
        if seed is None and self.older and sum(not s.announced for s in self.seeds.values()) < 2:
            seed = self.seeds[seed_id] = Seed(seed_id, None, None)
        return seed

    def _order(self, seed_id: str, nonce: int) -> str | None:
        """Each seed's nonces once each, in order from 0: a reason if not."""
        expected = self.due.get(seed_id, 0)
        self.due[seed_id] = max(expected, nonce + 1)
        if nonce != expected:
            return f"seed {seed_id} nonce {nonce} where nonce {expected} was due"
        return None

    def _bound(
        self, number: int, entry: Mapping[str, Any], seed_id: str, seed: Seed | None
    ) -> str | None:
        """Drawn from a seed announced before it and revealed after, below its roll count,
        and shown in a form its seed allows: a reason if not."""
        if seed is None:
            return f"drawn from seed {seed_id}, which the log never announced"
        if seed.announced > number:
            return f"drawn from seed {seed_id} before line {seed.announced} announced it"
        if seed.revealed and seed.revealed < number:
            return f"drawn from seed {seed_id} after line {seed.revealed} revealed it"
        if seed.retired and seed.retired < number:
            return f"drawn from seed {seed_id} after line {seed.retired} announced its next"
        nonce = entry["provable"]["nonce"]
        if seed.rolls is not None and nonce >= seed.rolls:
            return f"seed {seed_id} nonce {nonce} past its {seed.rolls} rolls"
        bound = self.bound_from is not None and number > self.bound_from
        if entry["kind"] == HIDDEN_KIND:
            if bound and seed.chain == OPEN:
                return (
                    f"not shown to this viewer, yet drawn from the open seed {seed_id} (its "
                    "reveal would show the roll's dice to every member)"
                )
            return None
        blind = entry.get("visibility") == "blind"
        if seed.chain == BLIND and not blind:
            return (
                f"drawn from the blind seed {seed_id}, yet shown as a "
                f"{entry.get('visibility')} roll"
            )
        # Blind rolls made before blind seeds (an older table's) drew from the open seed.
        blind_seed = seed.chain != OPEN or self.older
        if "result" not in entry and "withheld" not in entry and not (blind and blind_seed):
            return "shows no result, yet it is not a blind roll drawn from a blind seed"
        if "result" not in entry and "withheld" not in entry and entry.get("hidden") is not True:
            return "shows no result, yet it is not its roller's view of a blind roll (hidden)"
        return None

    def _chain_allows(self, entry: Mapping[str, Any], seed: Seed) -> str | None:
        """Whether the roll's visibility allows the chain it drew from: a chain's seed is
        revealed to its audience, so each roll must be on the chain of those who see all of
        it. A reason if not."""
        visibility, actor = entry.get("visibility"), entry.get("actor_id")
        kept = self._kept_from_some(entry)
        chain, _, member = (seed.chain or OPEN).partition(":")
        if chain == OPEN:
            allowed = visibility == "public" and not kept
            whose = "every member sees whole"
        elif chain == BLIND:
            return None  # blind rolls: bound as they always were (below)
        elif chain == SEALED:
            allowed = visibility == "self" and kept
            whose = "no one sees whole (a self roll with an NPC's part)"
        elif chain == GM_CHAIN and not member:
            gm_roll = visibility == "gm" and self._gm(actor)
            allowed = (visibility in ("public", "gm", "blind") and kept) or gm_roll
            whose = "only the GM sees whole (a GM's gm roll, an NPC's part, a blind one's)"
        else:
            allowed = visibility == chain and actor == member
            whose = f"{chain} rolls of member {member}"
        if allowed:
            return None
        what = f"a {visibility} roll" + (" with a part kept from some members" if kept else "")
        return (
            f"{what} of {actor}, drawn from seed {seed.id} of the {seed.chain} chain, which "
            f"serves rolls {whose}: its reveal would show this roll to whoever it is hidden from"
        )

    def _kept_from_some(self, entry: Mapping[str, Any]) -> bool:
        """Whether a roll has a part some member sees by name and level only, as the server's
        policy has it: an NPC's (a character of the GM's), or a side a GM's call chose."""
        if "withheld" in entry:
            return True
        call = entry.get("call")
        if isinstance(call, Mapping) and "opponent" in call:
            return True
        helpers = entry.get("helpers")
        named = [entry.get("character"), entry.get("opponent")]
        named += helpers if isinstance(helpers, list) else []
        return any(isinstance(c, Mapping) and self._gm(c.get("member_id")) for c in named)

    def _gm(self, member: Any) -> bool:
        """Whether a member id, as a log gives it (any JSON value), is a GM's."""
        return isinstance(member, str) and member in self.gms

    def _unblind(self, number: int, entry: Mapping[str, Any]) -> tuple[str, str]:
        """A blind roll shown: the roll it repeats, drawn from a blind seed, checked as of
        when it was made."""
        rolled = entry.get("unblinds")
        drawn = _drawn(number, entry)
        if not isinstance(rolled, int) or self.drawn.get(rolled) != drawn:
            return MISMATCH, f"shows roll #{rolled}, which the log does not have with this nonce"
        seed = self.seeds.get(drawn[0])
        if seed is None:
            return MISMATCH, f"shows roll #{rolled}, drawn from a seed the log never announced"
        if seed.chain == OPEN and not self.older:
            return MISMATCH, f"shows roll #{rolled} as blind, yet it drew from the open seed"
        if seed.chain not in (None, OPEN, BLIND, GM_CHAIN):
            return MISMATCH, f"shows roll #{rolled} as blind, yet it drew from a member's seed"
        self.shown.setdefault(rolled, number)
        return self._check(
            number, entry, seed, _in_force(self.history, entry.get("roller_id"), rolled)
        )

    def _check(
        self, number: int, entry: Mapping[str, Any], seed: Seed, roller_seed: str | None
    ) -> tuple[str, str]:
        provable = entry["provable"]
        if entry["kind"] == HIDDEN_KIND:
            return HIDDEN, "not shown to this viewer: its seed and nonce are checked in order"
        seed_id, client_seed, nonce = (provable.get(k) for k in ("seed_id", "client_seed", "nonce"))
        if not isinstance(client_seed, str):
            raise D100Error(
                f"line {number}.provable.client_seed",
                client_seed,
                "the roller's client seed (a string)",
                "missing or not a string",
            )
        made_under = provable.get("commitment")
        if seed.commitment is None:  # an older log's first seed, not revealed: its first roll's
            seed.commitment = made_under
        if made_under != seed.commitment:
            where = f"line {seed.announced}" if seed.announced else "its reveal"
            return MISMATCH, (
                f"made under commitment {made_under}, not the one {where} gives seed {seed_id}"
            )
        if (reason := _names_bound(entry, provable)) is not None:
            return MISMATCH, reason
        if entry["kind"] in (DECLARED_KIND, DECLARED_UNBLIND):
            return self._declared(number, entry, seed, roller_seed)
        if "withheld" in entry:
            status, reason = _withheld(entry)
            shown = _side_shown(entry, self.system) if status == HIDDEN else None
            return shown or (status, reason)
        if "request" not in provable:
            if self.older and "engine" not in provable:
                return (
                    UNVERIFIABLE,
                    "logged without its resolved request (made before d100 kept it)",
                )
            return MISMATCH, "its provable record has no request: nothing binds what it shows"
        request = provable["request"]
        try:
            given = sorted(plan_of(parse(request)).given)
        except D100Error as err:
            return MISMATCH, f"the logged request does not resolve: {err.message}"
        manual = entry.get("manual")
        followed = self._followed(entry, request, given) if given and manual is not True else None
        if given and manual is not True and followed is None:
            return MISMATCH, (
                f"its request gives its dice ({', '.join(given)}): typed by hand, yet it is "
                f"shown as drawn (manual: {json.dumps(manual)})"
            )
        if not given and manual is True:
            return MISMATCH, "shown as typed by hand (manual), yet its request gives no dice"
        shown = request
        if followed is None:  # the dice typed by hand are in the provable record only
            for stream in given:
                shown = _without(shown, _path(stream))
        if entry.get("request") != shown:
            return MISMATCH, (
                f"its request differs from the one its provable record resolved "
                f"({_differing(entry.get('request'), shown)})"
            )
        if "result" not in entry:
            return HIDDEN, "a blind roll: this export does not show its result"
        self.results[entry["seq"]] = entry["result"]
        roll = {"request": request, "client_seed": client_seed, "result": entry["result"]}
        first = self.made.setdefault((str(seed_id), nonce), (number, roll))
        if first[1] != roll:  # an unblind event repeats its roll; anything else reuses a nonce
            return MISMATCH, f"seed {seed_id} nonce {nonce} also gave line {first[0]} another roll"
        if roller_seed is None:
            return MISMATCH, "the log does not say which client seed its roller had set"
        if roller_seed != client_seed:
            return MISMATCH, f"client seed {client_seed!r} is not the roller's ({roller_seed!r})"
        if seed.seed is None:
            return UNVERIFIABLE, f"seed {seed_id} not revealed yet (the GM reveals it by rotating)"
        if commitment(seed.seed) != seed.commitment:
            return MISMATCH, (
                f"seed {seed_id} as line {seed.revealed} reveals it does not hash to the "
                f"commitment it was announced under, {seed.commitment}"
            )
        try:
            drawing = seed.drawing if seed.round is not None else seed.seed
            if drawing is None:
                return MISMATCH, f"seed {seed_id}'s beacon round does not check: see its reveal"
            again = resolve(request, ProvableSource(drawing, client_seed, nonce)).to_dict()
        except D100Error as err:
            return MISMATCH, f"the logged request does not resolve: {err.message}"
        if _outcome(json.loads(json.dumps(again))) != _outcome(entry["result"]):
            engine = provable.get("engine")
            other = (
                f" (logged by engine {engine}, this is {__version__})"
                if engine != __version__
                else ""
            )
            return MISMATCH, f"recomputed {_dice(again)}, logged {_dice(entry['result'])}{other}"
        if followed is not None:  # Luck spent on the roll made (C7-4): that roll's dice
            if self.status.get(followed) != TYPED:
                return VERIFIED, ""
            return TYPED, f"the dice of roll #{followed}, which were typed by hand"
        if given:
            return TYPED, (
                f"dice typed by hand ({', '.join(given)}): its outcome is recomputed from them, "
                "but no seed drew them"
            )
        return VERIFIED, ""

    # -- the beacon ---------------------------------------------------------------------------

    def _round_named(self, seed: Seed, number: int, seq: Any, record: Any) -> None:
        """The beacon round a seed's announcement names (``d100.beacon``), and when it was
        committed. At a table whose opening's seeds name rounds, every seed must."""
        assert isinstance(record, Mapping)
        named = record.get("beacon")
        if named is None:
            if self.bound_table:
                self._fail(
                    number,
                    seq,
                    "seed",
                    f"seed {seed.id} is announced without a beacon round, at a table whose "
                    "seeds name one: its dice could have been chosen",
                )
            return
        try:
            if not isinstance(named, Mapping):
                raise D100Error(f"line {number}.beacon", named, "a quicknet round", "not one")
            found = beacon.round_of({**named, "signature": "0" * 96}, f"line {number}.beacon")
        except D100Error as err:
            self._fail(number, seq, "seed", f"seed {seed.id}: {err.message}")
            return
        if number == self.entries[0][0]:
            self.bound_table = True
        seed.round = found.number
        times = [_seconds(record.get("created_at")), _seconds(self.at)]
        seed.committed = max((t for t in times if t is not None), default=None)

    def _round_shown(self, seed: Seed, number: int, seq: Any, record: Mapping[str, Any]) -> None:
        """A revealed seed's round: the one its announcement named, its signature quicknet's
        for that round (about 2 ms a round, each checked once), published after the seed was
        committed; its draws use the seed mixed with the round's randomness."""
        shown = record.get("beacon")
        if seed.round is None:
            if shown is not None:
                self._fail(
                    number,
                    seq,
                    "seed",
                    f"reveals seed {seed.id} with a beacon round its announcement did not name",
                )
            return
        stated = shown.get("round") if isinstance(shown, Mapping) else None
        if stated != seed.round:
            self._fail(
                number,
                seq,
                "seed",
                f"reveals seed {seed.id} with beacon round {stated}, where line "
                f"{seed.announced} named round {seed.round}",
            )
            return
        assert isinstance(shown, Mapping)
        if "signature" not in shown:
            if (seed.rolls or 0) > 0:
                self._fail(
                    number,
                    seq,
                    "seed",
                    f"reveals seed {seed.id} without its beacon round's signature: its rolls "
                    "cannot be recomputed",
                )
            return
        try:
            found = beacon.round_of(dict(shown), f"line {number}.revealed.beacon")
        except D100Error as err:
            self._fail(number, seq, "seed", f"seed {seed.id}: {err.message}")
            return
        key = (found.number, found.signature)
        if key not in self.verified_rounds:
            with needed("verify"):
                self.verified_rounds[key] = beacon.verify(found)
        if not self.verified_rounds[key]:
            self._fail(
                number,
                seq,
                "seed",
                f"seed {seed.id}'s beacon round {found.number}: its signature is not "
                "quicknet's (it does not verify against the chain's public key)",
            )
            return
        if seed.committed is None or found.time <= seed.committed:
            when = "an unknown time" if seed.committed is None else _utc(seed.committed)
            self._fail(
                number,
                seq,
                "seed",
                f"seed {seed.id}'s beacon round {found.number} was published at "
                f"{_utc(found.time)}, not after the seed was committed (line "
                f"{seed.announced}, {when}): its randomness was known",
            )
            return
        assert seed.seed is not None
        seed.drawing = beacon.mixed(seed.seed, found.randomness)

    def _choosable(self, entry: Mapping[str, Any], seed: Seed) -> bool:
        """Whether the server's operator could have chosen this roll: drawn from a seed no
        beacon round binds, by the GM (their own or an NPC's: on a self-hosted server the GM
        runs it, so knows the client seed and may try server seeds before committing one), or
        by a player whose client seed in force was not set by them after the seed was
        announced (the server gave it, or it was known when the seed was committed)."""
        if seed.round is not None or entry.get("kind") == HIDDEN_KIND:
            return False
        actor = str(entry.get("actor_id"))
        if actor in self.gms:
            return True
        seq = entry["seq"]
        announced = self.entries_seq.get(seed.announced) or 0
        own = [at for at in self.own.get(actor, []) if at < seq]
        return not own or own[-1] < announced

    def _declared(
        self, number: int, entry: Mapping[str, Any], seed: Seed, roller_seed: str | None
    ) -> tuple[str, str]:
        """A dice expression or a Sanity roll: its request resolved again with its seed."""
        provable = entry["provable"]
        if "withheld" in entry:
            return HIDDEN, "an NPC's roll: shown by its outcome only, its seed and nonce checked"
        tagged = provable.get("request")
        if not isinstance(tagged, Mapping) or declared_roll(tagged.get("roll")) is None:
            return MISMATCH, "its provable record has no request: nothing binds what it shows"
        if entry.get("request") != tagged.get("request") or entry.get("roll") != tagged["roll"]:
            return MISMATCH, "its request differs from the one its provable record resolved"
        if "result" not in entry:
            return HIDDEN, "this export does not show its result"
        client_seed, nonce = provable["client_seed"], provable["nonce"]
        made = {"request": dict(tagged), "client_seed": client_seed, "result": entry["result"]}
        first = self.made.setdefault((str(provable["seed_id"]), nonce), (number, made))
        if first[1] != made:
            return MISMATCH, f"seed {provable['seed_id']} nonce {nonce} also gave line {first[0]}"
        if roller_seed is None or roller_seed != client_seed:
            return MISMATCH, f"client seed {client_seed!r} is not the roller's ({roller_seed!r})"
        if seed.seed is None:
            return UNVERIFIABLE, f"seed {seed.id} not revealed yet (the GM reveals it by rotating)"
        if commitment(seed.seed) != seed.commitment:
            return MISMATCH, f"seed {seed.id} does not hash to its commitment {seed.commitment}"
        roll = declared_roll(tagged["roll"])
        assert roll is not None  # checked above
        try:
            drawing = seed.drawing if seed.round is not None else seed.seed
            if drawing is None:
                return MISMATCH, f"seed {seed.id}'s beacon round does not check: see its reveal"
            again = roll(tagged["request"], ProvableSource(drawing, client_seed, nonce))
        except D100Error as err:
            return MISMATCH, f"the logged request does not resolve: {err.message}"
        found = json.loads(json.dumps(again.to_dict()))
        if _outcome(found) != _outcome(entry["result"]):
            return MISMATCH, f"recomputed {_dice(found)}, logged {_dice(entry['result'])}"
        if (reason := _declared_shown(entry, found)) is not None:
            return MISMATCH, reason
        return VERIFIED, ""

    # -- what only the whole log tells ------------------------------------------------------

    def _counts(self) -> None:
        for seed in self.seeds.values():
            if seed.rolls is not None and self.due.get(seed.id, 0) != seed.rolls:
                self._fail(
                    seed.revealed,
                    None,
                    "seed",
                    f"seed {seed.id} made {seed.rolls} rolls; the log shows "
                    f"{self.due.get(seed.id, 0)}",
                )

    def _blind_rolls_shown(self) -> None:
        """A blind seed is revealed only once every roll drawn from it has been shown: one
        not shown by then was no blind roll (or its showing was left out)."""
        for seed_id, checks in self.blind.items():
            seed = self.seeds[seed_id]
            if not seed.revealed:
                continue
            for check in checks:
                shown = self.shown.get(check.seq)
                if shown is None or shown > seed.revealed:
                    check.status, check.reason = (
                        MISMATCH,
                        (
                            f"drawn from the blind seed {seed_id}, which line {seed.revealed} "
                            "revealed, yet never shown before (a blind seed is revealed only once "
                            "every roll drawn from it is shown)"
                        ),
                    )


# The parts of a roll the server may withhold, and the key naming whose each is (a roll names
# its helpers, but one logged before it did so names none: its result's level words show).
WITHHOLDABLE: dict[str, str | None] = {
    "actor": "character",
    "opponent": "opponent",
    "helpers": None,
}


def _withheld(entry: Mapping[str, Any]) -> tuple[str, str]:
    """A roll with parts this viewer may not see, each shown by name and level only, without
    the request that resolved it (the server's ``access.decide``): an NPC's side (a GM's
    character) or a side a GM's call chose, an NPC helping. Anything else saying so is not
    that: each part named must be in the roll, and none of its numbers shown."""
    named = entry["withheld"]
    parts = [named] if isinstance(named, str) else named  # an older export names one side
    if not (isinstance(parts, list) and parts and all(p in WITHHOLDABLE for p in parts)):
        return MISMATCH, f"says {_brief(named)} is withheld, which names no part of a roll"
    words = " and ".join(f"{p}'s side" if p != "helpers" else "helpers' values" for p in parts)
    if "request" in entry["provable"]:  # what resolved it tells every part
        return MISMATCH, f"says its {words} withheld, yet shows it (its provable request)"
    contest = entry.get("kind") == "contest" or entry.get("roll_kind") == "contest"
    result = entry.get("result")
    result = result if isinstance(result, Mapping) else {}
    request = entry.get("request")
    request = request if isinstance(request, Mapping) else {}
    for part in parts:
        who = WITHHOLDABLE[part]
        if (who is not None and not entry.get(who)) or (part == "opponent" and not contest):
            return MISMATCH, f"says its {part} is withheld, yet it names no {part}"
        if part == "helpers":
            shown = _helpers_shown(result.get("actor", result) if contest else result)
        else:
            side = result.get(part) if contest else result
            shown = (
                (isinstance(side, Mapping) and "dice" in side)
                or (part in request if contest else bool(request))
                or f"{part}_skill" in entry
            )
        if shown is None:
            return MISMATCH, f"says its {part} is withheld, yet its result has none"
        if shown:
            return MISMATCH, f"says its {part} is withheld, yet shows it"
    return HIDDEN, (
        f"its {words} {'is' if len(parts) == 1 else 'are'} not shown to this viewer (the GM's "
        "export has them): its seed and nonce are checked in order"
    )


def _side_shown(entry: Mapping[str, Any], system: Any) -> tuple[str, str] | None:
    """A contest's side shown whole beside a withheld one, recomputed by its system's own
    resolution from its request and the dice its result shows, where the system declares a
    side stands alone (its dice drew from a chain this viewer is not revealed, so only that
    its outcome follows from them is checked): a mismatch if it does not follow, else None.
    The withheld side is stood in for by a copy of the shown one. ``system``: the table's,
    which every roll's request is of (another would pass for one whose sides read each other)."""
    parts = entry["withheld"]
    parts = [parts] if isinstance(parts, str) else parts
    request, result = entry.get("request"), entry.get("result")
    contest = entry.get("kind") == "contest" or entry.get("roll_kind") == "contest"
    if not contest or "helpers" in parts or len(parts) != 1:
        return None  # a side helped by a withheld helper reads that help; nothing else is whole
    if not (isinstance(request, Mapping) and isinstance(result, Mapping)):
        return MISMATCH, "shows a contest's side without its request and result"
    if isinstance(system, str) and request.get("system") != system:
        return MISMATCH, (
            f"its request is of system {_brief(request.get('system'))}, not the table's ({system})"
        )
    (hidden,) = parts
    side = "actor" if hidden == "opponent" else "opponent"
    mine, shown = request.get(side), result.get(side)
    if not (isinstance(mine, Mapping) and isinstance(shown, Mapping)):
        return MISMATCH, f"shows its {side}'s side without its request and result"
    try:
        declares = REGISTRY.get(request.get("system")).declares
        if not declares.sides_stand_alone:
            return None
        stand_in = {**request, side: _given(mine, shown), hidden: dict(mine)}
        again = json.loads(json.dumps(resolve(stand_in, ProvableSource(b"", "", 0)).to_dict()))
    except D100Error as err:
        return MISMATCH, f"its {side}'s side does not resolve from its dice: {err.message}"
    binds = declares.binds_other_side
    if _side_outcome(again[side], binds) != _side_outcome(shown, binds):
        return MISMATCH, (
            f"its {side}'s side shows {_dice(shown)}, yet its request and dice give "
            f"{_dice(again[side])}"
        )
    return None


def _given(request: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """A side's request with the dice its result shows given, a nested request's (an
    assist's) in its nested result."""
    out = dict(request)
    if not isinstance(result, Mapping):
        return out
    if "dice" in result:
        out["dice"] = result["dice"]
    for key, value in request.items():
        nested = result.get(key)
        if isinstance(value, Mapping):
            out[key] = _given(value, nested)
        elif isinstance(value, list) and isinstance(nested, list) and len(value) == len(nested):
            pairs = zip(value, nested, strict=True)
            out[key] = [_given(v, n) if isinstance(v, Mapping) else v for v, n in pairs]
    return out


def _side_outcome(side: Mapping[str, Any], binds: frozenset[str]) -> Any:
    """A side's outcome as shown beside a withheld side: without what tells the other's
    numbers, and its resolved request without the dice (given here, drawn there)."""
    kept = {k: v for k, v in side.items() if k not in binds}
    if "request" in kept:
        kept["request"] = _undiced(kept["request"])
    return _outcome(kept)


def _undiced(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _undiced(v) for k, v in value.items() if k != "dice"}
    if isinstance(value, list):
        return [_undiced(v) for v in value]
    return value


# What a roll's provable record binds beside its numbers (a roll made before it did binds
# none), and where the roll shows each.
NAMES_BOUND = (
    ("character_id", ("character", "id")),
    ("character_name", ("character", "name")),
    ("member_id", ("character", "member_id")),
    ("skill", ("skill",)),
)


# What a declared roll's card and sheet show of its result: each the result's own number
DECLARED_SHOWN = ("total", "roll", "level", "loss", "sanity", "sanity_after")


def _declared_shown(entry: Mapping[str, Any], found: Mapping[str, Any]) -> str | None:
    """A reason if a dice or Sanity roll's view (its card) or its sheet's SAN shows other
    numbers than its recomputed result."""
    view = entry.get("view")
    if isinstance(view, Mapping):
        for key in DECLARED_SHOWN:
            if key in view and key in found and view[key] != found[key]:
                return f"its card shows {key} {_brief(view[key])}, its dice give {found[key]}"
    sheet = entry.get("sheet")
    shown = sheet.get("sanity") if isinstance(sheet, Mapping) else None
    if shown is not None and shown != [found.get("sanity"), found.get("sanity_after")]:
        return f"its sheet shows SAN {_brief(shown)}, its dice give otherwise"
    raised = sheet.get("skills") if isinstance(sheet, Mapping) else None
    if isinstance(raised, Mapping):  # a development phase: each value before and after
        rolled = [*found.get("skills", []), *([found["luck"]] if found.get("luck") else [])]
        made = {r["name"]: [r["before"], r["after"]] for r in rolled if r["after"] != r["before"]}
        if dict(raised) != made:
            return f"its sheet shows {_brief(dict(raised))}, its dice give {_brief(made)}"
    return None


def _names_bound(entry: Mapping[str, Any], provable: Mapping[str, Any]) -> str | None:
    """Whose roll it is and of which skill, as its provable record binds them: a reason if
    the roll shows another character or skill."""
    for key, path in NAMES_BOUND:
        shown = _at(entry, list(path))
        if key in provable and shown != provable[key]:
            where = ".".join(path)
            what = "none" if shown is _MISSING else _brief(shown)
            return f"shows {where} {what}, where its provable record binds {_brief(provable[key])}"
    return None


def _helpers_shown(check: Any) -> bool | None:
    """Whether a roll said to withhold a helper shows every helper's numbers (None: it had
    no helper): a withheld one is shown by its level only, without dice."""
    system = check.get("system") if isinstance(check, Mapping) else None
    known = isinstance(system, str) and system in REGISTRY
    assistance = REGISTRY.get(system).declares.assistance if known else None
    if assistance is None or assistance.field not in check:
        return None
    given = check[assistance.field]
    helpers = given if isinstance(given, list) else [given]
    return all(isinstance(h, Mapping) and "dice" in h for h in helpers)


def _path(stream: str) -> list[str | int]:
    """A stream's name as the keys that reach its dice: "assisters[0].dice"."""
    keys = stream.replace("[", ".").replace("]", "").split(".")
    return [int(k) if k.isdigit() else k for k in keys]


def _at(value: Any, path: list[str | int]) -> Any:
    for key in path:
        listed = isinstance(key, int) and isinstance(value, list) and key < len(value)
        if not (listed or (isinstance(key, str) and isinstance(value, Mapping) and key in value)):
            return _MISSING
        value = value[key]
    return value


def _without(value: Any, path: list[str | int]) -> Any:
    """``value`` without what ``path`` reaches: a request without the dice typed into it."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(key, str) and isinstance(value, Mapping) and key in value:
        if not rest:
            return {k: v for k, v in value.items() if k != key}
        return {**value, key: _without(value[key], rest)}
    if isinstance(key, int) and isinstance(value, list) and key < len(value) and rest:
        return [*value[:key], _without(value[key], rest), *value[key + 1 :]]
    return value


def _differing(shown: Any, resolved: Any) -> str:
    if not (isinstance(shown, Mapping) and isinstance(resolved, Mapping)):
        return "none shown" if shown is None else "not an object"
    keys = sorted(k for k in {*shown, *resolved} if shown.get(k) != resolved.get(k))
    return ", ".join(map(str, keys))


def _too_deep(number: int) -> D100Error:
    return D100Error(f"line {number}", None, "a table's event", "nests too deeply")


def _brief(value: Any) -> str:
    """A value for an error message: its start, whatever its depth."""
    try:
        text = json.dumps(value)
    except (RecursionError, TypeError, ValueError):
        text = "a value nested too deeply to show"
    return text if len(text) <= 80 else text[:77] + "..."


def _is_a_log(entries: list[tuple[int, dict[str, Any]]]) -> None:
    """A d100 log: events numbered in order from the table's opening, each with a kind."""
    if not entries:
        raise D100Error("log", "", "a table's exported log (JSON Lines)", "empty")
    last = 0
    for number, entry in entries:
        seq, kind = entry.get("seq"), entry.get("kind")
        if not (isinstance(seq, int) and not isinstance(seq, bool) and isinstance(kind, str)):
            raise D100Error(
                f"line {number}",
                _brief(entry),
                "an event with a number (seq) and a kind",
                "not an event",
            )
        if seq <= last:
            raise D100Error(
                f"line {number}.seq", seq, f"a number above {last}", "events out of order"
            )
        last = seq
    if entries[0][1]["kind"] != "table":
        raise D100Error(
            "line 1",
            _brief(entries[0][1]),
            "the table's opening event first",
            "not a whole table log",
        )


def _named(number: int, chain: str, what: str, record: Any) -> tuple[str, str]:
    """A seed's id and commitment as an announcement or a reveal gives them."""
    seed_id = record.get("id") if isinstance(record, Mapping) else None
    promised = record.get("commitment") if isinstance(record, Mapping) else None
    if not (isinstance(seed_id, str) and isinstance(promised, str)):
        where = f"line {number}.{'blind.' if chain == BLIND else ''}{what}"
        raise D100Error(
            where,
            _brief(record),
            "a seed: its id and commitment (strings)",
            "missing or incomplete",
        )
    return seed_id, promised


def _private(number: int, where: str, record: Any) -> str:
    """The private chain a seed's record names: "gm" (the GM's), "gm:<member>" or
    "self:<member>"."""
    chain = record.get("chain") if isinstance(record, Mapping) else None
    member = record.get("member_id", "") if isinstance(record, Mapping) else None
    if chain not in PRIVATE or not isinstance(member, str) or (chain == SELF_CHAIN and not member):
        raise D100Error(
            f"line {number}.{where}",
            _brief(record),
            "a seed of a private chain (gm, self with its member_id, or sealed)",
            "names no such chain",
        )
    return f"{chain}:{member}" if member else str(chain)


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


def choosable(rolls: list[Any]) -> str:
    """The report's line of the rolls the operator could have chosen (``Audit.choosable``)."""
    shown = ", ".join(f"#{seq}" for seq in rolls)
    return (
        f"{shown} (no beacon round binds their seeds, and the server knew their roller's "
        "client seed when it committed: the GM's own and NPCs' rolls, and a player's under "
        "the client seed the server gave; on a self-hosted table the GM runs the server)"
    )


def _seconds(stamp: Any) -> float | None:
    """An ISO time as Unix seconds; None if it is not one."""
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def _in_force(history: Mapping[str, list[tuple[int, str]]], member_id: Any, seq: int) -> str | None:
    """The client seed ``member_id`` had set before event ``seq``."""
    earlier = [seed for since, seed in history.get(str(member_id), []) if since < seq]
    return earlier[-1] if earlier else None


def _drawn(number: int, entry: Mapping[str, Any]) -> tuple[str, int]:
    provable = entry.get("provable")
    seed_id = provable.get("seed_id") if isinstance(provable, Mapping) else None
    nonce = provable.get("nonce") if isinstance(provable, Mapping) else None
    if not (isinstance(seed_id, str) and isinstance(nonce, int) and not isinstance(nonce, bool)):
        raise D100Error(
            f"line {number}.provable",
            _brief(provable),
            "the roll's provable-dice record: seed_id (string) and nonce (integer)",
            "missing or incomplete",
        )
    return seed_id, nonce


def _entry(number: int, line: str) -> dict[str, Any]:
    entry = parse_line(line, f"line {number}")
    if not isinstance(entry, dict):
        raise D100Error(
            f"line {number}", _brief(entry), "one JSON object per line", "not an object"
        )
    return entry


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
