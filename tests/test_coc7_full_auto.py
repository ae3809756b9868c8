"""CoC7 full auto, d100's own request (S7-14, decision S5: Foundry's reading): its exact odds
against an oracle written here from SESSION.md's text, the quick enumeration against the
machine driven die by die, and the steps where Foundry differs from BCDice."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from d100 import tallies
from d100.errors import D100Error, TooMuchWork
from d100.machine import distribution
from d100.systems import coc7_full_auto as au
from tests.test_coc7_far import kept_chances
from tests.test_coc7_shots import rule_pool, rule_shot


def oracle(request: au.FullAuto) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """(normal, impaling) -> chance and the chance of a malfunction, from the rule's text:
    a die worse each volley, S7-13's clamp, hits max(1, b/2), extreme or better every bullet
    with max(1, b/2) impaling (at extreme range only a critical impales), a malfunction
    spending its volley and ending the run."""
    x = request.skill
    s = max(3, x // 10) if request.volley is None else min(max(3, request.volley), max(3, x // 10))
    base = request.bonus_dice - request.penalty_dice
    count = request.volleys or -(-request.bullets // s)
    layer = {(request.bullets, 0, 0): Fraction(1)}
    out: dict[tuple[int, int], Fraction] = {}
    jam = Fraction(0)
    for i in range(count):
        band = request.ranges[0] if len(request.ranges) == 1 else request.ranges[i]
        # a volley is no extra shot: S7-13's penalty die is undone by firing "one" shot
        net, difficulty = rule_pool(1, base - i, request.aimed, i, band)
        nxt: dict[tuple[int, int, int], Fraction] = {}
        for (left, normal, imp), p in layer.items():
            if left == 0:
                out[(normal, imp)] = out.get((normal, imp), Fraction(0)) + p
                continue
            b = min(s, left)
            for r, q in kept_chances(net).items():
                lv, hit, _, jammed = rule_shot(x, r, difficulty, band, request.malfunction)
                if jammed:
                    out[(normal, imp)] = out.get((normal, imp), Fraction(0)) + p * q
                    jam += p * q
                    continue
                add = (0, 0)
                if hit and lv in ("extreme", "critical"):
                    if lv == "critical" or band != "extreme":
                        add = (b - max(1, b // 2), max(1, b // 2))
                    else:
                        add = (b, 0)
                elif hit:
                    add = (max(1, b // 2), 0)
                key = (left - b, normal + add[0], imp + add[1])
                nxt[key] = nxt.get(key, Fraction(0)) + p * q
        layer = nxt
    for (_, normal, imp), p in layer.items():
        out[(normal, imp)] = out.get((normal, imp), Fraction(0)) + p
    return out, jam


CASES = [
    au.FullAuto(62, 30, malfunction=98),
    au.FullAuto(45, 20, volleys=3, bonus_dice=1, aimed=True, ranges=("long",)),
    au.FullAuto(90, 25, volley=5, ranges=("extreme",), malfunction=96),
    au.FullAuto(120, 24, penalty_dice=2, ranges=("normal", "long")),
    au.FullAuto(30, 7, malfunction=100),
]


@pytest.mark.parametrize("request_", CASES, ids=range(len(CASES)))
def test_s7_14_full_auto_odds_match_an_oracle_from_the_rule_text(request_: au.FullAuto) -> None:
    odds = au.odds(request_)
    want, jam = oracle(request_)
    assert dict(odds.outcomes) == {k: p for k, p in want.items() if p}
    assert odds.malfunction == jam


def test_s7_14_full_auto_quick_enumeration_equals_the_machine_die_by_die() -> None:
    run = au.machine(au.FullAuto(55, 10, malfunction=97))
    assert distribution(run) == run.distribution()


def test_s7_14_full_auto_pool_worsens_each_volley_and_raises_difficulty() -> None:
    request = au.FullAuto(60, 40, bonus_dice=1, aimed=True, ranges=("long",))
    pools = [request.pool(i) for i in range(6)]
    hard = [(2, "hard"), (0, "hard"), (-1, "hard"), (-2, "hard")]
    assert pools == [*hard, (-2, "extreme"), (-2, "critical")]


def test_s7_14_full_auto_foundry_steps() -> None:
    # a malfunction spends its volley (BCDice's FAR spends none)
    jam = au.roll(au.FullAuto(60, 12, malfunction=96, dice=(97,)))
    assert (jam.ended, jam.bullets_left, jam.hits) == ("malfunction", 6, 0)
    # the fumble range from the required value: skill 60 at long range needs 30, so 96 fumbles
    assert au.roll(au.FullAuto(60, 6, ranges=("long",), dice=(96,))).volleys[0].level == "fumble"
    assert au.roll(au.FullAuto(60, 6, dice=(96,))).volleys[0].level == "failure"
    # an extreme success hits with every bullet, half impaling; at extreme range none impale
    near = au.roll(au.FullAuto(60, 6, dice=(10,)))
    far = au.roll(au.FullAuto(60, 6, ranges=("extreme",), dice=(10,)))
    crit = au.roll(au.FullAuto(60, 6, ranges=("extreme",), dice=(1,)))
    assert (near.normal, near.impaling) == (3, 3)
    assert (far.normal, far.impaling) == (6, 0)
    assert (crit.normal, crit.impaling) == (3, 3)
    # the last volley fires what is left: one bullet hits, and an impale is at least 1
    last = au.roll(au.FullAuto(60, 7, dice=(40, 10, 10)))
    assert [(v.fired, v.normal, v.impaling) for v in last.volleys] == [(6, 3, 0), (1, 0, 1)]


def test_s7_14_full_auto_seeded_runs_repeat() -> None:
    request = au.FullAuto(75, 50, malfunction=99)
    a = au.roll(request, random.Random(11))
    assert a == au.roll(request, random.Random(11))
    again = au.roll(replace(request, dice=tuple(v for b in a.volleys for v in b.dice)))
    assert again.volleys == a.volleys


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"bullets": 0}, "bullets"),
        ({"bullets": 101}, "bullets"),
        ({"volley": 9}, "volley"),
        ({"volleys": 0}, "volleys"),
        ({"ranges": ("normal", "long")}, "ranges"),
        ({"malfunction": 101}, "malfunction"),
    ],
)
def test_s7_14_full_auto_refusals_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(D100Error) as err:
        au.FullAuto(**{"skill": 62, "bullets": 30, **kwargs})
    assert err.value.field == field


@pytest.mark.slow
@pytest.mark.parametrize(
    "request_",
    [au.FullAuto(150, 100, volley=3), au.FullAuto(39, 100, bonus_dice=2, aimed=True)],
    ids=["long", "aimed"],
)
def test_s7_14_full_auto_cost_is_known_before_and_bounds_the_work(request_: au.FullAuto) -> None:
    run = au.machine(request_)
    steps = 0
    step = run.step

    def counted(state: tuple, kept: int) -> tuple:
        nonlocal steps
        steps += 1
        return step(state, kept)

    run.step = counted  # type: ignore[method-assign]
    run.distribution()
    assert 0 < steps <= run.cost


def test_s7_14_full_auto_over_the_budget_is_refused_before_any_work(monkeypatch: Any) -> None:
    monkeypatch.setattr(tallies, "BUDGET", 1000)
    with pytest.raises(TooMuchWork) as err:
        au.odds(au.FullAuto(62, 30))
    assert err.value.field == "bullets" and err.value.cost > 1000


def test_s7_6_full_auto_damage_odds_match_brute_force() -> None:
    """The oracle's (normal, impaling) chances, then every face of each bullet's 1d3, an
    impaling bullet adding 3, the most 1d3 comes to."""
    request = au.FullAuto(60, 7, malfunction=98, damage="1d3")
    outcomes, _ = oracle(replace(request, damage=None))
    want: dict[int, Fraction] = {}
    for (normal, imp), p in outcomes.items():
        wounds = [[1, 2, 3]] * normal + [[4, 5, 6]] * imp
        for faces in product(*wounds):
            want[sum(faces)] = want.get(sum(faces), Fraction(0)) + p / 3 ** len(wounds)
    got = au.odds(request).damage
    assert got is not None and sum(got.values()) == 1
    assert got == {t: p for t, p in want.items() if p}


def test_s7_6_full_auto_rolls_each_hitting_bullet_s_damage() -> None:
    result = au.roll(au.FullAuto(60, 6, dice=(10,), damage="1d4+1"), random.Random(3))
    (volley,) = result.volleys
    assert (volley.normal, volley.impaling, len(volley.damage)) == (3, 3, 6)
    assert all(2 <= d <= 5 for d in volley.damage[:3])
    assert all(7 <= d <= 10 for d in volley.damage[3:])  # an impale adds 5, the most of 1d4+1
    assert result.damage == sum(volley.damage)
