"""Taking Chances rules, CH1-CH12, with the seed's examples."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import d100
from d100.advise import advise
from d100.catalogue import OPPOSED_TASKS, failures, find_task
from d100.systems.chances import RISKS, choose_leader, cover_struck, degree, synergy_bonus


def check(dice: list[int] | None = None, **kw: Any) -> d100.CheckResult:
    request: dict[str, Any] = {"system": "chances", **kw}
    if dice is not None:
        request["dice"] = dice
    result = d100.resolve(request)
    assert isinstance(result, d100.CheckResult)
    return result


def contest(actor: dict[str, Any], opponent: dict[str, Any], **kw: Any) -> d100.ContestResult:
    result = d100.resolve({"system": "chances", "actor": actor, "opponent": opponent, **kw})
    assert isinstance(result, d100.ContestResult)
    return result


def test_ch1_total_is_luck_skill_ability_modifiers() -> None:
    result = check([37], skill=40, ability=-5, modifiers=[10, 10], risk=50)
    assert (result.total, result.target, result.roll) == (37 + 40 - 5 + 20, 50, 37)


def test_ch1_natural_100_and_1_are_not_automatic() -> None:
    assert check([100], skill=0, risk=150).level == "failure"
    assert check([1], skill=60, risk=10).level == "great"


def test_ch2_named_risks_and_integers() -> None:
    assert RISKS["superheroic"] == 180 and RISKS["impossible"] == 200 and RISKS["average"] == 50
    assert check([50], skill=30, risk="formidable", risk_modifiers=[10]).target == 130
    with pytest.raises(d100.D100Error) as err:
        check([50], skill=30, risk=-10)
    assert err.value.field == "risk"
    with pytest.raises(d100.D100Error, match="required"):
        check([50], skill=30)


def test_ch3_chance_and_risk_modifiers_are_kept_apart() -> None:
    chance = d100.odds({"system": "chances", "skill": 30, "risk": 80, "modifiers": [10]})
    risk = d100.odds({"system": "chances", "skill": 30, "risk": 80, "risk_modifiers": [-10]})
    assert chance.levels == risk.levels  # against a fixed risk they are the same odds
    assert chance.request["modifiers"] == (10,) and risk.request["risk_modifiers"] == (-10,)


def test_ch3_seed_shooters_against_one_dodging_risk() -> None:
    dodge = {"risk": 80}
    skilled = d100.odds({"system": "chances", "skill": 60, **dodge})
    green = d100.odds({"system": "chances", "skill": 20, **dodge})
    assert skilled.success == Fraction(81, 100) and green.success == Fraction(41, 100)


@pytest.mark.parametrize(
    ("margin", "expected"),
    [
        (-1, "failure"),
        (0, "success"),
        (49, "success"),
        (50, "great"),
        (99, "great"),
        (100, "perfect"),
        (250, "perfect"),
    ],
)
def test_ch4_degrees(margin: int, expected: str) -> None:
    assert degree(margin) == expected
    assert check([50], skill=0, ability=margin, risk=50).level == expected


def test_ch4_failure_points() -> None:
    result = check([10], skill=20, risk=80)
    assert result.margin == -50 and "50 failure points" in result.explanation


def test_ch5_take_50_and_100() -> None:
    fifty = check(None, skill=30, risk=80, take=50)
    assert (fifty.roll, fifty.total, fifty.dice, fifty.level) == (50, 80, (), "success")
    hundred = check(None, skill=30, risk=80, take=100)
    assert hundred.total == 130 and hundred.note is not None and "100 times" in hundred.note
    assert d100.odds({"system": "chances", "skill": 30, "risk": 80, "take": 50}).success == 1


def test_ch5_take_is_refused_where_the_seed_forbids_it() -> None:
    with pytest.raises(d100.D100Error) as err:
        check([50], skill=30, risk=80, assisters=[{"skill": 20, "take": 50}])
    assert err.value.field == "assisters[0].take"
    with pytest.raises(d100.D100Error) as err:
        contest({"skill": 30, "take": 100}, {"skill": 30})
    assert err.value.field == "actor.take"
    with pytest.raises(d100.D100Error) as err:
        check([50], skill=30, risk=80, take=75)
    assert err.value.field == "take"
    with pytest.raises(d100.D100Error, match="no dice when taking"):
        check([50], skill=30, risk=80, take=50)
    assert contest({"skill": 30, "take": 50}, {"skill": 30, "dice": [30]}).winner == "actor"


def test_ch6_higher_total_wins_with_degree_over_loser() -> None:
    result = contest({"skill": 40, "dice": [90]}, {"skill": 30, "dice": [20]})
    assert (result.winner, result.degree) == ("actor", "great")  # 130 against 50: by 80
    assert result.actor.target == 50 and result.opponent.target == 130
    assert result.opponent.level == "failure"


def test_ch6_tie_break_by_ability_then_coin() -> None:
    by_ability = contest(
        {"skill": 40, "ability": 5, "dice": [50]}, {"skill": 45, "ability": 0, "dice": [50]}
    )
    assert by_ability.winner == "actor" and by_ability.coin is None
    flip = contest({"skill": 40, "dice": [50]}, {"skill": 40, "dice": [50]}, coin="opponent")
    assert flip.winner == "opponent" and flip.coin == "opponent"
    drawn = d100.resolve(
        {
            "system": "chances",
            "actor": {"skill": 40, "dice": [50]},
            "opponent": {"skill": 40, "dice": [50]},
        },
        _Fixed(1),
    )
    assert isinstance(drawn, d100.ContestResult) and drawn.coin == "actor"
    odds = d100.odds({"system": "chances", "actor": {"skill": 40}, "opponent": {"skill": 40}})
    assert odds.winner["actor"] == odds.winner["opponent"] == Fraction(1, 2)


def test_ch6_risk_modifier_on_one_side_raises_the_other() -> None:
    result = contest(
        {"skill": 40, "risk_modifiers": [10], "dice": [50]}, {"skill": 40, "dice": [50]}
    )
    assert result.opponent.total == 100 and result.actor.total == 90
    assert result.winner == "opponent"


def test_ch7_impossible_attempts_need_training() -> None:
    with pytest.raises(d100.D100Error) as err:
        check([50], skill=49, risk=50, modifiers=[-100])
    assert err.value.field == "skill" and "CH7" in err.value.allowed
    with pytest.raises(d100.D100Error):
        check([50], skill=10, ability=90, risk=50, risk_modifiers=[60, 40])
    assert check([50], skill=50, risk=50, modifiers=[-100]).total == 0
    assert check([50], skill=20, ability=80, risk=50, modifiers=[-90]).level == "success"


def test_ch8_assisters_add_ten_each_on_success() -> None:
    result = check(
        [40],
        skill=30,
        risk=80,
        assisters=[{"skill": 20, "dice": [30]}, {"skill": 10, "dice": [39]}],
    )
    assert [a.level for a in result.assisters] == ["success", "failure"]
    assert result.total == 40 + 30 + 10 and result.assisters[0].target == 50
    with pytest.raises(d100.D100Error) as err:
        check(
            [40],
            skill=30,
            risk=80,
            assisters=[{"skill": 1}, {"skill": 2}],
            house_rules={"max_assisters": 1},
        )
    assert err.value.field == "assisters"


def test_ch8_leader_and_individual_events() -> None:
    party = [
        d100.parse({"system": "chances", "skill": s, "ability": a, "risk": 50})
        for s, a in ((40, 10), (55, 0), (30, 30))
    ]
    assert choose_leader(party) == 2
    group = d100.resolve_group(
        [{"system": "chances", "skill": 40, "risk": 50, "dice": [d]} for d in (5, 60)]
    )
    assert [r.success for r in group if isinstance(r, d100.CheckResult)] == [False, True]


def test_ch9_synergy() -> None:
    assert synergy_bonus([24, 25, 74, 75, 100]) == 0 + 10 + 10 + 15 + 15
    assert check([50], skill=30, risk=80, synergy=[80, 30]).total == 50 + 30 + 25


def test_ch10_margin_and_cover() -> None:
    missed = check([30], skill=40, risk=80)
    assert missed.margin == -10
    assert cover_struck(missed, 15) and not cover_struck(missed, 10)
    hit = check([60], skill=40, risk=80)
    assert not cover_struck(hit, 50)


def test_ch11_catalogue_ships_the_seed_examples() -> None:
    assert len(OPPOSED_TASKS) == 10
    sneak = find_task("sneak up on someone")
    assert sneak is not None
    assert (sneak.skill, sneak.ability, sneak.opposing_skill, sneak.opposing_ability) == (
        "Sneaking",
        "Dex.",
        "Hearing",
        "Per.",
    )


def test_ch12_failures_are_counted_per_character_and_skill() -> None:
    fail, win = check([1], skill=0, risk=80), check([99], skill=0, risk=80)
    tally = failures([("ann", "Hearing", fail), ("ann", "hearing", fail), ("bo", "Hearing", win)])
    assert tally == {("ann", "hearing"): 2}


class _Fixed:
    def __init__(self, value: int) -> None:
        self.value = value

    def randint(self, a: int, b: int) -> int:
        return self.value


@pytest.mark.parametrize("cap", [0, 1, 2, 3])
def test_ch8_advice_never_offers_more_helpers_than_the_house_cap(cap: int) -> None:
    request = {"system": "chances", "skill": 40, "risk": 80, "house_rules": {"max_assisters": cap}}
    helpers = {"Ann": {"skill": 30}, "Bo": {"skill": 20}, "Cy": {"skill": 60}}
    options = advise(request, helpers=helpers)
    assert all(o.request["house_rules"] == {"max_assisters": cap} for o in options)
    # never more helpers than the cap allows: none at all under a cap of 0
    most = max(len(o.request.get("assisters", ())) for o in options)
    assert most <= cap and (most == 0) == (cap == 0)
    assert (most == len(helpers)) == (cap >= len(helpers))  # everyone, where the cap allows


def test_ch8_house_rules_are_kept_by_the_request() -> None:
    check = {"system": "chances", "skill": 40, "risk": 80, "house_rules": {"max_assisters": 2}}
    assert d100.parse(check).to_dict()["house_rules"] == {"max_assisters": 2}
    contest = {
        "system": "chances",
        "actor": {"skill": 40},
        "opponent": {"skill": 30},
        "house_rules": {"max_assisters": 0},
    }
    parsed = d100.parse(contest)
    assert parsed.to_dict()["house_rules"] == {"max_assisters": 0}
    assert d100.parse(parsed.to_dict()) == parsed
    assert "house_rules" not in d100.parse({**check, "house_rules": {}}).to_dict()


def test_ch8_advice_weighs_every_group_of_helpers_the_cap_allows() -> None:
    from itertools import combinations

    from d100.advise import advise

    helpers = {"Ann": {"skill": 30}, "Bo": {"skill": 20}, "Cy": {"skill": 10}}
    request = {
        "system": "chances",
        "skill": 40,
        "risk": 80,
        "take": 50,
        "house_rules": {"max_assisters": 2},
    }
    options = advise(request, helpers=helpers)
    groups = {tuple(a["skill"] for a in o.request.get("assisters", ())) for o in options}
    skills = [h["skill"] for h in helpers.values()]
    expected = {()} | {c for k in (1, 2) for c in combinations(skills, k)}
    assert groups == expected  # every single and pair, never all three (over the cap)
