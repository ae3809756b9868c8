"""The luck ledger: a table log's rolls, as its viewer sees them, against their exact odds.

For a character, a member or the whole table, over a window of the log, each level's observed
count beside its exact expected count (the sum of the odds recorded beside each roll), and
the number of successes against its exact distribution: each roll succeeds with its own
recorded chance, independently, so the count is Poisson-binomial. Its tails, P(X >= observed)
and P(X <= observed), are exact fractions.

The ledger reads events as a viewer's export gives them (``log.jsonl``, the page's events):
it counts only rolls whose odds and result the events show, and says how many it left out and
why (a roll hidden from this viewer, a blind roll not yet shown, a contest, whose recorded
odds are of its winner rather than of each side's level). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from .errors import D100Error
from .systems import REGISTRY

# The exact distribution costs O(n^2) terms over integers as long as the product of the n
# odds' denominators: 1,000 rolls of odds over 10,000 take about half a second, 2,000 about five.
# Past this many rolls a ledger is refused, and asked to be windowed.
MAX_ROLLS = 1_000

# a stub tells neither whose event it is nor whether it is a roll
HIDDEN = "hidden from this viewer (rolls or other events; whose, is not shown)"
BLIND = "blind: its result is not shown to this viewer"
CONTEST = "a contest: its recorded odds are of the winner, not of each side's level"
NO_ODDS = "no odds recorded (no dice rolled)"
ODDS_WITHHELD = "its odds are not shown to this viewer (an NPC's roll, shown by its level)"
UNKNOWN_SYSTEM = "a system this version of d100 does not know"
# in the order a ledger lists them
REASONS = (HIDDEN, BLIND, CONTEST, NO_ODDS, ODDS_WITHHELD, UNKNOWN_SYSTEM)


def _text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


@dataclass(frozen=True)
class Window:
    """Which part of the log: events numbered ``first``..``final`` (either open), made
    ``since``..``until`` (ISO 8601 times, either open), and of the rolls counted there, the
    ``last`` so many."""

    first: int | None = None
    final: int | None = None
    since: str | None = None
    until: str | None = None
    last: int | None = None

    def __post_init__(self) -> None:
        for name in ("first", "final"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value < 1):
                raise D100Error(name, value, "an event number, 1 or more")
        if self.last is not None and not 1 <= self.last <= MAX_ROLLS:
            raise D100Error("last", self.last, f"1..{MAX_ROLLS} rolls")
        for name in ("since", "until"):
            _moment(name, getattr(self, name))

    def holds(self, seq: int, at: str | None) -> bool:
        if (self.first is not None and seq < self.first) or (
            self.final is not None and seq > self.final
        ):
            return False
        if self.since is None and self.until is None:
            return True
        when = _moment("at", at) if at is not None else None
        if when is None:
            return False
        since, until = _moment("since", self.since), _moment("until", self.until)
        return (since is None or when >= since) and (until is None or when <= until)

    def to_dict(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "final": self.final,
            "since": self.since,
            "until": self.until,
            "last": self.last,
        }


def _moment(name: str, text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise D100Error(name, text, "a time in ISO 8601: 2026-05-01 or 2026-05-01T20:00") from None
    return when if when.tzinfo is not None else when.astimezone()


@dataclass(frozen=True)
class LevelTally:
    """One level of a system: how often it came up, and how often the odds expected it."""

    system: str
    level: str
    success: bool
    observed: int
    expected: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "level": self.level,
            "success": self.success,
            "observed": self.observed,
            "expected": _text(self.expected),
        }


@dataclass(frozen=True)
class Successes:
    """The successes of ``rolls`` rolls against their exact Poisson-binomial distribution:
    ``at_least`` is P(X >= observed), ``at_most`` P(X <= observed), with fair dice."""

    rolls: int
    observed: int
    expected: Fraction
    at_least: Fraction
    at_most: Fraction

    @property
    def verdict(self) -> str:
        return verdict(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rolls": self.rolls,
            "observed": self.observed,
            "expected": _text(self.expected),
            "at_least": _text(self.at_least),
            "at_most": _text(self.at_most),
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class LeftOut:
    reason: str
    rolls: int
    seqs: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "rolls": self.rolls, "seqs": list(self.seqs)}


@dataclass(frozen=True)
class Ledger:
    """Whose rolls (``character``, ``member``: None for the table), over which window; the
    events numbered ``seqs`` counted, ``typed`` of them with dice typed by hand."""

    character: str | None
    member: str | None
    window: Window
    seqs: tuple[int, ...]
    typed: int
    levels: tuple[LevelTally, ...]
    successes: Successes
    left_out: tuple[LeftOut, ...] = field(default=())

    @property
    def rolls(self) -> int:
        return len(self.seqs)

    @property
    def whose(self) -> str:
        if self.character is not None:
            return self.character
        if self.member is not None:
            return f"{self.member}'s characters"
        return "the table"

    def to_dict(self) -> dict[str, Any]:
        return {
            "character": self.character,
            "member": self.member,
            "window": self.window.to_dict(),
            "rolls": self.rolls,
            "seqs": list(self.seqs),
            "typed": self.typed,
            "levels": [t.to_dict() for t in self.levels],
            "successes": self.successes.to_dict(),
            "left_out": [x.to_dict() for x in self.left_out],
        }


# -- the distribution ----------------------------------------------------------------------


def _weights(chances: Sequence[Fraction]) -> tuple[list[int], int]:
    """The Poisson-binomial distribution as integer weights over one denominator: weight k
    over the denominator is P(exactly k successes)."""
    if len(chances) > MAX_ROLLS:
        raise D100Error(
            "rolls", len(chances), f"at most {MAX_ROLLS} rolls a ledger: window it (last N rolls)"
        )
    weights, denominator = [1], 1
    for p in chances:
        if not 0 <= p <= 1:
            raise D100Error("chance", _text(p), "a probability, 0..1")
        hit, size = p.numerator, p.denominator
        miss = size - hit
        grown = [a * miss + b * hit for a, b in zip([*weights, 0], [0, *weights], strict=True)]
        weights, denominator = grown, denominator * size
    return weights, denominator


def distribution(chances: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """P(exactly k successes) for k = 0..n, each roll succeeding with its own chance."""
    weights, denominator = _weights(chances)
    return tuple(Fraction(w, denominator) for w in weights)


def tails(chances: Sequence[Fraction], observed: int) -> tuple[Fraction, Fraction]:
    """P(X >= observed) and P(X <= observed), exactly."""
    weights, denominator = _weights(chances)
    k = max(0, min(observed, len(weights)))
    at_least = Fraction(sum(weights[k:]), denominator) if observed >= 0 else Fraction(1)
    at_most = Fraction(sum(weights[: k + 1]), denominator) if observed >= 0 else Fraction(0)
    return at_least, at_most


def successes(chances: Sequence[Fraction], observed: int) -> Successes:
    at_least, at_most = tails(chances, observed)
    return Successes(len(chances), observed, sum(chances, Fraction(0)), at_least, at_most)


def _percent(p: Fraction) -> str:
    from .render.view import pct  # the one way d100 writes a chance as a percentage

    return pct(p)


def _rarity(p: Fraction) -> str:
    if p <= Fraction(1, 1000):
        return "very rare with fair dice"
    if p <= Fraction(1, 100):
        return "rare with fair dice, though among many ledgers some runs this rare are expected"
    if p <= Fraction(1, 20):
        return "unusual, not rare: about one ledger in twenty goes this far"
    return "well within what fair dice give"


def verdict(s: Successes) -> str:
    """The successes in plain words: how many runs of the same rolls with fair dice would do
    worse (or better), and how rare a run this good (or bad) is. It says what fair dice would
    do, never that these dice are unfair."""
    if s.rolls == 0:
        return "no rolls to judge"
    noun = "success" if s.observed == 1 else "successes"
    rolls = "roll" if s.rolls == 1 else "rolls"
    said = f"{s.observed} {noun} in {s.rolls} {rolls} where {float(s.expected):.1f} were expected"
    if s.observed == s.expected:
        return f"{said}: exactly as expected"
    if s.observed > s.expected:
        beaten, tail, how = 1 - s.at_least, s.at_least, "good or better"
        side = "luckier"
    else:
        beaten, tail, how = 1 - s.at_most, s.at_most, "bad or worse"
        side = "unluckier"
    once = f"about once in {round(1 / tail):,}" if tail else "never"
    return (
        f"{said}: {side} than {_percent(beaten)} of runs of the same rolls with fair dice; "
        f"a run this {how} comes {once} ({_rarity(tail)})"
    )


# -- reading the events --------------------------------------------------------------------


@dataclass(frozen=True)
class _Roll:
    seq: int
    at: str | None
    character: Mapping[str, Any] | None
    reason: str | None  # None: counted
    system: str = ""
    odds: Mapping[str, Fraction] = field(default_factory=dict)
    chance: Fraction = Fraction(0)
    level: str = ""
    success: bool = False
    typed: bool = False


def _fraction(seq: int, where: str, value: Any) -> Fraction:
    try:
        p = Fraction(value) if isinstance(value, str) else None
    except (ValueError, ZeroDivisionError):
        p = None
    if p is None or not 0 <= p <= 1:
        raise D100Error(f"event {seq}.{where}", value, "an exact chance, p/q between 0 and 1")
    return p


def _read(event: Mapping[str, Any], seq: int, at: str | None) -> _Roll:
    """A roll or contest as shown: counted, or why not."""
    character = event.get("character")
    who = character if isinstance(character, Mapping) else None
    result, odds = event.get("result"), event.get("odds")
    if event.get("kind") == "contest":
        return _Roll(seq, at, who, CONTEST)
    if not isinstance(result, Mapping):
        return _Roll(seq, at, who, BLIND if event.get("hidden") else ODDS_WITHHELD)
    if "odds" in event and odds is None:
        return _Roll(seq, at, who, NO_ODDS)
    if not isinstance(odds, Mapping) or not isinstance(odds.get("levels"), Mapping):
        return _Roll(seq, at, who, ODDS_WITHHELD)
    system = result.get("system")
    if not isinstance(system, str) or system not in REGISTRY:
        return _Roll(seq, at, who, UNKNOWN_SYSTEM)
    levels = {str(k): _fraction(seq, f"odds.levels.{k}", v) for k, v in odds["levels"].items()}
    level = result.get("level")
    if level not in levels:
        raise D100Error(f"event {seq}.result.level", level, f"one of {', '.join(levels)}")
    return _Roll(
        seq,
        at,
        who,
        None,
        system,
        levels,
        _fraction(seq, "odds.success", odds.get("success")),
        str(level),
        result.get("success") is True,
        event.get("manual") is True,
    )


def _rolls(events: Iterable[Mapping[str, Any]]) -> tuple[list[_Roll], dict[str, str]]:
    """Every roll the events show, by its number (a blind roll shown later counted once, where
    it was rolled), and the members' names by id."""
    rolls: dict[int, _Roll] = {}
    members: dict[str, str] = {}
    for event in events:
        if not isinstance(event, Mapping):
            raise D100Error("event", event, "an event: a JSON object")
        kind, seq = event.get("kind"), event.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise D100Error("event.seq", seq, "the event's number, an integer")
        for key in ("gm", "member"):
            named = event.get(key) if kind in ("table", "join") else None
            if isinstance(named, Mapping) and isinstance(named.get("id"), str):
                members[named["id"]] = str(named.get("name"))
        at = event.get("at") if isinstance(event.get("at"), str) else None
        if kind in ("roll", "contest"):
            rolls.setdefault(seq, _read(event, seq, at))
        elif kind == "unblind":
            first = event.get("unblinds")
            shown_at = event.get("rolled_at", at)
            if isinstance(first, int) and (first not in rolls or rolls[first].reason is not None):
                kind_ = {**event, "kind": event.get("roll_kind")}
                rolls[first] = _read(kind_, first, shown_at if isinstance(shown_at, str) else at)
        elif kind == "hidden":
            rolls.setdefault(seq, _Roll(seq, None, None, HIDDEN))
    return [rolls[seq] for seq in sorted(rolls)], members


def _whose(
    rolls: Sequence[_Roll], members: Mapping[str, str], character: str | None, member: str | None
) -> list[_Roll]:
    """The rolls of a character (by id or name) or of a member's characters (by id or name);
    a roll whose character is not shown stays, to be told as left out."""
    if character is not None:
        known = {str(r.character.get(k)) for r in rolls if r.character for k in ("id", "name")}
        if character not in known:
            names = sorted({str(r.character.get("name")) for r in rolls if r.character})
            raise D100Error(
                "character",
                character,
                f"a character this log shows: {', '.join(names) or 'none'}",
                f"no character {character!r} in this log",
            )
        return [
            r
            for r in rolls
            if r.character is None or character in (r.character.get("id"), r.character.get("name"))
        ]
    if member is not None:
        ids = {i for i, name in members.items() if member in (i, name)}
        if not ids:
            raise D100Error(
                "member",
                member,
                f"a member this log shows: {', '.join(sorted(members.values()))}",
                f"no member {member!r} in this log",
            )
        return [r for r in rolls if r.character is None or r.character.get("member_id") in ids]
    return list(rolls)


def ledger(
    events: Iterable[Mapping[str, Any]],
    character: str | None = None,
    member: str | None = None,
    window: Window = Window(),
) -> Ledger:
    """The luck ledger of ``character`` (id or name), of ``member``'s characters (id or name),
    or of the table (neither), over ``window``, from events as their viewer sees them: a
    log's export, or the events a page or a bot may show that viewer."""
    if character is not None and member is not None:
        raise D100Error("member", member, "a character or a member, not both")
    rolls, members = _rolls(events)
    chosen = [r for r in _whose(rolls, members, character, member) if window.holds(r.seq, r.at)]
    counted = [r for r in chosen if r.reason is None]
    if window.last is not None:
        counted = counted[-window.last :]
        start = counted[0].seq if counted else 0
        chosen = [r for r in chosen if r.seq >= start]
    if len(counted) > MAX_ROLLS:
        raise D100Error(
            "rolls",
            len(counted),
            f"at most {MAX_ROLLS} rolls a ledger: narrow it to the last N rolls or a window",
        )
    left = tuple(
        LeftOut(reason, len(seqs), tuple(seqs))
        for reason in REASONS
        if (seqs := [r.seq for r in chosen if r.reason == reason])
    )
    return Ledger(
        character,
        member,
        window,
        tuple(r.seq for r in counted),
        sum(1 for r in counted if r.typed),
        _levels(counted),
        successes([r.chance for r in counted], sum(1 for r in counted if r.success)),
        left,
    )


def _levels(rolls: Sequence[_Roll]) -> tuple[LevelTally, ...]:
    """Each level of each system rolled, in its declared order (best first), then any level
    the odds name that the declaration does not."""
    out: list[LevelTally] = []
    for system in dict.fromkeys(r.system for r in rolls):
        mine = [r for r in rolls if r.system == system]
        declares = REGISTRY.get(system).declares
        names = list(declares.level_names)
        names += [n for r in mine for n in r.odds if n not in names]
        for name in dict.fromkeys(names):
            expected = sum((r.odds.get(name, Fraction(0)) for r in mine), Fraction(0))
            observed = sum(1 for r in mine if r.level == name)
            if observed or expected:
                out.append(
                    LevelTally(system, name, name in declares.success_names, observed, expected)
                )
    return tuple(out)
