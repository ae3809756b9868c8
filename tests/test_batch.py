"""The batch sampler: seeded, vectorised where it can be, and its counts match the exact odds."""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any

import pytest

import d100
from d100 import batch

# The 0.1% point of chi-square with 1..4 degrees of freedom: seeded runs, so a fixed verdict.
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47}
N = 200_000

REQUESTS: list[dict[str, Any]] = [
    {"system": "brp", "skill": 65},
    {"system": "brp", "skill": 65, "bonus_dice": 2},
    {"system": "brp", "skill": 30, "penalty_dice": 1, "house_rules": {"bonus_dice_method": "tens"}},
    {
        "system": "brp",
        "skill": 50,
        "bonus_dice": 2,
        "house_rules": {"bonus_dice_method": "tens", "threshold_rounding": "ceil"},
    },
    {"system": "openquest", "skill": 65, "difficulty": "hard"},
    {"system": "openquest", "skill": 100},
    {"system": "chances", "skill": 40, "risk": "average", "modifiers": [10]},
    {"system": "chances", "skill": 40, "risk": "tough", "take": 50},
    {"system": "brp", "actor": {"skill": 60}, "opponent": {"skill": 45, "bonus_dice": 1}},
    {"system": "openquest", "actor": {"skill": 60}, "opponent": {"skill": 100}},
    {"system": "openquest", "actor": {"skill": 100}, "opponent": {"skill": 100}},
    {"system": "chances", "actor": {"skill": 60}, "opponent": {"skill": 60}},
    {"system": "chances", "actor": {"skill": 60, "ability": 2}, "opponent": {"skill": 40}},
]


def _chi2(counts: dict[str, int], exact: dict[str, Fraction], n: int) -> tuple[float, int]:
    assert set(counts) <= {k for k, p in exact.items() if p}, "an impossible outcome was drawn"
    live = [k for k, p in exact.items() if p]
    stat = sum((counts.get(k, 0) - n * float(exact[k])) ** 2 / (n * float(exact[k])) for k in live)
    return stat, max(len(live) - 1, 1)


def _exact(request: dict[str, Any]) -> dict[str, Fraction]:
    found = d100.odds(request)
    return found.levels if isinstance(found, d100.CheckOdds) else found.winner


@pytest.mark.slow
@pytest.mark.parametrize("request_", REQUESTS, ids=lambda r: str(r)[:60])
def test_g4_vectorised_counts_match_exact_odds(request_: dict[str, Any]) -> None:
    assert batch._sides(d100.parse(request_)) is not None  # the vectorised path, not the loop
    counts = batch.sample(request_, N, seed=11)
    assert sum(counts.values()) == N
    stat, df = _chi2(counts, _exact(request_), N)
    assert stat < CHI2_999[df], (counts, stat)


def test_g2_seeded_and_reproducible() -> None:
    request = {"system": "brp", "skill": 40, "bonus_dice": 1}
    assert batch.sample(request, 50_000, seed=3) == batch.sample(request, 50_000, seed=3)
    assert batch.sample(request, 50_000, seed=3) != batch.sample(request, 50_000, seed=4)


def test_progress_reaches_n() -> None:
    seen: list[int] = []
    batch.sample(
        {"system": "openquest", "skill": 50}, 3 * batch.CHUNK + 5, seed=1, progress=seen.append
    )
    assert seen == sorted(seen) and seen[-1] == 3 * batch.CHUNK + 5


WALKED: list[dict[str, Any]] = [
    {"system": "brp", "skill": 40, "luck_rerolls": 1},  # rule: BRP7
    {"system": "brp", "skill": 45, "luck_rerolls": 3, "bonus_dice": 2},  # rule: BRP4, BRP7
    {
        "system": "brp",
        "skill": 45,
        "luck_rerolls": 2,
        "bonus_dice": 1,
        "house_rules": {"bonus_dice_method": "tens"},
    },
    {"system": "openquest", "skill": 40, "assist": {"skill": 50}},  # rule: OQ11
    {"system": "chances", "skill": 40, "risk": 50, "assisters": [{"skill": 30}]},  # rule: CH8
    {
        "system": "chances",
        "skill": 40,
        "ability": 10,
        "risk": "tough",
        "assisters": [{"skill": 30, "ability": 5}, {"skill": 20}, {"skill": 50}],
    },
    {
        "system": "chances",
        "actor": {"skill": 40, "assisters": [{"skill": 30}]},
        "opponent": {"skill": 50},
    },  # rule: CH6 (the coin too)
]


@pytest.mark.parametrize("request_", WALKED, ids=lambda r: str(r)[:60])
def test_g4_walked_counts_match_exact_odds(request_: dict[str, Any]) -> None:
    """Rolls that are not one kept value (rerolls, helpers) walk the machine's own states."""
    parsed = d100.parse(request_)
    assert batch._sides(parsed) is None and batch._walk(parsed) is not None  # not the loop
    stat, df = _chi2(batch.sample(request_, N, seed=5), _exact(request_), N)
    assert stat < CHI2_999[df], stat


def test_too_many_states_take_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    request = {"system": "openquest", "skill": 40, "assist": {"skill": 50}}
    monkeypatch.setattr(batch, "MAX_STATES", 3)
    assert batch._walk(d100.parse(request)) is None
    n = 20_000
    stat, df = _chi2(batch.sample(request, n, seed=5), _exact(request), n)
    assert stat < CHI2_999[df]


def test_g2_walked_rolls_are_seeded() -> None:
    request = {"system": "brp", "skill": 40, "luck_rerolls": 2}
    assert batch.sample(request, 50_000, seed=3) == batch.sample(request, 50_000, seed=3)
    assert batch.sample(request, 50_000, seed=3) != batch.sample(request, 50_000, seed=4)


def test_without_numpy_the_loop_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now raises ImportError
    counts = batch.sample({"system": "openquest", "skill": 50}, 2_000, seed=1)
    assert sum(counts.values()) == 2_000
