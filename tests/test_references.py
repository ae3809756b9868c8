"""d100 held to the editions' references: every recorded case of tests/references/data.

The cases were recorded by running the references themselves (BCDice through its npm
package, the Foundry systems' functions under node, the BRP port compiled), never from d100;
tests/references/cases.py describes the format. One test per edition and source, its id
carrying the number of cases; a case tagged with a section 8 conflict runs under the house rule
its reference needs, and must come out otherwise without it.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

import d100
from tests.conftest import TOTALS
from tests.references.cases import (
    DATA,
    SYSTEMS,
    Case,
    cases,
    check,
    group_of,
    mismatch,
    records,
    without_house_rules,
)

# What the sources hold cases of, by the rule IDs of EDITIONS.md:
# rule: C7-1, C7-2, C7-3, C7-4, C7-5, C7-6, C7-7, C7-8
# rule: C6-1, C6-2, C6-3, C6-4
# rule: RQ-1, RQ-2, RQ-3
# rule: BF-1, BF-2, BF-3, BF-4
# rule: BU-1, BU-2, BU-3
# rule: OQS-1, OQS-2

SHOWN = 12  # disagreements listed in a failure message


def _size(record: dict[str, Any]) -> int:
    """How many cases a record expands to, counted without building them (collection runs in
    every worker: the cases are built only by the tests that check them)."""
    return sum(high - low + 1 for low, high, _ in record["runs"]) if "runs" in record else 1


def _groups() -> list[tuple[str, str, int]]:
    found: list[tuple[str, str, int]] = []
    for system in SYSTEMS:
        counts: Counter[str] = Counter()
        for _, record in records(system):
            counts[group_of(record["source"])] += _size(record)
        found += [(system, group, n) for group, n in counts.items()]
    return found


GROUPS = _groups()
# a group past this many cases is a grid swept whole: CI's, not the development loop's
GRID = 5000


def _report(bad: list[tuple[Case, str]], total: int) -> str:
    lines = [f"{len(bad)} of {total} cases disagree with their reference:"]
    lines += [f"  {case.describe()}\n      {why}" for case, why in bad[:SHOWN]]
    if len(bad) > SHOWN:
        lines.append(f"  ... and {len(bad) - SHOWN} more")
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("system", "group"),
    [
        pytest.param(
            s, g, id=f"{s}: {g} [{n} cases]", marks=[pytest.mark.slow] if n > GRID else []
        )
        for s, g, n in GROUPS
    ],
)
def test_reference_cases(system: str, group: str, record_property: Any) -> None:
    chosen = cases(system, group)
    assert all(case.group == group for case in chosen)
    bad = [(case, why) for case in chosen if (why := check(case)) is not None]
    record_property(TOTALS, (f"reference cases, {system}", len(chosen)))
    if bad:
        pytest.fail(_report(bad, len(chosen)), pytrace=False)


def _conflicts(record: dict[str, Any]) -> int:
    """How many of a record's cases belong to a conflict of section 8 (a run may say its own)."""
    if "runs" not in record:
        return int(record.get("conflict") is not None)
    ruled = record.get("conflict")
    return sum(
        high - low + 1 for low, high, want in record["runs"] if want.get("conflict", ruled)
    )


@pytest.mark.parametrize(
    "system",
    [
        pytest.param(s, id=f"{s} [{n} cases]")
        for s in SYSTEMS
        if (n := sum(_conflicts(record) for _, record in records(s)))
    ],
)
def test_conflict_cases_agree_only_under_their_house_rule(system: str) -> None:
    """A conflict's case must agree under its house rule (test_reference_cases) and must not
    without it: the house rule is what reproduces that reference."""
    chosen = [case for case in cases(system) if case.conflict is not None]
    unruled = [case for case in chosen if not case.request.get("house_rules")]
    assert not unruled, f"conflict cases without a house rule: {unruled[0].describe()}"
    same = []
    for case in chosen:
        if "dice" not in case.request and "actor" not in case.request:
            continue  # no die read: without the rule a die is needed, nothing to compare
        try:
            result = d100.resolve(without_house_rules(case)).to_dict()
        except d100.D100Error:
            continue
        if mismatch(case.expect, result) is None:
            same.append(case)
    if same:
        pytest.fail(
            f"{len(same)} conflict cases agree without their house rule, e.g. {same[0].describe()}",
            pytrace=False,
        )


def test_every_record_says_its_source_request_and_answer() -> None:
    """The data's shape: a source, the reference's inputs, a request of the file's system, and
    an expected answer (or runs of one); conflicts only the numbers of section 8."""
    assert sorted(p.stem for p in DATA.glob("*.jsonl")) == sorted(SYSTEMS)
    for system in SYSTEMS:
        for n, record in records(system):
            where = f"{system}.jsonl:{n}"
            assert record["source"].strip(), where
            assert "reference" in record, where
            assert record["request"]["system"] == system, where
            assert ("expect" in record) != ("runs" in record), where
            assert record.get("conflict", 1) in (1, 2, 3, 4, 5), where
            for low, high, expect in record.get("runs", []):
                assert 1 <= low <= high <= 100 and isinstance(expect, dict), where
            json.dumps(record)
