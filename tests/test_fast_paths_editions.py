"""The editions' fast odds paths equal the reference enumeration exactly (G4), over the tables the
bench times, and the lookup tables behind them read every draw as the rules read it, checked
against digits read by hand here."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

import d100
from d100 import tallies
from d100.batch import _tens_kept
from d100.systems import rqg
from d100.systems.brp import Attempt, tens_ends, tens_kept
from d100.systems.coc7_check import Pool, _pool
from d100.systems.coc7_rules import DIFFICULTIES

SKILLS = range(101)


def _agree(request: Any) -> None:
    fast, ref = tallies.tally(request), tallies.reference(request)
    assert fast.fractions() == ref.fractions(), request
    assert (fast.luck or 0) * ref.denominator == (ref.luck or 0) * fast.denominator, request


def _pool_request(net: int, **fields: Any) -> dict[str, Any]:
    return {"system": "coc7", "bonus_dice": max(net, 0), "penalty_dice": max(-net, 0), **fields}


def _read(tens: int, units: int) -> int:
    """G1, independently: 00 with 0 is 100."""
    return 10 * tens + units if (tens, units) != (0, 0) else 100


def _by_hand(count: int, lower: bool) -> list[int]:
    """Every draw ``units + 10 * tens`` (tens digit i the i-th decimal digit): the readings of
    each tens digit over the one units digit, the lowest or highest kept (C7-3, BRP4)."""
    out = [0] * 10 ** (count + 1)
    for units in range(10):
        for digits in product(range(10), repeat=count):
            draw = units + 10 * sum(d * 10**i for i, d in enumerate(digits))
            readings = [_read(d, units) for d in digits]
            out[draw] = min(readings) if lower else max(readings)
    return out


@pytest.mark.parametrize("net", [-2, -1, 1, 2])
def test_c7_3_every_tens_draw_is_kept_as_the_rule_reads_it(net: int) -> None:
    count, lower = abs(net) + 1, net > 0
    expected = _by_hand(count, lower)
    assert list(tens_kept(count, lower)) == expected
    assert [kept for _, kept in tens_ends(count, lower)] == expected
    assert _tens_kept(count, lower).tolist() == expected  # the sampler's table
    attempt = Attempt(_pool(net), "dice")
    assert [attempt.advance((0, 0), d)[1] for d in range(len(expected))] == expected
    pool = Pool(attempt)  # CoC7's machine over the same draw
    assert [pool.advance(pool.start(), d) for d in range(len(expected))] == expected


@pytest.mark.parametrize("net", range(-2, 3))
def test_c7_2_c7_3_checks_every_skill_difficulty_and_pool(net: int) -> None:
    """The bench's table, cold: every required level over every pool, so that the pools share
    the naming of their kept dice and count it by runs of one level."""
    tallies.clear_caches()
    for skill in SKILLS:
        for difficulty in DIFFICULTIES:
            _agree(d100.parse(_pool_request(net, skill=skill, difficulty=difficulty)))


@pytest.mark.parametrize("net", [-1, 0, 2])
def test_c7_4_c7_8_luck_combined_and_house_rules_through_the_table(net: int) -> None:
    """The table's other paths: Luck bought (C7-4), a combined roll (C7-8), BCDice's fumbles
    at critical difficulty, and targets past 100 (C7-1)."""
    for skill in range(0, 131, 7):
        for difficulty in DIFFICULTIES:
            for extra in (
                {"luck": 0},
                {"luck": 12},
                {"luck": 100},
                {"combined": [skill // 2, 90]},
                {"house_rules": {"critical_difficulty_fumbles": True}},
                {"modifiers": [-30]},
            ):
                _agree(d100.parse(_pool_request(net, skill=skill, difficulty=difficulty, **extra)))


def test_c7_5_a_push_takes_the_reference_and_agrees() -> None:
    for skill in range(0, 101, 9):
        for rules in ({}, {"allow_push_fumbles": True}):
            request = _pool_request(1, skill=skill, push=True, house_rules=rules)
            _agree(d100.parse(request))


@pytest.mark.parametrize("zero", ["resolve", "fail"])
def test_rq1_rq2_checks_every_skill_modifier_and_multiplier(zero: str) -> None:
    tallies.clear_caches()
    house = {"zero_chance": zero}
    for skill in SKILLS:
        for modifier in range(-40, 41, 20):
            _agree(
                d100.parse(
                    {"system": "rqg", "skill": skill, "modifiers": [modifier], "house_rules": house}
                )
            )
    for characteristic in range(26):
        for multiplier in rqg.MULTIPLIERS:
            _agree(
                d100.parse(
                    {
                        "system": "rqg",
                        "characteristic": characteristic,
                        "multiplier": multiplier,
                        "house_rules": house,
                    }
                )
            )
    for active, passive in ((3, 18), (10, 10), (21, 3)):
        resistance = {"active": active, "passive": passive}
        _agree(d100.parse({"system": "rqg", "resistance": resistance, "house_rules": house}))


def test_rq1_a_judge_names_every_roll_as_level_does() -> None:
    for chance in (-20, -1, 0, 1, 5, 37, 95, 100, 130, 480):
        for rule in ("resolve", "fail"):
            judge = rqg.judge(chance, rule, False)
            for roll in range(1, 101):
                expected = rqg.level(roll, judge.chance) if judge.rolls else "failure"
                assert judge.level(roll) == expected, (chance, rule, roll)
            assert judge.level(None) == "failure"


def test_rq2_whole_and_half_multipliers_round_as_before() -> None:
    """RQ-2: a characteristic times its multiplier, halves rounded up, then the modifiers."""
    for characteristic in range(0, 30):
        for multiplier in rqg.MULTIPLIERS:
            for modifiers in ((), (-7,), (15, -3)):
                check = rqg.RqgCheck(
                    characteristic=characteristic, multiplier=multiplier, modifiers=modifiers
                )
                exact = characteristic * 2 * multiplier  # twice the product: an integer
                expected = -(-int(exact) // 2) + sum(modifiers)
                assert check.raw == expected, (characteristic, multiplier, modifiers)


def test_c7_6_c7_7_rq3_contests_through_the_ranking() -> None:
    for a, o in ((0, 0), (5, 95), (50, 50), (99, 1), (100, 100), (37, 64)):
        for response in (None, "dodge", "fight_back", "maneuver"):
            contest: dict[str, Any] = {
                "system": "coc7",
                "actor": {"skill": a, "bonus_dice": 1},
                "opponent": {"skill": o},
            }
            if response is not None:
                contest["response"] = response
            _agree(d100.parse(contest))
        _agree(d100.parse({"system": "rqg", "actor": {"skill": a}, "opponent": {"skill": o}}))
