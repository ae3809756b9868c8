"""coc6, C6-1..C6-4 (EDITIONS.md section 3): the levels of the full grid against the formula
written out here, both the 1% and the 5% rule, malfunction numbers, resistance rolls with their
automatic results, combined rolls, contests by BRP6, exact odds against brute force, BCDice's
command forms, bad input."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import jsonschema
import pytest

import d100
from d100 import schema
from d100.batch import sample
from d100.systems import coc6
from tests.helpers import brute_force, nonzero, odds_map

GRID = [*range(-20, 101), 101, 110, 120, 150, 200]
ROLLS = range(1, 101)
WINS = ("critical_special", "critical", "special", "success")


# -- the rules as EDITIONS.md states them, written out independently ---------------------------


def editions(r: int, t: int, fives: bool = False, malfunction: int | None = None) -> str:
    """C6-1 and C6-2 as EDITIONS.md writes them; T <= 0, BCDice's bare roll, counts as a
    failure (this edition's decision)."""
    if t <= 0:
        return "failure"
    return judged(r, t, fives, malfunction)


def judged(r: int, t: int, fives: bool = False, malfunction: int | None = None) -> str:
    c = f = 5 if fives else 1
    special_t = min(max((t * 20) // 100, 1), 100)
    fumble = False
    if r <= t and r < 100:
        critical, special = r <= c, r <= special_t
        out = {
            (True, True): "critical_special",
            (True, False): "critical",
            (False, True): "special",
            (False, False): "success",
        }[(critical, special)]
    else:
        fumble = r >= 101 - f
        out = "fumble" if fumble else "failure"
    if malfunction is not None and malfunction > 0 and r >= malfunction:
        out = "fumble_broken" if fumble else "broken"
    return out


def brp6(a: str, ra: int, ta: int, o: str, ro: int, to: int) -> str:
    """The seed's BRP6 as RULES.md words it, on CoC6's levels."""
    if (a == "fumble") != (o == "fumble"):
        return "opponent" if a == "fumble" else "actor"
    rank = {"critical_special": 5, "critical": 4, "special": 3, "success": 2}
    xa, xo = rank.get(a, 1), rank.get(o, 1)
    if xa != xo:
        return "actor" if xa > xo else "opponent"
    ka, ko = (ra, ro) if xa >= 2 else (abs(ra - ta), abs(ro - to))
    return "tie" if ka == ko else "actor" if ka < ko else "opponent"


def target(t: int) -> dict[str, Any]:
    return {"skill": t} if t >= 0 else {"skill": 0, "modifiers": [t]}


def check(dice: list[int] | None = None, fives: bool = False, **kw: Any) -> Any:
    request: dict[str, Any] = {"system": "coc6", **kw, "dice": dice or []}
    if fives:
        request["house_rules"] = {"fives": True}
    result = d100.resolve(request)
    assert isinstance(result, d100.CheckResult)
    return result


# -- C6-1 ----------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("fives", [False, True])
def test_c6_1_full_grid_against_the_formula(fives: bool) -> None:
    for t in GRID:
        for r in ROLLS:
            result = check([r], fives, **target(t))
            assert result.level == editions(r, t, fives), (t, r)
            assert result.success == (result.level in WINS)
            assert result.target == t and result.roll == r and result.margin == t - r


def test_c6_1_worked_examples() -> None:
    assert check([24], skill=120).level == "special"  # no upper bound: special <= 24
    assert check([25], skill=120).level == "success"
    assert check([97], skill=98).level == "success"  # 96-99 succeed when <= T
    assert check([97], True, skill=98).level == "success"  # even under the 5% rule
    assert check([100], skill=200).level == "fumble"  # 00 always fails (and fumbles under CC)
    assert check([99], skill=98).level == "failure"  # CC: only 00 fumbles
    assert check([96], True, skill=50).level == "fumble"  # CCB: 96-00
    assert check([95], True, skill=50).level == "failure"
    assert check([5], True, skill=20).level == "critical"  # 01-05, special only <= 4
    assert check([4], True, skill=20).level == "critical_special"
    assert check([5], skill=20).level == "success"  # CC: critical on 01 only
    assert check([1], skill=3).level == "critical_special"  # special at least 1


def test_c6_1_a_target_of_0_or_less_is_a_bare_roll() -> None:
    for t in (0, -5):
        for r in (1, 50, 100):
            result = check([r], True, **target(t))
            assert (result.level, result.success, result.roll) == ("failure", False, r)
            assert "bare roll" in result.explanation
    # BCDice judges no malfunction on a bare roll either
    assert check([95], skill=0, malfunction=90).level == "failure"


# -- C6-2 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("malfunction", [1, 2, 50, 90, 96, 100, 150])
@pytest.mark.parametrize("fives", [False, True])
def test_c6_2_malfunction_grid(malfunction: int, fives: bool) -> None:
    for t in (1, 4, 30, 65, 95, 99, 100, 150):
        for r in ROLLS:
            result = check([r], fives, skill=t, malfunction=malfunction)
            assert result.level == editions(r, t, fives, malfunction), (t, r)
            assert result.success == (r < malfunction and result.level in WINS)


def test_c6_2_worked_examples() -> None:
    assert check([92], skill=95, malfunction=90).level == "broken"  # never a success
    assert check([89], skill=95, malfunction=90).level == "success"
    assert check([100], skill=95, malfunction=90).level == "fumble_broken"
    assert check([97], True, skill=65, malfunction=90).level == "fumble_broken"
    assert check([97], skill=65, malfunction=90).level == "broken"


# -- C6-3 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("fives", [False, True])
def test_c6_3_resistance_target_and_automatic_results(fives: bool) -> None:
    for active in range(21):
        for passive in range(21):
            t = 50 + 5 * (active - passive)
            side = {"active": active, "passive": passive}
            request: dict[str, Any] = {"system": "coc6", "resistance": side}
            if fives:
                request["house_rules"] = {"fives": True}
            if t > 95 or t < 5:
                result = d100.resolve(request)
                assert (result.roll, result.dice, result.margin) == (None, (), None)
                assert result.level == ("success" if t > 95 else "failure")
                assert result.target == t
                chance = d100.odds(request)
                assert chance.success == (1 if t > 95 else 0)
                assert chance.levels[result.level] == 1
            else:
                for r in (1, 5, 10, t, t + 1, 96, 100):
                    result = d100.resolve({**request, "dice": [r]})
                    assert result.level == editions(r, t, fives), (active, passive, r)


def test_c6_3_worked_examples() -> None:
    assert check([50], resistance={"active": 13, "passive": 10}).target == 65
    assert check(None, resistance={"active": 13, "passive": 3}).level == "success"  # T 100
    assert check([95], resistance={"active": 12, "passive": 3}).level == "success"  # T 95 rolls
    assert check([96], resistance={"active": 12, "passive": 3}).level == "failure"
    assert check([5], resistance={"active": 3, "passive": 12}).level == "success"  # T 5 rolls
    assert check(None, resistance={"active": 3, "passive": 13}).level == "failure"  # T 0
    # modifiers move the target before the thresholds
    assert check(None, resistance={"active": 13, "passive": 10}, modifiers=[31]).roll is None
    with pytest.raises(d100.DiceError):  # no roll: given dice are left over
        check([50], resistance={"active": 13, "passive": 3})


# -- C6-4 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "targets", [(60, 45), (0, 45), (45, 0), (120, 10), (30, 30, 80), (5, 99), (100, 3)]
)
@pytest.mark.parametrize("fives", [False, True])
def test_c6_4_combined_on_one_roll(targets: tuple[int, ...], fives: bool) -> None:
    order = [*WINS, "failure", "fumble", "broken", "fumble_broken"]
    for r in ROLLS:
        result = check([r], fives, skill=targets[0], combined=list(targets[1:]))
        each = [judged(r, t, fives) for t in targets]
        assert [(c.target, c.level, c.success) for c in result.combined] == [
            (t, lvl, lvl in WINS) for t, lvl in zip(targets, each, strict=True)
        ]
        assert result.success == all(lvl in WINS for lvl in each)  # success iff all succeed
        assert result.level == max(each, key=order.index)  # the worst of them


def test_c6_4_worked_example_and_odds() -> None:
    result = check([50], skill=60, combined=[45])
    assert (result.level, result.success) == ("failure", False)
    assert [(c.target, c.level, c.success, c.roll) for c in result.combined] == [
        (60, "success", True, 50),
        (45, "failure", False, 50),
    ]
    assert result.to_dict()["combined"][1]["level"] == "failure"
    assert d100.odds({"system": "coc6", "skill": 60, "combined": [45]}).success == Fraction(45, 100)
    assert "combined" not in check([50], skill=60).to_dict()


# -- exact odds (G4) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_",
    [
        {"skill": 65},
        {"skill": 65, "house_rules": {"fives": True}},
        {"skill": 0},
        {"skill": 120, "modifiers": [-10]},
        {"skill": 65, "malfunction": 90, "house_rules": {"fives": True}},
        {"skill": 60, "combined": [45, 90]},
        {"resistance": {"active": 13, "passive": 10}},
        {"resistance": {"active": 13, "passive": 3}},
        {"resistance": {"active": 3, "passive": 13}},
    ],
)
def test_c6_1_odds_equal_brute_force(request_: dict[str, Any]) -> None:
    request = {"system": "coc6", **request_}
    assert nonzero(odds_map(request)) == brute_force(request)


def test_c6_1_odds_equal_the_formula() -> None:
    for fives in (False, True):
        for t in (1, 4, 5, 24, 25, 65, 99, 100, 101, 150):
            request = {"system": "coc6", "skill": t, "house_rules": {"fives": fives}}
            want = dict.fromkeys(coc6.LEVELS, Fraction(0))
            for r in ROLLS:
                want[editions(r, t, fives)] += Fraction(1, 100)
            assert odds_map(request) == want, (t, fives)


# -- contests: BRP6 on CoC6's levels -------------------------------------------------------------


def oracle_contest(ta: int, to: int, fives: bool) -> dict[str, Fraction]:
    out = dict.fromkeys(("actor", "opponent", "tie", "none"), Fraction(0))
    for ra in ROLLS:
        for ro in ROLLS:
            a, o = editions(ra, ta, fives), editions(ro, to, fives)
            out[brp6(a, ra, ta, o, ro, to)] += Fraction(1, 10_000)
    return out


@pytest.mark.parametrize(("ta", "to"), [(60, 45), (0, 30), (150, 20), (65, 65), (99, 100)])
@pytest.mark.parametrize("fives", [False, True])
def test_contests_follow_brp6_on_coc6_levels(ta: int, to: int, fives: bool) -> None:
    request = {
        "system": "coc6",
        "actor": {"skill": ta},
        "opponent": {"skill": to},
        "house_rules": {"fives": fives},
    }
    assert odds_map(request) == oracle_contest(ta, to, fives)


def test_contest_examples_and_brute_force() -> None:
    def winner(ra: int, ro: int, ta: int = 60, to: int = 60) -> str:
        sides = {"actor": {"skill": ta, "dice": [ra]}, "opponent": {"skill": to, "dice": [ro]}}
        return str(d100.resolve({"system": "coc6", **sides}).winner)

    assert winner(1, 2) == "actor"  # critical_special over special
    assert winner(20, 30) == "actor"  # the lower roll among successes
    assert winner(70, 80) == "actor"  # the closer to its target among failures
    assert winner(70, 100) == "actor"  # a fumble loses
    assert winner(30, 30) == "tie"
    assert winner(50, 50, 40, 60) == "opponent"
    request = {"system": "coc6", "actor": {"skill": 70}, "opponent": {"skill": 40}}
    assert nonzero(odds_map(request)) == brute_force(request)
    far = {"system": "coc6", "actor": {"skill": 1000, "modifiers": [500]}, "opponent": {"skill": 5}}
    assert odds_map(far) == oracle_contest(1500, 5, False)  # past the ranked range


# -- BCDice's command forms ----------------------------------------------------------------------

ONE, FIVE = {"fives": False}, {"fives": True}


@pytest.mark.parametrize(
    ("text", "request_"),
    [
        ("CC<=65", {"skill": 65, "house_rules": ONE}),
        ("cc<=65 Spot Hidden", {"skill": 65, "house_rules": ONE}),
        ("CCB<=65", {"skill": 65, "house_rules": FIVE}),
        ("CC<=65+10-5", {"skill": 65, "modifiers": [10, -5], "house_rules": ONE}),
        ("CC<=60/7", {"skill": 8, "house_rules": ONE}),  # rounded down
        ("CC<=-5/2+10", {"skill": 7, "house_rules": ONE}),
        ("CC(90)<=65", {"skill": 65, "malfunction": 90, "house_rules": ONE}),
        ("CCB90<=65", {"skill": 65, "malfunction": 90, "house_rules": FIVE}),
        ("CC(0)<=65", {"skill": 65, "house_rules": ONE}),  # no malfunction number
        ("CC", {"skill": 0, "house_rules": ONE}),  # a bare roll
        ("CC<=-5", {"skill": 0, "modifiers": [-5], "house_rules": ONE}),
        ("RES(13-10)", {"resistance": {"active": 13, "passive": 10}, "house_rules": ONE}),
        ("RESB(13-10)", {"resistance": {"active": 13, "passive": 10}, "house_rules": FIVE}),
        ("RES(-3)", {"resistance": {"active": 0, "passive": 3}, "house_rules": ONE}),
        ("RES(3/2)", {"resistance": {"active": 1, "passive": 0}, "house_rules": ONE}),
        ("CBR(60,45)", {"skill": 60, "combined": [45], "house_rules": ONE}),
        ("CBRB(60,45)", {"skill": 60, "combined": [45], "house_rules": FIVE}),
        ("CBR(60,(40+5))", {"skill": 60, "combined": [45], "house_rules": ONE}),
    ],
)
def test_commands_read_bcdice_forms(text: str, request_: dict[str, Any]) -> None:
    assert coc6.commands(text) == {"system": "coc6", **request_}
    assert d100.parse(coc6.commands(text)).system == "coc6"


@pytest.mark.parametrize(
    "text",
    [
        *("CC<65", "CC<=65/h", "CC<=5+", "CC<=6/0", "CBR(60, 45)", "CBR(60)", "CBR(60,45,30)"),
        *("CC(-5)<=65", "RES13-10", "SCC<=65", "RQG<=80", "1D100<=65", ""),
    ],
)
def test_commands_leave_other_text_alone(text: str) -> None:
    assert coc6.commands(text) is None


def test_commands_give_bcdice_targets() -> None:
    # the targets BCDice prints for these forms (its text "(1D100<=T)")
    for text, t in (("RES(13-10)", 65), ("RESB(13-20)", 15), ("CC<=65*2", 130), ("CC<=(1)(2)", 12)):
        request = coc6.commands(text)
        assert request is not None
        assert d100.resolve({**request, "dice": [50]}).target == t, text


# -- the declaration, bad input ------------------------------------------------------------------


def test_declaration_levels_and_sampler() -> None:
    declared = coc6.DECLARATION
    assert [spec.name for spec in declared.levels] == list(coc6.LEVELS)
    assert {spec.name for spec in declared.levels if spec.success} == coc6.SYSTEM.success_levels
    assert declared.commands is coc6.commands
    for request in (
        {"system": "coc6", "skill": 60, "combined": [45]},
        {"system": "coc6", "actor": {"skill": 60}, "opponent": {"skill": 40}},
    ):
        counts = sample(request, 2000, seed=3)
        assert sum(counts.values()) == 2000
    auto = {"system": "coc6", "resistance": {"active": 13, "passive": 3}}
    assert sample(auto, 50, seed=1) == {"success": 50}


def test_results_match_the_schema() -> None:
    valid = jsonschema.Draft202012Validator(schema.shipped("result"))
    requests = jsonschema.Draft202012Validator(schema.shipped("request"))
    for request in (
        {"system": "coc6", "skill": 60, "combined": [45], "dice": [50]},
        {"system": "coc6", "resistance": {"active": 13, "passive": 3}},
        {"system": "coc6", "skill": 65, "malfunction": 90, "dice": [97]},
        {
            "system": "coc6",
            "actor": {"skill": 60, "dice": [4]},
            "opponent": {"skill": 9, "dice": [4]},
        },
    ):
        requests.validate(request)
        valid.validate(d100.resolve(request).to_dict())


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({}, "skill"),
        ({"skill": 50, "resistance": {"active": 1, "passive": 2}}, "resistance"),
        ({"resistance": {"active": 1, "passive": 2}, "malfunction": 90}, "malfunction"),
        ({"resistance": {"active": 1, "passive": 2}, "combined": [40]}, "combined"),
        ({"resistance": {"active": -1, "passive": 2}}, "resistance.active"),
        ({"skill": 50, "malfunction": 0}, "malfunction"),
        ({"skill": 50, "combined": [-1]}, "combined[0]"),
        ({"skill": 50, "combined": 40}, "combined"),
        ({"skill": 50, "difficulty": "hard"}, "difficulty"),
        ({"skill": 50, "house_rules": {"fives": "yes"}}, "house_rules.fives"),
        ({"skill": 50, "house_rules": {"one_percent": True}}, "house_rules.one_percent"),
        ({"actor": {"skill": 50}, "opponent": {}}, "opponent.skill"),
        ({"actor": {"skill": 5, "malfunction": 90}, "opponent": {"skill": 5}}, "actor.malfunction"),
        ({"actor": {"skill": 5, "combined": [9]}, "opponent": {"skill": 5}}, "actor.combined"),
    ],
)
def test_bad_input_names_the_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(d100.D100Error) as caught:
        d100.parse({"system": "coc6", **request_})
    assert caught.value.field == field
    assert caught.value.allowed


def test_request_objects_built_directly_are_held_to_the_same_rules() -> None:
    with pytest.raises(d100.D100Error) as caught:
        coc6.Coc6Check(skill=5, resistance=coc6.Resistance(3, 4))
    assert caught.value.field == "resistance"
    side = coc6.Coc6Check(skill=5, malfunction=90)
    with pytest.raises(d100.D100Error) as caught:
        coc6.Coc6Contest(side, coc6.Coc6Check(skill=4))
    assert caught.value.field == "actor.malfunction"
