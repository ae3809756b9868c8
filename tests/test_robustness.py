"""Any input gets a result or a D100Error, never another exception; the verifiable dice are
uniform (a million draws deep, 200,000 in a standard run)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import d100
from d100.provable import ProvableSource, commitment, replay_draws
from d100.systems import REGISTRY
from tests.conftest import FIGURES, depth

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-300, 300)
    | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
# Every field any system declares, from the systems themselves
FIELDS = sorted(
    {f.name for s in REGISTRY for f in (*s.check_fields, *s.contest_fields)} - {"system"}
)
# Mostly well-formed requests with one or two odd values, so the fuzz reaches deep checks.
near_requests = st.fixed_dictionaries(
    {"system": st.sampled_from(["openquest", "brp", "chances", "other"])},
    optional={name: json_values | st.integers(0, 100) for name in FIELDS},
)


@pytest.mark.slow
@settings(max_examples=depth(200, 2000), deadline=None)
@given(st.one_of(near_requests, json_values))
def test_g5_any_request_gets_a_result_or_a_d100error(data: Any) -> None:
    try:
        result = d100.resolve(data, random.Random(0))
    except d100.D100Error as err:
        json.dumps(err.to_dict())  # errors are always JSON-ready
        assert err.field and err.message
        return
    json.dumps(result.to_dict())


@pytest.mark.slow
@settings(max_examples=depth(100, 1000), deadline=None)
@given(near_requests)
def test_g5_any_odds_request_gets_odds_or_a_d100error(data: dict[str, Any]) -> None:
    data.pop("dice", None)
    try:
        odds = d100.odds(data)
    except d100.D100Error:
        return
    json.dumps(odds.to_dict())


@pytest.mark.slow
def test_provable_dice_are_uniform_over_many_draws(
    record_property: Callable[[str, object], None],
) -> None:
    source = ProvableSource(b"server seed for the uniformity test", "client", nonce=1)
    n = depth(200_000, 1_000_000)
    counts = Counter(source.randint(1, 100) for _ in range(n))
    expected = n / 100
    stat = sum((counts[v] - expected) ** 2 / expected for v in range(1, 101))
    record_property(FIGURES, f"{n} provable d100s: chi-square {stat:.1f} on 99 df (bound 180)")
    assert stat < 180.0  # p ~ 1e-6 for 99 degrees of freedom


def test_provable_dice_replay_from_the_revealed_seed() -> None:
    seed = bytes(range(32))
    assert commitment(seed) == commitment(bytes(range(32)))
    assert commitment(seed) != commitment(bytes(32))
    rolled = d100.resolve(
        {"system": "brp", "skill": 50, "bonus_dice": 2}, ProvableSource(seed, "alice", nonce=7)
    )
    assert list(rolled.dice) == replay_draws(seed, "alice", 7, [(1, 100)] * 3)
    other = replay_draws(seed, "bob", 7, [(1, 100)] * 3)
    assert other != list(rolled.dice)
