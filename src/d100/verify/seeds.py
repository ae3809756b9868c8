"""A log's seeds as it announces and reveals them: each seed's commitment before its rolls,
its reveal matching it, its beacon round (``d100.beacon``) named before and shown after, its
roll count; the chains of seeds a table draws each audience's rolls from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import beacon
from ..errors import D100Error
from ..provable import commitment
from .report import MISMATCH, Audit, Check
from .values import brief, seconds, utc

# A table's chains of seeds, by audience (the server's ``access.Chain``): open (every member
# sees its rolls whole), blind (blind rolls), the GM's ("gm": rolls only the GMs see whole),
# and per member their gm and self rolls' ("gm:<member>", "self:<member>").
# A self roll with a part kept from its roller (an NPC's help) draws from a sealed chain,
# revealed to no one.
OPEN, BLIND, GM_CHAIN, SELF_CHAIN, SEALED = "open", "blind", "gm", "self", "sealed"
PRIVATE = (GM_CHAIN, SELF_CHAIN, SEALED)  # announced in "chains", revealed to their audience


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


class SeedPass:
    """The first pass over a log: every seed announced and revealed, each beacon round named
    and shown; with the state the rolls' pass reads (``rolls.Auditor``)."""

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
            self._reveal(private_chain(number, "revealed", record), number, seq, record)
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
                f"line {number}.chains", brief(records), "a list of seeds", "not a list"
            )
        for record in records:
            chain = private_chain(number, "chains", record)
            current = self.chains.get(chain)
            if current is not None:
                current.retired = number
            self._announce(chain, number, seq, record)

    def _announce(self, chain: str, number: int, seq: Any, record: Any) -> None:
        seed_id, promised = named_seed(number, chain, "active", record)
        if seed_id in self.seeds:
            self._fail(number, seq, "seed", f"seed {seed_id} announced a second time")
            return
        self.seeds[seed_id] = self.chains[chain] = Seed(seed_id, chain, promised, number)
        self._round_named(self.seeds[seed_id], number, seq, record)

    def _reveal(self, chain: str, number: int, seq: Any, record: Any) -> None:
        seed_id, stated = named_seed(number, chain, "revealed", record)
        assert isinstance(record, Mapping)
        seed = seed_bytes(number, record)
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
        times = [seconds(record.get("created_at")), seconds(self.at)]
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
            when = "an unknown time" if seed.committed is None else utc(seed.committed)
            self._fail(
                number,
                seq,
                "seed",
                f"seed {seed.id}'s beacon round {found.number} was published at "
                f"{utc(found.time)}, not after the seed was committed (line "
                f"{seed.announced}, {when}): its randomness was known",
            )
            return
        assert seed.seed is not None
        seed.drawing = beacon.mixed(seed.seed, found.randomness)

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


def named_seed(number: int, chain: str, what: str, record: Any) -> tuple[str, str]:
    """A seed's id and commitment as an announcement or a reveal gives them."""
    seed_id = record.get("id") if isinstance(record, Mapping) else None
    promised = record.get("commitment") if isinstance(record, Mapping) else None
    if not (isinstance(seed_id, str) and isinstance(promised, str)):
        where = f"line {number}.{'blind.' if chain == BLIND else ''}{what}"
        raise D100Error(
            where,
            brief(record),
            "a seed: its id and commitment (strings)",
            "missing or incomplete",
        )
    return seed_id, promised


def private_chain(number: int, where: str, record: Any) -> str:
    """The private chain a seed's record names: "gm" (the GM's), "gm:<member>" or
    "self:<member>"."""
    chain = record.get("chain") if isinstance(record, Mapping) else None
    member = record.get("member_id", "") if isinstance(record, Mapping) else None
    if chain not in PRIVATE or not isinstance(member, str) or (chain == SELF_CHAIN and not member):
        raise D100Error(
            f"line {number}.{where}",
            brief(record),
            "a seed of a private chain (gm, self with its member_id, or sealed)",
            "names no such chain",
        )
    return f"{chain}:{member}" if member else str(chain)


def seed_bytes(number: int, revealed: Mapping[str, Any]) -> bytes:
    try:
        return bytes.fromhex(str(revealed["server_seed"]))
    except (KeyError, ValueError):
        raise D100Error(
            f"line {number}.revealed.server_seed",
            revealed.get("server_seed"),
            "the revealed seed in hex",
            "missing or not hex",
        ) from None
