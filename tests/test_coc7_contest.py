"""coc7 contests and combined rolls: opposed rolls on the ladder (C7-6), melee responses with
their tie rules (C7-7), one roll judged against several skills (C7-8), against the reading of
EDITIONS.md in tests/coc7_oracle.py and brute force over every die."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import d100
from d100 import tallies
from tests import coc7_oracle as ref
from tests.helpers import brute_force, nonzero, odds_map

# a roll for each level at target 60 (fumble 00 only) and target 40 (fumbles 96-00)
AT_60 = {"critical": 1, "extreme": 12, "hard": 30, "regular": 60, "failure": 80, "fumble": 100}
AT_40 = {"critical": 1, "extreme": 8, "hard": 20, "regular": 40, "failure": 80, "fumble": 97}


def contest(actor: int, opponent: int, response: str | None = None) -> d100.ContestResult:
    """Actor at 60 and opponent at 40, on the given rolls."""
    request: dict[str, Any] = {
        "system": "coc7",
        "actor": {"skill": 60, "dice": [actor]},
        "opponent": {"skill": 40, "dice": [opponent]},
    }
    if response is not None:
        request["response"] = response
    result = d100.resolve(request)
    assert isinstance(result, d100.ContestResult)
    return result


def winner(actor_level: str, opponent_level: str, response: str | None = None) -> str:
    result = contest(AT_60[actor_level], AT_40[opponent_level], response)
    assert (result.actor.level, result.opponent.level) == (actor_level, opponent_level)
    return result.winner


def test_c7_6_the_higher_rank_wins_and_equal_ranks_tie() -> None:
    assert winner("hard", "regular") == "actor"
    assert winner("regular", "extreme") == "opponent"
    assert winner("critical", "extreme") == "actor"
    for lvl in ref.ORDER:
        assert winner(lvl, lvl) == "tie", lvl  # two fumbles and two failures tie too


def test_c7_6_a_failure_beats_a_fumble() -> None:
    assert winner("failure", "fumble") == "actor"
    assert winner("fumble", "failure") == "opponent"


def test_c7_6_every_pair_of_levels_against_the_oracle() -> None:
    for response in (None, "dodge", "fight_back", "maneuver"):
        for a in ref.ORDER:
            for o in ref.ORDER:
                assert winner(a, o, response) == ref.winner(a, o, response), (a, o, response)


def test_c7_7_both_below_regular_nobody_wins() -> None:
    for response in ("dodge", "fight_back", "maneuver"):
        for a in ("failure", "fumble"):
            for o in ("failure", "fumble"):
                assert winner(a, o, response) == "none"


def test_c7_7_a_dodge_wins_ties() -> None:
    """The attacker must beat the dodge: equal successes go to the defender."""
    for lvl in ("regular", "hard", "extreme", "critical"):
        assert winner(lvl, lvl, "dodge") == "opponent"
    assert winner("hard", "regular", "dodge") == "actor"
    assert winner("regular", "failure", "dodge") == "actor"
    assert winner("failure", "regular", "dodge") == "opponent"


@pytest.mark.parametrize("response", ["fight_back", "maneuver"])
def test_c7_7_fighting_back_and_maneuvering_lose_ties(response: str) -> None:
    for lvl in ("regular", "hard", "extreme", "critical"):
        assert winner(lvl, lvl, response) == "actor"
    assert winner("regular", "hard", response) == "opponent"
    assert winner("fumble", "regular", response) == "opponent"


def test_c7_7_an_extreme_attack_is_told() -> None:
    result = contest(AT_60["extreme"], AT_40["regular"], "fight_back")
    assert result.winner == "actor" and "extreme damage" in result.explanation
    assert "fights back" in result.explanation
    assert "extreme damage" not in contest(AT_60["hard"], AT_40["regular"], "dodge").explanation


def test_c7_6_contest_results_show_each_side() -> None:
    result = contest(30, 20)
    assert result.actor.target == 60 and result.opponent.target == 40
    assert result.actor.luck_spent is None  # a side spends no Luck
    assert result.to_dict()["request"] == {
        "system": "coc7",
        "actor": {"skill": 60, "modifiers": [], "bonus_dice": 0, "penalty_dice": 0, "dice": [30]},
        "opponent": {
            "skill": 40,
            "modifiers": [],
            "bonus_dice": 0,
            "penalty_dice": 0,
            "dice": [20],
        },
    }


@pytest.mark.slow
@pytest.mark.parametrize("response", [None, "dodge", "fight_back", "maneuver"])
@pytest.mark.parametrize(("actor", "opponent"), [((60, 0), (40, 0)), ((45, 0), (45, 0))])
def test_c7_6_c7_7_contest_odds_are_brute_force(
    response: str | None, actor: tuple[int, int], opponent: tuple[int, int]
) -> None:
    request: dict[str, Any] = {
        "system": "coc7",
        "actor": {"skill": actor[0]},
        "opponent": {"skill": opponent[0]},
    }
    if response:
        request["response"] = response
    assert nonzero(odds_map(request)) == nonzero(ref.contest_odds(actor, opponent, response))
    assert nonzero(odds_map(request)) == brute_force(request)


@pytest.mark.parametrize("response", [None, "dodge", "fight_back", "maneuver"])
@pytest.mark.parametrize(
    ("actor", "opponent"),
    [((60, 1), (40, 0)), ((30, -2), (90, 2)), ((120, 0), (5, -1)), ((0, 0), (0, 2))],
)
def test_c7_6_c7_7_contest_odds_with_pools_against_the_oracle(
    response: str | None, actor: tuple[int, int], opponent: tuple[int, int]
) -> None:
    def side(t: int, net: int) -> dict[str, Any]:
        return {"skill": t, "bonus_dice": max(net, 0), "penalty_dice": max(-net, 0)}

    request: dict[str, Any] = {"system": "coc7", "actor": side(*actor), "opponent": side(*opponent)}
    if response:
        request["response"] = response
    odds = d100.odds(request)
    assert dict(odds.winner) == ref.contest_odds(actor, opponent, response)
    parsed = d100.parse(request)
    assert tallies.tally(parsed).fractions() == tallies.reference(parsed).fractions()


def test_c7_6_contest_modifiers_move_a_side_target() -> None:
    request = {
        "system": "coc7",
        "actor": {"skill": 50, "modifiers": [-10], "dice": [97]},
        "opponent": {"skill": 50, "dice": [97]},
    }
    result = d100.resolve(request)
    assert isinstance(result, d100.ContestResult)
    assert (result.actor.level, result.opponent.level, result.winner) == (
        "fumble",
        "failure",
        "opponent",
    )


# -- C7-8: combined rolls --------------------------------------------------------------------


def combined(skill: int, others: list[int], **fields: Any) -> d100.CheckResult:
    result = d100.resolve({"system": "coc7", "skill": skill, "combined": others, **fields})
    assert isinstance(result, d100.CheckResult)
    return result


def test_c7_8_one_roll_judged_against_each_skill() -> None:
    both = combined(60, [45], dice=[25])
    assert (both.success, [c.level for c in both.combined]) == (True, ["hard", "regular"])
    assert both.level == "regular"  # the roll stands at its weakest skill
    assert [c.target for c in both.combined] == [60, 45] and both.combined[1].roll == 25


def test_c7_8_partial_is_a_failure() -> None:
    partial = combined(60, [45], dice=[50])
    assert (partial.success, partial.level) == (False, "failure")
    assert [c.success for c in partial.combined] == [True, False]
    assert "partial (1 of 2 succeed)" in partial.explanation
    neither = combined(30, [20], dice=[50])
    assert not neither.success and "partial" not in neither.explanation


def test_c7_8_each_skill_has_its_own_fumble_range() -> None:
    r = combined(99, [40], dice=[97])
    assert [c.level for c in r.combined] == ["regular", "fumble"]
    assert (r.level, r.success) == ("fumble", False)


def test_c7_8_under_a_difficulty_and_with_modifiers() -> None:
    r = combined(60, [80], difficulty="hard", modifiers=[10], dice=[35])
    assert [c.target for c in r.combined] == [70, 90]
    assert [c.level for c in r.combined] == ["hard", "hard"] and r.success


@pytest.mark.parametrize(
    "fields",
    [
        {"skill": 60, "combined": [45]},
        {"skill": 99, "combined": [40, 10]},
        {"skill": 60, "combined": [45], "difficulty": "hard"},
        {"skill": 30, "combined": [70], "bonus_dice": 1},
    ],
)
def test_c7_8_combined_odds_are_brute_force_and_the_oracle(fields: dict[str, Any]) -> None:
    request = {"system": "coc7", **fields}
    odds = d100.odds(request)
    assert nonzero(odds_map(request)) == brute_force(request)
    difficulty = fields.get("difficulty", "regular")
    net = fields.get("bonus_dice", 0)
    kept = ref.kept_rolls(net)
    total = sum(kept.values())
    targets = [fields["skill"], *fields["combined"]]
    wins = sum(
        w
        for r, w in kept.items()
        if all(ref.rank(ref.level(r, t, difficulty)) >= ref.rank(difficulty) for t in targets)
    )
    assert odds.success == Fraction(wins, total)


def test_c7_8_takes_no_luck_and_no_push() -> None:
    for extra, name in (({"luck": 30}, "luck"), ({"push": True}, "push")):
        with pytest.raises(d100.D100Error) as err:
            combined(60, [45], **extra)
        assert err.value.field == name and err.value.kind == "rule_refusal"
