"""The development phase (S7-7, S7-8, S7-9; Pulp's P-1): exact odds of each roll held to a
brute-force count of every die and to icepool, rolls with dice given by hand held to the rule
as SESSION.md states it (decision S3), and a sheet's phase written back."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product
from typing import Any

import icepool
import pytest

from d100 import development as dv
from d100.errors import D100Error, DiceError
from d100.sheets import loads

INCLUSIVE = "development_95_inclusive"


def brute_skill(value: int, inclusive: bool = False) -> tuple[Fraction, ...]:
    """P(improve), mean gain, P(SAN reward), mean SAN reward over every d100, d10 and 2d6."""
    improves = gain = rewards = reward = Fraction(0)
    for r, g, s1, s2 in product(range(1, 101), range(1, 11), range(1, 7), range(1, 7)):
        p = Fraction(1, 100 * 10 * 36)
        if not (r > value or r > 95 or (inclusive and r == 95)):
            continue
        improves += p
        gain += p * g
        if value < 90 <= value + g:
            rewards += p
            reward += p * (s1 + s2)
    return improves, gain, rewards, reward


def request(skills: dict[str, int], **kw: object) -> dv.DevelopmentRequest:
    return dv.DevelopmentRequest("coc7", tuple(skills.items()), reward_value=50, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value", [0, 1, 5, 50, 79, 80, 81, 85, 88, 89, 90, 94, 95, 96, 99, 100, 140]
)
def test_s7_7_and_s7_8_odds_against_brute_force(value: int) -> None:  # rule: S7-7, S7-8
    (o,) = dv.odds(request({"Spot Hidden": value}))
    assert (o.improves, o.gain, o.rewards, o.reward) == brute_skill(value)


@pytest.mark.parametrize("value", [94, 95, 96, 99, 120])
def test_s7_7_house_rule_95_improves(value: int) -> None:  # rule: S7-7
    (o,) = dv.odds(request({"Spot Hidden": value}, house_rules=frozenset({INCLUSIVE})))
    assert (o.improves, o.gain, o.rewards, o.reward) == brute_skill(value, inclusive=True)


@pytest.mark.parametrize("value", [70, 80, 85, 89])
def test_s7_8_reward_odds_against_icepool(value: int) -> None:  # rule: S7-8
    (o,) = dv.odds(request({"Listen": value}))
    improve = Fraction(100 - value, 100)  # below 95: over the skill
    reach = (icepool.d10 >= 90 - value).probability(True)
    assert o.rewards == improve * Fraction(reach)
    assert o.reward == o.rewards * Fraction((2 @ icepool.d6).mean())


def brute_luck(luck: int, pulp: bool = False) -> tuple[Fraction, Fraction]:
    """P(the roll beats Luck) and mean Luck gained (never above 99), every die counted."""
    beats = gain = Fraction(0)
    for r, a, b in product(range(1, 101), range(1, 11), range(1, 11)):
        p = Fraction(1, 100 * 100)
        up = r > luck
        beats += p * up
        # P-1 under pulp: 2D10+10 over Luck, else 1D10+5; S7-9: 1D10 over Luck, else nothing
        g = (a + b + 10 if up else a + 5) if pulp else (a if up else 0)
        gain += p * (min(99, luck + g) - luck if luck < 99 else 0)
    return beats, gain


@pytest.mark.parametrize("luck", [0, 10, 45, 90, 95, 96, 98, 99])
@pytest.mark.parametrize("pulp", [False, True])
def test_s7_9_and_p_1_luck_recovery_odds(luck: int, pulp: bool) -> None:  # rule: S7-9, P-1
    options = frozenset({"pulp"}) if pulp else frozenset()
    (o,) = dv.odds(dv.DevelopmentRequest("coc7", (), luck=luck, options=options))
    assert (o.improves, o.gain) == brute_luck(luck, pulp)


@pytest.mark.parametrize(
    ("value", "dice", "after", "reward"),
    [
        (97, [96, 3], 100, 0),  # over 95 improves a skill above it (S3)
        (97, [95], 97, 0),  # 95 itself does not, by default (S3)
        (60, [61, 10], 70, 0),
        (60, [60], 60, 0),  # over the skill, not equal to it
        (88, [89, 2, 3, 4], 90, 7),  # reaches 90: 2D6 SAN (S7-8)
        (88, [89, 1], 89, 0),
        (90, [91, 5], 95, 0),  # already 90: no SAN
    ],
)
def test_s7_7_and_s7_8_rolls_by_the_rule(
    value: int, dice: list[int], after: int, reward: int
) -> None:  # rule: S7-7, S7-8
    result = dv.develop(request({"Occult": value}, dice=tuple(dice)))
    (r,) = result.skills
    assert (r.roll, r.after, r.reward, r.improved) == (dice[0], after, reward, after > value)
    assert result.reward_after == 50 + reward


def test_s7_7_house_rule_95_rolls() -> None:  # rule: S7-7
    result = dv.develop(request({"Occult": 97}, dice=(95, 4), house_rules=frozenset({INCLUSIVE})))
    assert result.skills[0].after == 101  # a skill may pass 100


def test_s7_8_several_skills_each_add_2d6_within_san_max() -> None:  # rule: S7-8
    req = dv.DevelopmentRequest(
        "coc7",
        (("A", 85), ("B", 89)),
        reward_value=80,
        reward_most=90,
        dice=(90, 6, 6, 6, 99, 1, 1, 1),
    )
    result = dv.develop(req)
    assert [r.reward for r in result.skills] == [12, 2]
    assert (result.reward_before, result.reward_after) == (80, 90)  # 94 clamped to SAN max


def test_s7_7_dice_are_drawn_through_the_random_source_one_die_at_a_time() -> None:  # rule: S7-7
    asked: list[tuple[int, int]] = []

    class Recording(random.Random):
        def randint(self, a: int, b: int) -> int:
            asked.append((a, b))
            return b  # the highest face: every roll improves, every gain is full

    result = dv.develop(request({"Occult": 85}), Recording())
    assert asked == [(1, 100), (1, 10), (1, 6), (1, 6)]
    assert result.skills[0].dice == (100, 10, 6, 6)


def test_s7_7_the_same_seed_rolls_the_same_phase() -> None:  # rule: S7-7
    req = request({"Occult": 40, "Listen": 85}, luck=30)
    assert dv.develop(req, random.Random(5)) == dv.develop(req, random.Random(5))


@pytest.mark.parametrize(
    ("dice", "kind"),
    [((96,), DiceError), ((96, 11), DiceError), ((96, 3, 3), DiceError), ((0,), D100Error)],
)
def test_s7_7_dice_given_by_hand_are_checked(
    dice: tuple[int, ...], kind: type
) -> None:  # rule: S7-7
    with pytest.raises(kind) as err:
        dv.develop(request({"Occult": 50}, dice=dice))
    assert err.value.field == "dice" and err.value.allowed


def test_s7_7_bad_requests_name_the_field() -> None:  # rule: S7-7
    with pytest.raises(D100Error) as err:
        request({"Occult": 50}, house_rules=frozenset({"grim"}))
    assert (err.value.field, err.value.value) == ("house_rules", "grim")
    assert INCLUSIVE in err.value.allowed
    with pytest.raises(D100Error) as err:
        dv.DevelopmentRequest("openquest", (("Occult", 50),))
    assert err.value.field == "system" and "coc7" in err.value.allowed
    with pytest.raises(D100Error) as err:
        request({"Occult": -1})
    assert err.value.field == "skills.Occult"
    with pytest.raises(D100Error) as err:
        dv.DevelopmentRequest("coc7", (("Occult", 85),))
    assert err.value.field == "SAN"  # 85 may reach 90, and there is no SAN to add to


def test_s7_7_the_work_is_bounded_before_any_roll() -> None:  # rule: S7-7
    with pytest.raises(D100Error) as err:
        request({f"skill {i}": 50 for i in range(dv.MAX_ROLLS + 1)})
    assert err.value.field == "skills" and str(dv.MAX_ROLLS) in err.value.allowed


VERA = """\
[vera]
system = "coc7"
luck = { current = 45, maximum = 50 }
characteristics = { STR = 60, CON = 55, SIZ = 65, DEX = 70, APP = 50, INT = 80, POW = 60, EDU = 85 }
skills = { "Spot Hidden" = 60, "Library Use" = 88 }
marks = ["spot hidden", "Library Use", "Climb"]
"""


def test_s7_7_a_sheet_phase_raises_skills_and_clears_marks() -> None:  # rule: S7-7, S7-8, S7-9
    c = loads(VERA).get("vera")
    req = dv.from_character(c, luck=True, dice=(61, 4, 50, 21, 3, 98, 2))
    assert req.skills == (("Spot Hidden", 60), ("Library Use", 88), ("Climb", 20))
    assert (req.reward_value, req.reward_most, req.luck) == (60, 99, 45)
    after = dv.apply(c, dv.develop(req))
    assert after.skills == {"Spot Hidden": 64, "Library Use": 88, "Climb": 23}
    assert after.marks == () and after.luck is not None
    assert (after.luck.current, after.luck.maximum) == (47, 50)
    assert after.derived == {}  # no SAN gained: nothing written


def test_s7_8_sheet_san_gained_is_written() -> None:  # rule: S7-8
    c = loads(VERA.replace('"Climb"', '"Listen"').replace("88 }", "88, Listen = 85 }")).get("vera")
    after = dv.apply(c, dv.develop(dv.from_character(c, dice=(10, 20, 99, 5, 6, 6))))
    assert after.skills["Listen"] == 90 and after.derived == {"SAN": 72}


def test_s7_9_luck_recovery_is_capped_at_99() -> None:  # rule: S7-9
    c = loads(VERA.replace("current = 45, maximum = 50", "current = 95, maximum = 95")).get("vera")
    req = dv.from_character(c, luck=True, dice=(1, 1, 1, 100, 10))
    after = dv.apply(c, dv.develop(req))
    assert after.luck is not None and (after.luck.current, after.luck.maximum) == (99, 99)


@pytest.mark.parametrize(
    ("marks", "reason"),
    [('["Credit Rating"]', "never earns"), ('["Juggling"]', "unknown"), ('["DEX"]', "unknown")],
)
def test_s7_7_a_mark_names_a_skill_that_may_improve(marks: str, reason: str) -> None:  # rule: S7-7
    with pytest.raises(D100Error, match=reason) as err:
        loads(VERA.replace('["spot hidden", "Library Use", "Climb"]', marks))
    assert err.value.field == "vera.marks"


def test_s7_7_a_request_names_each_skill_once_and_known_options() -> None:  # rule: S7-7
    with pytest.raises(D100Error) as err:
        dv.DevelopmentRequest("coc7", (("Occult", 50), ("Occult", 60)))
    assert (err.value.field, err.value.value) == ("skills", "Occult")
    with pytest.raises(D100Error) as err:
        dv.DevelopmentRequest("coc7", (), luck=40, options=frozenset({"grim"}))
    assert err.value.field == "options" and "pulp" in err.value.allowed


def test_s7_8_a_sheet_without_san_is_told_where_to_give_it() -> None:  # rule: S7-8
    c = loads('[wes]\nsystem = "coc7"\nskills = { Listen = 85 }\nmarks = ["Listen"]\n').get("wes")
    with pytest.raises(D100Error) as err:
        dv.from_character(c)
    assert err.value.field == "wes.derived.SAN" and "Listen" in err.value.allowed
    c = loads('[wes]\nsystem = "coc7"\nskills = { Listen = 50 }\nmarks = ["Listen"]\n').get("wes")
    assert dv.from_character(c).reward_value is None  # 50 cannot reach 90: no SAN needed


def _counted(hit: Any, value: int, bonus: int) -> Fraction:
    return Fraction(sum(1 for r in range(1, 101) if hit(r, value, bonus)), 100)


@pytest.mark.parametrize(
    ("system", "hit"),
    [
        # XP-1, BRP UGE's text: the d100 plus the bonus over the skill; 100+ at 100% or more
        ("brp", lambda r, v, b: r + b > v or (v >= 100 and r + b >= 100)),
        ("brp-uge", lambda r, v, b: r + b > v or (v >= 100 and r + b >= 100)),
        # XP-2, Foundry's xpRoll: the total over min(skill, 100)
        ("brp-foundry", lambda r, v, b: r + b > min(v, 100)),
        # XP-3, RQG's gate: over the skill read as at most 99 (no bonus on d100's sheets)
        ("rqg", lambda r, v, b: r > min(v, 99)),
    ],
)
def test_xp_1_xp_2_xp_3_experience_odds_against_counting_the_faces(
    system: str, hit: Any
) -> None:  # rule: XP-1, XP-2, XP-3
    bonuses = (0,) if system == "rqg" else (0, 1, 7, 10)
    values = (0, 1, 5, 50, 90, 93, 94, 99, 100, 101, 120, 250)
    for bonus in bonuses:
        asked = dv.DevelopmentRequest(system, tuple((f"s{v}", v) for v in values), bonus=bonus)
        for o in dv.odds(asked):
            p = _counted(hit, o.value, bonus)
            assert (o.improves, o.gain) == (p, p * Fraction(7, 2)), (system, bonus, o)
            assert o.rewards == o.reward == 0
    # given dice: a 100 at 100% improves as counted (not under XP-2's "over 100"), by its d6
    hits = hit(100, 100, 0)
    done = dv.roll({"system": system, "skills": {"a": 100}, "dice": [100, 4][: 1 + hits]})
    assert (done.skills[0].improved, done.skills[0].after) == (hits, 104 if hits else 100)
    if system == "rqg":
        with pytest.raises(D100Error) as err:
            dv.DevelopmentRequest(system, (("a", 50),), bonus=3)
        assert err.value.field == "bonus"
