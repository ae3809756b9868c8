"""(h) the worst request: the dearest exact odds the engine's work budget admits, and the time
a refusal just over the budget takes.

Every plan knows its cost (die faces tried) before it runs, and ``tallies.BUDGET`` refuses one
over it. The dearest request the contract allows is a Taking Chances contest with the most
assisters on both sides (``chances.MAX_ASSISTERS``): every total of one side meets every end
of the other. No valid request is over the budget, so the refusal is timed on that request
with the budget lowered to one face under its cost: the refusal then comes from the same
check that would refuse a dearer one. Baseline: one plain BRP check's odds, caches cleared
first, in the same run.
"""

from __future__ import annotations

from typing import Any

import d100
from d100 import tallies
from d100.errors import TooMuchWork
from d100.systems import chances

from .report import Report, best

HELPER = {"skill": 20}
DEAREST: dict[str, Any] = {
    "system": "chances",
    "actor": {"skill": 30, "assisters": [HELPER] * chances.MAX_ASSISTERS},
    "opponent": {"skill": 30, "assisters": [HELPER] * chances.MAX_ASSISTERS},
}
PLAIN = {"system": "brp", "skill": 50}
REFUSALS = 1000


def worst(report: Report, quick: bool) -> None:
    print("(h) the worst request", flush=True)
    repeat = 1 if quick else 3
    cost = tallies.plan_of(d100.parse(DEAREST)).cost
    plain, _ = best(lambda: _cold(PLAIN), repeat * 20)
    dearest, _ = best(lambda: _cold(DEAREST), repeat)
    report.add(
        "h",
        f"the dearest odds the budget admits: chances contest, {chances.MAX_ASSISTERS} "
        f"assisters a side ({cost:,} of {tallies.BUDGET:,} faces), caches cleared",
        dearest, {"a plain brp check, caches cleared": plain}, "", None,
    )
    budget = tallies.BUDGET
    tallies.BUDGET = cost - 1  # the same request, one face over the budget
    try:
        refused, _ = best(_refusals, repeat)
    finally:
        tallies.BUDGET = budget
    report.add(
        "h",
        "a refusal just over the budget (the same request, the budget lowered to one face "
        f"under its cost; per refusal, {REFUSALS} in a row)",
        refused / REFUSALS, {"a plain brp check, caches cleared": plain}, "", None,
    )


def _cold(request: dict[str, Any]) -> Any:
    tallies.clear_caches()
    return d100.odds(request)


def _refusals() -> None:
    tallies.clear_caches()  # not the odds worked out before: a refusal keeps nothing
    for _ in range(REFUSALS):
        try:
            d100.odds(DEAREST)
        except TooMuchWork:
            continue
        raise SystemExit("(h) the request over the budget was not refused")
