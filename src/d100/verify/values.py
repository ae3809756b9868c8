"""What verify reads an exported log's values with: paths into a request, the log's form, and
the words a report shows a value in."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ..errors import D100Error

MISSING = object()  # what a path reaches in a value that does not have it


TEXT = frozenset({"explanation", "bands"})  # words about a result, not the result


def path_of(stream: str) -> list[str | int]:
    """A stream's name as the keys that reach its dice: "assisters[0].dice"."""
    keys = stream.replace("[", ".").replace("]", "").split(".")
    return [int(k) if k.isdigit() else k for k in keys]


def at(value: Any, path: list[str | int]) -> Any:
    for key in path:
        listed = isinstance(key, int) and isinstance(value, list) and key < len(value)
        if not (listed or (isinstance(key, str) and isinstance(value, Mapping) and key in value)):
            return MISSING
        value = value[key]
    return value


def without(value: Any, path: list[str | int]) -> Any:
    """``value`` without what ``path`` reaches: a request without the dice typed into it."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(key, str) and isinstance(value, Mapping) and key in value:
        if not rest:
            return {k: v for k, v in value.items() if k != key}
        return {**value, key: without(value[key], rest)}
    if isinstance(key, int) and isinstance(value, list) and key < len(value) and rest:
        return [*value[:key], without(value[key], rest), *value[key + 1 :]]
    return value


def differing(shown: Any, resolved: Any) -> str:
    if not (isinstance(shown, Mapping) and isinstance(resolved, Mapping)):
        return "none shown" if shown is None else "not an object"
    keys = sorted(k for k in {*shown, *resolved} if shown.get(k) != resolved.get(k))
    return ", ".join(map(str, keys))


def too_deep(number: int) -> D100Error:
    return D100Error(f"line {number}", None, "a table's event", "nests too deeply")


def brief(value: Any) -> str:
    """A value for an error message: its start, whatever its depth."""
    try:
        text = json.dumps(value)
    except (RecursionError, TypeError, ValueError):
        text = "a value nested too deeply to show"
    return text if len(text) <= 80 else text[:77] + "..."


def is_a_log(entries: list[tuple[int, dict[str, Any]]]) -> None:
    """A d100 log: events numbered in order from the table's opening, each with a kind."""
    if not entries:
        raise D100Error("log", "", "a table's exported log (JSON Lines)", "empty")
    last = 0
    for number, entry in entries:
        seq, kind = entry.get("seq"), entry.get("kind")
        if not (isinstance(seq, int) and not isinstance(seq, bool) and isinstance(kind, str)):
            raise D100Error(
                f"line {number}",
                brief(entry),
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
            brief(entries[0][1]),
            "the table's opening event first",
            "not a whole table log",
        )


def seconds(stamp: Any) -> float | None:
    """An ISO time as Unix seconds; None if it is not one."""
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def in_force(history: Mapping[str, list[tuple[int, str]]], member_id: Any, seq: int) -> str | None:
    """The client seed ``member_id`` had set before event ``seq``."""
    earlier = [seed for since, seed in history.get(str(member_id), []) if since < seq]
    return earlier[-1] if earlier else None


def client_seeds(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The client seeds an event sets: the GM's at the table's opening, a player's at their
    join, and each change."""
    kind = entry.get("kind")
    member = entry.get("gm" if kind == "table" else "member") if kind in ("table", "join") else None
    if isinstance(member, Mapping):
        return [(str(member.get("id")), str(member.get("client_seed")))]
    if kind == "client_seed":
        return [(str(entry.get("member_id")), str(entry.get("client_seed")))]
    return []


def drawn_by(number: int, entry: Mapping[str, Any]) -> tuple[str, int]:
    provable = entry.get("provable")
    seed_id = provable.get("seed_id") if isinstance(provable, Mapping) else None
    nonce = provable.get("nonce") if isinstance(provable, Mapping) else None
    if not (isinstance(seed_id, str) and isinstance(nonce, int) and not isinstance(nonce, bool)):
        raise D100Error(
            f"line {number}.provable",
            brief(provable),
            "the roll's provable-dice record: seed_id (string) and nonce (integer)",
            "missing or incomplete",
        )
    return seed_id, nonce


def outcome(value: Any) -> Any:
    """The dice and the outcome, without the words explaining them: a later engine may say
    the same result in other words."""
    if isinstance(value, Mapping):
        return {k: outcome(v) for k, v in value.items() if k not in TEXT}
    if isinstance(value, list):
        return [outcome(v) for v in value]
    return value


def dice_of(result: Any) -> str:
    """What a person compares first: the explanation line (it names every die)."""
    return repr(result.get("explanation")) if isinstance(result, Mapping) else repr(result)
