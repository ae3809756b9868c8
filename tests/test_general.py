"""Rules for every system: G1-G6."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

import d100
from d100.dice import D100, is_doubles, read_digits
from d100.machine import Dice, Given
from d100.machine import d100 as d100_need
from d100.results import frozen, thawed

REQUESTS: list[dict[str, Any]] = [
    {"system": "openquest", "skill": 55, "assist": {"skill": 40}},
    {"system": "openquest", "actor": {"skill": 60}, "opponent": {"skill": 45}},
    {"system": "brp", "skill": 65, "bonus_dice": 2, "luck_rerolls": 2},
    {"system": "brp", "skill": 40, "penalty_dice": 1, "house_rules": {"bonus_dice_method": "tens"}},
    {"system": "brp", "actor": {"skill": 60, "bonus_dice": 1}, "opponent": {"skill": 50}},
    {"system": "chances", "skill": 40, "risk": "tough", "assisters": [{"skill": 30}]},
    {"system": "chances", "actor": {"skill": 40}, "opponent": {"skill": 40}},
]


def test_g1_reading_two_d10s() -> None:
    assert read_digits(0, 1) == 1 and read_digits(1, 0) == 10 and read_digits(0, 0) == 100
    assert read_digits(9, 9) == 99
    assert [v for v in range(1, 101) if is_doubles(v)] == [11, 22, 33, 44, 55, 66, 77, 88, 99, 100]
    die = D100(100)
    assert (die.tens, die.units, die.doubles, str(die)) == (0, 0, True, "100")
    assert D100.from_digits(0, 7).value == 7 and str(D100(7)) == "07"
    with pytest.raises(d100.D100Error):
        D100(0)


def test_g1_results_record_every_die_and_its_digits() -> None:
    result = d100.resolve({"system": "brp", "skill": 50, "penalty_dice": 2, "dice": [7, 100, 40]})
    data = result.to_dict()
    assert data["dice"] == [7, 100, 40]
    assert data["digits"] == [[0, 7], [0, 0], [4, 0]]


@pytest.mark.parametrize("request_", REQUESTS)
def test_g2_seed_reproduces_every_result(request_: dict[str, Any]) -> None:
    first = d100.resolve(request_, random.Random(2024)).to_dict()
    again = d100.resolve(request_, random.Random(2024)).to_dict()
    assert first == again


def test_g2_nothing_reads_global_random_state() -> None:
    random.seed(1)
    before = random.random()
    random.seed(1)
    d100.resolve({"system": "brp", "skill": 50}, random.Random(5))
    assert random.random() == before
    with pytest.raises(d100.D100Error, match="no random source"):
        d100.resolve({"system": "brp", "skill": 50})


class Recorder:
    """A seeded source that remembers what it drew."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.values: list[int] = []

    def randint(self, a: int, b: int) -> int:
        value = self.rng.randint(a, b)
        self.values.append(value)
        return value


@pytest.mark.parametrize("seed", range(40))
def test_g3_given_dice_equal_the_drawn_check(seed: int) -> None:
    request = {"system": "brp", "skill": 30 + seed, "bonus_dice": seed % 3, "luck_rerolls": 2}
    drawn = d100.resolve(request, random.Random(seed))
    given = d100.resolve({**request, "dice": list(drawn.dice)})
    assert given.to_dict() == {**drawn.to_dict(), "request": given.to_dict()["request"]}
    assert given.level == drawn.level


def test_g3_given_dice_for_every_participant() -> None:
    result = d100.resolve(
        {
            "system": "openquest",
            "actor": {"skill": 50, "dice": [30], "assist": {"skill": 40, "dice": [12]}},
            "opponent": {"skill": 60, "dice": [55]},
        }
    )
    assert isinstance(result, d100.ContestResult)
    assert result.actor.target == 70 and result.winner == "opponent"
    mixed = d100.resolve(
        {"system": "openquest", "actor": {"skill": 50, "dice": [30]}, "opponent": {"skill": 60}},
        random.Random(1),
    )
    assert isinstance(mixed, d100.ContestResult) and mixed.actor.roll == 30


def test_g3_too_few_and_left_over() -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.resolve({"system": "brp", "skill": 50, "bonus_dice": 2, "dice": [1, 2]})
    assert err.value.field == "dice" and "ran out" in err.value.message
    with pytest.raises(d100.D100Error) as err:
        d100.resolve(
            {
                "system": "chances",
                "skill": 5,
                "risk": 5,
                "assisters": [{"skill": 5, "dice": [3, 4]}],
                "dice": [9],
            }
        )
    assert err.value.field == "assisters[0].dice" and "left over" in err.value.message


@pytest.mark.parametrize("request_", REQUESTS)
def test_g4_odds_sum_to_exactly_one(request_: dict[str, Any]) -> None:
    odds = d100.odds(request_)
    values = odds.levels if isinstance(odds, d100.CheckOdds) else odds.winner
    assert all(isinstance(v, Fraction) and v >= 0 for v in values.values())
    assert sum(values.values()) == 1
    system = d100.REGISTRY.get(request_["system"])
    if isinstance(odds, d100.CheckOdds):
        assert tuple(odds.levels) == system.levels
        assert odds.success == sum(v for k, v in odds.levels.items() if k in system.success_levels)
    else:
        assert tuple(odds.winner) == ("actor", "opponent", "tie", "none")


def test_g4_contract_example_odds() -> None:
    assert d100.odds({"system": "brp", "skill": 65}).to_dict() == {
        "levels": {
            "critical": "3/100",
            "special": "1/10",
            "success": "13/25",
            "failure": "3/10",
            "fumble": "1/20",
        },
        "success": "13/20",
    }


@pytest.mark.parametrize("request_", [r for r in REQUESTS if "actor" not in r])
def test_g4_odds_as_counted_equal_odds_made_by_hand(request_: dict[str, Any]) -> None:
    """The engine's odds (``CheckOdds.counted``, the request echoed when first read) equal the
    same odds made by the constructor: the echo read-only, as the contract writes it."""
    parsed = d100.parse(request_)
    odds = d100.odds(parsed)
    by_hand = d100.CheckOdds(
        odds.system, dict(odds.levels), odds.success, parsed.to_dict(), odds.luck_spent
    )
    assert odds == by_hand and by_hand == odds and repr(odds) == repr(by_hand)
    assert odds.request == frozen(parsed.to_dict()) and thawed(odds.request) == parsed.to_dict()
    assert dict(odds.request) == dict(by_hand.request)
    assert len(odds.request) == len(parsed.to_dict())
    with pytest.raises(TypeError):
        odds.request["skill"] = 1  # type: ignore[index]


def test_g4_odds_weigh_every_roll_whatever_dice_a_request_gives() -> None:
    """The odds of a request are of it before it is rolled: its given dice (or a tie-break's
    coin) are one roll's outcome, read as a field and then weighing nothing, so the odds of a
    result's request are the odds it had."""
    bare = {"system": "brp", "skill": 65, "bonus_dice": 1}
    rolled = d100.resolve({**bare, "dice": [4, 90]})
    assert d100.odds(rolled.request) == d100.odds({**bare, "dice": [4, 90]})
    assert d100.odds(rolled.request).levels == d100.odds(bare).levels
    contest = {"system": "chances", "actor": {"skill": 1}, "opponent": {"skill": 1}}
    assert d100.odds({**contest, "coin": "actor"}).winner == d100.odds(contest).winner
    with pytest.raises(d100.D100Error) as err:  # still held to the field's values
        d100.odds({**bare, "dice": [0]})
    assert err.value.field.startswith("dice")


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({"system": "brp", "skill": True}, "skill"),
        ({"system": "brp", "skill": 6.5}, "skill"),
        ({"system": "brp", "skill": "65"}, "skill"),
        ({"system": "brp", "skill": -1}, "skill"),
        ({"system": "brp"}, "skill"),
        ({"system": "brp", "skill": 5, "colour": "red"}, "colour"),
        ({"system": "brp", "skill": 5, "difficulty": "tricky"}, "difficulty"),
        ({"system": "brp", "skill": 5, "difficulty": None}, "difficulty"),
        ({"system": "brp", "skill": 5, "modifiers": 5}, "modifiers"),
        ({"system": "brp", "skill": 5, "modifiers": [1, False]}, "modifiers[1]"),
        ({"system": "brp", "skill": 5, "bonus_dice": -1}, "bonus_dice"),
        ({"system": "brp", "skill": 5, "penalty_dice": 3}, "penalty_dice"),
        ({"system": "brp", "skill": 5, "aim_rounds": -2}, "aim_rounds"),
        ({"system": "brp", "skill": 5, "luck_boost": 1}, "luck_boost"),
        ({"system": "brp", "skill": 5, "luck_rerolls": 101}, "luck_rerolls"),
        ({"system": "brp", "skill": 5, "dice": [0]}, "dice[0]"),
        ({"system": "brp", "skill": 5, "dice": [101]}, "dice[0]"),
        ({"system": "brp", "skill": 5, "dice": "42"}, "dice"),
        (
            {"system": "brp", "skill": 5, "house_rules": {"threshold_rounding": "up"}},
            "house_rules.threshold_rounding",
        ),
        (
            {"system": "brp", "skill": 5, "house_rules": {"critical_on": 5}},
            "house_rules.critical_on",
        ),
        ({"system": "brp", "skill": 5, "house_rules": []}, "house_rules"),
        (
            {"system": "brp", "actor": {"skill": 5, "luck_rerolls": 1}, "opponent": {"skill": 5}},
            "actor.luck_rerolls",
        ),
        ({"system": "brp", "actor": {"skill": 5}}, "opponent"),
        ({"system": "gurps", "skill": 5}, "system"),
        ({"skill": 5}, "system"),
        ({"system": "openquest", "skill": 5, "bonus_dice": 1}, "bonus_dice"),
        ({"system": "openquest", "skill": 5, "assist": {"skill": "x"}}, "assist.skill"),
        ({"system": "openquest", "skill": 5, "assist": 40}, "assist"),
        (
            {
                "system": "openquest",
                "actor": {"skill": 5},
                "opponent": {"skill": 5},
                "coin": "actor",
            },
            "coin",
        ),
        ({"system": "chances", "skill": 5, "risk": "brutal"}, "risk"),
        ({"system": "chances", "skill": 101, "risk": 5}, "skill"),
        ({"system": "chances", "skill": 5, "risk": 5, "synergy": [120]}, "synergy[0]"),
        (
            {"system": "chances", "skill": 5, "risk": 5, "assisters": [{"ability": 3}]},
            "assisters[0].skill",
        ),
        (
            {"system": "chances", "skill": 5, "risk": 5, "assisters": [{"skill": 3, "risk": 5}]},
            "assisters[0].risk",
        ),
        (
            {"system": "chances", "actor": {"skill": 5, "risk": 50}, "opponent": {"skill": 5}},
            "actor.risk",
        ),
        (
            {"system": "chances", "actor": {"skill": 5}, "opponent": {"skill": 5}, "coin": "heads"},
            "coin",
        ),
        ({"system": "chances", "skill": 5, "risk": 5, "modifiers": list(range(101))}, "modifiers"),
    ],
)
def test_g5_bad_input_names_field_value_and_allowed(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.resolve(request_, random.Random(1))
    assert err.value.field == field
    assert err.value.allowed and field in err.value.message
    assert set(err.value.to_dict()) == {"kind", "field", "value", "allowed", "message"}


def test_g5_not_an_object() -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.resolve([1, 2])
    assert err.value.field == "request"


def test_g5_dice_source_errors_name_the_stream() -> None:
    dice = Dice(None, {"actor.dice": Given((5,))})
    assert dice.draw(d100_need("actor.dice")) == 5
    with pytest.raises(d100.D100Error) as err:
        dice.draw(d100_need("actor.dice"))
    assert err.value.field == "actor.dice"


@pytest.mark.parametrize("request_", REQUESTS)
def test_g6_results_explain_themselves(request_: dict[str, Any]) -> None:
    result = d100.resolve(request_, random.Random(3))
    data = result.to_dict()
    sides = [data] if "level" in data else [data["actor"], data["opponent"]]
    for side in sides:
        assert {
            "system",
            "level",
            "success",
            "roll",
            "dice",
            "target",
            "margin",
            "explanation",
            "request",
        } <= set(side)
        assert side["level"] in side["explanation"]
    assert data["explanation"] and "\n" not in data["explanation"]


def test_g6_contract_example_explanation_shape() -> None:
    result = d100.resolve({"system": "openquest", "skill": 65, "dice": [7]})
    assert result.explanation == "rolled 07 vs 65: success"
