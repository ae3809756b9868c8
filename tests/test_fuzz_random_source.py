"""A random source is not trusted: a draw outside the die's faces (or not an integer) is a
DiceError naming the random source, never a result ("rolled 00: critical") nor an assert."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d100.engine import resolve
from d100.errors import DiceError
from tests.conftest import depth

REQUESTS: list[dict[str, Any]] = [
    {"system": "brp", "skill": 65},
    {"system": "openquest", "skill": 65},
    {"system": "chances", "skill": 40, "ability": 10, "risk": "tough"},
    {"system": "brp", "actor": {"skill": 60}, "opponent": {"skill": 45}},
]


class Fixed(random.Random):
    """A subclass whose every draw is one value, whatever the die."""

    def __init__(self, value: Any) -> None:
        super().__init__(1)
        self.value = value

    def randint(self, a: int, b: int) -> Any:
        return self.value


OUTSIDE = st.one_of(
    st.integers(max_value=0),
    st.integers(min_value=101),
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.none(),
)


@pytest.mark.parametrize("value", [0, -5, 101])
@pytest.mark.parametrize("request_", REQUESTS, ids=lambda r: r["system"])
def test_a_draw_off_the_die_names_the_random_source(request_: dict[str, Any], value: int) -> None:
    with pytest.raises(DiceError, match="random source") as caught:
        resolve(request_, Fixed(value))
    assert str(value) in str(caught.value)


@settings(max_examples=depth(200, 1000), deadline=None)
@given(value=OUTSIDE, request_=st.sampled_from(REQUESTS))
def test_fuzz_any_bad_draw_is_a_dice_error(value: Any, request_: dict[str, Any]) -> None:
    with pytest.raises(DiceError, match="random source"):
        resolve(request_, Fixed(value))


def test_a_good_source_still_rolls() -> None:
    assert resolve(REQUESTS[0], Fixed(42)).to_dict()["roll"] == 42
