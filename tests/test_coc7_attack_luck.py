"""Luck spent on a CoC7 attack once it is made (C7-4, decision 7) and never a push (C7-5):
the levels offered, their costs and what the attack then does, against a brute force that
lowers the roll one point at a time and reads each level afresh from the rules (C7-1), with
the exact damage dealt after the spend over every face of the damage dice (S7-6)."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from itertools import product

import pytest

from d100.actions import ActionRolled
from d100.errors import D100Error
from d100.systems import coc7_attack as at
from d100.systems.coc7_attack_luck import advise, follow_ups
from tests.test_coc7_attack import ORDER, faces, wins
from tests.test_coc7_shots import rule_shot

BUYABLE = ["regular", "hard", "extreme", "critical"]


def did(request: at.Attack, mine: str, theirs: str | None) -> str:
    """S7-6 and C7-7 read afresh: what an attack does at the attacker's level."""
    if theirs is None:
        hit = ORDER.index(mine) >= ORDER.index(request.difficulty)
    else:
        nobody = ORDER.index(mine) < 2 and ORDER.index(theirs) < 2  # C7-7: neither succeeds
        back = request.defender_damage is not None and request.response == "fight_back"
        if back and not nobody and not wins(mine, theirs, request.response):
            return "fought_back"
        hit = wins(mine, theirs, request.response)
    return "extreme" if hit and mine in ("extreme", "critical") else "hit" if hit else "miss"


def brute_offers(
    request: at.Attack, r: int, theirs: str | None, luck: int, spent: int = 0
) -> dict[str, tuple[int, str]]:
    """C7-4 by lowering the roll (as lowered already by ``spent``) a point at a time: each
    level above the roll's own, at least the difficulty, regular only after a failure, at the
    first roll below that has it, offered while the Luck held is more than the cost; those
    that change what the attack does, the cheapest for each."""
    start = r - spent
    level = rule_shot(request.skill, start, request.difficulty, "normal", None)[0]
    now = did(request, level, theirs)
    if level == "fumble":
        return {}
    out: dict[str, tuple[int, str]] = {}
    for want in BUYABLE:
        if ORDER.index(want) < ORDER.index(request.difficulty):
            continue
        if ORDER.index(want) <= ORDER.index(level):
            continue
        if want == "regular" and ORDER.index(level) >= ORDER.index(request.difficulty):
            continue
        lowered = start
        while lowered > 0:
            if rule_shot(request.skill, lowered, request.difficulty, "normal", None)[0] == want:
                break
            lowered -= 1
        cost = start - lowered
        if lowered == 0 or cost >= luck:
            continue
        then = did(request, want, theirs)
        if then != now and then not in (o for _, o in out.values()):
            out[want] = (cost, then)
    return out


def brute_damage(
    request: at.Attack, kind: str, weapon: tuple[list[int], int], bonus: tuple[list[int], int]
) -> dict[int, Fraction]:
    (w_dice, w_const), (db_dice, db_const) = weapon, bonus
    most = sum(w_dice) + w_const + sum(db_dice) + db_const
    if kind == "hit":
        return {t + w_const + db_const: p for t, p in faces(w_dice + db_dice)}
    if kind == "extreme" and request.impaling:
        return {t + w_const + most: p for t, p in faces(w_dice)}
    return {most: Fraction(1)} if kind == "extreme" else {0: Fraction(1)}


CASES = [
    (at.Attack(60, "1d8+DB", "+1d4", impaling=True), ([8], 0), ([4], 0)),
    (at.Attack(45, "1d6+1", difficulty="hard"), ([6], 1), ([], 0)),
    (at.Attack(60, "1d3+DB", "+1d4", defender=50, response="fight_back"), ([3], 0), ([4], 0)),
    (
        at.Attack(55, "1d4", defender=40, response="fight_back", defender_damage="1d6"),
        ([4], 0),
        ([], 0),
    ),
    (at.Attack(70, "1d6+DB", "+1d4", impaling=True, defender=65), ([6], 0), ([4], 0)),
]


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
@pytest.mark.parametrize("luck", [1, 12, 99])
def test_c7_4_luck_on_an_attack_made_matches_brute_force(case: tuple, luck: int) -> None:
    """Every roll (and a spread of defences): the levels offered, their costs, what the
    attack then does and the exact damage it deals, as the brute force reads them."""
    request, weapon, bonus = case
    defences = [None] if request.defender is None else list(range(1, 101, 9))
    for r, d in product(range(1, 101), defences):
        dice = (r,) if d is None else (r, d)
        made = at.roll(replace(request, dice=dice), random.Random(r))
        theirs = None if made.defence is None else made.defence[2]
        expected = brute_offers(request, r, theirs, luck)
        got = advise(made, luck)
        assert {b.level: (b.cost, b.outcome) for b in got} == expected, (r, d)
        for b in got:
            assert dict(b.damage) == brute_damage(request, b.outcome, weapon, bonus)
            assert b.gain == b.mean - made.damage and b.per_luck == b.gain / b.cost


def test_c7_4_the_spend_redoes_the_outcome_at_the_level_bought_and_draws_new_damage() -> None:
    knife = at.Attack(60, "1d4+DB", "+1d4", impaling=True, dice=(45,))
    made = at.roll(knife, random.Random(3))
    assert made.level == "regular" and made.outcome == "hit"
    (buy,) = advise(made, 40)  # extreme (12, 33 Luck); hard buys nothing more than a hit
    assert (buy.level, buy.cost, buy.outcome) == ("extreme", 33, "extreme")
    bought = at.roll(buy.request, random.Random(4))
    assert (bought.level, bought.luck_spent, bought.outcome) == ("extreme", 33, "extreme")
    assert bought.damage == 8 + bought.damage_dice[0]  # the most of 1d4+1d4, and an impale
    assert bought.roll == 45 and "33 Luck lowers it to 12 extreme" in bought.explanation
    odds = at.odds(buy.request)
    assert odds.outcomes["extreme"] == 1 and dict(odds.damage) == dict(buy.damage)


def test_c7_4_luck_spent_again_counts_from_the_roll_as_lowered() -> None:
    club = at.Attack(60, "1d8", dice=(75,))
    made = at.roll(club, random.Random(1))
    first = {b.level: b for b in advise(made, 99)}
    assert {k: b.cost for k, b in first.items()} == {"regular": 15, "extreme": 63}
    hit = at.roll(first["regular"].request, random.Random(2))
    assert (hit.level, hit.luck_spent, hit.outcome) == ("regular", 15, "hit")
    (more,) = advise(hit, 99 - 15)
    assert (more.level, more.cost, more.request.luck) == ("extreme", 48, 64)
    assert at.roll(more.request, random.Random(5)).luck_spent == 63


@pytest.mark.parametrize(
    ("dice", "luck", "to", "why"),
    [
        ((100,), 99, "regular", "not offered"),  # a fumble (C7-4: skill 60 fumbles on 100)
        ((75,), 15, "regular", "not offered"),  # Luck held must be more than the cost
        ((75,), 99, "failure", "regular, hard"),  # no such level to buy
        ((40,), 99, "hard", "it stays hit"),  # a hit raised to a hit
    ],
)
def test_c7_4_a_spend_the_rule_does_not_offer_is_refused_naming_luck_to(
    dice: tuple[int, ...], luck: int, to: str, why: str
) -> None:
    with pytest.raises(D100Error) as err:
        at.roll(at.Attack(60, "1d8", dice=dice, luck=luck, luck_to=to), random.Random(1))
    assert err.value.field == "luck_to" and why in str(err.value)


def test_c7_4_luck_is_spent_on_a_roll_made_named_with_its_level() -> None:
    with pytest.raises(D100Error) as err:
        at.Attack(60, "1d8", luck=20, luck_to="regular")
    assert err.value.field == "dice"
    with pytest.raises(D100Error) as err:
        at.Attack(60, "1d8", dice=(70,), luck=20)
    assert err.value.field == "luck_to"


def test_c7_5_an_attack_offers_luck_never_a_push() -> None:
    missed = at.roll(at.Attack(60, "1d8", dice=(75,)), random.Random(1))
    given = follow_ups(ActionRolled(missed, 20))
    assert [f.key for f in given] == ["luck_regular", "push"]
    luck, push = given
    assert luck.luck == 15 and luck.refused is None and luck.gives is not None
    assert luck.gives["mean_damage"] == "9/2" and luck.gives["dealt"] == 0
    assert "weapon rolls are never pushed (C7-5)" in str(push.refused)
    assert [f.key for f in follow_ups(ActionRolled(missed, None))] == ["push"]  # no Luck
    fumbled = at.roll(at.Attack(60, "1d8", dice=(100,)), random.Random(1))
    assert [f.key for f in follow_ups(ActionRolled(fumbled, 99))] == ["push"]
