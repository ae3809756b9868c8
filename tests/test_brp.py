"""BRP rules, BRP1-BRP8, with the seed's E=65 example."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import d100
from d100.luck import Luck, luck_needed
from d100.systems.brp import DIFFICULTIES, MEANINGS, bands, level, thresholds


def check(dice: list[int] | None = None, **kw: Any) -> d100.CheckResult:
    result = d100.resolve({"system": "brp", **kw, "dice": dice or []})
    assert isinstance(result, d100.CheckResult)
    return result


def test_brp1_effective_skill_is_clamped_not_refused() -> None:
    assert check([50], skill=150, difficulty="near-impossible").target == 70
    assert check([50], skill=250).target == 100
    assert check([1], skill=10, difficulty="extreme").target == 1
    assert check([1], skill=10, difficulty="extreme").level == "critical"
    assert check([2], skill=0).level == "failure"


def test_brp1_modifiers_add_before_the_clamp() -> None:
    # 90 + 20 (aim) + 20 (Luck) - 40 (hard) = 90; the clamp applies to the sum, not each step
    result = check([90], skill=90, aim_rounds=1, luck_boost=True, difficulty="hard")
    assert result.target == 90 and result.level == "success"


def test_brp2_difficulty_presets() -> None:
    assert DIFFICULTIES == {
        "routine": 20,
        "standard": 0,
        "difficult": -20,
        "hard": -40,
        "extreme": -60,
        "near-impossible": -80,
    }
    assert check([50], skill=50, difficulty="Near Impossible").target == 1
    assert check([50], skill=50, difficulty=-13).target == 37


@pytest.mark.parametrize(
    ("roll", "expected"),
    [
        (1, "critical"),
        (3, "critical"),
        (4, "special"),
        (13, "special"),
        (14, "success"),
        (65, "success"),
        (66, "failure"),
        (95, "failure"),
        (96, "fumble"),
        (100, "fumble"),
    ],
)
def test_brp3_seed_example_e65(roll: int, expected: str) -> None:
    assert level(roll, 65) == expected
    assert check([roll], skill=65).level == expected


def test_brp3_fumble_first_even_under_skill() -> None:
    assert check([97], skill=100).level == "fumble"
    assert level(96, 100) == "fumble" and level(95, 100) == "success"


def test_brp3_01_always_critical() -> None:
    for e in range(1, 101):
        assert level(1, e) == "critical"
        assert thresholds(e)[0] >= 1


@pytest.mark.parametrize(
    ("rounding", "e", "expected"),
    [
        ("floor", 65, (3, 13)),
        ("nearest", 65, (3, 13)),
        ("ceil", 65, (4, 13)),
        ("floor", 59, (2, 11)),
        ("nearest", 59, (3, 12)),
        ("ceil", 59, (3, 12)),
        ("nearest", 50, (3, 10)),
        ("floor", 50, (2, 10)),
        ("floor", 4, (1, 0)),
    ],
)
def test_brp3_threshold_rounding_house_rule(
    rounding: str, e: int, expected: tuple[int, int]
) -> None:
    assert thresholds(e, rounding) == expected
    result = check([expected[0]], skill=e, house_rules={"threshold_rounding": rounding})
    assert result.level == "critical"


def test_brp3_bands_in_explanation() -> None:
    assert bands(65) == "criticals 01-03, specials 04-13"
    assert bands(35) == "criticals 01, specials 02-07"
    assert bands(4) == "criticals 01, specials none"


def test_brp3_contract_example_explanation() -> None:
    result = check([42, 7], skill=35, bonus_dice=1)
    assert result.explanation == (
        "rolled 07 (lower of 42, 07) vs 35: special (criticals 01, specials 02-07)"
    )


def test_brp4_bonus_keeps_lowest_penalty_highest() -> None:
    assert check([42, 7], skill=50, bonus_dice=1).roll == 7
    assert check([42, 7], skill=50, penalty_dice=1).roll == 42
    assert check([42, 7, 88], skill=50, penalty_dice=2).roll == 88
    assert check([42, 7, 88], skill=50, bonus_dice=2).dice == (42, 7, 88)


def test_brp4_bonus_and_penalty_cancel() -> None:
    assert check([42], skill=50, bonus_dice=1, penalty_dice=1).roll == 42
    assert check([42, 7], skill=50, bonus_dice=2, penalty_dice=1).roll == 7
    with pytest.raises(d100.D100Error) as err:
        check([42], skill=50, bonus_dice=3)
    assert err.value.field == "bonus_dice"


def test_brp4_stacks_with_difficulty() -> None:
    result = check([30, 45], skill=70, difficulty="difficult", penalty_dice=1)
    assert (result.target, result.roll, result.level) == (50, 45, "success")


def test_brp4_tens_method_shares_the_units_die() -> None:
    tens = {"bonus_dice_method": "tens"}
    result = check([42, 2, 92], skill=50, bonus_dice=2, house_rules=tens)
    assert result.roll == 2 and result.dice == (42, 2, 92)
    assert check([10, 100], skill=50, penalty_dice=1, house_rules=tens).roll == 100
    with pytest.raises(d100.D100Error) as err:
        check([42, 7], skill=50, bonus_dice=1, house_rules=tens)
    assert err.value.field == "dice" and "units" in err.value.message
    with pytest.raises(d100.D100Error, match="groups of 2"):
        check([42, 2, 12], skill=50, bonus_dice=1, house_rules=tens)


def test_brp4_tens_method_odds_differ_from_d100_method() -> None:
    base = {"system": "brp", "skill": 50, "bonus_dice": 1}
    d100_way = d100.odds(base)
    tens_way = d100.odds({**base, "house_rules": {"bonus_dice_method": "tens"}})
    assert d100_way.levels != tens_way.levels
    assert sum(tens_way.levels.values()) == 1
    # every units die with every pair of tens dice, read as in G1, the lower kept
    kept = [
        min(10 * t1 + u or 100, 10 * t2 + u or 100)
        for u in range(10)
        for t1 in range(10)
        for t2 in range(10)
    ]
    assert tens_way.levels["critical"] == Fraction(sum(k <= 2 for k in kept), 1000)
    assert tens_way.success == Fraction(sum(k <= 50 for k in kept), 1000)


def test_brp5_aiming_20_per_round_capped_at_60() -> None:
    assert [check([99], skill=10, aim_rounds=n).target for n in range(6)] == [
        10,
        30,
        50,
        70,
        70,
        70,
    ]


def test_brp6_opposed_higher_level_then_lower_roll() -> None:
    def duel(a: int, ea: int, o: int, eo: int) -> str:
        result = d100.resolve(
            {
                "system": "brp",
                "actor": {"skill": ea, "dice": [a]},
                "opponent": {"skill": eo, "dice": [o]},
            }
        )
        assert isinstance(result, d100.ContestResult)
        return result.winner

    assert duel(2, 60, 10, 60) == "actor"  # critical beats special
    assert duel(30, 60, 20, 60) == "opponent"  # both ordinary: lower roll wins
    assert duel(30, 60, 30, 40) == "tie"  # same level, same roll
    assert duel(70, 60, 50, 40) == "tie"  # both fail by 10
    assert duel(70, 60, 45, 40) == "opponent"  # both fail: 5 over beats 10 over
    assert duel(97, 60, 99, 40) == "actor"  # both fumble: 37 over beats 59 over
    assert duel(97, 100, 80, 40) == "opponent"  # a fumble loses to a failure
    assert duel(61, 50, 52, 41) == "tie"  # both fail by 11


def test_brp7_luck_boost_and_rerolls() -> None:
    boosted = check([60], skill=45, luck_boost=True)
    assert boosted.target == 65 and boosted.luck_spent == 1
    rerolled = check([80, 99, 30], skill=45, luck_rerolls=5)
    assert rerolled.roll == 30 and rerolled.luck_spent == 2 and rerolled.attempts == (80, 99, 30)
    assert "after 2 Luck rerolls of 80, 99" in rerolled.explanation
    not_needed = check([30], skill=45, luck_rerolls=3)
    assert not_needed.luck_spent == 0
    with pytest.raises(d100.D100Error, match="ran out"):
        check([80], skill=45, luck_rerolls=1)


def test_brp7_reroll_odds_and_expected_luck() -> None:
    once = d100.odds({"system": "brp", "skill": 40, "luck_rerolls": 1})
    assert once.success == 1 - Fraction(60, 100) ** 2
    assert once.luck_spent == Fraction(60, 100)


def test_brp7_max_luck_rerolls_house_rule() -> None:
    with pytest.raises(d100.D100Error) as err:
        check([50], skill=40, luck_rerolls=3, house_rules={"max_luck_rerolls": 2})
    assert err.value.field == "luck_rerolls"


def test_brp7_luck_pool_spend_and_rest() -> None:
    luck = Luck(1, 60)
    spent = luck.spend()
    assert spent.current == 0
    with pytest.raises(d100.D100Error) as err:
        spent.spend()
    assert err.value.field == "luck"
    assert spent.rest() == Luck(60, 60)
    assert (
        luck_needed(
            d100.parse({"system": "brp", "skill": 5, "luck_boost": True, "luck_rerolls": 2})
        )
        == 3
    )


def test_brp8_meanings() -> None:
    system = d100.REGISTRY.get("brp")
    assert set(MEANINGS) == set(system.levels)
    assert "complication" in system.meaning("fumble")
    assert "extra fact" in system.meaning("critical")


@pytest.mark.parametrize("cap", [0, 1, 2, None])
@pytest.mark.parametrize("luck", [None, 1, 5])
def test_brp7_advice_keeps_to_the_reroll_cap(cap: int | None, luck: int | None) -> None:
    """Every option stays inside the house rule max_luck_rerolls and the Luck left (3 rerolls
    when the Luck is not known), and reaches both."""
    from d100.advise import advise

    house = {} if cap is None else {"house_rules": {"max_luck_rerolls": cap}}
    options = advise({"system": "brp", "skill": 50, **house}, luck=luck)
    rerolls = [o.request.get("luck_rerolls", 0) for o in options]
    have = 3 if luck is None else luck
    assert max(rerolls) == min(have, cap if cap is not None else have)
    spent = [
        int(o.request.get("luck_boost", False)) + o.request.get("luck_rerolls", 0) for o in options
    ]
    assert max(spent) <= have


@pytest.mark.parametrize(
    ("skill", "difficulty", "luck", "cap"),
    [
        (45, "difficult", 3, None),
        (10, "standard", 5, 2),
        (70, "hard", 1, None),
        (30, "extreme", 0, None),
    ],
)
def test_brp7_advice_holds_every_luck_option(
    skill: int, difficulty: str, luck: int, cap: int | None
) -> None:
    """Advice against an exhaustive search of what BRP7 lets a player spend: the boost or not,
    and any number of rerolls, within the Luck left and the house rule's cap; each option's odds
    from the closed form 1 - (1 - p)^(rerolls + 1), p the chance one roll succeeds."""
    from d100.advise import advise

    house = {} if cap is None else {"house_rules": {"max_luck_rerolls": cap}}
    request = {"system": "brp", "skill": skill, "difficulty": difficulty, **house}
    options = advise(request, luck=luck)
    offered = {
        (bool(o.request.get("luck_boost")), o.request.get("luck_rerolls", 0)): o.odds.success
        for o in options
        if not o.request.get("bonus_dice")
    }
    base = skill + DIFFICULTIES[difficulty]
    space = {
        (boost, n): 1 - (1 - Fraction(min(max(base + 20 * boost, 1), 95), 100)) ** (n + 1)
        for boost in (False, True)
        for n in range(luck + 1)
        if boost + n <= luck and (cap is None or n <= cap)
    }
    assert offered == space
    best = max(space.values())
    assert options[0].odds.success == best or options[0].request.get("bonus_dice")
