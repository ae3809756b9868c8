"""OpenQuest rules, OQ1-OQ12, with the seed's own examples."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import d100
from d100.systems.openquest import DIFFICULTIES, MEANINGS, level
from tests.helpers import odds_map


def check(skill: int, dice: list[int] | None = None, **kw: object) -> d100.CheckResult:
    result = d100.resolve({"system": "openquest", "skill": skill, **kw, "dice": dice or []})
    assert isinstance(result, d100.CheckResult)
    return result


def contest(actor: dict[str, object], opponent: dict[str, object]) -> d100.ContestResult:
    result = d100.resolve({"system": "openquest", "actor": actor, "opponent": opponent})
    assert isinstance(result, d100.ContestResult)
    return result


def test_oq1_difficulty_presets_and_any_integer() -> None:
    assert DIFFICULTIES == {"very-easy": 50, "easy": 20, "normal": 0, "hard": -20, "very-hard": -50}
    assert check(50, [60], difficulty="easy").target == 70
    assert check(50, [60], difficulty=-7).target == 43
    with pytest.raises(d100.D100Error) as err:
        check(50, [60], difficulty="brutal")
    assert err.value.field == "difficulty" and "very-hard" in err.value.allowed
    with pytest.raises(d100.D100Error, match="skill"):
        check(101, [60])


def test_oq1_only_one_difficulty_is_a_single_integer() -> None:
    with pytest.raises(d100.D100Error) as err:
        check(50, [60], difficulty=[10, -20])
    assert err.value.field == "difficulty"


def test_oq2_modified_skill_adds_magic_and_difficulty() -> None:
    result = check(40, [56], modifiers=[10, 5], difficulty="easy")
    assert result.target == 75 and result.level == "success" and result.margin == 19


@pytest.mark.parametrize("mods", [[], [-60], [40]])
def test_oq3_master_never_rolls_and_is_critical(mods: list[int]) -> None:
    result = check(100, None, modifiers=mods)
    assert (result.level, result.roll, result.dice, result.margin) == ("critical", None, (), None)
    assert d100.odds({"system": "openquest", "skill": 100}).levels["critical"] == 1


def test_oq3_master_given_dice_is_an_error() -> None:
    with pytest.raises(d100.D100Error, match="left over"):
        check(100, [42])


def test_oq3_modified_up_to_100_is_not_a_master() -> None:
    result = check(80, [33], modifiers=[20])
    assert result.roll == 33 and result.level == "critical"
    assert check(80, [100], modifiers=[20]).level == "fumble"


@pytest.mark.parametrize(
    ("roll", "expected"),
    [
        (1, "success"),
        (11, "critical"),
        (44, "critical"),
        (45, "success"),
        (46, "failure"),
        (55, "fumble"),
        (100, "fumble"),
        (99, "fumble"),
        (90, "failure"),
    ],
)
def test_oq4_roll_under_with_doubles(roll: int, expected: str) -> None:
    assert check(45, [roll]).level == expected


def test_oq4_seed_apprentice_potter_craft_20() -> None:
    # rule: OQ12 — the potter rolls only because the player chooses to take the chance
    odds = d100.odds({"system": "openquest", "skill": 20})
    assert odds.levels == {
        "critical": Fraction(1, 100),
        "success": Fraction(19, 100),
        "failure": Fraction(71, 100),
        "fumble": Fraction(9, 100),
    }


@pytest.mark.parametrize("modified", [100, 120, 250])
def test_oq5_high_skill_succeeds_except_00(modified: int) -> None:
    for roll in range(1, 101):
        lvl = level(roll, modified, master=False)
        if roll == 100:
            assert lvl == "fumble"
        elif roll % 11 == 0:
            assert lvl == "critical"
        else:
            assert lvl == "success"
    assert "00 fumbles" in check(90, [100], modifiers=[modified - 90]).explanation


@pytest.mark.parametrize("modified", [0, -5, -100])
def test_oq6_low_skill_always_fails_doubles_fumble(modified: int) -> None:
    for roll in range(1, 101):
        expected = "fumble" if roll % 11 == 0 or roll == 100 else "failure"
        assert level(roll, modified, master=False) == expected


# The seed's table: player level (row) against opponent level (column).
MATRIX = {
    ("critical", "critical"): "highest",
    ("critical", "success"): "actor",
    ("critical", "failure"): "actor",
    ("critical", "fumble"): "actor",
    ("success", "critical"): "opponent",
    ("success", "success"): "highest",
    ("success", "failure"): "actor",
    ("success", "fumble"): "actor",
    ("failure", "critical"): "opponent",
    ("failure", "success"): "opponent",
    ("failure", "failure"): "lowest",
    ("failure", "fumble"): "actor",
    ("fumble", "critical"): "opponent",
    ("fumble", "success"): "opponent",
    ("fumble", "failure"): "opponent",
    ("fumble", "fumble"): "none",
}
# Two rolls per level for a skill of 50, one low and one high.
ROLLS = {"critical": (11, 44), "success": (5, 49), "failure": (51, 98), "fumble": (66, 88)}


@pytest.mark.parametrize(("cell", "rule"), sorted(MATRIX.items()))
def test_oq7_opposed_matrix_cell_by_cell(cell: tuple[str, str], rule: str) -> None:
    a_level, o_level = cell
    for a_roll in ROLLS[a_level]:
        for o_roll in ROLLS[o_level]:
            result = contest({"skill": 50, "dice": [a_roll]}, {"skill": 50, "dice": [o_roll]})
            assert (result.actor.level, result.opponent.level) == cell
            if rule == "highest":
                expected = "actor" if a_roll >= o_roll else "opponent"
            elif rule == "lowest":
                expected = "actor" if a_roll <= o_roll else "opponent"
            else:
                expected = rule
            assert result.winner == expected, (a_roll, o_roll)


def test_oq7_equal_rolls_at_equal_level_go_to_the_actor() -> None:
    assert contest({"skill": 60, "dice": [33]}, {"skill": 40, "dice": [33]}).winner == "actor"
    assert contest({"skill": 20, "dice": [70]}, {"skill": 40, "dice": [70]}).winner == "actor"


def test_oq8_difficulty_on_one_side_only() -> None:
    ok = contest(
        {"skill": 50, "difficulty": "hard", "dice": [40]},
        {"skill": 50, "modifiers": [10], "dice": [40]},
    )
    assert ok.actor.target == 30 and ok.opponent.target == 60
    with pytest.raises(d100.D100Error) as err:
        contest({"skill": 50, "difficulty": -20}, {"skill": 50, "difficulty": 20})
    assert err.value.field == "opponent.difficulty"


def test_oq9_both_masters_actor_rolls_critical_or_standoff() -> None:
    win = contest({"skill": 100, "dice": [77]}, {"skill": 100})
    assert (win.winner, win.actor.roll, win.opponent.roll) == ("actor", 77, None)
    standoff = contest({"skill": 100, "dice": [76]}, {"skill": 100})
    assert standoff.winner == "none" and "standoff" in standoff.explanation
    assert contest({"skill": 100, "dice": [100]}, {"skill": 100}).winner == "none"
    odds = odds_map({"system": "openquest", "actor": {"skill": 100}, "opponent": {"skill": 100}})
    assert odds["actor"] == Fraction(9, 100) and odds["none"] == Fraction(91, 100)


@pytest.mark.parametrize(
    ("roll", "winner", "actor_level"),
    [
        (33, "actor", "critical"),
        (30, "opponent", "success"),
        (80, "opponent", "fumble"),
        (77, "opponent", "fumble"),
    ],
)
def test_oq9_opponent_master(roll: int, winner: str, actor_level: str) -> None:
    result = contest({"skill": 60, "dice": [roll]}, {"skill": 100})
    assert (result.winner, result.actor.level, result.opponent.level) == (
        winner,
        actor_level,
        "critical",
    )


@pytest.mark.parametrize(
    ("roll", "winner", "opponent_level"),
    [(22, "opponent", "critical"), (21, "actor", "success"), (90, "actor", "fumble")],
)
def test_oq9_actor_master_mirror(roll: int, winner: str, opponent_level: str) -> None:
    result = contest({"skill": 100}, {"skill": 60, "dice": [roll]})
    assert (result.winner, result.opponent.level, result.actor.level) == (
        winner,
        opponent_level,
        "critical",
    )


def test_oq10_group_tests_stand_alone() -> None:
    group = d100.resolve_group(
        [
            {"system": "openquest", "skill": s, "dice": [r]}
            for s, r in ((50, 33), (20, 33), (70, 99))
        ]
    )
    assert [r.level for r in group if isinstance(r, d100.CheckResult)] == [
        "critical",
        "fumble",
        "fumble",
    ]


def test_oq11_assist_adds_20_on_success_only() -> None:
    helped = check(40, [56], assist={"skill": 50, "dice": [30]})
    assert helped.target == 60 and helped.level == "success"
    assert helped.assist is not None and helped.assist.level == "success"
    unhelped = check(40, [56], assist={"skill": 50, "dice": [88]}, modifiers=[5])
    assert unhelped.target == 45 and unhelped.assist is not None
    assert unhelped.assist.level == "fumble" and unhelped.level == "failure"
    master_helper = check(40, [55], assist={"skill": 100})
    assert master_helper.target == 60 and master_helper.assist is not None
    assert master_helper.assist.roll is None


def test_oq11_one_assister_at_a_time() -> None:
    with pytest.raises(d100.D100Error) as err:
        check(40, [55], assist={"skill": 50, "dice": [30], "assist": {"skill": 40}})
    assert err.value.field == "assist.assist"


def test_oq11_assist_odds_mix_the_two_targets() -> None:
    odds = d100.odds({"system": "openquest", "skill": 40, "assist": {"skill": 30}})
    plain, boosted = (d100.odds({"system": "openquest", "skill": s}) for s in (40, 60))
    p = Fraction(30, 100)  # the assister's chance of success (any level)
    assert odds.success == (1 - p) * plain.success + p * boosted.success


def test_oq12_every_level_has_a_meaning() -> None:
    system = d100.REGISTRY.get("openquest")
    assert set(MEANINGS) == set(system.levels)
    assert "fail" in system.meaning("failure") and "player" in system.meaning("critical")


def test_oq4_seeded_rolls_repeat() -> None:
    request = {"system": "openquest", "skill": 55}
    first = [d100.resolve(request, random.Random(9)).to_dict() for _ in range(3)]
    assert first[0] == first[1] == first[2]


@pytest.mark.parametrize(("side", "master"), [("actor", "opponent"), ("opponent", "actor")])
def test_oq9_g6_a_failure_beaten_by_a_master_is_not_explained_as_doubles(
    side: str, master: str
) -> None:
    request = {"system": "openquest", side: {"skill": 50, "dice": [70]}, master: {"skill": 100}}
    result = d100.resolve(request)
    beaten = getattr(result, side)
    assert beaten.level == "fumble" and result.winner == master
    assert "doubles" not in beaten.explanation
    assert "failure beaten by a master" in beaten.explanation
    # a fumble the dice made (doubles) is still explained by the dice
    request[side] = {"skill": 50, "dice": [77]}
    doubled = getattr(d100.resolve(request), side)
    assert doubled.level == "fumble" and "doubles" in doubled.explanation
    assert "beaten by a master" not in doubled.explanation
