"""CoC7 multiple handgun shots (S7-13): each shot's pool and difficulty as the rule states,
the exact odds of hits, extreme hits (S7-6), a malfunction and each shot's level against a
brute force over every kept die of every shot, and the quick enumeration against the machine
driven die by die."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from itertools import product

import pytest

from d100.errors import D100Error, DiceError, TooMuchWork
from d100.machine import distribution
from d100.systems import coc7_shots as cs
from tests.test_coc7_far import kept_chances

STEP = ["regular", "hard", "extreme", "critical", "impossible"]
RANGE = {"normal": 0, "long": 1, "extreme": 2}


def rule_pool(shots: int, bonus: int, aimed: bool, i: int, rng: str) -> tuple[int, str]:
    """S7-13 read afresh: aim on the first, a penalty die each when several; clamp to 2, each
    penalty die beyond a step of difficulty."""
    net = bonus + (i == 0 and aimed) - (shots > 1)
    step = RANGE[rng] + max(0, -2 - net)
    return max(-2, min(2, net)), STEP[min(step, 4)]


def rule_shot(skill: int, r: int, difficulty: str, rng: str, malfunction: int | None) -> tuple:
    """(level, hit, extreme, malfunction) of one kept die, from C7-1, C7-2, S7-6 and S7-13."""
    need = {"regular": skill, "hard": skill // 2, "extreme": skill // 5}.get(difficulty)
    fumble = 96 if need is not None and need < 50 else 100
    if r == 1:
        lv = "critical"
    elif r >= fumble:
        lv = "fumble"
    elif r <= skill // 5:
        lv = "extreme"
    elif r <= skill // 2:
        lv = "hard"
    elif r <= skill:
        lv = "regular"
    else:
        lv = "failure"
    order = ["fumble", "failure", "regular", "hard", "extreme", "critical"]
    jam = malfunction is not None and r >= malfunction
    hit = not jam and difficulty != "impossible" and order.index(lv) >= order.index(difficulty)
    extreme = hit and (lv == "critical" or (lv == "extreme" and rng != "extreme"))
    return lv, hit, extreme, jam


def brute(request: cs.Shots) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """Every kept die of every shot, each shot stopped by a malfunction before it."""
    bonus = request.bonus_dice - request.penalty_dice
    ranges = request.ranges * request.shots if len(request.ranges) == 1 else request.ranges
    pools = [
        rule_pool(request.shots, bonus, request.aimed, i, ranges[i]) for i in range(request.shots)
    ]
    out: dict[tuple[int, int], Fraction] = {}
    jam = Fraction(0)
    seen: set[tuple[int, ...]] = set()
    for kept in product(*(sorted(kept_chances(net)) for net, _ in pools)):
        hits = extreme = 0
        p = Fraction(1)
        stopped = False
        for i, r in enumerate(kept):
            p *= kept_chances(pools[i][0])[r]
            _, hit, ext, jammed = rule_shot(
                request.skill, r, pools[i][1], ranges[i], request.malfunction
            )
            hits += hit
            extreme += ext
            if jammed:
                stopped = True
                prefix = kept[: i + 1]
                break
        if stopped:  # the shots after a malfunction are never rolled: count the prefix once
            if prefix in seen:
                continue
            seen.add(prefix)
            jam += p
        out[(hits, extreme)] = out.get((hits, extreme), Fraction(0)) + p
    return out, jam


CASES = [
    cs.Shots(55, 2, malfunction=98),
    cs.Shots(40, 2, bonus_dice=1, aimed=True, ranges=("long", "extreme")),
    cs.Shots(80, 2, penalty_dice=2, ranges=("long",), malfunction=96),
    cs.Shots(30, 1, aimed=True, ranges=("extreme",), malfunction=99),
    cs.Shots(99, 2, penalty_dice=2, ranges=("extreme",)),
]


@pytest.mark.parametrize("request_", CASES, ids=range(len(CASES)))
def test_s7_13_shots_odds_match_brute_force(request_: cs.Shots) -> None:
    odds = cs.odds(request_)
    want, jam = brute(request_)
    assert dict(odds.outcomes) == {k: p for k, p in want.items() if p}
    assert odds.malfunction == jam


@pytest.mark.parametrize("request_", CASES[:2], ids=range(2))
def test_s7_13_each_shot_level_odds(request_: cs.Shots) -> None:
    odds = cs.odds(request_)
    bonus = request_.bonus_dice - request_.penalty_dice
    for i, chances in enumerate(odds.per_shot):
        net, difficulty = rule_pool(request_.shots, bonus, request_.aimed, i, request_.range_of(i))
        fired = 1 - chances["unfired"]
        want: dict[str, Fraction] = {}
        for r, q in kept_chances(net).items():
            lv = rule_shot(request_.skill, r, difficulty, request_.range_of(i), None)[0]
            want[lv] = want.get(lv, Fraction(0)) + fired * q
        assert {k: p for k, p in chances.items() if k != "unfired"} == want


@pytest.mark.parametrize(
    ("shots", "bonus", "penalty", "aimed", "rng", "want"),
    [
        (1, 0, 0, False, "normal", [(0, "regular")]),  # one shot: no penalty die
        (2, 0, 0, False, "normal", [(-1, "regular")] * 2),  # the first included
        (3, 1, 0, True, "long", [(1, "hard"), (0, "hard"), (0, "hard")]),  # aim: first only
        (2, 0, 2, False, "normal", [(-2, "hard")] * 2),  # an excess penalty die: a step
        (2, 0, 2, False, "extreme", [(-2, "critical")] * 2),
    ],
)
def test_s7_13_each_shot_takes_a_penalty_die(
    shots: int, bonus: int, penalty: int, aimed: bool, rng: str, want: list
) -> None:
    request = cs.Shots(50, shots, bonus, penalty, aimed, (rng,))
    assert [request.pool(i) for i in range(shots)] == want


def test_s7_13_a_malfunction_ends_the_shots_and_fails() -> None:
    result = cs.roll(cs.Shots(60, 3, malfunction=96, dice=(10, 10, 97, 97)))
    assert [s.malfunction for s in result.shots] == [False, True]
    assert (result.hits, result.malfunction) == (1, True)
    with pytest.raises(DiceError):  # the third shot is never fired: its dice are left over
        cs.roll(cs.Shots(60, 3, malfunction=96, dice=(10, 10, 97, 97, 5, 5)))


def test_s7_13_extreme_range_needs_a_critical_for_extreme_damage() -> None:
    near = cs.roll(cs.Shots(90, 1, ranges=("normal",), dice=(10,))).shots[0]
    far = cs.roll(cs.Shots(90, 1, ranges=("extreme",), dice=(10,))).shots[0]
    crit = cs.roll(cs.Shots(90, 1, ranges=("extreme",), dice=(1,))).shots[0]
    assert (near.level, near.extreme) == ("extreme", True)
    assert (far.level, far.hit, far.extreme) == ("extreme", True, False)
    assert crit.extreme


def test_s7_13_quick_enumeration_equals_the_machine_die_by_die() -> None:
    run = cs.machine(cs.Shots(45, 2, penalty_dice=1, malfunction=97))
    assert distribution(run) == run.distribution()


def test_s7_13_seeded_shots_repeat_and_replay() -> None:
    request = cs.Shots(65, 3, malfunction=99)
    a = cs.roll(request, random.Random(3))
    assert a == cs.roll(request, random.Random(3))
    again = cs.roll(replace(request, dice=tuple(v for s in a.shots for v in s.dice)))
    assert again.shots == a.shots


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"shots": 0}, "shots"),
        ({"shots": 11}, "shots"),
        ({"ranges": ("close",)}, "ranges"),
        ({"ranges": ("normal", "long")}, "ranges"),
        ({"malfunction": 0}, "malfunction"),
        ({"penalty_dice": 3}, "penalty_dice"),
    ],
)
def test_s7_13_refusals_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(D100Error) as err:
        cs.Shots(**{"skill": 50, "shots": 3, **kwargs})
    assert err.value.field == field


# -- damage (S7-6) -------------------------------------------------------------------------------


def test_s7_6_shots_damage_odds_match_brute_force() -> None:
    """Every kept die of every shot (a malfunction's prefix once), then every face of each
    hit's 1d4+1, an extreme hit adding 5, the most 1d4+1 comes to."""
    request = cs.Shots(70, 2, malfunction=99, damage="1d4+1")
    pools = [request.pool(i) for i in range(2)]
    want: dict[int, Fraction] = {}
    seen: set[tuple[int, ...]] = set()
    for kept in product(*(sorted(kept_chances(net)) for net, _ in pools)):
        p = Fraction(1)
        wounds: list[list[int]] = []
        fired: tuple[int, ...] = kept
        for i, r in enumerate(kept):
            p *= kept_chances(pools[i][0])[r]
            _, hit, extreme, jammed = rule_shot(70, r, pools[i][1], "normal", 99)
            if hit:
                wounds.append([f + 1 + (5 if extreme else 0) for f in range(1, 5)])
            if jammed:
                fired = kept[: i + 1]
                break
        if fired in seen:
            continue
        seen.add(fired)
        for faces in product(*wounds):
            want[sum(faces)] = want.get(sum(faces), Fraction(0)) + p / 4 ** len(wounds)
    got = cs.odds(request).damage
    assert got is not None and sum(got.values()) == 1
    assert got == {t: p for t, p in want.items() if p}


def test_s7_6_each_hit_rolls_its_damage_an_extreme_one_adds_the_most() -> None:
    request = cs.Shots(80, 2, dice=(3, 3, 45, 45), damage="1d8+2")
    result = cs.roll(request, random.Random(1))
    first, second = result.shots
    assert first.extreme and first.damage[-1] == first.damage[0] + 2 + 10
    assert not second.extreme and second.damage[-1] == second.damage[0] + 2
    assert result.damage == first.damage[-1] + second.damage[-1]
    assert result == cs.roll(request, random.Random(1))
    with pytest.raises(D100Error) as err:
        cs.Shots(80, 2, damage="1d8+DB")  # a firearm adds no damage bonus
    assert err.value.field == "damage"


def test_s7_6_damage_odds_over_the_budget_are_refused_and_the_roll_stands() -> None:
    request = cs.Shots(80, 10, damage="10d100")
    with pytest.raises(TooMuchWork) as err:
        cs.odds(request).damage  # noqa: B018 (the property is the work)
    assert err.value.field == "damage"
    assert cs.odds(request).to_dict()["damage"]["not_worked_out"]["kind"] == "too_much_work"
    assert cs.roll(request, random.Random(1)).damage is not None
