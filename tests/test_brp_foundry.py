"""brp-foundry, Chaosium's BRP for Foundry as EDITIONS.md states it (BF-1..BF-4), against an
oracle written here from EDITIONS.md's formulas in the reference's own float arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

import d100
from d100 import tallies
from d100.systems import brp_foundry
from tests.helpers import brute_force, nonzero, odds_map

NAME = "brp-foundry"
TARGETS = [*range(101), 101, 120, 150, 200, 300]
ROLLS = range(1, 101)
NUMBER = {"fumble": 0, "failure": 1, "success": 2, "special": 3, "critical": 4}
LEVEL = {v: k for k, v in NUMBER.items()}


def oracle(r: int, t: float, capped: bool = True) -> str:
    """EDITIONS BF-1 as check.mjs computes it: JS Math.ceil(0.05*T), Math.round(0.2*T)."""
    crit = math.ceil(0.05 * t)
    fumble_from = min(95 + crit, 100)
    spec = math.floor(0.2 * t + 0.5)  # JS Math.round
    succ = min(t, 95) if capped else t
    if r <= crit:
        return "critical"
    if r <= spec:
        return "special"
    if r <= succ:
        return "success"
    if r >= fumble_from:
        return "fumble"
    return "failure"


def check(dice: list[int] | None = None, **kw: Any) -> d100.CheckResult:
    result = d100.resolve({"system": NAME, **kw, "dice": dice or []})
    assert isinstance(result, d100.CheckResult)
    return result


def contest(a: dict[str, Any], o: dict[str, Any], **kw: Any) -> d100.ContestResult:
    result = d100.resolve({"system": NAME, "actor": a, "opponent": o, **kw})
    assert isinstance(result, d100.ContestResult)
    return result


# -- BF-1 levels -------------------------------------------------------------------------------


def test_bf_1_full_grid_of_levels_against_the_oracle() -> None:
    for t in TARGETS:
        for r in ROLLS:
            assert check([r], skill=t).level == oracle(r, t), (t, r)


@pytest.mark.parametrize("modifier", [-1, -19, -20, -21, -60, -400])
def test_bf_1_targets_below_zero_are_not_raised(modifier: int) -> None:
    # T unclamped: below 0 the critical range is empty and fumbles start before 95
    for r in ROLLS:
        result = check([r], skill=0, modifiers=[modifier])
        assert result.target == modifier
        assert result.level == oracle(r, modifier), (modifier, r)


def test_bf_1_editions_examples() -> None:
    # T = 0: crit 0 (01 is a failure), fumbles on 95-00
    assert [check([r], skill=0).level for r in (1, 94, 95, 100)] == [
        "failure",
        "failure",
        "fumble",
        "fumble",
    ]
    # T = 120: crit 06, spec 24, 96-99 failure, 00 fumble
    t120 = {r: check([r], skill=120).level for r in (6, 7, 24, 25, 95, 96, 99, 100)}
    assert t120 == {
        6: "critical",
        7: "special",
        24: "special",
        25: "success",
        95: "success",
        96: "failure",
        99: "failure",
        100: "fumble",
    }
    # special is T/5 to nearest where the seed's ceil reading says special (T 6, r 2)
    assert check([2], skill=6).level == "success"
    seed = {"system": "brp", "skill": 6, "dice": [2], "house_rules": {"threshold_rounding": "ceil"}}
    assert d100.resolve(seed).level == "special"


def test_bf_1_fumbles_only_where_the_roll_did_not_succeed() -> None:
    # T 60: fumble from 98; T 99: fumble from 100, yet 96-99 fail (the 95 cap)
    assert [check([r], skill=60).level for r in (97, 98)] == ["failure", "fumble"]
    assert [check([r], skill=99).level for r in (95, 96, 99, 100)] == [
        "success",
        "failure",
        "failure",
        "fumble",
    ]


@pytest.mark.parametrize("t", [0, 1, 2, 6, 37, 60, 95, 96, 100, 120, 300])
def test_bf_1_odds_are_the_oracle_counted(t: int) -> None:
    expected = {lvl: Fraction(0) for lvl in NUMBER}
    for r in ROLLS:
        expected[oracle(r, t)] += Fraction(1, 100)
    assert odds_map({"system": NAME, "skill": t}) == expected


# -- BF-2 difficulty ---------------------------------------------------------------------------

FLOAT_SCALE = {  # check.mjs startCheck, as JS floats
    "easy": lambda t: t * 2,
    "average": lambda t: t,
    "tricky": lambda t: math.ceil(t * 0.8),
    "awkward": lambda t: math.ceil(t * 0.6),
    "difficult": lambda t: math.ceil(t * 0.5),
    "hard": lambda t: math.ceil(t * 0.4),
    "extreme": lambda t: math.ceil(t * 0.2),
}


@pytest.mark.parametrize("preset", sorted(FLOAT_SCALE))
def test_bf_2_exact_ceilings_equal_the_float_formulas(preset: str) -> None:
    scale = FLOAT_SCALE[preset]
    for t in range(301):
        assert check([50], skill=t, difficulty=preset).target == scale(t), (preset, t)
        assert brp_foundry.FoundryCheck(skill=t, difficulty=preset).target == scale(t)


def test_bf_2_flat_modifiers_come_after_the_multiplier() -> None:
    assert check([50], skill=33, difficulty="difficult", modifiers=[5]).target == 17 + 5
    assert check([50], skill=33, difficulty="easy", modifiers=[-10, 3]).target == 66 - 7
    assert check([50], skill=65).target == 65  # average is the default


def test_bf_2_impossible_needs_the_house_rule_and_ignores_modifiers() -> None:
    with pytest.raises(d100.D100Error) as err:
        check([1], skill=80, difficulty="impossible")
    assert err.value.field == "difficulty" and err.value.kind == "rule_refusal"
    rules = {"allow_impossible": True}
    result = check([1], skill=80, difficulty="impossible", modifiers=[40], house_rules=rules)
    assert result.target == 1 and result.level == "critical"  # crit ⌈1/20⌉ = 1
    assert check([2], skill=80, difficulty="impossible", house_rules=rules).level == "failure"


def test_bf_2_the_seeds_additive_presets_are_not_these() -> None:
    with pytest.raises(d100.D100Error) as err:
        check([1], skill=50, difficulty="routine")
    assert err.value.field == "difficulty"
    with pytest.raises(d100.D100Error) as err:
        check([1], skill=50, difficulty=-20)
    assert err.value.field == "difficulty"


# -- BF-3 resistance ---------------------------------------------------------------------------


def resist_target(active: int, passive: int, second: int = 0, roll_rule: bool = False) -> float:
    """check.mjs: ((T0/5) - R)*5 + 50 on T0 = 5*CHAR (+5*CHAR), then the clamp."""
    t0 = active * 5 + second * 5
    t = ((t0 / 5) - passive) * 5 + 50
    return min(max(t, 1), 99) if roll_rule else min(max(t, 0), 100)


@pytest.mark.parametrize("roll_rule", [False, True])
def test_bf_3_resistance_target_and_clamp(roll_rule: bool) -> None:
    rules = {"resist_roll": roll_rule}
    for active in range(0, 31):
        for passive in range(0, 31, 3):
            resistance = {"active": active, "passive": passive}
            result = check([50], resistance=resistance, house_rules=rules)
            assert result.target == resist_target(active, passive, roll_rule=roll_rule)


def test_bf_3_second_characteristic_adds_to_the_first() -> None:
    resistance = {"active": 10, "second": 8, "passive": 12}
    assert check([50], resistance=resistance).target == resist_target(10, 12, 8) == 80


def test_bf_3_difficulty_applies_to_t0_before_the_resistance_formula() -> None:
    # T0 65, difficult: ⌈65/2⌉ = 33; then 33 - 50 + 50, exactly (JS floats give 32.999...)
    resistance = {"active": 13, "passive": 10}
    assert check([33], resistance=resistance, difficulty="difficult").target == 33
    assert check([33], resistance=resistance, difficulty="difficult").level == "success"


def test_bf_3_levels_collapse_unless_resist_levels() -> None:
    resistance = {"active": 13, "passive": 10}  # T 65
    rolled = {r: check([r], resistance=resistance).level for r in (1, 10, 65, 66, 100)}
    assert rolled == {1: "success", 10: "success", 65: "success", 66: "failure", 100: "failure"}
    assert odds_map({"system": NAME, "resistance": resistance}) == {
        "critical": 0,
        "special": 0,
        "success": Fraction(65, 100),
        "failure": Fraction(35, 100),
        "fumble": 0,
    }
    rules = {"resist_levels": True}
    for t_active in (13, 20, 3):
        res = {"active": t_active, "passive": 10}
        t = resist_target(t_active, 10)
        for r in ROLLS:
            # no 95 cap on a resistance card: T 100 succeeds on 00
            assert check([r], resistance=res, house_rules=rules).level == oracle(r, t, False)


def test_bf_3_resist_roll_keeps_a_chance_either_way() -> None:
    rules = {"resist_roll": True, "resist_levels": True}
    sure = {"active": 30, "passive": 5}
    assert check([100], resistance=sure, house_rules=rules).level == "fumble"  # T 99
    hopeless = {"active": 1, "passive": 30}
    assert check([1], resistance=hopeless, house_rules=rules).level == "critical"  # T 1


# -- BF-4 opposed ------------------------------------------------------------------------------


def card_oracle(a: tuple[int, int, int], o: tuple[int, int, int]) -> tuple[str, list[int]]:
    """opposed-card.mjs: cards (level number, roll, raw) in card order, sorted by a stable sort
    on level, roll and raw descending; the crown iff the first's level >= 2; the displayed
    levels after the reduction by the second card's level less one."""
    cards = sorted([("actor", *a), ("opponent", *o)], key=lambda c: (-c[1], -c[2], -c[3]))
    winner = cards[0][0] if cards[0][1] >= 2 else "none"
    adj = max(cards[1][1] - 1, 0)
    shown = [max(lvl - adj, 2) if lvl > 1 else lvl for lvl in (a[0], o[0])]
    return winner, shown


def side(skill: int, roll: int, **kw: Any) -> dict[str, Any]:
    return {"skill": skill, "dice": [roll], **kw}


@pytest.mark.parametrize(
    ("a", "o", "winner"),
    [
        (side(80, 3), side(60, 10), "actor"),  # critical over special
        (side(60, 50), side(60, 40), "actor"),  # same level: the higher roll
        (side(60, 40), side(60, 50), "opponent"),
        (side(60, 50), side(70, 50), "opponent"),  # same level and roll: the higher raw score
        (side(60, 50), side(60, 50), "actor"),  # exact tie: the actor's card stays first
        (side(40, 70), side(40, 60), "none"),  # two failures: nobody
        (side(40, 70), side(40, 99), "none"),  # failure and fumble: nobody
        (side(40, 99), side(40, 20), "opponent"),  # a success beats a fumble
        (side(100, 30, difficulty="difficult"), side(60, 30), "actor"),  # raw 100 over 60
    ],
)
def test_bf_4_crown_goes_to_the_first_card_if_it_succeeded(
    a: dict[str, Any], o: dict[str, Any], winner: str
) -> None:
    assert contest(a, o).winner == winner


def test_bf_4_two_failures_have_no_winner_not_a_tie() -> None:
    odds = d100.odds({"system": NAME, "actor": {"skill": 0}, "opponent": {"skill": 0}})
    assert odds.winner["none"] == 1 and odds.winner["tie"] == 0


def test_bf_4_level_reduction_is_carried_as_degree_and_notes() -> None:
    r = contest(side(80, 3), side(60, 10))  # critical against special: adj 2
    assert (r.actor.level, r.opponent.level) == ("critical", "special")  # as rolled
    assert r.degree == "success"  # the winner's card shows success
    assert r.actor.note and "shows success" in r.actor.note
    assert r.opponent.note and "shows success" in r.opponent.note
    r = contest(side(80, 3), side(60, 40))  # critical against success: adj 1
    assert r.degree == "special" and r.opponent.note is None
    r = contest(side(80, 10), side(60, 70))  # special against failure: adj 0
    assert r.degree == "special" and r.actor.note is None
    r = contest(side(40, 70), side(40, 60))  # nobody wins: no degree
    assert r.winner == "none" and r.degree is None
    assert r.to_dict()["winner"] == "none" and "degree" not in r.to_dict()


def test_bf_4_every_pair_of_results_against_the_card_oracle() -> None:
    skills = (5, 60, 99)
    for sa in skills:
        for so in skills:
            for ra in range(1, 101, 3):
                for ro in range(1, 101, 7):
                    r = contest(side(sa, ra), side(so, ro))
                    a = (NUMBER[oracle(ra, sa)], ra, sa)
                    o = (NUMBER[oracle(ro, so)], ro, so)
                    winner, shown = card_oracle(a, o)
                    assert r.winner == winner, (sa, ra, so, ro)
                    if winner != "none":
                        won = shown[0] if winner == "actor" else shown[1]
                        assert r.degree == LEVEL[won]


@pytest.mark.parametrize(("sa", "so"), [(60, 60), (80, 45), (0, 0), (120, 30), (7, 100)])
def test_bf_4_contest_odds_against_the_card_oracle(sa: int, so: int) -> None:
    expected = dict.fromkeys(("actor", "opponent", "tie", "none"), Fraction(0))
    for ra in ROLLS:
        for ro in ROLLS:
            a = (NUMBER[oracle(ra, sa)], ra, sa)
            o = (NUMBER[oracle(ro, so)], ro, so)
            expected[card_oracle(a, o)[0]] += Fraction(1, 10_000)
    request = {"system": NAME, "actor": {"skill": sa}, "opponent": {"skill": so}}
    assert odds_map(request) == expected


# -- odds: brute force, fast paths -------------------------------------------------------------


@pytest.mark.parametrize(
    "request_",
    [
        {"skill": 60},
        {"skill": 120, "difficulty": "hard", "modifiers": [-3]},
        {"resistance": {"active": 13, "passive": 9}},
        {"resistance": {"active": 13, "passive": 9}, "house_rules": {"resist_levels": True}},
        {"actor": {"skill": 70}, "opponent": {"skill": 55, "difficulty": "easy"}},
    ],
)
def test_bf_odds_equal_brute_force(request_: dict[str, Any]) -> None:  # rule: BF-1, BF-4
    request = {"system": NAME, **request_}
    assert nonzero(odds_map(request)) == nonzero(brute_force(request))


def test_bf_fast_paths_equal_the_reference() -> None:  # rule: BF-1, BF-2, BF-3, BF-4
    requests: list[dict[str, Any]] = []
    for t in (0, 1, 33, 60, 100, 150):
        for preset in ("average", "difficult", "tricky"):
            requests.append({"skill": t, "difficulty": preset})
        requests.append({"resistance": {"active": t // 5, "passive": 8}})
    for sa, so in ((60, 60), (80, 45), (3, 200), (50, 51)):
        requests.append({"actor": {"skill": sa}, "opponent": {"skill": so}})
    for request in requests:
        parsed = d100.parse({"system": NAME, **request})
        tallies._TALLY.cache_clear()
        assert tallies.tally(parsed).fractions() == tallies.reference(parsed).fractions()


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({"skill": 50, "resistance": {"active": 10, "passive": 10}}, "resistance"),
        ({}, "skill"),
        ({"skill": -1}, "skill"),
        ({"skill": 1001}, "skill"),
        ({"skill": 50, "difficulty": "near-impossible"}, "difficulty"),
        ({"resistance": {"active": 10}}, "resistance.passive"),
        ({"resistance": {"active": 10, "passive": 3, "second": -2}}, "resistance.second"),
        ({"skill": 50, "bonus_dice": 1}, "bonus_dice"),
        ({"skill": 50, "house_rules": {"resist": True}}, "house_rules.resist"),
        ({"skill": 50, "house_rules": {"resist_levels": 1}}, "house_rules.resist_levels"),
        (
            {
                "actor": {"skill": 5, "resistance": {"active": 1, "passive": 1}},
                "opponent": {"skill": 5},
            },
            "actor.resistance",
        ),
        (
            {"actor": {"skill": 5}, "opponent": {"skill": 5, "difficulty": "impossible"}},
            "opponent.difficulty",
        ),
        ({"actor": {"skill": 5}, "opponent": {}}, "opponent.skill"),
    ],
)
def test_bf_bad_input_names_the_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.odds({"system": NAME, **request_})
    assert err.value.field == field


def test_bf_requests_built_directly_are_held_to_the_same_rules() -> None:
    with pytest.raises(d100.D100Error) as err:
        brp_foundry.FoundryCheck(skill=None)
    assert err.value.field == "skill"
    with pytest.raises(d100.D100Error) as err:
        brp_foundry.FoundryContest(
            brp_foundry.FoundryCheck(resistance=brp_foundry.Resistance(1, 1)),
            brp_foundry.FoundryCheck(skill=5),
        )
    assert err.value.field == "actor.resistance"


def test_bf_declares_its_levels_as_records() -> None:
    system = d100.REGISTRY.get(NAME)
    specs = system.declares.levels
    assert tuple(s.name for s in specs) == system.levels == tuple(NUMBER)[::-1]
    assert {s.name for s in specs if s.success} == system.success_levels
    assert [s.style for s in specs] == ["best", "good", "ok", "bad", "worst"]
    assert system.declares.commands is None  # BCDice 3.16.1 has no BRP game system


def test_bf_2_presets_are_shown_as_factors() -> None:
    """The page shows a multiplicative preset in the declaration's words, not as a number."""
    # rule: BF-2
    from d100 import REGISTRY

    target = REGISTRY.get("brp-foundry").declares.to_dict()["target"]
    assert target["shown"]["difficult"] == "x1/2" and target["shown"]["easy"] == "x2"
    assert set(target["shown"]) == set(target["presets"])
