"""BCDice as a live oracle for coc7, coc6 and rqg (tests/references/bcdice_oracle.mjs).

BCDice 3.16.1 (the npm package bcdice 4.9.0, installed by .ci/run from
tests/references/node/package-lock.json) is asked through its mocked randomizer, as its own
test suite does. These tests skip where node or the package is missing, and fail instead when
D100_REQUIRE_SERVICES=1 (CI). The recorded BCDice cases of tests/references/data run without
node in tests/test_references.py; here they are checked to be still what BCDice answers.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

import d100
from tests.conftest import DEEP, TOTALS, need_service
from tests.references import bcdice_cases as bc
from tests.references.cases import mismatch

# BCDice asked under node: CI's, not the development loop's (make quick)
pytestmark = pytest.mark.slow

EDITIONS = list(bc.PROBES)
SYSTEMS = list(bc.EDITION_OF)


@pytest.fixture(scope="module")
def bcdice() -> None:
    reason = bc.unavailable()
    need_service(reason is None, f"BCDice oracle: {reason}")


def _disagreements(probes: list[bc.Probe], expects: list[dict[str, Any]]) -> list[str]:
    bad = []
    for probe, expect in zip(probes, expects, strict=True):
        request = probe.request if probe.r is None else {**probe.request, "dice": [probe.r]}
        try:
            why = mismatch(expect, d100.resolve(request).to_dict())
        except d100.D100Error as err:
            why = f"refused: {err}"
        if why:
            bad.append(f"{probe.source}: {probe.command} {probe.rands} -> {request}\n    {why}")
    return bad


def _fail(bad: list[str], total: int) -> None:
    if bad:
        shown = "\n  ".join(bad[:12])
        pytest.fail(f"{len(bad)} of {total} disagree with BCDice:\n  {shown}", pytrace=False)


def test_the_installed_bcdice_is_the_recorded_version(bcdice: None) -> None:
    assert bc.version() == bc.VERSION


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_driver_passes_bcdice_s_own_test_data(bcdice: None, system: str) -> None:
    """The mocked randomizer of the driver gives BCDice's test data its expected answers."""
    tests = bc.test_data(system)
    answers = bc.ask(system, [(t["input"], [r["value"] for r in t["rands"]]) for t in tests])
    flags = ("success", "failure", "critical", "fumble")
    wrong = [
        (t["input"], t["output"], a)
        for t, a in zip(tests, answers, strict=True)
        if a["error"]
        or (a["text"] or "") != t["output"]
        or any(bool(a[f]) != bool(t.get(f, False)) for f in flags)
    ]
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("system", SYSTEMS)
def test_d100_agrees_with_bcdice_s_own_test_data(
    bcdice: None, system: str, record_property: Any
) -> None:
    """Every case of BCDice's test data that d100 can ask, read from the installed package:
    its expected answer (not ours) against d100."""
    by_index = dict(enumerate(bc.test_data(system)))
    probes = list(bc.test_data_probes(system))
    expects = []
    for probe in probes:
        test = by_index[int(probe.source.rsplit("#", 1)[1])]
        flags = {f: test.get(f, False) for f in ("success", "failure", "critical", "fumble")}
        expects.append(probe.read({"text": test["output"], **flags}))
    record_property(TOTALS, (f"BCDice test data cases, {system}", len(probes)))
    _fail(_disagreements(probes, expects), len(probes))


@pytest.mark.parametrize("edition", EDITIONS)
def test_d100_agrees_with_bcdice_on_fresh_questions(
    bcdice: None, edition: str, record_property: Any
) -> None:
    """Questions recorded nowhere (D100_BCDICE_SEED picks others), put to BCDice and d100."""
    seed = int(os.environ.get("D100_BCDICE_SEED", "3161"))
    probes = list(bc.random_probes(edition, random.Random(seed), 1500))
    system = bc.PROBES[edition][0]
    expects = [p.read(a) for p, a in zip(probes, bc.answer(system, probes), strict=True)]
    record_property(TOTALS, (f"fresh BCDice questions, {edition}", len(probes)))
    _fail(_disagreements(probes, expects), len(probes))


@pytest.mark.slow
@pytest.mark.parametrize("edition", EDITIONS)
def test_the_recorded_bcdice_cases_are_still_bcdice_s_answers(
    bcdice: None, edition: str, record_property: Any
) -> None:
    """Asking BCDice again gives the recorded records exactly (conflict tags included). A
    standard run asks every single case and, of each grid row, both ends of every recorded run
    and a tenth of the other rolls (bc.spread); a deep run asks every roll. The recorded rows
    are checked against d100 in full by tests/test_references.py."""
    kept = bc.others(edition)
    recorded = [r for _, r in bc.recorded(edition)]
    rolls = None if DEEP else bc.spread(recorded)
    asked = bc.build(edition, kept, rolls)
    if rolls is not None:
        recorded = [bc.restrict(r, rolls) for r in recorded]
    checked = sum(sum(h - lo + 1 for lo, h, _ in r["runs"]) if "runs" in r else 1 for r in asked)
    record_property(TOTALS, (f"recorded BCDice cases asked again, {edition}", checked))
    assert len(asked) == len(recorded)
    for new, old in zip(asked, recorded, strict=True):
        assert new == old, f"BCDice now answers {new}\n  recorded {old}"
