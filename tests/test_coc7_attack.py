"""CoC7 attacks with their damage (S7-6), alone or against a melee response (C7-7): the exact
odds of each outcome and of every damage dealt against a brute force over every d100 and
every face of the weapon's and the damage bonus's dice, read afresh from the rules; rolls,
refusals and the words that ask for one."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from itertools import product

import pytest

from d100.errors import D100Error
from d100.systems import coc7_attack as at
from d100.systems.coc7_attack_words import read_attack
from tests.test_coc7_shots import rule_shot

ORDER = ["fumble", "failure", "regular", "hard", "extreme", "critical"]


def wins(attacker: str, defender: str, response: str) -> bool:
    """C7-7 read afresh: two results below regular are nobody's; a dodge wins ties."""
    a, d = ORDER.index(attacker), ORDER.index(defender)
    if a < 2 and d < 2:
        return False
    return a > d if response == "dodge" else a >= d


def faces(dice: list[int]) -> list[tuple[int, Fraction]]:
    """Every total of the dice with its chance, by every face of each."""
    combos = list(product(*(range(1, s + 1) for s in dice)))
    out: dict[int, Fraction] = {}
    for rolled in combos:
        out[sum(rolled)] = out.get(sum(rolled), Fraction(0)) + Fraction(1, len(combos))
    return list(out.items())


# (request, the weapon's dice and constant, the bonus's dice and constant, as S7-6 reads them)
CASES = [
    (at.Attack(60, "1d8+DB", "+1d4"), ([8], 0), ([4], 0)),
    (at.Attack(60, "1d8+DB", "+1d4", impaling=True), ([8], 0), ([4], 0)),
    (at.Attack(45, "1d6+1+half(DB)", "+1d6", difficulty="hard"), ([6], 1), ([3], 0)),
    (at.Attack(70, "1d4+DB", "-2", impaling=True), ([4], 0), ([], -2)),
    (at.Attack(60, "1d3+DB", "+1d4", defender=50, response="fight_back"), ([3], 0), ([4], 0)),
    (at.Attack(55, "1d6+DB", "+1d4", impaling=True, defender=55), ([6], 0), ([4], 0)),
]


def brute(case: tuple[at.Attack, tuple[list[int], int], tuple[list[int], int]]) -> tuple:
    request, (w_dice, w_const), (db_dice, db_const) = case
    most = sum(w_dice) + w_const + sum(db_dice) + db_const
    normal = [(t + w_const + db_const, p) for t, p in faces(w_dice + db_dice)]
    impale = [(t + w_const + most, p) for t, p in faces(w_dice)]
    outcomes = dict.fromkeys(["miss", "hit", "extreme"], Fraction(0))
    damage: dict[int, Fraction] = {}
    defenders = range(1, 101) if request.defender is not None else [None]
    for r, d in product(range(1, 101), defenders):
        p = Fraction(1, 100) * (Fraction(1, 100) if d is not None else 1)
        lv, hit, extreme, _ = rule_shot(request.skill, r, request.difficulty, "normal", None)
        if d is not None:
            theirs = rule_shot(request.defender, d, "regular", "normal", None)[0]
            hit = wins(lv, theirs, request.response)
            extreme = hit and lv in ("extreme", "critical")
        kind = "extreme" if extreme else "hit" if hit else "miss"
        outcomes[kind] += p
        spread = (
            {"miss": [(0, Fraction(1))], "hit": normal}[kind]
            if kind != "extreme"
            else (impale if request.impaling else [(most, Fraction(1))])
        )
        for t, q in spread:
            damage[t] = damage.get(t, Fraction(0)) + p * q
    return outcomes, {t: p for t, p in damage.items() if p}


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_s7_6_attack_damage_odds_match_brute_force(case: tuple) -> None:  # rule: C7-7
    outcomes, damage = brute(case)
    got = at.odds(case[0])
    assert dict(got.outcomes) == outcomes
    assert dict(got.damage) == damage and sum(got.damage.values()) == 1


def test_s7_6_an_extreme_hit_deals_the_most_and_an_impale_the_weapon_again() -> None:
    club = at.Attack(60, "1d8+DB", "+1d4", dice=(5,))
    rolled = at.roll(club, random.Random(1))
    assert rolled.outcome == "extreme" and rolled.damage == 12 and rolled.damage_dice == ()
    knife = at.Attack(60, "1d4+DB", "+1d4", impaling=True, dice=(5,))
    stabbed = at.roll(knife, random.Random(1))
    assert stabbed.damage == 8 + stabbed.damage_dice[0] and len(stabbed.damage_dice) == 1
    hit = at.roll(at.Attack(60, "1d8+DB", "+1d4", dice=(40,)), random.Random(1))
    assert hit.outcome == "hit" and hit.damage == sum(hit.damage_dice)
    assert at.roll(at.Attack(60, "1d8", dice=(80,))).damage == 0
    dodged = at.roll(at.Attack(60, "1d8", defender=60, dice=(40, 45)))
    assert dodged.level == "regular" and dodged.defence == ((45,), 45, "regular")
    assert dodged.outcome == "miss"  # a dodge wins the tie (C7-7)
    assert hit == at.roll(at.Attack(60, "1d8+DB", "+1d4", dice=(40,)), random.Random(1))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"damage": "1d8+DB"}, "damage_bonus"),
        ({"damage": "1d8x"}, "damage"),
        ({"damage": "1d8", "defender": 40, "difficulty": "hard"}, "difficulty"),
        ({"damage": "1d8", "response": "parry"}, "response"),
        ({"damage": "1d8", "dice": (0,)}, "dice"),
    ],
)
def test_s7_6_refusals_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(D100Error) as err:
        at.Attack(**{"skill": 50, **kwargs})
    assert err.value.field == field


def test_s7_6_words_ask_for_an_attack_with_the_sheet_s_db_where_they_name_db() -> None:
    words = ["60", "dmg=1d8+DB", "impale", "b1", "vs40", "fight", "Knife"]
    found = read_attack(words, "+1d4")
    assert found == (
        at.Attack(60, "1d8+DB", "+1d4", True, bonus_dice=1, defender=40, response="fight_back"),
        "Knife",
    )
    told = read_attack(["60", "dmg=1d8+DB", "db=-1"], "+1d4")
    assert told is not None and told[0].damage_bonus == "-1"
    plain = read_attack(["60", "dmg=1d6", "hard"], "+1d4")
    assert plain == (at.Attack(60, "1d6", difficulty="hard"), None)
    assert read_attack(["60", "hard"], "+1d4") is None
    with pytest.raises(D100Error) as err:
        read_attack(["60", "dmg=1d8+DB"])
    assert err.value.field == "damage_bonus"


def test_an_attack_whose_parts_together_are_over_the_budget_is_refused_before_work() -> None:
    """S7-6's odds count the weapon's dice twice (its damage, and again for an impale): each
    under the engine's budget, together over it, refused naming the damage, as one dear
    expression is."""  # rule: S7-6
    from d100 import expressions, tallies
    from d100.errors import TooMuchWork
    from d100.systems.coc7_attack import Attack, cost, odds

    dear = Attack(60, "50d1000")
    assert expressions.cost(expressions.parse("50d1000")) <= tallies.BUDGET < cost(dear)
    with pytest.raises(TooMuchWork) as refused:
        odds(dear)
    assert refused.value.field == "damage"
    assert odds(Attack(60, "30d1000")).outcomes  # under it, worked out


# (request, the defender's dice and constant, as their W + DB reads them)
FIGHTING_BACK = [
    (
        at.Attack(
            60,
            "1d3+DB",
            "+1d4",
            defender=50,
            response="fight_back",
            defender_damage="1d6+DB",
            defender_damage_bonus="+1d4",
        ),
        ([6, 4], 0),
    ),
    (at.Attack(35, "1d8", defender=70, response="fight_back", defender_damage="1d4+2"), ([4], 2)),
    (
        at.Attack(
            80,
            "1d6",
            penalty_dice=1,
            defender=45,
            response="fight_back",
            defender_damage="1d3+DB",
            defender_damage_bonus="-1",
        ),
        ([3], -1),
    ),
]


@pytest.mark.parametrize("case", FIGHTING_BACK, ids=range(len(FIGHTING_BACK)))
def test_c7_7_a_defender_who_fights_back_and_wins_deals_their_damage(case: tuple) -> None:
    """The chance the defender fights back and wins, and of every damage they deal, against a
    brute force over both d100s (a pool's every tens die) and every face of their dice; the
    attacker's own outcomes as before, a defender's win dealing the attacker none."""
    request, (dice, const) = case
    back = [(t + const, p) for t, p in faces(dice)]
    won, spread = Fraction(0), {0: Fraction(0)}
    pool = request.penalty_dice
    for tens, units, d in product(product(range(10), repeat=pool + 1), range(10), range(1, 101)):
        values = [10 * t + units or 100 for t in tens]
        r = max(values)
        p = Fraction(1, 10 ** (pool + 2)) * Fraction(1, 100)
        lv = rule_shot(request.skill, r, "regular", "normal", None)[0]
        theirs = rule_shot(request.defender, d, "regular", "normal", None)[0]
        a, o = ORDER.index(lv), ORDER.index(theirs)
        theirs_won = not (a < 2 and o < 2) and a < o  # fighting back loses ties (C7-7)
        if theirs_won:
            won += p
            for t, q in back:
                spread[t] = spread.get(t, Fraction(0)) + p * q
        else:
            spread[0] += p
    got = at.odds(request)
    assert got.outcomes[at.FOUGHT_BACK] == won
    assert got.defender_damage == {t: p for t, p in sorted(spread.items()) if p}
    assert sum(got.outcomes.values()) == 1
    plain = at.odds(replace(request, defender_damage=None, defender_damage_bonus=None))
    assert got.damage == plain.damage and got.outcomes["hit"] == plain.outcomes["hit"]


def test_c7_7_the_defender_s_damage_is_rolled_only_when_fighting_back_wins() -> None:
    knife = at.Attack(
        50,
        "1d4",
        defender=60,
        response="fight_back",
        defender_damage="1d6+DB",
        defender_damage_bonus="+1d4",
    )
    beaten = at.roll(replace(knife, dice=(80, 30)), random.Random(2))
    assert beaten.outcome == at.FOUGHT_BACK and beaten.damage == 0
    assert beaten.defender_damage == sum(beaten.defender_damage_dice)
    assert len(beaten.defender_damage_dice) == 2
    tied = at.roll(replace(knife, dice=(40, 40)), random.Random(2))  # the attacker wins ties
    assert tied.outcome == "hit" and tied.defender_damage == 0
    nobody = at.roll(replace(knife, dice=(90, 90)), random.Random(2))
    assert nobody.outcome == "miss" and nobody.defender_damage == 0
    shown = beaten.to_dict()
    assert shown["defender_damage"] == beaten.defender_damage
    assert shown["attack"]["defender_damage"] == "1d6+DB"
    assert "defender_damage" not in at.roll(at.Attack(50, "1d4", dice=(3,))).to_dict()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"defender_damage": "1d6"}, "defender_damage"),  # no defender
        ({"defender": 40, "defender_damage": "1d6"}, "defender_damage"),  # a dodge
        (
            {"defender": 40, "response": "fight_back", "defender_damage": "1d6+DB"},
            "defender_damage_bonus",
        ),
        ({"defender": 40, "response": "fight_back", "defender_damage": "1d6x"}, "defender_damage"),
        (
            {"defender": 40, "response": "fight_back", "defender_damage_bonus": "+1d4"},
            "defender_damage_bonus",
        ),
    ],
)
def test_c7_7_a_defender_s_damage_refused_naming_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(D100Error) as err:
        at.Attack(50, "1d8", **kwargs)
    assert err.value.field == field


def test_c7_7_words_give_the_defender_s_damage_and_a_sheet_facing_reads_none_typed() -> None:
    from d100.systems.coc7_attack_words import fill, read_facing

    found = read_attack(["60", "dmg=1d3", "vs50", "fight", "fb=1d6+DB", "fbdb=+1d4"])
    assert found is not None and found[0].defender_damage_bonus == "+1d4"
    faced = read_facing(["60", "dmg=1d3", "fight", "fb=1d6+DB"], None)
    assert faced is not None
    filled = fill(faced[0], 55, "+1d6")
    assert (filled.defender, filled.defender_damage_bonus) == (55, "+1d6")
    assert fill(read_facing(["60", "dmg=1d3"], None)[0], 30, "+1d6").defender_damage_bonus is None
    for typed in (["vs40"], ["fight", "fb=1d6+DB", "fbdb=+1d4"]):
        with pytest.raises(D100Error) as err:
            read_facing(["60", "dmg=1d3", *typed], None)
        assert err.value.field in ("defender", "defender_damage_bonus")
