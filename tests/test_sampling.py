"""Sampling: seeded rolls per request fall within a chi-square bound of the exact odds (G2, G4),
and properties that must hold for every skill.

The exact oracles prove every level from given dice; what sampling adds is that the random
source reaches those dice uniformly. 30,000 rolls a request (200,000 at D100_TEST_DEPTH=deep)
find any drawing fault that moves a level's share by about a point and a half: a wrong die,
a die off by one, a reroll drawn from the wrong place."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import d100
from tests.conftest import depth
from tests.helpers import odds_map, outcome

ROLLS = depth(30_000, 200_000)
# chi-square critical values at p = 1e-6 by degrees of freedom: a correct engine fails this
# about once in a million seeds; the seeds are fixed, so the run is deterministic anyway.
CRITICAL = {1: 23.93, 2: 27.63, 3: 30.66, 4: 33.38}


def chi_square(observed: Counter[str], expected: dict[str, float]) -> tuple[float, int]:
    stat, cells = 0.0, 0
    for key, p in expected.items():
        if p == 0:
            assert observed[key] == 0, key
            continue
        e = ROLLS * p
        stat += (observed[key] - e) ** 2 / e
        cells += 1
    return stat, cells - 1


@pytest.mark.slow  # ROLLS seeded rolls per request
@pytest.mark.parametrize(
    "request_",
    [
        {"system": "brp", "skill": 65, "bonus_dice": 1, "luck_rerolls": 1},
        {"system": "openquest", "skill": 55, "assist": {"skill": 40}},
        {"system": "chances", "skill": 40, "ability": 10, "risk": "tough"},
        {"system": "openquest", "actor": {"skill": 60}, "opponent": {"skill": 45}},
    ],
)
def test_g2_g4_sampling_matches_exact_odds(request_: dict[str, Any]) -> None:
    parsed = d100.parse(request_)
    rng = random.Random(20261129)
    observed = Counter(outcome(d100.resolve(parsed, rng)) for _ in range(ROLLS))
    expected = {k: float(v) for k, v in odds_map(request_).items()}
    stat, df = chi_square(observed, expected)
    assert stat < CRITICAL[df], (stat, df, observed)


@pytest.mark.parametrize(
    "template",
    [
        {"system": "openquest", "difficulty": "hard"},
        {"system": "brp", "bonus_dice": 1, "difficulty": "difficult"},
        {"system": "brp", "penalty_dice": 2, "luck_rerolls": 1},
        {"system": "chances", "risk": "challenging", "ability": 5},
    ],
)
def test_g4_success_never_falls_as_skill_rises(template: dict[str, Any]) -> None:
    top = 100 if template["system"] != "brp" else 130
    chances = [d100.odds({**template, "skill": s}).success for s in range(top + 1)]
    assert all(a <= b for a, b in itertools.pairwise(chances))


@settings(max_examples=depth(40, 300), deadline=None)
@given(
    seed=st.integers(0, 2**32),
    skill=st.integers(0, 100),
    system=st.sampled_from(["openquest", "brp", "chances"]),
)
def test_g3_given_dice_equal_seeded_check(seed: int, skill: int, system: str) -> None:
    request: dict[str, Any] = {"system": system, "skill": skill}
    if system == "chances":
        request["risk"] = 60
    if system == "brp":
        request["penalty_dice"] = 1
    drawn = d100.resolve(request, random.Random(seed))
    replayed = d100.resolve({**request, "dice": list(drawn.dice)})
    assert isinstance(drawn, d100.CheckResult) and isinstance(replayed, d100.CheckResult)
    assert (replayed.level, replayed.roll, replayed.dice, replayed.margin) == (
        drawn.level,
        drawn.roll,
        drawn.dice,
        drawn.margin,
    )
