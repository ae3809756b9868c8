"""Exact odds of OpenQuest and Taking Chances against icepool's dice algebra, each rule read from
RULES.md and typed again here: the oracle shares no code with d100 (as the BRP oracle in
test_odds_oracle.py), so a rule misread in the engine cannot be repeated by its own test."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import depth
from tests.helpers import nonzero, odds_map

D100 = icepool.d(100)
ORACLE = settings(
    max_examples=depth(25, 200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def shares(die: icepool.Die[Any]) -> dict[str, Fraction]:
    return {str(k): Fraction(die.quantity(k), die.denominator()) for k in die.outcomes()}


def doubles(roll: int) -> bool:
    """G1: tens digit equal to units digit: 11, 22, ..., 99 and 100 (read from 00)."""
    return roll == 100 or (roll // 10) == (roll % 10)


# -- OpenQuest (OQ2-OQ7, OQ9, OQ11) -------------------------------------------------------------


def oq_level(roll: int, modified: int) -> str:
    """OQ4-OQ6 for someone who rolls against a modified skill."""
    if modified >= 100:  # OQ5: automatic success, critical on doubles, but 00 fumbles
        if roll == 100:
            return "fumble"
        return "critical" if doubles(roll) else "success"
    if roll <= modified:  # OQ4 (and OQ6: nothing is <= M when M <= 0)
        return "critical" if doubles(roll) else "success"
    return "fumble" if doubles(roll) else "failure"


def oq_modified(side: dict[str, Any], helped: bool = False) -> int:
    """OQ2 (and OQ11's +20)."""
    return side["skill"] + sum(side.get("modifiers", [])) + side.get("difficulty", 0) + 20 * helped


def oq_check(side: dict[str, Any]) -> icepool.Die[str]:
    """A check's level: a master does not roll (OQ3); an assister's success adds 20 (OQ11)."""
    if side["skill"] == 100:
        return icepool.Die(["critical"])
    helper = side.get("assist")
    if helper is None:
        return D100.map(lambda r: oq_level(r, oq_modified(side)))
    helps = oq_check(helper).map(lambda lvl: lvl in ("critical", "success"))
    return icepool.map(lambda h, r: oq_level(r, oq_modified(side, h)), helps, D100)


RANK = {"critical": 3, "success": 2, "failure": 1, "fumble": 0}


def oq_winner(a: dict[str, Any], o: dict[str, Any]) -> icepool.Die[str]:
    """OQ7's matrix, and OQ9 when a side is a master."""
    a_master, o_master = a["skill"] == 100, o["skill"] == 100
    if a_master and o_master:  # the actor rolls: only a critical beats two masters
        return D100.map(lambda r: "actor" if oq_level(r, oq_modified(a)) == "critical" else "none")
    if o_master:  # a critical beats the master; anything else loses (failures become fumbles)
        return D100.map(
            lambda r: "actor" if oq_level(r, oq_modified(a)) == "critical" else "opponent"
        )
    if a_master:
        return D100.map(
            lambda r: "opponent" if oq_level(r, oq_modified(o)) == "critical" else "actor"
        )

    def matrix(ra: int, ro: int) -> str:
        la, lo = oq_level(ra, oq_modified(a)), oq_level(ro, oq_modified(o))
        if la == lo == "fumble":
            return "none"
        if la != lo:
            return "actor" if RANK[la] > RANK[lo] else "opponent"
        if ra == ro:
            return "actor"
        if la == "failure":  # both failures: the lower roll wins
            return "actor" if ra < ro else "opponent"
        return "actor" if ra > ro else "opponent"  # both critical or both success: the higher

    return icepool.map(matrix, D100, D100)


oq_skill = st.one_of(st.integers(0, 100), st.sampled_from([0, 1, 50, 99, 100]))
oq_mods = st.lists(st.integers(-60, 60), max_size=2)


@st.composite
def oq_side(draw: st.DrawFn, assist: bool = True) -> dict[str, Any]:
    side: dict[str, Any] = {"skill": draw(oq_skill), "modifiers": draw(oq_mods)}
    if assist and draw(st.booleans()):
        side["assist"] = draw(oq_side(assist=False))
    return side


@ORACLE
@given(oq_side(), st.integers(-60, 60))
def test_oq4_oq5_oq6_oq11_check_odds_agree_with_icepool(side: dict[str, Any], diff: int) -> None:
    request = {"system": "openquest", **side, "difficulty": diff}
    assert nonzero(odds_map(request)) == shares(oq_check({**side, "difficulty": diff}))


@pytest.mark.parametrize("skill", [0, 1, 11, 50, 89, 99, 100])
@pytest.mark.parametrize("modifier", [-100, -20, 0, 1, 30, 150])
def test_oq3_oq5_doubles_and_masters_agree_with_icepool(skill: int, modifier: int) -> None:
    side = {"skill": skill, "modifiers": [modifier]}
    assert nonzero(odds_map({"system": "openquest", **side})) == shares(oq_check(side))


@ORACLE
@given(oq_side(assist=False), oq_side(assist=False), st.integers(-40, 40), st.booleans())
def test_oq7_oq9_contest_odds_agree_with_icepool(
    actor: dict[str, Any], opponent: dict[str, Any], diff: int, actor_modified: bool
) -> None:
    (actor if actor_modified else opponent)["difficulty"] = diff  # OQ8: one side only
    request = {"system": "openquest", "actor": actor, "opponent": opponent}
    assert nonzero(odds_map(request)) == shares(oq_winner(actor, opponent))


@pytest.mark.parametrize(
    ("a_skill", "o_skill"), [(100, 100), (100, 40), (40, 100), (100, 0), (0, 100), (99, 100)]
)
def test_oq9_masters_in_contests_agree_with_icepool(a_skill: int, o_skill: int) -> None:
    actor, opponent = {"skill": a_skill}, {"skill": o_skill, "modifiers": [10]}
    request = {"system": "openquest", "actor": actor, "opponent": opponent}
    assert nonzero(odds_map(request)) == shares(oq_winner(actor, opponent))


# -- Taking Chances (CH1-CH6, CH8, CH9) --------------------------------------------------------


def synergy(trained: list[int]) -> int:
    """CH9: +15 at 75 or more, else +10 at 25 or more, for each synergistic skill."""
    return sum(15 if t >= 75 else 10 if t >= 25 else 0 for t in trained)


def ch_degree(margin: int) -> str:
    """CH4."""
    if margin >= 100:
        return "perfect"
    if margin >= 50:
        return "great"
    return "success" if margin >= 0 else "failure"


def ch_total(side: dict[str, Any], extra: int = 0) -> icepool.Die[int]:
    """CH1's total as a die: luck (rolled, or taken, CH5) plus the fixed factors, plus 10 for
    each assister whose own luck + factors reaches risk 50 (CH8)."""
    fixed = (
        side["skill"]
        + side.get("ability", 0)
        + sum(side.get("modifiers", []))
        + synergy(side.get("synergy", []))
        + extra
    )
    take = side.get("take")
    total: icepool.Die[int] = icepool.Die([take]) if take else D100
    for helper in side.get("assisters", []):
        own = helper["skill"] + helper.get("ability", 0) + sum(helper.get("modifiers", []))
        total = total + D100.map(lambda luck, own=own: 10 if luck + own >= 50 else 0)
    return total + fixed


@st.composite
def ch_side(draw: st.DrawFn, take: tuple[int | None, ...]) -> dict[str, Any]:
    side: dict[str, Any] = {
        "skill": draw(st.integers(50, 100)),  # trained enough for CH7 whatever the modifiers
        "ability": draw(st.integers(-20, 20)),
        "modifiers": draw(st.lists(st.sampled_from([-10, 10]), max_size=2)),
        "synergy": draw(st.lists(st.integers(0, 100), max_size=2)),
        "take": draw(st.sampled_from(take)),
    }
    if side["take"] is None:
        helper = st.fixed_dictionaries(
            {"skill": st.integers(0, 100), "ability": st.integers(-10, 10)}
        )
        side["assisters"] = draw(st.lists(helper, max_size=2))
    return side


@ORACLE
@given(
    ch_side(take=(None, None, 50, 100)),
    st.integers(0, 250),
    st.lists(st.integers(-30, 30), max_size=2),
)
def test_ch1_ch4_ch5_ch8_ch9_check_odds_agree_with_icepool(
    side: dict[str, Any], risk: int, risk_modifiers: list[int]
) -> None:
    request = {"system": "chances", **side, "risk": risk, "risk_modifiers": risk_modifiers}
    target = risk + sum(risk_modifiers)  # CH2
    expected = ch_total(side).map(lambda t: ch_degree(t - target))
    assert nonzero(odds_map(request)) == shares(expected)


def ch_winner(a: dict[str, Any], o: dict[str, Any]) -> icepool.Die[str]:
    """CH6: the higher total wins (a side's risk modifiers raise the other side's total); equal
    totals, the higher ability; equal again, a fair coin."""
    a_total = ch_total(a, extra=sum(o.get("risk_modifiers", [])))
    o_total = ch_total(o, extra=sum(a.get("risk_modifiers", [])))
    a_ability, o_ability = a.get("ability", 0), o.get("ability", 0)

    def decide(ta: int, to: int, coin: int) -> str:
        if ta != to:
            return "actor" if ta > to else "opponent"
        if a_ability != o_ability:
            return "actor" if a_ability > o_ability else "opponent"
        return "actor" if coin == 1 else "opponent"

    return icepool.map(decide, a_total, o_total, icepool.d(2))


@ORACLE
@given(ch_side(take=(None, None, 50)), ch_side(take=(None, None, 50)), st.integers(-20, 20))
def test_ch6_contest_odds_agree_with_icepool(
    actor: dict[str, Any], opponent: dict[str, Any], harder: int
) -> None:
    actor["risk_modifiers"] = [harder]
    request = {"system": "chances", "actor": actor, "opponent": opponent}
    assert nonzero(odds_map(request)) == shares(ch_winner(actor, opponent))


@pytest.mark.parametrize(
    ("actor", "opponent"),
    [
        ({"skill": 50, "ability": 5}, {"skill": 50, "ability": 5}),  # the coin decides ties
        ({"skill": 50, "ability": 6}, {"skill": 51, "ability": 5}),  # ability decides ties
        ({"skill": 90, "take": 50}, {"skill": 60}),
    ],
)
def test_ch6_ties_agree_with_icepool(actor: dict[str, Any], opponent: dict[str, Any]) -> None:
    request = {"system": "chances", "actor": actor, "opponent": opponent}
    assert nonzero(odds_map(request)) == shares(ch_winner(actor, opponent))


def test_oracle_reads_g1_doubles_as_the_rules_do() -> None:
    found: Callable[[int], bool] = doubles
    assert [r for r in range(1, 101) if found(r)] == [11, 22, 33, 44, 55, 66, 77, 88, 99, 100]
