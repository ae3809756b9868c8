"""Reference cases: what the editions' references answer, recorded as data, and how d100 is
held to them.

Each line of ``data/<system>.jsonl`` is one record:

* ``source``: the reference and where its answer comes from, e.g. ``"bcdice 3.16.1
  Cthulhu7th test data #12"`` or ``"Genii-Locorum/brp@21490c6f module/apps/check.mjs
  583-607"``; the part before `` #`` names the group the counts are reported by.
* ``reference``: the reference's own inputs (a command and its dice, a function's arguments).
* ``request``: the d100 request that asks the same question.
* ``expect``: the reference's answer as a partial d100 result (``to_dict()``): every key given
  must match, nested for contests; ``level_not`` lists levels the result must not have (where
  the reference reports only success or failure, or a flag).
* or, instead of ``expect``, ``runs``: a row of a grid, ``[[low, high, expect], ...]``: one case
  per die value r in low..high, with ``"dice": [r]`` added to the request and, where the row
  says ``"roll": "die"``, the result's roll expected to be r.
* ``conflict`` (optional, on a record or a run's expect): the number of the conflict of
  EDITIONS.md section 8 the case belongs to. Its request then carries the house rule under
  which d100 reads the rules as this reference does, and the case is also checked to come out
  otherwise without it (so the house rule is what makes it agree).
* ``note`` (optional): why the case is there.

Nothing here computes an expected answer: answers come only from the recorded data.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import d100

DATA = Path(__file__).parent / "data"
SYSTEMS = ("coc7", "coc6", "rqg", "brp-foundry", "brp-uge", "oq-system")
_MISSING = object()


@dataclass(frozen=True)
class Case:
    source: str
    group: str
    request: dict[str, Any]
    expect: dict[str, Any]
    conflict: int | None
    where: str  # file:line and, for a grid row, the die value

    def describe(self) -> str:
        return f"{self.where} [{self.source}] {json.dumps(self.request, sort_keys=True)}"


def group_of(source: str) -> str:
    return source.split(" #", 1)[0]


def records(system: str) -> Iterator[tuple[int, dict[str, Any]]]:
    path = DATA / f"{system}.jsonl"
    if not path.exists():
        return
    with path.open(encoding="utf-8") as lines:
        for n, line in enumerate(lines, 1):
            if line.strip():
                yield n, json.loads(line)


def expand(system: str, n: int, record: dict[str, Any]) -> Iterator[Case]:
    source = record["source"]
    where = f"{system}.jsonl:{n}"
    conflict = record.get("conflict")
    if "expect" in record:
        yield Case(source, group_of(source), record["request"], record["expect"], conflict, where)
        return
    group = group_of(source)
    die = record.get("roll") == "die"
    for low, high, expect in record["runs"]:
        base = {k: v for k, v in expect.items() if k != "conflict"}
        run_conflict = expect.get("conflict", conflict)
        for r in range(low, high + 1):
            # the row's request shared below its top level: resolving reads a request, never
            # writes it (without_house_rules copies before it changes one)
            request = {**record["request"], "dice": [r]}
            want = {**base, "roll": r} if die else base
            yield Case(source, group, request, want, run_conflict, f"{where} r={r}")


@functools.cache
def _read(system: str) -> tuple[tuple[int, dict[str, Any]], ...]:
    return tuple(records(system))


def cases(system: str, group: str | None = None) -> tuple[Case, ...]:
    """The cases of a system's data file, or of one group of it (only its records expanded;
    the file is read once a process)."""
    return tuple(
        case
        for n, record in _read(system)
        if group is None or group_of(record["source"]) == group
        for case in expand(system, n, record)
    )


def mismatch(expected: Any, actual: Any, path: str = "") -> str | None:
    """Where the actual result departs from the expected partial result, else None."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path or 'result'}: expected an object, got {actual!r}"
        for key, want in expected.items():
            if key == "level_not":
                if actual.get("level") in want:
                    return f"{path}level: {actual.get('level')!r} is one of {want}"
                continue
            found = mismatch(want, actual.get(key, _MISSING), f"{path}{key}.")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = mismatch(want, got, f"{path}{i}.")
            if found:
                return found
        return None
    if actual is _MISSING:
        return f"{path.rstrip('.')}: missing, expected {expected!r}"
    if expected != actual or type(expected) is not type(actual):
        return f"{path.rstrip('.')}: expected {expected!r}, got {actual!r}"
    return None


def check(case: Case) -> str | None:
    """Resolve the case's request; a description of the disagreement, or None."""
    try:
        result = d100.resolve(case.request).to_dict()
    except d100.D100Error as err:
        return f"refused: {err}"
    return mismatch(case.expect, result)


def without_house_rules(case: Case) -> dict[str, Any]:
    request = copy.deepcopy(case.request)
    request.pop("house_rules", None)
    return request
