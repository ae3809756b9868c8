"""brp-uge, BRP's Universal Game Engine as the C++ port reads it (EDITIONS BU-1..BU-3), against
an oracle written here from EDITIONS.md's formulas."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

import d100
from d100 import tallies
from d100.systems import brp_uge
from tests.helpers import brute_force, nonzero, odds_map

NAME = "brp-uge"
CHANCES = [*range(101), 101, 120, 150, 200, 300]
ROLLS = range(1, 101)
LEVELS = ("critical", "special", "success", "failure", "fumble")
STEP = {"fumble": -1, "failure": 0, "success": 1, "special": 2, "critical": 3}
NAMED = {v: k for k, v in STEP.items()}
HELP = {"fumble": -50, "failure": -10, "success": 20, "special": 30, "critical": 50}


def oracle(r: int, s: int) -> str:
    """EDITIONS BU-1: crit ⌈S/20⌉, spec ⌈S/5⌉; over S a fumble iff r >= 95 + crit."""
    crit, spec = math.ceil(s / 20), math.ceil(s / 5)
    if r > s:
        return "fumble" if r >= 95 + crit else "failure"
    return "critical" if r <= crit else "special" if r <= spec else "success"


def check(dice: list[int] | None = None, **kw: Any) -> d100.CheckResult:
    result = d100.resolve({"system": NAME, **kw, "dice": dice or []})
    assert isinstance(result, d100.CheckResult)
    return result


def contest(a: dict[str, Any], o: dict[str, Any], **kw: Any) -> d100.ContestResult:
    result = d100.resolve({"system": NAME, "actor": a, "opponent": o, **kw})
    assert isinstance(result, d100.ContestResult)
    return result


def side(skill: int, roll: int, **kw: Any) -> dict[str, Any]:
    return {"skill": skill, "dice": [roll], **kw}


# -- BU-1 levels -------------------------------------------------------------------------------


def test_bu_1_full_grid_of_levels_against_the_oracle() -> None:
    for s in CHANCES:
        for r in ROLLS:
            assert check([r], skill=s).level == oracle(r, s), (s, r)


@pytest.mark.parametrize("modifier", [-1, -20, -21, -100])
def test_bu_1_chances_below_zero_are_not_raised(modifier: int) -> None:
    for r in ROLLS:
        result = check([r], skill=0, modifiers=[modifier])
        assert result.target == modifier and result.level == oracle(r, modifier)


def test_bu_1_editions_examples() -> None:
    # S = 0 always fails and fumbles on 95-00
    assert [check([r], skill=0).level for r in (1, 94, 95, 100)] == [
        "failure",
        "failure",
        "fumble",
        "fumble",
    ]
    # no 95 cap: S 100 succeeds on 00; S 99 fumbles only on 00 (95 + 5)
    assert check([100], skill=100).level == "success"
    assert [check([r], skill=99).level for r in (96, 99, 100)] == ["success", "success", "fumble"]
    # both thresholds round up: S 6 has special on 02
    assert check([2], skill=6).level == "special"
    # S 120: crit 06, spec 24, nothing fails
    assert check([6], skill=120).level == "critical" and check([100], skill=120).level == "success"


# -- BU-2 difficulty, modifiers, resistance, cooperation ---------------------------------------


def test_bu_2_difficulty_presets_exact_against_the_formulas() -> None:
    for s in range(301):
        assert check([50], skill=s, difficulty="easy").target == 2 * s
        assert check([50], skill=s, difficulty="difficult").target == math.ceil(s / 2)
        assert check([50], skill=s, difficulty="impossible").target == 1
        assert check([50], skill=s).target == s  # average is the default


def test_bu_2_permanent_modifiers_before_the_difficulty_others_after() -> None:
    assert check([50], skill=50, difficulty="difficult", permanent_modifiers=[10]).target == 30
    assert check([50], skill=50, difficulty="difficult", modifiers=[10]).target == 35
    easy = check([50], skill=50, difficulty="easy", permanent_modifiers=[-5], modifiers=[3])
    assert easy.target == 93
    assert check([1], skill=50, difficulty="impossible", modifiers=[10]).target == 11
    # (S + 1) >> 1 on a negative S is still ⌈S/2⌉
    assert check([50], skill=0, difficulty="difficult", permanent_modifiers=[-7]).target == -3


def test_bu_2_automatic_is_the_port_s_chance_of_a_million() -> None:
    # EDITIONS BU-2: Automatic (1,000,000): ⌈S/20⌉ = 50,000, so every roll is a critical
    for r in (1, 50, 99, 100):
        result = check([r], skill=5, difficulty="automatic", modifiers=[-10])
        assert (result.level, result.target, result.roll) == ("critical", 999_990, r)
    assert odds_map({"system": NAME, "skill": 5, "difficulty": "automatic"})["critical"] == 1
    with pytest.raises(d100.D100Error) as err:
        check(None, skill=5, difficulty="automatic")
    assert err.value.kind == "dice" and err.value.field == "dice"


@pytest.mark.parametrize(("active", "passive"), [(10, 10), (12, 10), (5, 18), (20, 5), (3, 30)])
def test_bu_2_resistance_is_50_plus_5_per_point(active: int, passive: int) -> None:
    s = 50 + 5 * (active - passive)  # not clamped: 125 succeeds on 00, -25 never succeeds
    for r in ROLLS:
        result = check([r], resistance={"active": active, "passive": passive})
        assert result.target == s and result.level == oracle(r, s)


def test_bu_2_skill_against_skill_is_50_plus_the_difference() -> None:
    assert check([80], versus={"active": 70, "passive": 40}).target == 80
    assert check([81], versus={"active": 70, "passive": 40}).level == "failure"
    assert check([50], versus={"active": 40, "passive": 70}, difficulty="easy").target == 40


@pytest.mark.parametrize("helper_roll", [1, 2, 9, 10, 40, 60, 99, 100])
def test_bu_2_cooperation_adds_by_the_helpers_level(helper_roll: int) -> None:
    helper = {"skill": 40, "dice": [helper_roll]}
    result = check([70], skill=55, assist=helper)
    bonus = HELP[oracle(helper_roll, 40)]
    assert result.assist is not None and result.assist.level == oracle(helper_roll, 40)
    assert result.target == 55 + bonus and result.level == oracle(70, 55 + bonus)


def test_bu_2_cooperation_odds_mix_the_helpers_levels() -> None:
    expected = dict.fromkeys(LEVELS, Fraction(0))
    for h in ROLLS:
        s = 55 + HELP[oracle(h, 40)]
        for r in ROLLS:
            expected[oracle(r, s)] += Fraction(1, 10_000)
    assert odds_map({"system": NAME, "skill": 55, "assist": {"skill": 40}}) == expected


# -- BU-3 opposed ------------------------------------------------------------------------------


def port_oppose(a: str, a_roll: int, o: str, o_roll: int) -> tuple[str, str]:
    """OpposeSkillRoll from the active side: the winner and the active side's result level."""
    if a == o:
        return ("actor", "success") if o_roll < a_roll else ("opponent", "failure")
    steps = min(max(STEP[a] - STEP[o], -1), 3)
    return ("actor" if STEP[a] > STEP[o] else "opponent"), NAMED[steps]


@pytest.mark.parametrize(
    ("a", "o", "winner", "degree"),
    [
        (side(60, 50), side(60, 40), "actor", "success"),  # same level: the higher roll
        (side(60, 40), side(60, 50), "opponent", "failure"),
        (side(60, 45), side(60, 45), "opponent", "failure"),  # equal rolls: the opposed side
        (side(50, 80), side(50, 70), "actor", "success"),  # two failures: the higher roll too
        (side(60, 3), side(60, 40), "actor", "special"),  # critical over success: 2 steps
        (side(60, 40), side(60, 70), "actor", "success"),  # 1 step
        (side(60, 70), side(60, 40), "opponent", "fumble"),  # -1
        (side(60, 3), side(60, 99), "actor", "critical"),  # 4 steps, held at critical
        (side(60, 99), side(60, 3), "opponent", "fumble"),  # -4, clamped at fumble
    ],
)
def test_bu_3_opposed_rolls(a: dict[str, Any], o: dict[str, Any], winner: str, degree: str) -> None:
    result = contest(a, o)
    assert (result.winner, result.degree) == (winner, degree)


def test_bu_3_every_pair_of_rolls_against_the_port_reading() -> None:
    for sa, so in ((60, 60), (30, 90), (100, 5)):
        for ra in range(1, 101, 3):
            for ro in range(1, 101, 5):
                got = contest(side(sa, ra), side(so, ro))
                expected = port_oppose(oracle(ra, sa), ra, oracle(ro, so), ro)
                assert (got.winner, got.degree) == expected, (sa, ra, so, ro)


def test_bu_3_larger_margin_house_rule() -> None:
    rules = {"same_level": "larger_margin"}
    a, o = side(55, 50), side(90, 40)  # both successes; margins 5 and 50
    assert contest(a, o).winner == "actor"  # the higher roll
    assert contest(a, o, house_rules=rules).winner == "opponent"  # the larger margin
    assert contest(side(60, 50), side(30, 20), house_rules=rules).winner == "tie"  # 10 and 10
    # different levels: the level still decides
    assert contest(side(60, 3), side(90, 60), house_rules=rules).winner == "actor"


@pytest.mark.parametrize(("sa", "so"), [(60, 60), (80, 45), (0, 0), (120, 30), (7, 100)])
@pytest.mark.parametrize("rule", ["higher_roll", "larger_margin"])
def test_bu_3_contest_odds_against_the_port_reading(sa: int, so: int, rule: str) -> None:
    expected = dict.fromkeys(("actor", "opponent", "tie", "none"), Fraction(0))
    for ra in ROLLS:
        for ro in ROLLS:
            a, o = oracle(ra, sa), oracle(ro, so)
            if rule == "larger_margin" and a == o:
                ma, mo = sa - ra, so - ro
                winner = "tie" if ma == mo else "actor" if ma > mo else "opponent"
            else:
                winner = port_oppose(a, ra, o, ro)[0]
            expected[winner] += Fraction(1, 10_000)
    request = {
        "system": NAME,
        "actor": {"skill": sa},
        "opponent": {"skill": so},
        "house_rules": {"same_level": rule},
    }
    assert odds_map(request) == expected


# -- odds: brute force, fast paths -------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "request_",
    [
        {"skill": 60},
        {"skill": 45, "difficulty": "easy", "permanent_modifiers": [5], "modifiers": [-10]},
        {"resistance": {"active": 14, "passive": 11}},
        {"skill": 30, "assist": {"skill": 65, "difficulty": "difficult"}},
        {"actor": {"skill": 70}, "opponent": {"skill": 55, "difficulty": "difficult"}},
    ],
)
def test_bu_odds_equal_brute_force(request_: dict[str, Any]) -> None:  # rule: BU-1, BU-2, BU-3
    request = {"system": NAME, **request_}
    assert nonzero(odds_map(request)) == nonzero(brute_force(request))


def test_bu_fast_paths_equal_the_reference() -> None:  # rule: BU-1, BU-2, BU-3
    requests: list[dict[str, Any]] = []
    for s in (0, 1, 33, 60, 100, 150):
        for preset in brp_uge.DIFFICULTIES:
            requests.append({"skill": s, "difficulty": preset})
        requests.append({"versus": {"active": s, "passive": 40}})
    for sa, so in ((60, 60), (80, 45), (3, 200)):
        requests.append({"actor": {"skill": sa}, "opponent": {"skill": so}})
    for request in requests:
        parsed = d100.parse({"system": NAME, **request})
        tallies._TALLY.cache_clear()
        assert tallies.tally(parsed).fractions() == tallies.reference(parsed).fractions()


def test_bu_a_helpers_dice_stay_in_its_result() -> None:  # rule: BU-2
    result = check([70], skill=55, assist={"skill": 40, "dice": [5]})
    assert result.dice == (70,) and result.assist is not None and result.assist.dice == (5,)
    assert result.to_dict()["request"]["assist"] == {
        "skill": 40,
        "difficulty": "average",
        "modifiers": [],
        "permanent_modifiers": [],
        "dice": [5],
    }


# -- bad input ---------------------------------------------------------------------------------

PAIR, SIDE = {"active": 1, "passive": 1}, {"skill": 5}


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({"skill": 50, "resistance": {"active": 10, "passive": 10}}, "resistance"),
        ({"versus": {"active": 10, "passive": 10}, "resistance": PAIR}, "versus"),
        ({}, "skill"),
        ({"skill": 1001}, "skill"),
        ({"skill": 50, "difficulty": "hard"}, "difficulty"),
        ({"skill": 50, "permanent_modifiers": [2000]}, "permanent_modifiers[0]"),
        ({"versus": {"active": 10}}, "versus.passive"),
        ({"skill": 50, "assist": {"skill": 40, "assist": {"skill": 3}}}, "assist.assist"),
        ({"skill": 50, "house_rules": {"same_level": "lower_roll"}}, "house_rules.same_level"),
        ({"actor": SIDE, "opponent": {"skill": 5, "assist": {"skill": 3}}}, "opponent.assist"),
    ],
)
def test_bu_bad_input_names_the_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.odds({"system": NAME, **request_})
    assert err.value.field == field


def test_bu_declares_its_levels_and_cooperation() -> None:
    system = d100.REGISTRY.get(NAME)
    declared = system.declares
    assert tuple(s.name for s in declared.levels) == system.levels == LEVELS
    assert {s.name for s in declared.levels if s.success} == system.success_levels
    assert declared.assistance is not None and declared.assistance.field == "assist"
    assert declared.commands is None  # BCDice 3.16.1 has no BRP game system
    options = declared.options({"system": NAME, "skill": 40}, None, {"Ann": {"skill": 60}})
    assert [o.name for o in options] == ["assisted by Ann"]
    assert options[0].change({"skill": 40})["assist"] == {"skill": 60}


# -- BU-4: melee against a parry or a dodge ----------------------------------------------------

# The port's own expectations, Tests.mm testCombatResult (astrolabetools/BasicRoleplaying
# @0aae0ba, CombatSim/Tests/Tests.mm 93-130): attack level x defence level -> (outcome,
# attacker fumbles, attacking weapon's damage, defender fumbles, parrying weapon's damage).
PORT_MATRIX = {
    "critical": [
        ("failure", False, 0, False, 0), ("success", False, 0, False, 2),
        ("special", False, 0, False, 4), ("critical", False, 0, False, 0),
        ("critical", False, 0, True, 0),
    ],
    "special": [
        ("failure", False, 1, False, 0), ("failure", False, 0, False, 0),
        ("success", False, 0, False, 2), ("special", False, 0, False, 0),
        ("special", False, 0, True, 0),
    ],
    "success": [
        ("failure", False, 2, False, 0), ("failure", False, 1, False, 0),
        ("failure", False, 0, False, 0), ("success", False, 0, False, 0),
        ("success", False, 0, True, 0),
    ],
    "failure": [("failure", False, 0, False, 0)] * 5,
    "fumble": [("fumble", True, 0, False, 0)] * 5,
}
DEFENCES = ("critical", "special", "success", "failure", "fumble")
# A die giving each level at skill 60 (criticals 01-03, specials 04-12, fumbles 98-00)
DIE_FOR = {"critical": 2, "special": 8, "success": 40, "failure": 80, "fumble": 99}


@pytest.mark.parametrize("attack", list(PORT_MATRIX))
def test_bu_4_the_combat_matrix_of_the_port(attack: str) -> None:
    for defence, expected in zip(DEFENCES, PORT_MATRIX[attack], strict=True):
        hit = brp_uge.blow(attack, defence, "parry")
        got = (hit.outcome, hit.attacker_fumbles, hit.attack_weapon, hit.defender_fumbles,
               hit.parry_weapon)
        assert got == expected, (attack, defence)
        dodged = brp_uge.blow(attack, defence, "dodge")
        assert (dodged.outcome, dodged.attack_weapon, dodged.parry_weapon) == (
            expected[0], 0, 0), "a dodge damages no weapon"
        result = d100.resolve({
            "system": "brp-uge", "response": "parry",
            "actor": {"skill": 60, "dice": [DIE_FOR[attack]]},
            "opponent": {"skill": 60, "dice": [DIE_FOR[defence]]},
        })
        won = "none" if attack in ("failure", "fumble") else (
            "actor" if expected[0] not in ("failure", "fumble") else "opponent")
        assert (result.winner, result.degree) == (won, expected[0])


@pytest.mark.slow
@pytest.mark.parametrize("response", ["parry", "dodge"])
@pytest.mark.parametrize(("a", "o"), [(60, 60), (95, 30), (20, 110)])
def test_bu_4_melee_odds_are_brute_force(response: str, a: int, o: int) -> None:
    request = {"system": "brp-uge", "actor": {"skill": a}, "opponent": {"skill": o},
               "response": response}
    assert {k: v for k, v in odds_map(request).items() if v} == brute_force(request)


def test_bu_4_response_is_a_choice() -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.parse({"system": "brp-uge", "actor": {"skill": 60}, "opponent": {"skill": 60},
                    "response": "block"})
    assert err.value.field == "response"
