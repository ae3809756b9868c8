"""coc7, a single check: levels (C7-1), the required level (C7-2), bonus and penalty dice on the
tens die (C7-3), Luck after the roll (C7-4), pushes (C7-5), against an independent reading of
EDITIONS.md (tests/coc7_oracle.py) and brute force over every die."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

import d100
from d100 import tallies
from tests import coc7_oracle as ref
from tests.helpers import brute_force, nonzero, odds_map

GRID_T = [*range(0, 101), 101, 120, 150, 200]
DIFFICULTIES = ["regular", "hard", "extreme", "critical"]


def check(**fields: Any) -> dict[str, Any]:
    return {"system": "coc7", **fields}


def resolve(**fields: Any) -> d100.CheckResult:
    result = d100.resolve(check(**fields))
    assert isinstance(result, d100.CheckResult)
    return result


# -- C7-1, C7-2: levels on the full grid -----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_c7_1_c7_2_levels_on_the_full_grid(difficulty: str) -> None:
    """Every T in 0..100, 101, 120, 150, 200 and every roll 1..100, under each required level:
    the level and the success as the formula of EDITIONS.md gives them."""
    for t, r in product(GRID_T, range(1, 101)):
        got = resolve(skill=t, difficulty=difficulty, dice=[r])
        want = ref.level(r, t, difficulty)
        assert (got.level, got.success) == (
            want,
            ref.rank(want) >= ref.rank(difficulty),
        ), (t, r, difficulty)
        assert (got.roll, got.target, got.dice) == (r, t, (r,))


def test_c7_1_the_fumble_range_splits_at_50_and_00_fumbles_over_100() -> None:
    assert resolve(skill=49, dice=[96]).level == "fumble"
    assert resolve(skill=50, dice=[96]).level == "failure"
    assert resolve(skill=99, dice=[96]).level == "regular"
    assert resolve(skill=99, dice=[99]).level == "regular"
    assert resolve(skill=200, dice=[100]).level == "fumble"  # before success, whatever T
    assert resolve(skill=200, dice=[99]).level == "hard"


def test_c7_1_no_cap_on_the_target() -> None:
    """T 120: extreme up to 24, where a target clamped to 100 would stop at 20."""
    assert resolve(skill=120, dice=[24]).level == "extreme"
    assert resolve(skill=120, dice=[25]).level == "hard"
    assert resolve(skill=100, modifiers=[20], dice=[24]).level == "extreme"


def test_c7_1_target_0_as_foundry() -> None:
    """T 0: 01 critical, 02-95 failure, 96-00 fumble (BCDice's bare roll is not a check)."""
    levels = [resolve(skill=0, dice=[r]).level for r in range(1, 101)]
    assert levels == ["critical"] + ["failure"] * 94 + ["fumble"] * 5


def test_c7_1_modifiers_move_the_target_and_its_fumble_range() -> None:
    """The flat threshold modifier is added to T, fumble range included (C7 fields)."""
    assert resolve(skill=55, modifiers=[-10], dice=[97]).level == "fumble"  # T 45
    assert resolve(skill=40, modifiers=[10], dice=[97]).level == "failure"  # T 50
    assert resolve(skill=10, modifiers=[-30], dice=[2]).level == "failure"  # T -20


def test_c7_2_fumble_range_follows_the_required_value() -> None:
    """T 60: regular needs 60 (fumble 00 only), hard needs 30 (fumbles 96-00)."""
    assert resolve(skill=60, dice=[97]).level == "failure"
    hard = resolve(skill=60, difficulty="hard", dice=[97])
    assert (hard.level, hard.success) == ("fumble", False)
    assert resolve(skill=100, difficulty="hard", dice=[97]).level == "regular"  # needs 50
    assert resolve(skill=250, difficulty="extreme", dice=[97]).level == "hard"  # needs 50
    assert resolve(skill=245, difficulty="extreme", dice=[97]).level == "fumble"  # needs 49


def test_c7_2_success_iff_the_level_reaches_the_difficulty() -> None:
    regular_under_hard = resolve(skill=60, difficulty="hard", dice=[45])
    assert (regular_under_hard.level, regular_under_hard.success) == ("regular", False)
    assert resolve(skill=60, difficulty="hard", dice=[30]).success
    assert not resolve(skill=60, difficulty="extreme", dice=[13]).success
    assert resolve(skill=60, difficulty="critical", dice=[1]).success
    assert not resolve(skill=60, difficulty="critical", dice=[2]).success


@pytest.mark.parametrize("t", [0, 30, 50, 60, 99, 100, 200])
def test_c7_2_critical_difficulty_96_to_99_fumbles_only_under_the_house_rule(t: int) -> None:
    """Decision 2: Foundry's reading by default (critical difficulty fumbles only on 00);
    BCDice's under ``critical_difficulty_fumbles``."""
    bcdice = {"critical_difficulty_fumbles": True}
    for r in range(96, 100):
        plain = resolve(skill=t, difficulty="critical", dice=[r])
        assert plain.level == ref.level(r, t, "critical") != "fumble"
        ruled = resolve(skill=t, difficulty="critical", dice=[r], house_rules=bcdice)
        assert ruled.level == "fumble" == ref.level(r, t, "critical", bcdice=True)
    assert resolve(skill=t, difficulty="critical", dice=[100]).level == "fumble"


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize("t", [0, 1, 9, 10, 49, 50, 65, 99, 100, 101, 150])
def test_c7_2_odds_and_success_are_the_formula_summed(difficulty: str, t: int) -> None:
    odds = d100.odds(check(skill=t, difficulty=difficulty))
    want, _ = ref.check_odds(t, difficulty)
    assert dict(odds.levels) == want
    assert odds.success == sum(p for k, p in want.items() if ref.rank(k) >= ref.rank(difficulty))


# -- C7-3: bonus and penalty dice on the tens die --------------------------------------------


@pytest.mark.parametrize(("bonus", "penalty"), [(1, 0), (2, 0), (0, 1), (0, 2), (2, 1), (1, 2)])
@pytest.mark.parametrize("t", [5, 45, 50, 80, 120])
def test_c7_3_pool_odds_against_the_tens_digits_by_hand(bonus: int, penalty: int, t: int) -> None:
    odds = d100.odds(check(skill=t, bonus_dice=bonus, penalty_dice=penalty))
    want, _ = ref.check_odds(t, net=bonus - penalty)
    assert dict(odds.levels) == want


@pytest.mark.parametrize("fields", [{"bonus_dice": 1}, {"penalty_dice": 2}, {"bonus_dice": 2}])
def test_c7_3_pool_odds_are_brute_force(fields: dict[str, Any]) -> None:
    request = check(skill=45, **fields)
    assert nonzero(odds_map(request)) == brute_force(request)


def test_c7_3_given_dice_read_as_the_tens_method() -> None:
    """A group of |net|+1 values sharing a units digit: the lowest kept for a bonus die, the
    highest for a penalty die; 00 over a 0 units die is 100."""
    bonus = resolve(skill=60, bonus_dice=1, dice=[47, 7])
    assert (bonus.roll, bonus.level, bonus.dice) == (7, "extreme", (47, 7))
    assert "lower of 47, 07" in bonus.explanation
    penalty = resolve(skill=60, penalty_dice=2, dice=[10, 100, 50])
    assert (penalty.roll, penalty.level) == (100, "fumble")
    net = resolve(skill=60, bonus_dice=2, penalty_dice=1, dice=[33, 93])
    assert net.roll == 33
    with pytest.raises(d100.D100Error) as err:
        resolve(skill=60, bonus_dice=1, dice=[47, 8])
    assert err.value.field == "dice" and "units" in err.value.message
    with pytest.raises(d100.D100Error) as err:
        resolve(skill=60, bonus_dice=1, dice=[47])
    assert err.value.field == "dice"


# -- C7-4: Luck after the roll ---------------------------------------------------------------


def test_c7_4_the_least_luck_that_buys_the_difficulty_is_spent() -> None:
    r = resolve(skill=60, luck=50, dice=[70])
    assert (r.level, r.success, r.luck_spent, r.roll, r.margin) == ("regular", True, 10, 70, 0)
    assert r.luck_costs == {"regular": 10, "hard": 40}  # extreme (58) and critical (69) > 50
    assert "10 Luck lowers it to 60" in r.explanation
    hard = resolve(skill=60, difficulty="hard", luck=20, dice=[45])
    assert (hard.level, hard.luck_spent) == ("hard", 15)
    assert hard.luck_costs == {"hard": 15}  # regular is below the difficulty; extreme costs 33


def test_c7_4_available_luck_must_exceed_the_cost() -> None:
    short = resolve(skill=60, luck=10, dice=[70])
    assert (short.level, short.luck_spent, short.luck_costs) == ("failure", 0, {})
    enough = resolve(skill=60, luck=11, dice=[70])
    assert (enough.level, enough.luck_spent) == ("regular", 10)
    assert resolve(skill=60, luck=0, dice=[61]).luck_spent == 0


def test_c7_4_never_on_a_fumble() -> None:
    for t, r in ((40, 97), (60, 100), (10, 96)):
        got = resolve(skill=t, luck=100, dice=[r])
        assert (got.level, got.luck_spent, got.luck_costs) == ("fumble", 0, {})
    # T 60 does not fumble on 98: Luck buys it down to 60
    assert resolve(skill=60, luck=100, dice=[98]).luck_spent == 38


def test_c7_4_a_success_is_not_raised_but_its_offers_are_shown() -> None:
    """Hard, extreme and critical are offered on a success; regular only on a failure. The
    machine spends Luck only to reach the difficulty."""
    r = resolve(skill=60, luck=99, dice=[40])
    assert (r.level, r.luck_spent) == ("regular", 0)
    assert r.luck_costs == {"hard": 10, "extreme": 28, "critical": 39}


def test_c7_4_luck_to_raises_a_success_or_buys_past_the_difficulty() -> None:
    """``luck_to`` spends what its level costs, where C7-4 offers it: a success raised, a
    failure bought above the difficulty; a level off offer (its cost not below the Luck, or
    the roll already there) spends none."""
    # rule: C7-4
    hard = resolve(skill=60, luck=50, luck_to="hard", dice=[40])
    assert (hard.level, hard.success, hard.luck_spent, hard.margin) == ("hard", True, 10, 30)
    assert "10 Luck lowers it to 30" in hard.explanation
    past = resolve(skill=60, luck=50, luck_to="hard", dice=[70])
    assert (past.level, past.luck_spent) == ("hard", 40)
    short = resolve(skill=60, luck=28, luck_to="extreme", dice=[40])  # costs 28: not > 28
    assert (short.level, short.luck_spent) == ("regular", 0)
    there = resolve(skill=60, luck=50, luck_to="hard", dice=[20])
    assert (there.level, there.luck_spent) == ("hard", 0)
    fumble = resolve(skill=40, luck=99, luck_to="regular", dice=[97])
    assert (fumble.level, fumble.luck_spent) == ("fumble", 0)


def test_c7_4_luck_to_odds_are_brute_force() -> None:
    for request in (
        check(skill=60, luck=30, luck_to="hard"),
        check(skill=45, bonus_dice=1, luck=40, luck_to="extreme"),
    ):
        assert nonzero(odds_map(request)) == brute_force(request)


@pytest.mark.parametrize(
    ("fields", "field", "allowed"),
    [
        ({"luck_to": "hard"}, "luck_to", "none without luck"),
        ({"luck": 9, "luck_to": "regular", "difficulty": "hard"}, "luck_to", "hard or above"),
        ({"luck": 9, "luck_to": "failure"}, "luck_to", "regular"),
    ],
)
def test_c7_4_a_bad_luck_to_names_the_field(fields: Any, field: str, allowed: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        resolve(skill=60, dice=[50], **fields)
    assert err.value.field == field and allowed in str(err.value)


def test_c7_4_offers_without_luck_given_are_every_level_on_offer() -> None:
    r = resolve(skill=60, dice=[70])
    assert (r.luck_spent, r.luck_costs) == (
        0,
        {"regular": 10, "hard": 40, "extreme": 58, "critical": 69},
    )


def test_c7_4_a_level_without_a_range_is_not_on_offer() -> None:
    """T 5 has no extreme range (5/5 = 1 does not pass 01): under extreme difficulty only the
    critical is on offer, so Luck buys a critical (Foundry's buttons)."""
    r = resolve(skill=5, difficulty="extreme", luck=99, dice=[50])
    assert (r.level, r.luck_spent, r.success) == ("critical", 49, True)
    assert r.luck_costs == {"critical": 49}
    zero = resolve(skill=0, luck=99, dice=[30])  # T 0: only the critical exists
    assert (zero.level, zero.luck_spent) == ("critical", 29)
    assert resolve(skill=60, difficulty="critical", luck=5, dice=[5]).level == "critical"


@pytest.mark.parametrize("luck", [0, 1, 5, 11, 30, 60, 100])
@pytest.mark.parametrize(
    ("t", "difficulty"),
    [
        (60, "regular"),
        (45, "hard"),
        (5, "extreme"),
        (0, "regular"),
        (80, "critical"),
        (150, "hard"),
    ],
)
def test_c7_4_every_roll_against_the_oracle(t: int, difficulty: str, luck: int) -> None:
    for r in range(1, 101):
        got = resolve(skill=t, difficulty=difficulty, luck=luck, dice=[r])
        assert (got.level, got.luck_spent) == ref.after_luck(r, t, difficulty, luck), r
        assert got.luck_costs == ref.offers(r, t, difficulty, luck), r


@pytest.mark.parametrize("luck", [0, 7, 25, 50, 99])
@pytest.mark.parametrize(
    ("t", "difficulty", "net"),
    [
        (60, "regular", 0),
        (45, "hard", 1),
        (30, "regular", -2),
        (99, "extreme", 2),
        (0, "regular", 0),
    ],
)
def test_c7_4_odds_and_expected_luck_are_exact(
    t: int, difficulty: str, net: int, luck: int
) -> None:
    pool = {"bonus_dice": max(net, 0), "penalty_dice": max(-net, 0)}
    odds = d100.odds(check(skill=t, difficulty=difficulty, luck=luck, **pool))
    levels, spent = ref.check_odds(t, difficulty, net, luck)
    assert dict(odds.levels) == levels
    assert odds.luck_spent == (spent or None)


def test_c7_4_expected_luck_is_the_mean_over_every_die() -> None:
    """Counted from results resolved on every dice group, against the odds' figure."""
    total = Fraction(0)
    for units, t1, t2 in product(range(10), repeat=3):
        dice = [10 * t1 + units or 100, 10 * t2 + units or 100]
        total += resolve(skill=45, bonus_dice=1, luck=40, dice=dice).luck_spent or 0
    assert d100.odds(check(skill=45, bonus_dice=1, luck=40)).luck_spent == total / 1000


def test_c7_4_luck_odds_are_brute_force() -> None:
    for request in (check(skill=37, luck=20), check(skill=64, difficulty="hard", luck=35)):
        assert nonzero(odds_map(request)) == brute_force(request)


def test_c7_4_no_luck_spent_shows_none_in_the_odds() -> None:
    assert d100.odds(check(skill=60)).luck_spent is None
    assert d100.odds(check(skill=60, luck=1)).luck_spent is None  # 1 Luck never exceeds a cost


# -- C7-5: pushes ------------------------------------------------------------------------------


def test_c7_5_a_failure_is_pushed_once_and_the_second_roll_stands() -> None:
    r = resolve(skill=60, push=True, dice=[75, 35])
    assert (r.level, r.roll, r.attempts, r.dice, r.success) == (
        "regular",
        35,
        (75, 35),
        (75, 35),
        True,
    )
    assert "pushed: 35" in r.explanation
    again = resolve(skill=60, push=True, dice=[75, 97])
    assert (again.level, again.attempts) == ("failure", (75, 97))  # no second push


def test_c7_5_no_push_after_a_success_or_a_fumble() -> None:
    assert resolve(skill=60, push=True, dice=[35]).attempts == ()
    with pytest.raises(d100.D100Error) as err:
        resolve(skill=60, push=True, dice=[35, 40])
    assert err.value.field == "dice" and "left over" in err.value.message
    fumble = resolve(skill=40, push=True, dice=[97])
    assert (fumble.level, fumble.attempts) == ("fumble", ())
    allowed = resolve(skill=40, push=True, dice=[97, 30], house_rules={"allow_push_fumbles": True})
    assert (allowed.level, allowed.attempts) == ("regular", (97, 30))


def test_c7_5_a_failure_of_the_difficulty_is_pushed() -> None:
    r = resolve(skill=60, difficulty="hard", push=True, dice=[45, 20])
    assert (r.level, r.success, r.attempts) == ("hard", True, (45, 20))


def test_c7_5_the_push_rolls_the_same_pool() -> None:
    r = resolve(skill=60, bonus_dice=1, push=True, dice=[75, 95, 64, 84])
    assert (r.attempts, r.level) == ((75, 64), "failure")
    assert "lower of 64, 84" in r.explanation


def test_c7_5_luck_first_then_the_push() -> None:
    """Decision 7 before decision 8: Luck that buys the difficulty is spent and the roll is
    not pushed; Luck that cannot buy it is not spent, and the roll is pushed."""
    bought = resolve(skill=60, luck=50, push=True, dice=[70])
    assert (bought.level, bought.luck_spent, bought.attempts) == ("regular", 10, ())
    pushed = resolve(skill=60, luck=20, push=True, dice=[90, 40])
    assert (pushed.level, pushed.luck_spent, pushed.attempts) == ("regular", 0, (90, 40))


def test_c7_5_no_luck_after_a_push() -> None:
    """The pushed 70 would cost 10 of the 20 Luck on a first roll: after a push none is
    offered or spent."""
    r = resolve(skill=60, luck=20, push=True, dice=[90, 70])
    assert (r.level, r.luck_spent, r.luck_costs) == ("failure", 0, {})


def test_c7_5_foundrys_quirk_cannot_arise() -> None:
    """EDITIONS.md's quirk: T 60, 70 with 5 Luck spent, pushed 64 reads 59 in Foundry. Here
    Luck is spent only when it buys the roll (10 > 5 available), so none is carried into the
    push: the pushed 64 stands as a failure."""
    r = resolve(skill=60, luck=6, push=True, dice=[70, 64])
    assert (r.level, r.roll, r.luck_spent, r.margin) == ("failure", 64, 0, -4)


@pytest.mark.parametrize(
    "fields",
    [
        {"skill": 60, "push": True},
        {"skill": 40, "push": True, "house_rules": {"allow_push_fumbles": True}},
        {"skill": 45, "difficulty": "hard", "push": True, "luck": 20},
        {"skill": 60, "push": True, "luck": 6},
    ],
)
def test_c7_5_push_odds_are_brute_force(fields: dict[str, Any]) -> None:
    request = check(**fields)
    assert nonzero(odds_map(request)) == brute_force(request)


@pytest.mark.parametrize("luck", [None, 0, 15, 40])
@pytest.mark.parametrize("push_fumbles", [False, True])
@pytest.mark.parametrize(
    ("t", "difficulty", "net"),
    [
        (60, "regular", 0),
        (45, "hard", 1),
        (30, "regular", -1),
        (75, "extreme", 2),
        (20, "critical", -2),
    ],
)
def test_c7_4_c7_5_luck_and_push_odds_against_the_oracle(
    t: int, difficulty: str, net: int, luck: int | None, push_fumbles: bool
) -> None:
    fields: dict[str, Any] = {"skill": t, "difficulty": difficulty, "push": True}
    fields |= {"bonus_dice": max(net, 0), "penalty_dice": max(-net, 0)}
    if luck is not None:
        fields["luck"] = luck
    if push_fumbles:
        fields["house_rules"] = {"allow_push_fumbles": True}
    odds = d100.odds(check(**fields))
    levels, spent = ref.check_odds(t, difficulty, net, luck, True, push_fumbles)
    assert dict(odds.levels) == levels
    assert odds.luck_spent == (None if luck is None else spent or None)
    assert odds.success == sum(p for k, p in levels.items() if ref.rank(k) >= ref.rank(difficulty))


def test_c7_5_a_push_never_lowers_the_odds() -> None:
    for t in (10, 45, 80):
        plain, pushed = d100.odds(check(skill=t)), d100.odds(check(skill=t, push=True))
        assert pushed.success > plain.success


# -- the fast path and the engine read the plan ----------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"skill": 60},
        {"skill": 60, "difficulty": "hard", "bonus_dice": 2},
        {"skill": 45, "luck": 30, "penalty_dice": 1},
        {"skill": 45, "luck": 30, "penalty_dice": 1, "difficulty": "extreme"},
        {"skill": 60, "combined": [40, 90], "bonus_dice": 1},
        {
            "skill": 60,
            "difficulty": "critical",
            "house_rules": {"critical_difficulty_fumbles": True},
        },
    ],
)
def test_the_fast_path_equals_the_reference(fields: dict[str, Any]) -> None:
    # warm the shared memos with a neighbour first, so this request meets them
    d100.odds(check(skill=61, bonus_dice=fields.get("bonus_dice", 0)))
    parsed = d100.parse(check(**fields))
    fast, reference = tallies.tally(parsed), tallies.reference(parsed)
    assert fast.fractions() == reference.fractions()
    assert (fast.luck is None) == (reference.luck is None)
    if fast.luck is not None and reference.luck is not None:
        assert Fraction(fast.luck, fast.denominator) == Fraction(
            reference.luck, reference.denominator
        )


def test_c7_2_odds_success_counts_only_the_levels_that_reach_the_difficulty() -> None:
    """A regular success under hard difficulty is a level of the odds but not a success."""
    odds = d100.odds(check(skill=60, difficulty="hard"))
    assert odds.levels["regular"] == Fraction(30, 100)
    assert odds.success == Fraction(30, 100)  # 01-30


def test_c7_4_results_carry_the_luck_spent_and_the_costs() -> None:
    r = resolve(skill=60, dice=[50])
    assert r.to_dict()["luck_spent"] == 0 and r.to_dict()["luck_costs"] == {
        "hard": 20,
        "extreme": 38,
        "critical": 49,
    }
