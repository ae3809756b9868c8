"""Fuzz every public entry with requests made from each system's own field tables, with garbage
mixed in: only a D100Error may come out (G5). A KeyError, AssertionError or TypeError from any
input is a bug. Request objects built directly (with ``dataclasses.replace``) are held to the
same tables."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import d100
from d100.fields import Field
from d100.systems import REGISTRY
from tests.conftest import depth

SYSTEMS = list(REGISTRY)

garbage = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-1001, 1001)
    | st.floats(allow_nan=True)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _int(f: Field, bad: bool = True) -> st.SearchStrategy[int]:
    """Integers at (and with ``bad`` just past) the field's bounds, and small ones: cheap to
    enumerate."""
    low, high = (-3 if f.low is None else f.low), (3 if f.high is None else f.high)
    if not bad:
        return st.integers(max(low, -3), min(high, 3)) | st.sampled_from([low, high])
    return st.integers(-3, 3) | st.sampled_from([low - 1, low, low + 1, high - 1, high, high + 1])


def value_of(f: Field, bad: bool = True) -> st.SearchStrategy[Any]:
    """Mostly what the field allows (and its edges), sometimes garbage."""
    if f.kind == "int":
        good: st.SearchStrategy[Any] = _int(f, bad)
    elif f.kind == "bool":
        good = st.booleans()
    elif f.kind == "int_list":
        good = st.lists(_int(f, bad), max_size=3)
    elif f.kind == "preset":
        good = _int(f, bad) | st.sampled_from([*f.presets, *(["no-such-preset"] if bad else [])])
    elif f.kind == "choice":
        good = st.sampled_from(f.choices)
    elif f.kind == "dice":
        good = st.lists(st.integers(0, 101) if bad else st.integers(1, 100), max_size=4)
    elif f.kind == "object":
        good = request_of(f.fields, bad)
    else:
        good = st.lists(request_of(f.fields, bad), max_size=2)
    return st.one_of(good, good, good, garbage) if bad else good


def request_of(fields: tuple[Field, ...], bad: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """An object of these fields: required ones present, optional ones sometimes; with ``bad``
    now and then a required one missing, or an unknown key."""
    required = {f.name: value_of(f, bad) for f in fields if f.required}
    optional = {f.name: value_of(f, bad) for f in fields if not f.required}
    whole = st.fixed_dictionaries(required, optional=optional)
    if not bad:
        return whole
    base = st.fixed_dictionaries({}, optional={**required, **optional, "no_such_field": garbage})
    return st.one_of(whole, base)


def _parsed(data: dict[str, Any]) -> Any:
    try:
        return d100.parse(data)
    except d100.D100Error:
        return None


def requests() -> st.SearchStrategy[Any]:
    per_system = [
        request_of(fields)
        for system in SYSTEMS
        for fields in (system.check_fields, system.contest_fields)
    ]
    return st.one_of(*per_system, garbage)


FUZZ = settings(
    max_examples=depth(250, 2000),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def only_d100_errors(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except d100.D100Error as err:
        json.dumps(err.to_dict())  # always JSON-ready, and says its kind
        assert err.field and err.message and err.kind
        return None


@pytest.mark.slow
@FUZZ
@given(requests())
def test_g5_parse_resolve_odds_raise_only_d100error(data: Any) -> None:
    parsed = only_d100_errors(d100.parse, data)
    result = only_d100_errors(d100.resolve, data, random.Random(0))
    if result is not None:
        json.dumps(result.to_dict())
    if parsed is not None:
        assert d100.parse(parsed.to_dict()) == parsed  # a request's dict parses back to it
        found = only_d100_errors(d100.odds, parsed)
        if found is not None:
            shares = found.levels if isinstance(found, d100.CheckOdds) else found.winner
            assert sum(shares.values()) == 1


@st.composite
def replaced(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A parsed request and a change to one of its fields, drawn from that field's table."""
    system = draw(st.sampled_from(SYSTEMS))
    parsed = draw(request_of(system.check_fields, bad=False).map(_parsed).filter(bool))
    names = {f.name: f for f in system.check_fields}
    own = [f.name for f in dataclasses.fields(parsed) if f.name in names]
    name = draw(st.sampled_from(own))
    return parsed, {name: draw(value_of(names[name]))}


@pytest.mark.slow
@FUZZ
@given(replaced())
def test_g5_request_objects_built_directly_raise_only_d100error(case: Any) -> None:
    parsed, change = case
    built = only_d100_errors(dataclasses.replace, parsed, **change)
    if built is None:
        return
    hash(built)  # requests are frozen and hashable: odds are memoised by them
    only_d100_errors(d100.resolve, built, random.Random(0))
    if built.to_dict().get("dice") is None:
        only_d100_errors(d100.odds, built)


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: d100.OpenQuestCheck(skill=50, dice=(0,)), "dice[0]"),  # rule: G1
        (lambda: d100.OpenQuestCheck(skill=250), "skill"),  # rule: OQ1
        (lambda: d100.BrpCheck(skill=50, bonus_dice=9), "bonus_dice"),  # rule: BRP4
        (lambda: d100.BrpCheck(skill=50, luck_boost=1), "luck_boost"),  # rule: BRP7
        (lambda: d100.ChancesCheck(skill=50, risk=-1), "risk"),  # rule: CH2
        (lambda: d100.ChancesCheck(skill=50, assisters=({"skill": 5},)), "assisters[0]"),
        (lambda: d100.OpenQuestCheck(skill=50, assist={"skill": 5}), "assist"),
    ],
)
def test_g5_request_classes_validate_when_built(build: Any, field: str) -> None:
    with pytest.raises(d100.BadInput) as err:
        build()
    assert err.value.field == field


def test_g5_lists_given_to_a_request_class_become_tuples() -> None:
    check = d100.BrpCheck(skill=50, modifiers=[10, -5])  # type: ignore[arg-type]  # rule: BRP1
    assert check.modifiers == (10, -5)
    assert d100.odds(check).levels == d100.odds({"system": "brp", "skill": 55}).levels
