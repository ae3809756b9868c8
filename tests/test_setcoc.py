"""coc7's house rule ``setcoc``: SealDice's critical and fumble rules (SD-core, SD-0..SD-5,
SD-dg of SESSION.md) against a straight transcription of SESSION.md's frame written here, over
every rule, skill, roll and difficulty; exact odds, Luck and pushes against counting by hand."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

import pytest

import d100
from d100 import tallies
from d100.errors import D100Error
from d100.systems.coc7_check import HouseRules, ladder_of
from tests.helpers import nonzero, odds_map

RULES = ("0", "1", "2", "3", "4", "5", "dg")
DIFFICULTIES = ("regular", "hard", "extreme", "critical")
D = {"regular": 1, "hard": 2, "extreme": 3, "critical": 4}
NAMES = {4: "critical", 3: "extreme", 2: "hard", 1: "regular", -1: "failure", -2: "fumble"}
SKILLS = range(-12, 131)


# -- SESSION.md section 1, transcribed: the frame and each rule's table -----------------------


def go_div(a: int, b: int) -> int:
    """Go's ``a / b`` on ints: truncation toward zero."""
    return int(a / b)


def is_double(r: int) -> bool:
    return r % 10 == (r % 100) // 10


def crit_fum(rule: str, s: int, need: int) -> tuple[int, int]:
    if rule == "0":
        return 1, (96 if need < 50 else 100)
    if rule == "1":
        return (5 if s >= 50 else 1), (96 if s < 50 else 100)
    if rule == "2":
        return min(5, s), (96 if s < 96 else min(s + 1, 100))
    if rule == "3":
        return 5, 96
    if rule == "4":
        return min(5, go_div(s, 10)), min(100, 96 + go_div(s, 10))
    if rule == "5":
        return min(2, go_div(s, 5)), (96 if s < 50 else 99)
    return 1, 100  # dg


@cache  # the Luck and push counts ask for the same rolls again
def sd_rank(rule: str, s: int, d: int, r: int) -> int:
    if d in (0, 1):
        need = s
    elif d == 2:
        need = go_div(s, 2)
    elif d == 3:
        need = go_div(s, 5)
    else:
        need = 1
    ok = r <= need
    crit, fum = crit_fum(rule, s, need)
    if ok or r <= crit:
        rank = 1
        if r <= go_div(s, 2):
            rank = 2
        if r <= go_div(s, 5):
            rank = 3
        if r <= crit:
            rank = 4
    elif r >= fum:
        rank = -2
    else:
        rank = -1
    if rule == "0":
        if r == 1:
            rank = 4
        if r == 100:
            rank = -2
    elif rule in ("1", "2"):
        if r == 1:
            rank = 4
    elif rule == "3":
        if r <= 5:
            rank = 4
        if r >= 96:
            rank = -2
    elif rule == "dg":
        success = rank > 0
        rank = (4 if is_double(r) else 1) if success else (-2 if is_double(r) else -1)
        if r == 1:
            rank = 4
    return rank


def want(rule: str, s: int, difficulty: str, r: int) -> tuple[str, bool]:
    """(level, passed): SealDice's rank as coc7's level; passed is rank >= D."""
    rank = sd_rank(rule, s, D[difficulty], r)
    return NAMES[rank], rank >= D[difficulty]


def request(rule: str | int, skill: int, **fields: Any) -> dict[str, Any]:
    """A check of target ``skill`` (a negative target through a modifier, as skills are 0+)."""
    base: dict[str, Any] = {"system": "coc7", "skill": max(skill, 0)}
    if skill < 0:
        base["modifiers"] = [skill]
    return {**base, "house_rules": {"setcoc": rule}, **fields}


def resolve(rule: str | int, skill: int, **fields: Any) -> d100.CheckResult:
    result = d100.resolve(request(rule, skill, **fields))
    assert isinstance(result, d100.CheckResult)
    return result


# -- every rule, skill, roll and difficulty -------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_sd_core_every_skill_roll_and_difficulty_against_the_transcription(rule: str) -> None:
    # rule: SD-core, SD-0, SD-1, SD-2, SD-3, SD-4, SD-5, SD-dg
    """The level of every roll 1..100 of every target -12..130 under every difficulty, as the
    resolution reads it, equals the transcription; whole rolls on a grid of targets."""
    house = HouseRules(setcoc=rule)
    for s, difficulty in product(SKILLS, DIFFICULTIES):
        lad = ladder_of(s, difficulty, house)
        assert [lad[r] for r in range(1, 101)] == [
            want(rule, s, difficulty, r)[0] for r in range(1, 101)
        ], (rule, s, difficulty)
    for s, difficulty in product((-3, 0, 1, 4, 5, 9, 10, 44, 49, 50, 96, 99, 100, 120), D):
        for r in range(1, 101):
            got = resolve(rule, s, difficulty=difficulty, dice=[r])
            assert (got.level, got.success) == want(rule, s, difficulty, r), (s, difficulty, r)


def test_sd_core_a_number_and_its_text_are_one_rule() -> None:
    for n in range(6):
        for s, difficulty in product((0, 7, 50, 101), DIFFICULTIES):
            assert ladder_of(s, difficulty, HouseRules(setcoc=n)) == ladder_of(
                s, difficulty, HouseRules(setcoc=str(n))
            )


# -- the cases SESSION.md states ------------------------------------------------------------


def level(rule: str, s: int, r: int, difficulty: str = "regular") -> str:
    return resolve(rule, s, difficulty=difficulty, dice=[r]).level


def test_sd_core_hard_and_extreme_from_the_whole_skill_and_short_of_the_difficulty_fails() -> None:
    assert level("1", 60, 12, "hard") == "extreme"  # 12 <= 60 / 5, whatever the difficulty
    assert level("1", 60, 40, "hard") == "failure"  # meets 60, not 30: a failure, not regular
    assert not resolve("1", 60, difficulty="hard", dice=[40]).success
    for rule in ("1", "2", "4", "5"):  # a fumble only outside the success branch
        assert level(rule, 100, 100) == "regular", rule
        assert level(rule, 250, 100) == "hard", rule


def test_sd_0_one_always_critical_hundred_always_fumble_fumbles_from_the_need() -> None:
    assert level("0", 0, 1) == "critical"
    assert level("0", -5, 1) == "critical"
    assert level("0", 150, 100) == "fumble"
    assert level("0", 99, 96) == "regular"
    assert level("0", 60, 96) == "failure"
    assert level("0", 60, 96, "hard") == "fumble"  # need 30 < 50
    assert level("0", 99, 99, "hard") == "fumble"
    assert level("0", 99, 97, "critical") == "fumble"  # need 1
    assert level("0", 60, 95, "hard") == "failure"


def test_sd_1_criticals_and_fumbles_from_the_whole_skill() -> None:
    assert [level("1", 50, r) for r in (5, 6)] == ["critical", "extreme"]
    assert [level("1", 49, r) for r in (1, 2, 96)] == ["critical", "extreme", "fumble"]
    assert level("1", 50, 96, "hard") == "failure"  # the difficulty does not move it
    assert level("1", 50, 100, "hard") == "fumble"
    assert resolve("1", 60, difficulty="critical", dice=[5]).success


def test_sd_2_criticals_up_to_the_skill_fumbles_above_it() -> None:
    assert [level("2", 3, r) for r in (1, 3, 4, 5)] == ["critical", "critical"] + ["failure"] * 2
    assert level("2", 0, 1) == "critical"  # 01 always
    assert [level("2", 97, r) for r in (97, 98, 100)] == ["regular", "fumble", "fumble"]
    assert level("2", 95, 96) == "fumble"
    assert level("2", 100, 100) == "regular"


def test_sd_3_ignores_the_target() -> None:
    assert [level("3", 1, r) for r in range(1, 6)] == ["critical"] * 5
    assert [level("3", 120, r) for r in range(96, 101)] == ["fumble"] * 5
    assert all(resolve("3", 30, difficulty="critical", dice=[r]).success for r in range(1, 6))
    assert level("3", 30, 6, "critical") == "failure"


def test_sd_3_critical_difficulty_shows_the_rolls_that_meet_it() -> None:
    from d100.systems.coc7 import DECLARATION

    assert DECLARATION.words.needed is not None
    for rule, s, how in (("3", 30, "01-05"), ("0", 30, "01 only"), ("4", 8, "no roll")):
        needed = DECLARATION.words.needed(resolve(rule, s, difficulty="critical", dice=[4]))
        assert needed is not None and needed.how == how, rule


def test_sd_4_no_critical_under_ten_fumbles_climb_by_tens() -> None:
    assert level("4", 9, 1) == "extreme"  # 01 <= 9 / 5: no critical below 10
    assert level("4", 0, 1) == "failure"
    assert [level("4", 10, r) for r in (1, 96, 97)] == ["critical", "failure", "fumble"]
    assert [level("4", 39, r) for r in (3, 98, 99)] == ["critical", "failure", "fumble"]
    assert [level("4", 40, r) for r in (99, 100)] == ["failure", "fumble"]  # 100 at 40, not 50
    assert [level("4", 70, r) for r in range(1, 7)] == ["critical"] * 5 + ["extreme"]
    assert level("4", 100, 100) == "regular"


def test_sd_5_one_or_two_criticals() -> None:
    assert level("5", 4, 1) == "hard"  # no critical under 5
    assert [level("5", 5, r) for r in (1, 2)] == ["critical", "hard"]
    assert [level("5", 10, r) for r in (2, 3)] == ["critical", "hard"]
    assert [level("5", 80, r) for r in (2, 3)] == ["critical", "extreme"]
    assert [level("5", 49, 96), level("5", 50, 98), level("5", 50, 99)] == [
        "fumble",
        "failure",
        "fumble",
    ]


def test_sd_dg_doubles_and_the_hundred() -> None:
    assert [level("dg", 50, r) for r in (1, 11, 44, 45, 55, 51)] == [
        "critical",
        "critical",
        "critical",
        "regular",
        "fumble",
        "failure",
    ]
    assert level("dg", 100, 100) == "critical"  # 100 is a double, and a success at 100
    assert level("dg", 99, 100) == "fumble"
    assert level("dg", 0, 1) == "critical"
    assert level("dg", 60, 12, "hard") == "regular"  # hard and extreme erased ...
    assert not resolve("dg", 60, difficulty="hard", dice=[12]).success  # ... so it fails
    assert resolve("dg", 60, difficulty="hard", dice=[22]).success  # a critical passes
    assert level("dg", 60, 33, "hard") == "fumble"  # 33 > 30: a failed double


# -- exact odds, Luck and a push under every rule, against counting --------------------------


def kept_weights(net: int) -> Counter[int]:
    """C7-3 counted here: one units die, 1 + |net| tens dice, 00 with 0 read as 100; the
    lowest kept with bonus dice, the highest with penalty dice."""
    out: Counter[int] = Counter()
    for units in range(10):
        for tens in product(range(10), repeat=abs(net) + 1):
            reads = [10 * t + units or 100 for t in tens]
            out[min(reads) if net > 0 else max(reads)] += 1
    return out


def luck_bought(rule: str, s: int, difficulty: str, r: int, luck: int) -> tuple[str, int]:
    """C7-4 by hand on a rule's levels: a roll failing the difficulty (not a fumble) lowered
    to the nearest roll below it that succeeds, where the Luck given exceeds the cost."""
    lvl, passed = want(rule, s, difficulty, r)
    if passed or lvl == "fumble":
        return lvl, 0
    for lower in range(r - 1, 0, -1):
        got, ok = want(rule, s, difficulty, lower)
        if ok:
            return (got, r - lower) if luck > r - lower else (lvl, 0)
    return lvl, 0


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_sd_core_exact_odds_with_dice_and_luck_count_the_levels(rule: str) -> None:
    # rule: SD-0, SD-1, SD-2, SD-3, SD-4, SD-5, SD-dg
    for net, s, difficulty, luck in product(
        (-1, 0, 2), (0, 3, 9, 33, 50, 77, 100), DIFFICULTIES, (None, 9)
    ):
        weights = kept_weights(net)
        total = sum(weights.values())
        counts: Counter[str] = Counter()
        spent = 0
        for r, w in weights.items():
            lvl, cost = (
                (want(rule, s, difficulty, r)[0], 0)
                if luck is None
                else luck_bought(rule, s, difficulty, r, luck)
            )
            counts[lvl] += w
            spent += w * cost
        fields: dict[str, Any] = {
            "difficulty": difficulty,
            "bonus_dice": max(net, 0),
            "penalty_dice": max(-net, 0),
        }
        if luck is not None:
            fields["luck"] = luck
        data = request(rule, s, **fields)
        assert nonzero(odds_map(data)) == {k: Fraction(v, total) for k, v in counts.items()}, data
        if luck is not None:
            assert (d100.odds(data).luck_spent or 0) == Fraction(spent, total), data


@pytest.mark.parametrize("rule", ["0", "3", "dg"])
def test_sd_core_a_push_follows_the_rule(rule: str) -> None:
    # rule: SD-0, SD-3, SD-dg
    """C7-5 on a rule's levels: a failure that is no fumble is rolled again, once."""
    for s, difficulty in product((20, 60), ("regular", "hard")):
        counts: Counter[str] = Counter()
        for r in range(1, 101):
            lvl, passed = want(rule, s, difficulty, r)
            if passed or lvl == "fumble":
                counts[lvl] += 100
            else:
                counts.update(want(rule, s, difficulty, again)[0] for again in range(1, 101))
        data = request(rule, s, difficulty=difficulty, push=True)
        assert nonzero(odds_map(data)) == {k: Fraction(v, 10000) for k, v in counts.items()}


def test_sd_dg_luck_buys_the_nearest_double_below() -> None:
    # rule: SD-dg
    got = resolve("dg", 50, dice=[47], luck=20)
    assert got.luck_costs == {"critical": 3}  # 47 lowered to 44, not to 01
    bought = resolve("dg", 44, dice=[45], luck=20)  # 44 is a critical: 1 point, cheaper than 43
    assert (bought.level, bought.luck_spent) == ("critical", 1)
    hard = resolve("dg", 60, difficulty="hard", dice=[40], luck=20)
    assert (hard.level, hard.luck_spent) == ("critical", 18)  # to 22: only a critical passes


# -- the fast paths and contests agree with the machine ------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_sd_core_fast_paths_equal_the_reference_enumeration(rule: str) -> None:
    # rule: SD-0, SD-1, SD-2, SD-3, SD-4, SD-5, SD-dg
    tallies.clear_caches()
    for s, difficulty, net in product(range(-4, 131, 11), DIFFICULTIES, (-2, 0, 1)):
        for extra in ({}, {"luck": 15}, {"combined": [max(s, 0) // 2, 90]}):
            data = request(
                rule,
                s,
                difficulty=difficulty,
                bonus_dice=max(net, 0),
                penalty_dice=max(-net, 0),
                **extra,
            )
            check = d100.parse(data)
            fast, ref = tallies.tally(check), tallies.reference(check)
            assert fast.fractions() == ref.fractions(), data
    for a, o in ((50, 44), (10, 99), (100, 3)):
        contest = d100.parse(
            {
                "system": "coc7",
                "actor": {"skill": a},
                "opponent": {"skill": o},
                "house_rules": {"setcoc": rule},
            }
        )
        assert tallies.tally(contest).fractions() == tallies.reference(contest).fractions()


def test_sd_dg_opposed_successes_at_one_level_go_to_the_lower_roll() -> None:
    # rule: SD-dg
    """SealDice's ``.rav`` under dg, counted over every pair of rolls: the higher level wins;
    both succeeding at one level, the lower roll (equal rolls tie); under the other rules
    equal levels tie (C7-6)."""
    order = ["fumble", "failure", "regular", "hard", "extreme", "critical"]
    for rule, (a, o) in product(("dg", "2"), ((50, 60), (45, 44), (100, 12))):
        counts: Counter[str] = Counter()
        for ra, ro in product(range(1, 101), repeat=2):
            x, y = want(rule, a, "regular", ra)[0], want(rule, o, "regular", ro)[0]
            if x != y:
                counts["actor" if order.index(x) > order.index(y) else "opponent"] += 1
            elif rule == "dg" and want(rule, a, "regular", ra)[1] and ra != ro:
                counts["actor" if ra < ro else "opponent"] += 1
            else:
                counts["tie"] += 1
        data = {
            "system": "coc7",
            "actor": {"skill": a},
            "opponent": {"skill": o},
            "house_rules": {"setcoc": rule},
        }
        assert nonzero(odds_map(data)) == {k: Fraction(v, 10000) for k, v in counts.items()}
    two = {"actor": {"skill": 50, "dice": [20]}, "opponent": {"skill": 60, "dice": [30]}}
    rolled = d100.resolve({**data, **two, "house_rules": {"setcoc": "dg"}})
    assert rolled.winner == "actor"


@pytest.mark.parametrize("rule", RULES)
def test_sd_core_declared_cuts_hold_on_every_final_state(rule: str) -> None:
    # rule: SD-0, SD-1, SD-2, SD-3, SD-4, SD-5, SD-dg
    """coc7's ``FastPath.cuts`` under a rule: one level over each span between its cuts."""
    from bisect import bisect_left

    from d100.machine import final_weights

    for s, difficulty, net in product((-3, 0, 4, 9, 33, 44, 50, 99, 100, 120), D, (-1, 0, 2)):
        check = d100.parse(
            request(
                rule, s, difficulty=difficulty, bonus_dice=max(net, 0), penalty_dice=max(-net, 0)
            )
        )
        fast = tallies.system_of(check).declares.fast
        assert fast is not None and fast.cuts is not None and fast.reading is not None
        cuts = sorted(fast.cuts(check) or ())
        assert cuts, (rule, s, difficulty)
        plan = tallies.plan_of(check)
        spans: dict[int, set[str]] = {}
        for state in final_weights(plan.machine)[0]:
            spans.setdefault(bisect_left(cuts, fast.reading(state)), set()).add(plan.outcome(state))
        assert all(len(levels) == 1 for levels in spans.values()), (rule, s, difficulty, spans)


# -- the house rule asked for --------------------------------------------------------------


def test_sd_core_refused_values_name_the_field_and_what_is_allowed() -> None:
    with pytest.raises(D100Error) as bad:
        d100.parse(request(6, 50))
    assert bad.value.field == "house_rules.setcoc"
    assert '"dg"' in bad.value.allowed and "5" in bad.value.allowed
    with pytest.raises(D100Error) as both:
        d100.parse(
            {
                "system": "coc7",
                "skill": 50,
                "house_rules": {"setcoc": "0", "critical_difficulty_fumbles": True},
            }
        )
    assert both.value.field == "house_rules.critical_difficulty_fumbles"


def test_sd_core_the_quick_form_and_the_json_read_the_house_rule() -> None:
    quick = d100.quick.read("coc7 50 setcoc=dg @55")
    assert quick["house_rules"] == {"setcoc": "dg"}
    assert d100.resolve(quick).level == "fumble"
    assert d100.quick.read("coc7 50 setcoc=2")["house_rules"] == {"setcoc": 2}


@pytest.mark.parametrize("rule", RULES)
def test_sd_core_advice_weighs_each_option_by_the_rule(rule: str) -> None:
    # rule: SD-core
    """Advice under a rule: the check as asked has the transcription's levels, a push the
    transcription's push counts, and every option keeps the rule (none judged by coc7's own)."""
    from d100.advise import advise

    for s in (20, 60):
        options = advise(request(rule, s), luck=20)
        assert all(o.request["house_rules"]["setcoc"] == rule for o in options)
        asked = next(o for o in options if o.gain == 0)
        counts = Counter(want(rule, s, "regular", r)[0] for r in range(1, 101))
        assert nonzero(dict(asked.odds.levels)) == {k: Fraction(v, 100) for k, v in counts.items()}
        pushed = [o for o in options if o.request.get("push") and not o.request.get("luck")]
        assert pushed
        again = sum(1 for r in range(1, 101) if want(rule, s, "regular", r)[1])
        fails, passes = counts["failure"], 100 - counts["failure"] - counts["fumble"]
        for o in pushed:  # a failure that is no fumble rolled again once (C7-5)
            assert o.odds.success == Fraction(passes * 100 + fails * again, 10000)
