"""oq-system, OpenQuest as the Foundry oq-system plays it (EDITIONS OQS-1, OQS-2), against an
oracle written here from EDITIONS.md (roll.js getResult and getResultFeatures); its contests are
the seed openquest's (OQ7-OQ9)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import d100
from d100 import tallies
from tests.helpers import brute_force, nonzero, odds_map

NAME = "oq-system"
VALUES = [*range(101), 101, 120, 150, 200, 300]
DIFFICULTIES = [0, 50, 20, -20, -50, -150]
ROLLS = range(1, 101)
LEVELS = ("critical", "success", "failure", "fumble")
UNMODIFIED = {"master": "unmodified"}


def total_of(value: int, difficulty: int = 0, mods: int = 0) -> int:
    return max(0, min(100, value + difficulty + mods))  # OQS-1: inRangeValue(0, 100, ...)


def oracle(r: int | None, value: int, total: int, master: str = "value") -> str:
    """getResult over getResultFeatures: the digits of the roll as text, 100 a fumble."""
    mastered = value >= 100 and (total >= 100 or master == "unmodified")
    if mastered:
        return "critical"
    assert r is not None
    text = str(r)
    possible_fumble = r == 100
    double = possible_fumble or (len(text) == 2 and text[0] == text[1])
    if possible_fumble:
        return "fumble"
    if r <= total:
        return "critical" if double else "success"
    return "fumble" if double else "failure"


def check(dice: list[int] | None = None, **kw: Any) -> d100.CheckResult:
    result = d100.resolve({"system": NAME, **kw, "dice": dice or []})
    assert isinstance(result, d100.CheckResult)
    return result


def masters(value: int, total: int, rule: str = "value") -> bool:
    return value >= 100 and (total >= 100 or rule == "unmodified")


# -- OQS-1 the total ---------------------------------------------------------------------------


def test_oqs_1_presets_are_oq_systems_table() -> None:
    presets = {"easy": 50, "simple": 20, "normal": 0, "difficult": -20, "hard": -50}
    for name, value in presets.items():
        assert check([50], skill=40, difficulty=name).target == total_of(40, value)
    assert dict(d100.REGISTRY.get(NAME).declares.target.presets) == presets
    with pytest.raises(d100.D100Error) as err:  # the seed's names are not oq-system's
        check([50], skill=40, difficulty="very-easy")
    assert err.value.field == "difficulty"


def test_oqs_1_total_is_held_to_0_100_and_value_may_exceed_100() -> None:
    assert check([50], skill=300, difficulty=-50, modifiers=[-151]).target == 99
    assert check(None, skill=300, difficulty=-50, modifiers=[-100]).target == 100  # a master
    assert check([50], skill=10, difficulty="hard", modifiers=[-5]).target == 0
    assert check([50], skill=60, modifiers=[7, -2]).target == 65
    assert check([50], skill=130, difficulty="hard").target == 80
    assert check([50], skill=1000, difficulty=-950).target == 50
    with pytest.raises(d100.D100Error) as err:
        check([50], skill=1001)
    assert err.value.field == "skill"


# -- OQS-2 the result --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_oqs_2_full_grid_of_levels_against_the_oracle(difficulty: int) -> None:
    for value in VALUES:
        total = total_of(value, difficulty)
        if masters(value, total):
            assert check(None, skill=value, difficulty=difficulty).level == "critical"
            continue
        for r in ROLLS:
            got = check([r], skill=value, difficulty=difficulty)
            assert got.level == oracle(r, value, total), (value, difficulty, r)


def test_oqs_2_editions_examples_a_penalised_master_rolls() -> None:
    # value 100 at total 90: r 99 fumbles, r 81 succeeds (the seed's OQ3 says critical)
    assert check([99], skill=100, modifiers=[-10]).level == "fumble"
    assert check([81], skill=100, modifiers=[-10]).level == "success"
    assert check([88], skill=100, modifiers=[-10]).level == "critical"
    seed = d100.resolve({"system": "openquest", "skill": 100, "modifiers": [-10]})
    assert seed.level == "critical" and seed.roll is None


def test_oqs_2_master_needs_value_and_total_at_100() -> None:
    result = check(None, skill=100)
    assert result.level == "critical" and result.roll is None and result.dice == ()
    assert check(None, skill=120, difficulty="difficult").level == "critical"  # total 100
    assert check([54], skill=120, difficulty="hard").level == "success"  # total 70 rolls
    assert check([100], skill=99, modifiers=[30]).level == "fumble"  # total 100, value 99
    with pytest.raises(d100.D100Error) as err:
        check([40], skill=100)  # a master does not roll: its die is left over
    assert err.value.kind == "dice"


def test_oqs_2_house_rule_unmodified_is_the_seeds_master() -> None:
    rules = {"master": "unmodified"}
    for mods in ([-10], [-90], [0], [50]):
        result = check(None, skill=100, modifiers=mods, house_rules=rules)
        assert result.level == "critical" and result.roll is None
    assert check([100], skill=99, modifiers=[10], house_rules=rules).level == "fumble"  # rolls
    assert check([98], skill=99, modifiers=[10], house_rules=rules).level == "success"
    for value in (99, 100, 150):
        for difficulty in DIFFICULTIES:
            total = total_of(value, difficulty)
            request = {"system": NAME, "skill": value, "difficulty": difficulty}
            request["house_rules"] = rules
            expected = dict.fromkeys(LEVELS, Fraction(0))
            if masters(value, total, "unmodified"):
                expected["critical"] = Fraction(1)
            else:
                for r in ROLLS:
                    expected[oracle(r, value, total, "unmodified")] += Fraction(1, 100)
            assert odds_map(request) == expected


@pytest.mark.parametrize("value", [0, 1, 9, 10, 11, 55, 99, 100, 101, 170])
@pytest.mark.parametrize("difficulty", [0, -20, -50])
def test_oqs_2_odds_are_the_oracle_counted(value: int, difficulty: int) -> None:
    total = total_of(value, difficulty)
    expected = dict.fromkeys(LEVELS, Fraction(0))
    if masters(value, total):
        expected["critical"] = Fraction(1)
    else:
        for r in ROLLS:
            expected[oracle(r, value, total)] += Fraction(1, 100)
    assert odds_map({"system": NAME, "skill": value, "difficulty": difficulty}) == expected


# -- contests: the seed openquest's OQ7-OQ9 ----------------------------------------------------


def _pair(system: str, a: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    return {"system": system, "actor": a, "opponent": o}


def test_oqs_contests_are_the_seed_openquests_where_both_read_alike() -> None:  # rule: OQS-2
    # Values within the seed's range with totals inside 1..99 and no master: the same matrix
    for sa, so in ((60, 60), (45, 80), (5, 95)):
        for ra in range(1, 101, 4):
            for ro in range(1, 101, 9):
                a, o = {"skill": sa, "dice": [ra]}, {"skill": so, "dice": [ro]}
                ours = d100.resolve(_pair(NAME, a, o))
                seed = d100.resolve(_pair("openquest", a, o))
                assert ours.winner == seed.winner, (sa, ra, so, ro)
                assert (ours.actor.level, ours.opponent.level) == (
                    seed.actor.level,
                    seed.opponent.level,
                )


def test_oqs_contest_masters_follow_oq9_with_oq_systems_master() -> None:  # rule: OQS-2
    # the opponent a master (value 100, total 100): the actor's success loses, a critical wins
    a_success = d100.resolve(_pair(NAME, {"skill": 60, "dice": [40]}, {"skill": 100}))
    assert a_success.winner == "opponent" and a_success.opponent.roll is None
    a_critical = d100.resolve(_pair(NAME, {"skill": 60, "dice": [44]}, {"skill": 100}))
    assert a_critical.winner == "actor"
    # a failure beaten by a master becomes a fumble (OQ9)
    a_failure = d100.resolve(_pair(NAME, {"skill": 60, "dice": [70]}, {"skill": 100}))
    assert a_failure.winner == "opponent" and a_failure.actor.level == "fumble"
    # a penalised value-100 is no master here: both roll
    penalised_master = {"skill": 100, "modifiers": [-10], "dice": [50]}
    penalised = d100.resolve(_pair(NAME, {"skill": 60, "dice": [40]}, penalised_master))
    assert penalised.winner == "opponent" and penalised.opponent.roll == 50
    # both masters: the actor rolls; only its critical wins, else nobody
    both = d100.resolve(_pair(NAME, {"skill": 100, "dice": [33]}, {"skill": 120}))
    assert both.winner == "actor"
    both = d100.resolve(_pair(NAME, {"skill": 100, "dice": [34]}, {"skill": 120}))
    assert both.winner == "none"


def test_oqs_contest_difficulty_on_one_side_only() -> None:  # rule: OQS-1 (the seed's OQ8)
    with pytest.raises(d100.D100Error) as err:
        d100.odds(_pair(NAME, {"skill": 50, "difficulty": "easy"}, {"skill": 5, "difficulty": -20}))
    assert err.value.field == "opponent.difficulty" and err.value.kind == "rule_refusal"


# -- odds: brute force, fast paths -------------------------------------------------------------


@pytest.mark.parametrize(
    "request_",
    [
        {"skill": 55},
        {"skill": 100, "difficulty": "difficult"},
        {"skill": 130, "difficulty": "hard", "modifiers": [-5]},
        {"actor": {"skill": 70}, "opponent": {"skill": 120, "difficulty": "hard"}},
        {"actor": {"skill": 100}, "opponent": {"skill": 40}},
        {"actor": {"skill": 100}, "opponent": {"skill": 100}},
        {"actor": {"skill": 100}, "opponent": {"skill": 60}, "house_rules": UNMODIFIED},
    ],
)
def test_oqs_odds_equal_brute_force(request_: dict[str, Any]) -> None:  # rule: OQS-1, OQS-2
    request = {"system": NAME, **request_}
    assert nonzero(odds_map(request)) == nonzero(brute_force(request))


def test_oqs_fast_paths_equal_the_reference() -> None:  # rule: OQS-1, OQS-2
    requests: list[dict[str, Any]] = []
    for value in (0, 11, 60, 99, 100, 150):
        for difficulty in ("easy", "normal", "hard"):
            requests.append({"skill": value, "difficulty": difficulty})
            requests.append({"skill": value, "difficulty": difficulty, "house_rules": UNMODIFIED})
    for sa, so in ((60, 60), (80, 45), (3, 200), (100, 50)):
        requests.append({"actor": {"skill": sa}, "opponent": {"skill": so}})
    for request in requests:
        parsed = d100.parse({"system": NAME, **request})
        tallies._TALLY.cache_clear()
        assert tallies.tally(parsed).fractions() == tallies.reference(parsed).fractions()


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({}, "skill"),
        ({"skill": -1}, "skill"),
        ({"skill": 50, "difficulty": "impossible"}, "difficulty"),
        ({"skill": 50, "house_rules": {"master": "seed"}}, "house_rules.master"),
        ({"skill": 50, "assist": {"skill": 40}}, "assist"),
        ({"skill": 50, "modifiers": [1001]}, "modifiers[0]"),
        ({"actor": {"skill": 50, "house_rules": {}}, "opponent": {}}, "actor.house_rules"),
    ],
)
def test_oqs_bad_input_names_the_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.odds({"system": NAME, **request_})
    assert err.value.field == field


def test_oqs_declares_its_levels_as_records() -> None:
    system = d100.REGISTRY.get(NAME)
    specs = system.declares.levels
    assert tuple(s.name for s in specs) == system.levels == LEVELS
    assert {s.name for s in specs if s.success} == system.success_levels
    assert system.declares.assistance is None and system.declares.commands is None
