"""Resolve requests and compute their exact odds: the library's front door."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import compress
from typing import Any, overload

from . import tallies
from .contract import CheckData, CheckRequest, ContestData, ContestRequest, Request
from .dice import RandomSource
from .errors import D100Error
from .machine import Dice, run
from .results import CheckOdds, CheckResult, ContestOdds, ContestResult, Odds, Result
from .systems import REGISTRY
from .tallies import fraction, plan_of, system_of


def is_contest(request: Any) -> bool:
    """A contract dict naming a side, or a parsed contest."""
    if isinstance(request, Mapping):
        return "actor" in request or "opponent" in request
    return tallies.is_contest(request)


@overload
def parse(data: ContestData) -> ContestRequest: ...
@overload
def parse(data: CheckData) -> CheckRequest: ...
@overload
def parse(data: object) -> Request: ...
def parse(data: object) -> Request:
    """A contract request (CONTRACT.md) as the system's frozen request object."""
    if not isinstance(data, Mapping):
        raise D100Error("request", data, "a JSON object with a system field", "not an object")
    system = REGISTRY.get(data.get("system"))
    parsed: Request = system.parse_contest(data) if is_contest(data) else system.parse_check(data)
    return parsed


@overload
def resolve(request: CheckRequest | CheckData, rng: RandomSource | None = None) -> CheckResult: ...
@overload
def resolve(
    request: ContestRequest | ContestData, rng: RandomSource | None = None
) -> ContestResult: ...
@overload
def resolve(request: object, rng: RandomSource | None = None) -> Result: ...
def resolve(request: object, rng: RandomSource | None = None) -> Result:
    """Resolve a check or a contest (a request object or contract dict). Dice come from the
    request's ``dice`` where given (G3), else from ``rng`` (G2), e.g. ``random.Random(7)``."""
    if isinstance(request, Mapping) or not hasattr(request, "to_dict"):
        request = parse(request)
    plan = plan_of(request)
    dice = Dice(rng, plan.given)
    final = run(plan.machine, dice)
    result: CheckResult | ContestResult = plan.build(final, dice.record)
    return result


def resolve_group(requests: Iterable[Any], rng: RandomSource | None = None) -> tuple[Result, ...]:
    """Group tests (OQ10) and individual events (CH8): each result stands alone."""
    return tuple(resolve(r, rng) for r in requests)


@overload
def odds(request: CheckRequest | CheckData) -> CheckOdds: ...
@overload
def odds(request: ContestRequest | ContestData) -> ContestOdds: ...
@overload
def odds(request: object) -> Odds: ...
def odds(request: object) -> Odds:
    """The exact probability of every level (a check) or every winner (a contest), G4.

    The odds are of the request before it is rolled: dice it gives (``dice``, a nested side's
    or helper's, a tie-break's coin) are one roll's outcome, so they are held to their fields
    as ever and then weigh nothing; every roll is counted. So ``odds(result.request)`` gives
    the odds a resolved check had, its dice given or drawn."""
    if isinstance(request, Mapping) or not hasattr(request, "to_dict"):
        request = parse(request)
    system = system_of(request)
    contest = tallies.is_contest(request)
    # the request's own enumeration, shared and memoised (tallies.py)
    found = tallies.tally_of(request, system, contest)
    counts = found.fractions()
    if contest:
        return ContestOdds(system.name, counts, request=request.to_dict())
    # Summed as integer counts over the one denominator: a single Fraction at the end
    rule = system.declares.success  # where the request decides which levels succeed
    wins = system.success_levels if rule is None else rule(request)
    hits = sum(compress(found.counts, map(wins.__contains__, found.keys)))
    success = fraction(hits, found.denominator)
    # Luck is shown only where the request spends it at all
    luck = fraction(found.luck, found.denominator) if found.luck else None
    return CheckOdds.counted(system.name, counts, success, request, luck)
