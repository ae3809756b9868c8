"""rqg, RQ-1..RQ-3 (EDITIONS.md section 4): the levels of the full grid against the formulas
written out here (EDITIONS.md's, BCDice's order and RQG for Foundry's lookup), the worked
examples, both zero-chance readings (decision 3), the targets, contests with both over-100
readings (decision 4), exact odds against brute force, BCDice's command forms, bad input."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import jsonschema
import pytest

import d100
from d100 import schema
from d100.batch import sample
from d100.systems import rqg
from tests.helpers import brute_force, nonzero, odds_map

GRID = [*range(-20, 101), 101, 110, 120, 150, 200]
ROLLS = range(1, 101)
WINS = ("critical", "special", "success")


# -- the rules as EDITIONS.md states them, written out independently ---------------------------


def half_up(n: int, d: int) -> int:
    return math.floor(Fraction(n, d) + Fraction(1, 2))


def ruby_round(q: Fraction) -> int:
    """Ruby's Float#round: halves away from zero."""
    whole = math.floor(abs(q) + Fraction(1, 2))
    return whole if q >= 0 else -whole


def editions(r: int, s: int) -> str:
    """RQ-1 in EDITIONS.md's lookup, for the chance resolved as max(0, S) (decision 3)."""
    s = max(0, s)
    crit = max(1, half_up(s, 20))
    spec = max(1, half_up(s, 5))
    fumble_from = min(100, 101 - half_up(100 - s, 20))
    succ = min(95, max(s, 5))
    if r <= crit:
        return "critical"
    if r <= spec:
        return "special"
    if r <= succ:
        return "success"
    if r >= fumble_from:
        return "fumble"
    return "failure"


def bcdice(r: int, s: int) -> str | None:
    """BCDice's get_roll_result, checked in its own order; None: RQG<=0 fails without a roll."""
    if s == 0:
        return None
    crit = ruby_round(Fraction(s, 20))
    spec = ruby_round(Fraction(s, 5))
    fum = ruby_round(Fraction(100 - s, 20))
    if r == 1 or r <= crit:
        return "critical"
    if r == 100 or r >= 100 - fum + 1:
        return "fumble"
    if r >= 96 or (r > s and r > 5):
        return "failure"
    if r <= spec:
        return "special"
    return "success"


def foundry(r: int, s: int) -> str:
    """RQG for Foundry's lookup as EDITIONS.md gives its formulas: each threshold capped at 95,
    then the fail limit before the fumbles."""
    c = max(0, s)
    crit = min(95, max(1, (c + 10) // 20))
    spec = min(95, max(1, (c + 2) // 5))
    succ = min(95, max(c, 5))
    fumble_from = min(100, 101 - half_up(100 - c, 20))
    fail_limit = 95 if fumble_from == 96 else max(96, fumble_from - 1)
    for limit, lvl in ((crit, "critical"), (spec, "special"), (succ, "success")):
        if r <= limit:
            return lvl
    return "failure" if r <= fail_limit else "fumble"


def ladder(a: str, o: str) -> str:
    """RQ-3 as EDITIONS.md words it, with this edition's choice for two failures."""
    rank = {"critical": 3, "special": 2, "success": 1}
    if a not in rank and o not in rank:
        return "none"
    ra, ro = rank.get(a, 0), rank.get(o, 0)
    return "tie" if ra == ro else "actor" if ra > ro else "opponent"


# -- requests ----------------------------------------------------------------------------------


def chance(s: int) -> dict[str, Any]:
    """A request part whose chance is s: a negative one as a modifier of skill 0."""
    return {"skill": s} if s >= 0 else {"skill": 0, "modifiers": [s]}


def check(dice: list[int] | None = None, house: dict[str, str] | None = None, **kw: Any) -> Any:
    request: dict[str, Any] = {"system": "rqg", **kw, "dice": dice or []}
    if house:
        request["house_rules"] = house
    result = d100.resolve(request)
    assert isinstance(result, d100.CheckResult)
    return result


FAIL = {"zero_chance": "fail"}


# -- RQ-1 ----------------------------------------------------------------------------------------


def test_rq1_full_grid_resolve_against_editions() -> None:
    # rule: RQ-1 (decision 3: a chance at or below 0 resolved as 0)
    for s in GRID:
        for r in ROLLS:
            result = check([r], **chance(s))
            assert result.level == editions(r, s), (s, r)
            assert result.target == max(0, s) and result.roll == r
            assert result.success == (result.level in WINS)


def test_rq1_full_grid_bcdice_reading_against_bcdice() -> None:
    # rule: RQ-1 (house rule zero_chance: fail, BCDice's reading, its own order)
    for s in GRID:
        if s == 0:
            result = check(None, FAIL, skill=0)
            assert (result.level, result.roll, result.dice, result.margin) == (
                "failure",
                None,
                (),
                None,
            )
            continue
        for r in ROLLS:
            result = check([r], FAIL, **chance(s))
            assert result.level == bcdice(r, s), (s, r)
            assert result.target == s


def test_rq1_references_agree_where_editions_says_they_do() -> None:
    # rule: RQ-1: BCDice and RQG for Foundry agree for every S >= 1 and for S = -5
    for s in [s for s in GRID if s >= 1] + [-5]:
        for r in ROLLS:
            assert bcdice(r, s) == editions(r, s) == foundry(r, s), (s, r)
    differs = {(s, r) for s in (0, -10, -99) for r in ROLLS if bcdice(r, s) != editions(r, s)}
    assert (0, 1) in differs and (-10, 95) in differs and (-99, 91) in differs


def test_rq1_caps_criticals_and_specials_at_95_as_foundry_does() -> None:
    # rule: RQ-1: 96-00 never succeed, however high the chance (specials would reach 96 at
    # S 478, criticals at S 1,910 without the cap)
    for s in range(1, 2101):
        for r in ROLLS:
            assert rqg.level(r, s) == foundry(r, s), (s, r)
    assert check([96], skill=500).level == "failure"
    assert check([95], skill=1000).level == "special"
    assert check([95], skill=1000, modifiers=[1000]).level == "critical"
    assert check([100], skill=1000, modifiers=[1000]).level == "fumble"


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        # S 60: crit 03, spec 12, fumble 99-00
        (60, {1: "critical", 3: "critical", 4: "special", 12: "special", 13: "success"}),
        (60, {60: "success", 61: "failure", 98: "failure", 99: "fumble", 100: "fumble"}),
        # S 110: crit 06, spec 22, 96-99 failure, 00 fumble
        (110, {6: "critical", 7: "special", 22: "special", 23: "success", 95: "success"}),
        (110, {96: "failure", 99: "failure", 100: "fumble"}),
        # S 1: 01 critical, 02-05 success, 96-00 fumble
        (1, {1: "critical", 2: "success", 5: "success", 6: "failure", 95: "failure"}),
        (1, {96: "fumble", 100: "fumble"}),
    ],
)
def test_rq1_worked_examples(s: int, expected: dict[int, str]) -> None:
    for r, lvl in expected.items():
        assert check([r], skill=s).level == lvl, r


def test_rq1_zero_and_below_both_readings() -> None:
    # rule: RQ-1, decision 3: resolved as 0 by default: 01 critical, 02-05 success, 96-00 fumble
    for s in (0, -10, -99):
        got = {r: check([r], **chance(s)).level for r in (1, 2, 5, 6, 95, 96, 100)}
        assert got == {
            1: "critical",
            2: "success",
            5: "success",
            6: "failure",
            95: "failure",
            96: "fumble",
            100: "fumble",
        }
    # BCDice: 0 fails without a roll; S -10 fumbles from 95 and S -99 from 91
    assert check(None, FAIL, skill=0).roll is None
    assert check([94], FAIL, skill=0, modifiers=[-10]).level == "failure"
    assert check([95], FAIL, skill=0, modifiers=[-10]).level == "fumble"
    assert check([90], FAIL, skill=0, modifiers=[-99]).level == "failure"
    assert check([91], FAIL, skill=0, modifiers=[-99]).level == "fumble"
    assert check([1], FAIL, skill=0, modifiers=[-99]).level == "critical"
    with pytest.raises(d100.DiceError):  # no roll: given dice are left over
        check([50], FAIL, skill=0)


# -- RQ-2 ----------------------------------------------------------------------------------------


def test_rq_2_ability_is_skill_plus_modifiers() -> None:
    assert check([50], skill=50, modifiers=[20, -5]).target == 65
    assert check([50], skill=10, modifiers=[-30]).target == 0
    assert check([50], FAIL, skill=10, modifiers=[-30]).target == -20
    assert check([50], skill=150).target == 150


@pytest.mark.parametrize("m", [0.5, 1, 2, 3, 4, 5, 6])
def test_rq_2_characteristic_times_multiplier_rounded_up(m: float) -> None:
    for char in range(26):
        for mods in ([], [-3], [7], [-200]):
            expected = math.ceil(max(0, char * Fraction(m) + sum(mods)))
            result = check([50], characteristic=char, multiplier=m, modifiers=mods)
            assert result.target == expected, (char, m, mods)


def test_rq_2_characteristic_defaults_to_times_5_and_reads_json_numbers() -> None:
    assert check([50], characteristic=15).target == 75
    assert check([50], characteristic=15, multiplier=0.5).target == 8  # 7.5 rounded up
    assert check([50], characteristic=15, multiplier=0.5, modifiers=[-3]).target == 5  # 4.5
    five = check([50], characteristic=15, multiplier=5.0)
    assert five.target == 75 and five.request["multiplier"] == 5
    assert isinstance(five.request["multiplier"], int)


def test_rq_2_characteristic_of_0_under_bcdice_fails_without_a_roll() -> None:
    result = check(None, FAIL, characteristic=0)
    assert result.roll is None and result.level == "failure"


def test_rq_2_resistance_is_50_plus_5_per_point_at_least_minus_10() -> None:
    for active in range(26):
        for passive in range(26):
            for mods in ([], [20]):
                expected = 50 + 5 * max(active - passive, -10) + sum(mods)
                side = {"active": active, "passive": passive}
                result = check([50], resistance=side, modifiers=mods)
                assert result.target == expected, (active, passive, mods)
    assert check([50], resistance={"active": 3, "passive": 20}).target == 0


def test_rq_2_a_resistance_of_0_is_rolled_even_under_bcdice() -> None:
    # BCDice's RES judges a chance of 0 like any other (only RQG<=0 fails unrolled)
    zero = {"active": 0, "passive": 10}
    assert check([1], FAIL, resistance=zero).level == "critical"
    assert check([5], FAIL, resistance=zero).level == "success"
    assert check([96], FAIL, resistance=zero).level == "fumble"
    assert check([50], FAIL, resistance=zero, modifiers=[-10]).level == "failure"
    assert check([95], FAIL, resistance=zero, modifiers=[-10]).level == "fumble"  # S -10


# -- RQ-3 ----------------------------------------------------------------------------------------


def contest(a: dict[str, Any], o: dict[str, Any], house: dict[str, str] | None = None) -> Any:
    request: dict[str, Any] = {"system": "rqg", "actor": a, "opponent": o}
    if house:
        request["house_rules"] = house
    return request


def oracle_contest(sa: int, so: int, rule: str, zero: str = "resolve") -> dict[str, Fraction]:
    """Both sides' rolls enumerated with the formulas above, after RQ-3's reduction."""
    over = max(sa - 100, so - 100, 0)
    if rule == "everyone" or (sa > 100 and so > 100):
        sa, so = sa - over, so - over
    elif sa > 100:
        so -= sa - 100
    elif so > 100:
        sa -= so - 100

    def levels(s: int) -> list[str]:
        if zero == "resolve":
            return [editions(r, s) for r in ROLLS]
        return ["failure"] if s == 0 else [str(bcdice(r, s)) for r in ROLLS]

    la, lo = levels(sa), levels(so)
    out = dict.fromkeys(("actor", "opponent", "tie", "none"), Fraction(0))
    for a in la:
        for o in lo:
            out[ladder(a, o)] += Fraction(1, len(la) * len(lo))
    return out


def test_rq3_over_100_takes_the_excess_off_everyone_by_default() -> None:
    # rule: RQ-3, decision 4: 150 vs 100 brings the attacker to 100 as well
    result = d100.resolve(contest({"skill": 150, "dice": [50]}, {"skill": 100, "dice": [50]}))
    assert (result.actor.target, result.opponent.target) == (100, 50)
    assert "-50" in result.actor.explanation


def test_rq3_over_100_other_side_as_foundry() -> None:
    # rule: RQ-3, house rule over_100: other_side gives modifiers (0, -50)
    house = {"over_100": "other_side"}
    result = d100.resolve(
        contest({"skill": 150, "dice": [50]}, {"skill": 100, "dice": [50]}, house)
    )
    assert (result.actor.target, result.opponent.target) == (150, 50)
    mirror = d100.resolve(contest({"skill": 40, "dice": [5]}, {"skill": 130, "dice": [5]}, house))
    assert (mirror.actor.target, mirror.opponent.target) == (10, 130)
    for rule in ("everyone", "other_side"):  # both over 100: both lose the larger excess
        both = d100.resolve(
            contest({"skill": 120, "dice": [5]}, {"skill": 130, "dice": [5]}, {"over_100": rule})
        )
        assert (both.actor.target, both.opponent.target) == (90, 100)


def test_rq3_the_reduction_comes_before_the_levels() -> None:
    # a 6 is a critical at 150 (crit 08) but a special at 100 (crit 05)
    a, o = {"skill": 150, "dice": [6]}, {"skill": 100, "dice": [50]}
    assert d100.resolve(contest(a, o)).actor.level == "special"
    assert d100.resolve(contest(a, o, {"over_100": "other_side"})).actor.level == "critical"


def test_rq3_ladder_tie_unresolved_and_no_winner_when_both_fail() -> None:
    def winner(ra: int, ro: int) -> str:
        return str(
            d100.resolve(contest({"skill": 60, "dice": [ra]}, {"skill": 60, "dice": [ro]})).winner
        )

    assert winner(2, 10) == "actor"  # critical over special
    assert winner(10, 50) == "actor"  # special over success
    assert winner(50, 70) == "actor"  # a success over a failure
    assert winner(99, 70) == "none"  # a fumble and a failure: nobody wins
    assert winner(70, 80) == "none"
    assert winner(20, 60) == "tie"  # the same level: the situation is unresolved
    assert winner(1, 3) == "tie"
    assert winner(80, 12) == "opponent"


@pytest.mark.parametrize(
    ("sa", "so"),
    [(60, 40), (150, 100), (100, 150), (200, 50), (120, 130), (30, 30), (0, 100), (300, 10)],
)
@pytest.mark.parametrize("rule", ["everyone", "other_side"])
def test_rq3_contest_odds_against_the_oracle(sa: int, so: int, rule: str) -> None:
    request = contest({"skill": sa}, {"skill": so}, {"over_100": rule})
    assert odds_map(request) == oracle_contest(sa, so, rule)


def test_rq3_contest_odds_bcdice_reading_against_the_oracle() -> None:
    # 200 vs 100: the defender's chance goes to 0, which BCDice fails without a roll
    house = {"over_100": "everyone", "zero_chance": "fail"}
    for sa, so in ((200, 100), (250, 100), (0, 60)):
        request = contest({"skill": sa}, {"skill": so}, house)
        assert odds_map(request) == oracle_contest(sa, so, "everyone", "fail"), (sa, so)


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["everyone", "other_side"])
def test_rq3_contest_odds_equal_brute_force(rule: str) -> None:
    request = contest({"skill": 150}, {"characteristic": 17, "multiplier": 6}, {"over_100": rule})
    assert nonzero(odds_map(request)) == brute_force(request)


# -- exact odds (G4) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "s"),
    [
        ({"skill": 60}, 60),
        ({"skill": 110, "modifiers": [-5]}, 105),
        ({"skill": 0}, 0),
        ({"skill": 0, "house_rules": FAIL}, None),  # no roll
        ({"skill": 0, "modifiers": [-10], "house_rules": FAIL}, -10),
        ({"characteristic": 15, "multiplier": 0.5}, 8),
        ({"resistance": {"active": 9, "passive": 11}, "modifiers": [20]}, 60),
    ],
)
def test_rq1_odds_equal_brute_force_and_the_formula(
    request_: dict[str, Any], s: int | None
) -> None:
    request = {"system": "rqg", **request_}
    got = odds_map(request)
    assert nonzero(got) == brute_force(request)
    judge = bcdice if request_.get("house_rules") == FAIL else editions
    want = dict.fromkeys(rqg.LEVELS, Fraction(0))
    if s is None:
        want["failure"] = Fraction(1)
    else:
        for r in ROLLS:
            want[str(judge(r, s))] += Fraction(1, 100)
    assert got == want


# -- BCDice's command forms ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "request_"),
    [
        ("RQG<=80", {"skill": 80}),
        ("rqg<=80+20", {"skill": 80, "modifiers": [20]}),
        ("RQG<=80-25 a comment", {"skill": 80, "modifiers": [-25]}),
        ("RQG<=15*5/2", {"skill": 38}),  # 37.5 rounded half away from zero
        ("RQG<=(5/2)", {"skill": 2}),  # parentheses first, rounded down
        ("RQG<=10-20", {"skill": 10, "modifiers": [-20]}),
        ("RQG<=0", {"skill": 0}),
        ("RES(9-11)", {"resistance": {"active": 9, "passive": 11}}),
        ("RES(9-11)m20", {"resistance": {"active": 9, "passive": 11}, "modifiers": [20]}),
        ("RES(9-11)M-20", {"resistance": {"active": 9, "passive": 11}, "modifiers": [-20]}),
        ("res(9)m50", {"resistance": {"active": 9, "passive": 0}, "modifiers": [50]}),
        ("RES9-11", {"resistance": {"active": 0, "passive": 2}}),
        ("RES(2)M(5/2)", {"resistance": {"active": 2, "passive": 0}, "modifiers": [2]}),
    ],
)
def test_commands_read_bcdice_forms(text: str, request_: dict[str, Any]) -> None:
    assert rqg.commands(text) == {"system": "rqg", **request_}
    assert d100.parse(rqg.commands(text)).system == "rqg"


def test_commands_give_bcdice_targets() -> None:
    # the targets BCDice prints for these forms (its text "(1D100<=T)")
    for text, target in (
        ("RES(9-11)m20", 60),
        ("res(9)m50", 145),
        ("RES(3-20)", 0),
        ("RQG<=7/2", 4),
    ):
        request = rqg.commands(text)
        assert request is not None
        assert d100.resolve({**request, "dice": [50]}).target == target, text


@pytest.mark.parametrize(
    "text",
    ["RQG", "RQG<80", "RQG<=5/0", "RQG<=80-", "RSA(9)m20", "SRQG<=80", "RES(9-11)m", "CC<=65", ""],
)
def test_commands_leave_other_text_alone(text: str) -> None:
    assert rqg.commands(text) is None


# -- the declaration, bad input ------------------------------------------------------------------


def test_declaration_levels_and_sampler() -> None:
    declared = rqg.DECLARATION
    assert [spec.name for spec in declared.levels] == list(rqg.LEVELS)
    assert {spec.name for spec in declared.levels if spec.success} == rqg.SYSTEM.success_levels
    assert declared.commands is rqg.commands
    counts = sample({"system": "rqg", "skill": 60}, 2000, seed=3)
    assert sum(counts.values()) == 2000 and set(counts) <= set(rqg.LEVELS)
    counts = sample(contest({"skill": 150}, {"skill": 100}), 2000, seed=3)
    assert sum(counts.values()) == 2000
    zero = {"system": "rqg", "skill": 0, "house_rules": FAIL}
    assert sample(zero, 50, seed=1) == {"failure": 50}


def test_results_match_the_schema() -> None:
    valid = jsonschema.Draft202012Validator(schema.shipped("result"))
    requests = jsonschema.Draft202012Validator(schema.shipped("request"))
    for request in (
        {"system": "rqg", "characteristic": 12, "multiplier": 0.5, "dice": [3]},
        {"system": "rqg", "skill": 0, "house_rules": FAIL},
        contest({"skill": 150, "dice": [4]}, {"skill": 90, "dice": [4]}),
    ):
        requests.validate(request)
        valid.validate(d100.resolve(request).to_dict())


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({}, "skill"),
        ({"skill": 50, "characteristic": 10}, "characteristic"),
        ({"skill": 50, "resistance": {"active": 1, "passive": 2}}, "resistance"),
        ({"characteristic": 10, "resistance": {"active": 1, "passive": 2}}, "resistance"),
        ({"skill": 50, "multiplier": 2}, "multiplier"),
        ({"characteristic": 10, "multiplier": 7}, "multiplier"),
        ({"characteristic": 10, "multiplier": 0.25}, "multiplier"),
        ({"characteristic": 10, "multiplier": True}, "multiplier"),
        ({"skill": -1}, "skill"),
        ({"resistance": {"active": 1}}, "resistance.passive"),
        ({"skill": 50, "bonus_dice": 1}, "bonus_dice"),
        ({"skill": 50, "house_rules": {"zero_chance": "clamp"}}, "house_rules.zero_chance"),
        ({"skill": 50, "house_rules": {"over_100": "nobody"}}, "house_rules.over_100"),
        ({"actor": {"skill": 50}, "opponent": {}}, "opponent.skill"),
        (
            {"actor": {"skill": 5, "characteristic": 3}, "opponent": {"skill": 5}},
            "actor.characteristic",
        ),
        (
            {"actor": {"resistance": {"active": 1, "passive": 1}}, "opponent": {"skill": 5}},
            "actor.resistance",
        ),
    ],
)
def test_bad_input_names_the_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(d100.D100Error) as caught:
        d100.parse({"system": "rqg", **request_})
    assert caught.value.field == field
    assert caught.value.allowed


def test_request_objects_built_directly_are_held_to_the_same_rules() -> None:
    with pytest.raises(d100.D100Error) as caught:
        rqg.RqgCheck(skill=5, characteristic=3)
    assert caught.value.field == "characteristic"
    side = rqg.RqgCheck(resistance=rqg.Resistance(3, 4))
    with pytest.raises(d100.D100Error) as caught:
        rqg.RqgContest(side, rqg.RqgCheck(skill=4))
    assert caught.value.field == "actor.resistance"
