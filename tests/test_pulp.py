"""Pulp Cthulhu's Luck spends outside a check (P-3..P-7) and wounds (P-9), with CoC7's major
wound beside it: the rules, the exact odds of the healing dice against brute force, seeded and
hand-rolled dice, sheets written back, and refusals naming the field."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace
from fractions import Fraction

import pytest

from d100 import spending
from d100.errors import D100Error, DiceError, RuleRefusal
from d100.sheets import loads
from d100.spending import SpendRequest, WoundRequest
from d100.systems import coc7_full_auto as full_auto
from d100.systems import coc7_shots as shots
from d100.systems.coc7_full_auto import FullAuto
from d100.systems.coc7_shots import Shots

PULP = frozenset({"pulp"})


def request(spend: str, luck: int, **kw: object) -> SpendRequest:
    return SpendRequest("coc7", spend, luck, PULP, **kw)  # type: ignore[arg-type]


def brute(hp: int, most: int, sides: int, plus: int) -> dict[int, Fraction]:
    """Every face of the die, by hand: hit points after, never above the most."""
    out: dict[int, Fraction] = {}
    for face in range(1, sides + 1):
        after = min(most, hp + face + plus)
        out[after] = out.get(after, Fraction(0)) + Fraction(1, sides)
    return out


# -- P-3 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("used", range(8))
def test_p_3_staying_conscious_doubles_until_reset(used: int) -> None:  # rule: P-3
    cost = 2**used
    result = spending.spend(request("stay-conscious", cost, used=used))
    assert (result.cost, result.luck_after, result.next_cost) == (cost, 0, 2 * cost)
    assert result.dice == () and result.hp_after is None


def test_p_3_needs_luck_at_least_the_cost() -> None:  # rule: P-3
    with pytest.raises(RuleRefusal) as err:
        request("stay-conscious", 7, used=3)
    assert (err.value.field, err.value.value) == ("luck", 7)
    assert "at least 8" in err.value.allowed


def test_p_3_uses_only_for_a_doubling_spend() -> None:  # rule: P-3
    with pytest.raises(D100Error) as err:
        request("fumble", 50, used=1)
    assert err.value.field == "used"


# -- P-4 and P-5: exact odds against brute force ------------------------------------------------


@pytest.mark.parametrize(("hp", "most"), [(0, 10), (3, 24), (20, 24), (24, 24), (1, 3), (5, 6)])
def test_p_4_scratch_heals_1d6_clamped_exactly(hp: int, most: int) -> None:  # rule: P-4
    r = request("scratch", 20, hp=hp, hp_most=most)
    assert r.cost == 20
    assert spending.odds(r) == dict(sorted(brute(hp, most, 6, 0).items()))
    assert sum(spending.odds(r).values()) == 1


@pytest.mark.parametrize(("hp", "most"), [(0, 10), (0, 4), (2, 24), (7, 8)])
def test_p_5_avoid_death_heals_1d6_plus_1_exactly(hp: int, most: int) -> None:  # rule: P-5
    r = request("avoid-death", 47, hp=hp, hp_most=most)
    assert spending.odds(r) == dict(sorted(brute(hp, most, 6, 1).items()))


@pytest.mark.parametrize("face", range(1, 7))
def test_p_4_dice_by_hand_and_the_clamp(face: int) -> None:  # rule: P-4
    result = spending.spend(request("scratch", 33, hp=20, hp_most=24, dice=(face,)))
    assert result.hp_after == min(24, 20 + face)
    assert (result.luck_after, result.dice) == (13, (face,))


def test_p_4_seeded_rolls_repeat_and_match_the_odds() -> None:  # rule: P-4
    r = request("scratch", 20, hp=3, hp_most=24)
    seen = [spending.spend(r, random.Random(seed)).hp_after for seed in range(200)]
    again = [spending.spend(r, random.Random(seed)).hp_after for seed in range(200)]
    assert seen == again
    assert set(seen) == set(spending.odds(r))  # 200 rolls meet every total of 4..9


def test_p_5_spends_all_luck_and_needs_30() -> None:  # rule: P-5
    result = spending.spend(request("avoid-death", 30, hp=0, hp_most=12, dice=(6,)))
    assert (result.cost, result.luck_after, result.hp_after) == (30, 0, 7)
    with pytest.raises(RuleRefusal) as err:
        request("avoid-death", 29, hp=0, hp_most=12)
    assert (err.value.field, err.value.value) == ("luck", 29)


def test_p_4_refusals_name_the_field() -> None:  # rule: P-4
    with pytest.raises(RuleRefusal) as err:
        request("scratch", 19, hp=3, hp_most=10)
    assert err.value.field == "luck" and "at least 20" in err.value.allowed
    with pytest.raises(D100Error) as err2:
        request("scratch", 20)
    assert err2.value.field == "HP"
    with pytest.raises(DiceError) as err3:
        spending.spend(request("scratch", 20, hp=1, hp_most=10, dice=(7,)))
    assert err3.value.field == "dice"
    with pytest.raises(DiceError):
        spending.spend(request("scratch", 20, hp=1, hp_most=10, dice=(2, 3)))


def test_p_4_refused_without_pulp() -> None:  # rule: P-4
    with pytest.raises(RuleRefusal) as err:
        SpendRequest("coc7", "scratch", 50, frozenset(), hp=3, hp_most=10)
    assert err.value.field == "rules" and "pulp" in err.value.allowed
    with pytest.raises(D100Error) as err2:
        SpendRequest("brp", "scratch", 50, PULP)
    assert err2.value.field in ("system", "spend")


def test_an_unknown_spend_names_those_allowed() -> None:  # rule: P-4
    with pytest.raises(D100Error) as err:
        request("heal", 50)
    assert err.value.field == "spend" and "scratch" in err.value.allowed


# -- P-6 and P-7 ---------------------------------------------------------------------------------


def test_p_6_lucks_away_a_fumble_for_10() -> None:  # rule: P-6
    result = spending.spend(request("fumble", 10))
    assert (result.cost, result.luck_after) == (10, 0)
    assert result.cancels is not None and "still fails" in result.cancels
    with pytest.raises(RuleRefusal):
        request("fumble", 9)


@pytest.mark.parametrize("luck", [0, 4, 10, 11, 60])
def test_p_7_villain_luck_is_floored_at_zero(luck: int) -> None:  # rule: P-7
    assert spending.spend(request("second-attack", luck)).luck_after == max(0, luck - 10)
    assert spending.spend(request("look-out-master", luck)).luck_after == 0


# -- P-9 -----------------------------------------------------------------------------------------


def expected(damage: int, hp: int, most: int, pulp: bool) -> tuple[int, str, bool, bool]:
    """The rule as SESSION.md words it, written apart from the code."""
    major = 2 * damage >= most
    after = max(0, hp - damage)
    if damage >= most:
        state = "dead"
    elif after == 0:
        state = "dying" if major else "unconscious"
    else:
        state = "conscious"
    return after, state, major and after > 0 and damage < most, major and not pulp


@pytest.mark.parametrize("pulp", [True, False])
def test_p_9_every_hit_on_small_grids(pulp: bool) -> None:  # rule: P-9
    options = PULP if pulp else frozenset()
    for most, damage in itertools.product(range(1, 14), range(0, 16)):
        for hp in range(0, most + 1):
            got = spending.wound(WoundRequest("coc7", damage, hp, most, options))
            after, state, con, marked = expected(damage, hp, most, pulp)
            w = got.wound
            assert (w.hp_after, w.state) == (after, state), (most, damage, hp)
            assert (w.calls_for is not None) == con, (most, damage, hp)
            assert ("major wound" in w.marks) == marked
            assert got.heals_a_day == (2 if pulp else 1)


def test_p_9_examples() -> None:  # rule: P-9
    def state(damage: int, hp: int, most: int) -> str:
        return spending.wound(WoundRequest("coc7", damage, hp, most, PULP)).wound.state

    assert state(24, 24, 24) == "dead"  # damage >= HP max
    assert state(12, 10, 24) == "dying"  # 12 >= ceil(24 / 2)
    assert state(11, 10, 24) == "unconscious"
    assert state(6, 10, 11) == "conscious"  # ceil(11 / 2) = 6: a CON roll


# -- sheets ----------------------------------------------------------------------------------------

SHEET = """\
[vera]
system = "coc7"
rules = ["pulp"]
luck = { current = 45, maximum = 60 }
characteristics = { STR = 60, CON = 55, SIZ = 65, DEX = 70, POW = 60 }
"""


def test_p_4_on_a_sheet_written_back() -> None:  # rule: P-4
    c = loads(SHEET + "derived = { HP = 20 }\n").get("vera")
    r = spending.spend_of(c, "scratch", dice=(3,))
    assert (r.hp, r.hp_most, r.luck) == (20, 24, 45)  # P-8: (55 + 65) / 5
    after = spending.apply_spend(c, spending.spend(r))
    assert after.derived["HP"] == 23 and after.luck is not None
    assert (after.luck.current, after.luck.maximum) == (25, 60)


def test_p_9_on_a_sheet_written_back() -> None:  # rule: P-9
    c = loads(SHEET).get("vera")
    result = spending.wound(spending.wound_of(c, 7))
    assert result.request.hp == 24  # no HP on the sheet: the most
    assert spending.apply_wound(c, result).derived["HP"] == 17


def test_p_4_hp_unknown_names_the_sheet() -> None:  # rule: P-4
    text = SHEET.replace("CON = 55, SIZ = 65, ", "")
    c = loads(text).get("vera")
    with pytest.raises(D100Error) as err:
        spending.spend_of(c, "scratch")
    assert err.value.field == "vera.characteristics"


def test_p_3_a_sheet_without_pulp_is_refused() -> None:  # rule: P-3
    c = loads(SHEET.replace('rules = ["pulp"]\n', "")).get("vera")
    with pytest.raises(RuleRefusal) as err:
        spending.spend_of(c, "stay-conscious")
    assert err.value.field == "rules"


# -- advice: whether a spend pays, against brute force ----------------------------------------

ZORA = """[zora]
system = "coc7"
rules = ["pulp"]
luck = {{ current = {luck}, maximum = 60 }}
[zora.characteristics]
STR = 60
CON = 55
SIZ = 65
DEX = 70
APP = 50
INT = 80
POW = 60
EDU = 85
[zora.derived]
HP = {hp}
[zora.luck_uses]
stay-conscious = 3
"""


@pytest.mark.parametrize(("luck", "hp"), [(45, 20), (45, 24), (25, 0), (19, 5)])
def test_p_3_p_4_p_5_advice_says_exactly_what_each_spend_buys(luck: int, hp: int) -> None:
    # rule: P-3, P-4, P-5, P-6
    c = loads(ZORA.format(luck=luck, hp=hp)).get("zora")
    found = {a.spend.name: a for a in spending.advise(c)}
    most = (55 + 65) // 5  # CON + SIZ over 5 (P-8)
    for word, least, plus in (("scratch", 20, 0), ("avoid-death", 30, 1)):
        a = found[word]
        if luck < least:
            assert a.cost is None and not a.pays and a.refused and f"{luck} Luck" in a.refused
            continue
        want: dict[int, Fraction] = {}
        for after, p in brute(hp, most, 6, plus).items():
            want[after - hp] = want.get(after - hp, Fraction(0)) + p
        assert a.gained == want
        assert a.mean == sum((g * p for g, p in want.items()), Fraction(0))
        cost = 20 if word == "scratch" else luck
        assert a.cost == cost and a.per_luck == a.mean / cost
        assert a.pays == (hp < most)  # healing none at full hit points pays nothing
    stay = found["stay-conscious"]
    assert stay.cost == (8 if luck >= 8 else None) and stay.gained == {}  # 2^3: the sheet's uses
    assert found["fumble"].pays == (luck >= 10) and "still fails" in str(found["fumble"].buys)
    data = [a.to_dict() for a in spending.advise(c)]
    assert {d["spend"] for d in data} == set(found)


# -- P-6 in the firearms' results ---------------------------------------------------------------


@pytest.mark.parametrize(("luck", "spent"), [(45, 10), (10, 10), (9, 0), (None, None)])
def test_p_6_luck_cancels_a_malfunction_in_shots_and_full_auto(
    luck: int | None, spent: int | None
) -> None:  # rule: P-6
    """One shot, or one volley, with no extra dice: the roll is one d100, so a malfunction
    from 96 comes 5 times in 100 (brute force by hand); a Pulp hero holding 10 Luck spends it
    on every one, the shot still failing and the weapon not jammed."""
    shot = Shots(55, 1, malfunction=96, pulp_luck=luck, dice=(97,))
    burst = FullAuto(30, 3, malfunction=96, pulp_luck=luck, dice=(97,))
    for result, chance in (
        (shots.roll(shot), shots.odds(replace(shot, dice=None))),
        (full_auto.roll(burst), full_auto.odds(replace(burst, dice=None))),
    ):
        data, odds = result.to_dict(), chance.to_dict()
        assert chance.malfunction == Fraction(5, 100) and result.hits == 0  # still a failure
        if luck is None:
            assert "luck_spent" not in data and "luck_spent" not in odds
            continue
        assert data["luck_spent"] == spent and data["jammed"] is (spent == 0)
        assert chance.luck_spent == (Fraction(5, 100) if spent else 0)
    clean = shots.roll(replace(shot, dice=(40,)))
    assert clean.luck_spent == 0 and clean.to_dict().get("jammed", False) is False


def test_p_6_in_the_firearms_report_every_door_draws() -> None:  # rule: P-6
    from d100.discord.answers import ROLL, quick_answer

    answer = quick_answer(ROLL, "coc7 55 shots1 mal96 pulp45 @97", None, False, "Zora", b"k", "1")
    shown = {f["name"]: f["value"] for f in answer["embeds"][0]["fields"]}
    assert shown["Luck"].startswith("45 → 35 (P-6)") and "not jammed" in shown["Luck"]
    assert shown["10 luck spent"].startswith("5.00%")
    low = quick_answer(ROLL, "coc7 55 shots1 mal96 pulp9 @97", None, False, "Zora", b"k", "1")
    kept = {f["name"]: f["value"] for f in low["embeds"][0]["fields"]}
    assert "stays jammed" in kept["Luck"] and "10 luck spent" not in kept


# -- P-2: whether Luck spent halving a Sanity loss pays, against brute force -------------------


def halved_by_hand(san: int, loss: int, luck: int) -> tuple[Fraction, Fraction, Fraction]:
    """Every d100 and every 1d10 by hand, a loss ``1/1d{loss}`` against SAN ``san`` >= 50:
    a success (01..SAN) loses 1, a failure 1dN, a fumble (00) N; Luck halves a loss d (kept
    ceil(d/2), cost 2d) where that lowers it and the Luck covers it. The mean loss keeping
    the Luck, the mean spending it, and the mean Luck spent."""
    keep = spend = spent = Fraction(0)
    for r in range(1, 101):
        rolled = [1] if r <= san else [loss] if r == 100 else list(range(1, loss + 1))
        for d in rolled:
            p = Fraction(1, 100 * len(rolled))
            kept, cost = -(-d // 2), 2 * d
            use = kept < d and cost <= luck
            keep += p * d
            spend += p * (kept if use else d)
            spent += p * (cost if use else 0)
    return keep, spend, spent


@pytest.mark.parametrize(("san", "loss", "luck"), [(60, 10, 50), (55, 6, 8), (70, 1, 50)])
def test_p_2_advice_says_exactly_whether_halving_pays(san: int, loss: int, luck: int) -> None:
    # rule: P-2
    from d100 import sanity

    asked = {"system": "coc7", "sanity": san, "loss": f"1/1d{loss}", "pulp": True, "luck": luck}
    advice = sanity.luck_advice(asked)
    keep, spend, spent = halved_by_hand(san, loss, luck)
    assert (advice.keeping.mean, advice.spending.mean) == (keep, spend)
    assert advice.saved == keep - spend and advice.spending.luck_spent == spent
    assert advice.pays == (keep > spend)
    assert advice.per_luck == (None if not spent else (keep - spend) / spent)
    with pytest.raises(D100Error) as err:
        sanity.luck_advice({**asked, "pulp": False, "luck": None})
    assert err.value.field == "pulp"


def test_p_2_advice_on_the_odds_and_discord() -> None:  # rule: P-2
    from d100.discord.answers import quick_answer
    from tests.cli.conftest import d100

    run = d100("odds", "coc7", "sc", "1/1d10", "60", "pulp", "luck=50", "--json")
    assert run.status == 0, run.err
    said = json.loads(run.out)["luck_advice"]
    assert said["pays"] is True and said["saved"] == "41/40" and "keeping" in said
    answer = quick_answer("advise", "coc7 sc 1/1 60 pulp luck=50", None, False, "Zora", b"k", "1")
    shown = {f["name"]: f["value"] for f in answer["embeds"][0]["fields"]}
    assert shown["Halving the loss"].startswith("does not pay")
