"""The fast odds paths (tallies.py) equal the reference enumeration exactly, over every skill and
modifier they cover (G4)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import d100
from d100 import tallies
from d100.systems import brp, chances, openquest

# every fast path against the reference over every state it keys on: CI's, not the
# development loop's (make quick)
pytestmark = pytest.mark.slow

SKILLS = range(101)


def _fresh(request: Any) -> tallies.Tally:
    """The fast path on a request, without the per-request memo hiding it."""
    tallies._TALLY.cache_clear()
    return tallies.tally(request)


def _agree(request: Any) -> None:
    fast, ref = tallies.tally(request), tallies.reference(request)
    assert fast.fractions() == ref.fractions(), request
    assert (fast.luck or 0) * ref.denominator == (ref.luck or 0) * fast.denominator, request


@pytest.mark.parametrize("net", range(-2, 3))
@pytest.mark.parametrize("method", ["d100", "tens"])
def test_brp4_checks_every_skill_difficulty_and_dice(net: int, method: str) -> None:  # rule: BRP3
    tallies.clear_caches()
    diffs = list(brp.DIFFICULTIES.values()) if method == "d100" else [0, -40]
    for skill in SKILLS:
        for difficulty in diffs:
            _agree(
                d100.parse(
                    {
                        "system": "brp",
                        "skill": skill,
                        "difficulty": difficulty,
                        "bonus_dice": max(net, 0),
                        "penalty_dice": max(-net, 0),
                        "house_rules": {"bonus_dice_method": method},
                    }
                )
            )


@pytest.mark.parametrize("rounding", ["nearest", "ceil"])
def test_brp3_rounding_and_luck_boost(rounding: str) -> None:
    for skill in SKILLS:
        for boost in (False, True):
            _agree(
                d100.parse(
                    {
                        "system": "brp",
                        "skill": skill,
                        "luck_boost": boost,
                        "bonus_dice": 1,
                        "house_rules": {"threshold_rounding": rounding},
                    }
                )
            )


def test_oq4_checks_every_skill_and_difficulty() -> None:
    for skill in SKILLS:
        for difficulty in (*openquest.DIFFICULTIES.values(), 90, -110):
            for magic in ((), (10, -5)):
                _agree(
                    d100.parse(
                        {
                            "system": "openquest",
                            "skill": skill,
                            "difficulty": difficulty,
                            "modifiers": list(magic),
                        }
                    )
                )


def test_ch4_checks_every_skill_risk_and_factor() -> None:
    for skill in SKILLS:
        for risk in chances.RISKS.values():
            for factors in range(-2, 3):
                _agree(
                    d100.parse(
                        {
                            "system": "chances",
                            "skill": skill,
                            "risk": risk,
                            "modifiers": [10 * factors] if factors else [],
                            "ability": 3,
                            "synergy": [30],
                            "take": None,
                        }
                    )
                )
    for take in (50, 100):
        _agree(d100.parse({"system": "chances", "skill": 40, "risk": 80, "take": take}))


@pytest.mark.parametrize("rounding", ["floor", "nearest"])
def test_brp7_luck_boost_and_dice_share_one_naming(rounding: str) -> None:  # rule: BRP4
    """A table's order: every dice count and boost interleaved from a cold start, so that the
    kept-die naming of one (skill, rounding) is reused by every dice count, and the Luck spent
    comes from its own memo (by boost, not by skill)."""
    tallies.clear_caches()
    for skill in range(0, 101, 3):
        for difficulty in (0, -40):
            for net in range(-2, 3):
                for boost in (False, True):
                    _agree(
                        d100.parse(
                            {
                                "system": "brp",
                                "skill": skill,
                                "difficulty": difficulty,
                                "luck_boost": boost,
                                "bonus_dice": max(net, 0),
                                "penalty_dice": max(-net, 0),
                                "house_rules": {"threshold_rounding": rounding},
                            }
                        )
                    )


def test_ch4_checks_sharing_a_difference_share_the_naming() -> None:  # rule: CH1
    """Checks whose factors less risk agree, reached through every part of the sum (skill,
    ability, modifiers, synergy, risk, risk modifiers), named once and each held exactly."""
    tallies.clear_caches()
    rnd = random.Random(4)
    for _ in range(600):
        _agree(
            d100.parse(
                {
                    "system": "chances",
                    "skill": rnd.randrange(101),
                    "risk": rnd.choice([0, 50, 120]),
                    "ability": rnd.randrange(-5, 6),
                    "modifiers": [10 * rnd.randrange(-2, 3)],
                    "risk_modifiers": [10 * rnd.randrange(-1, 2)],
                    "synergy": rnd.choice([[], [30], [80, 40]]),
                }
            )
        )


def test_full_tables_equal_the_reference() -> None:
    """``check_table`` over tables as the bench builds them (every shape mixed, cold start),
    each entry equal to its own reference enumeration."""
    tallies.clear_caches()
    requests = [
        d100.parse(
            {
                "system": "brp",
                "skill": s,
                "difficulty": d,
                "bonus_dice": max(n, 0),
                "penalty_dice": max(-n, 0),
            }
        )
        for s in range(0, 101, 9)
        for d in brp.DIFFICULTIES
        for n in range(-2, 3)
    ]
    requests += [
        d100.parse({"system": "openquest", "skill": s, "difficulty": d})
        for s in SKILLS
        for d in openquest.DIFFICULTIES
    ]
    requests += [
        d100.parse({"system": "chances", "skill": s, "risk": r, "modifiers": [10 * f] if f else []})
        for s in range(0, 101, 4)
        for r in chances.RISKS
        for f in range(-2, 3)
    ]
    for request, fast in zip(requests, tallies.check_table(requests), strict=True):
        ref = tallies.reference(request)
        assert fast.fractions() == ref.fractions(), request
        assert fast.luck == ref.luck and fast.denominator == ref.denominator, request


def test_odds_cold_and_warm_agree() -> None:
    """``odds`` reads the integer tally: success and Luck as single fractions, the same numbers
    as summing the level fractions, cold and warm."""
    for request in (
        {"system": "brp", "skill": 47, "bonus_dice": 1, "luck_boost": True},
        {"system": "openquest", "skill": 100},
        {"system": "chances", "skill": 33, "risk": "tough", "ability": 2},
    ):
        tallies.clear_caches()
        cold = d100.odds(request)
        warm = d100.odds(request)
        assert cold == warm
        assert isinstance(cold, d100.CheckOdds)
        system = d100.REGISTRY.get(request["system"])
        assert cold.success == sum(p for k, p in cold.levels.items() if k in system.success_levels)
        assert sum(cold.levels.values()) == 1


def test_uncovered_requests_take_the_reference() -> None:
    for request in (
        {"system": "brp", "skill": 45, "luck_rerolls": 2},
        {"system": "openquest", "skill": 45, "assist": {"skill": 60}},
        {"system": "chances", "skill": 45, "risk": 50, "assisters": [{"skill": 30}]},
        {"system": "openquest", "actor": {"skill": 100}, "opponent": {"skill": 40}},
    ):
        parsed = d100.parse(request)
        assert _fresh(parsed) == tallies.reference(parsed)


def _pairs(seed: int, count: int) -> list[tuple[int, int]]:
    """Every skill on each side, met by the edge skills in turn, and a seeded spread. (A
    reference contest costs tens of milliseconds, so not all 10,201 pairs: the rankings
    themselves are checked against the decision functions below.)"""
    edges = (0, 1, 5, 19, 20, 21, 50, 64, 65, 95, 96, 99, 100)
    rnd = random.Random(seed)
    pairs = [(s, edges[s % len(edges)]) for s in SKILLS]
    pairs += [(edges[s % len(edges)], s) for s in SKILLS]
    return pairs + [(rnd.randrange(101), rnd.randrange(101)) for _ in range(count)]


def test_brp6_contests_through_the_ranking() -> None:
    rnd = random.Random(6)
    for a, o in _pairs(6, 20):
        _agree(
            d100.parse(
                {
                    "system": "brp",
                    "actor": {"skill": a, "bonus_dice": rnd.randint(0, 2)},
                    "opponent": {"skill": o},
                }
            )
        )
    # Extra dice on the opponent's side multiply the reference's work by 100: a few cases.
    for a, o, bonus, penalty in ((65, 40, 0, 1), (100, 0, 2, 0)):
        _agree(
            d100.parse(
                {
                    "system": "brp",
                    "actor": {"skill": a},
                    "opponent": {"skill": o, "bonus_dice": bonus, "penalty_dice": penalty},
                }
            )
        )


def _ranking(contest: dict[str, Any]) -> tallies.Ranking:
    """The ordering the contest's system declares for it, as the fast path sorts it."""
    parsed = d100.parse(contest)
    fast = d100.REGISTRY.get(contest["system"]).declares.fast
    assert fast is not None and fast.ranking is not None
    ranked = fast.ranking(parsed)
    assert ranked is not None
    return tallies.ranking_of(ranked)


def test_brp6_ranking_reproduces_opposed() -> None:
    """The ranking stands for brp.opposed itself: checked on every result pair at the skills
    where levels change, and a seeded spread of all others."""
    ranking = _ranking({"system": "brp", "actor": {"skill": 1}, "opponent": {"skill": 1}})
    results = [(r, e) for r in range(1, 101) for e in (1, 5, 20, 21, 50, 65, 96, 100)]
    rnd = random.Random(7)
    spread = [
        ((rnd.randint(1, 100), rnd.randint(1, 100)), (rnd.randint(1, 100), rnd.randint(1, 100)))
        for _ in range(100_000)
    ]
    pairs = [(x, y) for x in results for y in results] + spread
    for x, y in pairs:
        expected = brp.opposed(brp.level(*x), x[0], x[1], brp.level(*y), y[0], y[1])
        rx, ry = ranking.rank[x], ranking.rank[y]
        got = ("actor",) if rx > ry else ("opponent",) if rx < ry else ranking.even[rx]
        assert got == (expected,), (x, y)


def test_oq7_ranking_reproduces_decide_everywhere() -> None:
    ranking = _ranking({"system": "openquest", "actor": {"skill": 1}, "opponent": {"skill": 1}})
    side = openquest.OpenQuestCheck(skill=0)
    results = list(ranking.rank)
    for x in results:
        for y in results:
            rx, ry = ranking.rank[x], ranking.rank[y]
            got = ("actor",) if rx > ry else ("opponent",) if rx < ry else ranking.even[rx]
            assert got == (openquest._decide(side, side, x[0], x[1], y[0], y[1])[0],)


def test_oq7_contests_through_the_ranking() -> None:
    for a, o in _pairs(7, 20)[::2]:
        _agree(
            d100.parse(
                {
                    "system": "openquest",
                    "actor": {"skill": a, "difficulty": 20},
                    "opponent": {"skill": o, "modifiers": [-30]},
                }
            )
        )


def test_ch6_contests_share_by_difference() -> None:
    rnd = random.Random(8)
    for a, o in _pairs(8, 10)[::5]:
        _agree(
            d100.parse(
                {
                    "system": "chances",
                    "actor": {"skill": a, "ability": rnd.choice([0, 2]), "modifiers": [10]},
                    "opponent": {"skill": o, "ability": rnd.choice([0, 2]), "risk_modifiers": [10]},
                }
            )
        )


@pytest.mark.parametrize(
    ("difference", "a_ability", "o_ability"), [(0, 0, 0), (-7, 3, 3), (40, 2, -1), (-150, 0, 5)]
)
def test_ch6_ranking_reproduces_opposed_with_the_coin(
    difference: int, a_ability: int, o_ability: int
) -> None:
    """Every actor total against every opponent total: the ranking gives chances.opposed's
    winner, and both of the coin's winners where totals and abilities are equal."""
    # The actor's fixed part is the difference, the opponent's 0 (CH1: skill + ability + mods);
    # trained enough for any modifier (CH7)
    actor = {"skill": 50, "ability": a_ability, "modifiers": [difference - a_ability - 50]}
    opponent = {"skill": 50, "ability": o_ability, "modifiers": [-o_ability - 50]}
    ranking = _ranking({"system": "chances", "actor": actor, "opponent": opponent})
    for a in range(1 + difference, 101 + difference):
        for o in range(1, 101):
            ra, ro = ranking.rank[(a, a_ability)], ranking.rank[(o, o_ability)]
            got = ("actor",) if ra > ro else ("opponent",) if ra < ro else ranking.even[ra]
            expected = tuple(
                chances.opposed(a, a_ability, o, o_ability, coin)
                for coin in range(1, len(chances.COIN) + 1)
            )
            assert got == (expected if len(set(expected)) > 1 else expected[:1]), (a, o)


def test_ch6_every_skill_pair_through_the_ranking() -> None:
    """Skill pairs at the edges and a seeded spread, abilities equal (the coin) and not."""
    rnd = random.Random(9)
    for a, o in _pairs(9, 30):
        ability = rnd.choice([0, 0, 1, -2])
        _agree(
            d100.parse(
                {
                    "system": "chances",
                    "actor": {"skill": a, "ability": ability, "synergy": [rnd.choice([0, 30, 80])]},
                    "opponent": {"skill": o, "ability": rnd.choice([0, ability])},
                }
            )
        )


def test_odds_unchanged_through_the_memo() -> None:
    request = {"system": "brp", "skill": 65}
    first = d100.odds(request)
    again = d100.odds(request)
    assert first == again and first.levels is not again.levels  # callers get their own dicts
    assert first.to_dict()["levels"] == {
        "critical": "3/100",
        "special": "1/10",
        "success": "13/25",
        "failure": "3/10",
        "fumble": "1/20",
    }
    luck = d100.odds({"system": "brp", "skill": 30, "luck_boost": True})
    assert luck.luck_spent == 1


def _cut_requests() -> list[dict[str, Any]]:
    """Checks of every system that declares cuts, across skills, targets, dice and rules, each
    once (skills clamped at 0 or 100 would otherwise ask some again)."""
    out: list[dict[str, Any]] = []
    for skill in range(-10, 131, 3):
        for difficulty in (0, -40, 30):
            for net in range(-2, 3):
                for method, rounding in (("d100", "floor"), ("tens", "nearest"), ("d100", "ceil")):
                    out.append(
                        {
                            "system": "brp",
                            "skill": max(skill, 0),
                            "difficulty": difficulty,
                            "luck_boost": skill % 2 == 0,
                            "bonus_dice": max(net, 0),
                            "penalty_dice": max(-net, 0),
                            "house_rules": {
                                "bonus_dice_method": method,
                                "threshold_rounding": rounding,
                            },
                        }
                    )
        for difficulty in (*openquest.DIFFICULTIES.values(), 90, -110):
            out.append(
                {"system": "openquest", "skill": min(max(skill, 0), 100), "difficulty": difficulty}
            )
        for risk in (*chances.RISKS.values(), 0, 150):
            for take in (None, 50, 100):
                out.append(
                    {
                        "system": "chances",
                        "skill": min(max(skill, 0), 100),
                        "modifiers": [20 if skill > 100 else -20 if skill < 0 else 0],
                        "risk": risk,
                        "take": take,
                    }
                )
        for difficulty in ("regular", "hard", "extreme", "critical"):
            for net in range(-2, 3):
                for luck, fumbles in ((None, False), (None, True), (30, False)):
                    out.append(
                        {
                            "system": "coc7",
                            "skill": max(skill, 0),
                            "difficulty": difficulty,
                            "bonus_dice": max(net, 0),
                            "penalty_dice": max(-net, 0),
                            **({} if luck is None else {"luck": luck}),
                            "house_rules": {"critical_difficulty_fumbles": fumbles},
                        }
                    )
            out.append({"system": "coc7", "skill": max(skill, 0), "combined": [40, 70]})
        for zero in ("resolve", "fail"):
            for modifier in (-60, -20, 0, 40):
                out.append(
                    {
                        "system": "rqg",
                        "skill": max(skill, 0),
                        "modifiers": [modifier],
                        "house_rules": {"zero_chance": zero},
                    }
                )
    once = {json.dumps(data, sort_keys=True): data for data in out}
    return list(once.values())


CUT_SYSTEMS = ("brp", "openquest", "chances", "coc7", "rqg")


def test_g4_every_system_declaring_cuts_is_held_to_them() -> None:
    declaring = {data["system"] for data in _cut_requests()}
    assert declaring == set(CUT_SYSTEMS)


@pytest.mark.parametrize("system", CUT_SYSTEMS)  # one case a system: the workers share them
def test_g4_declared_cuts_hold_on_every_final_state(system: str) -> None:
    """A system's ``FastPath.cuts`` claim that the outcome is the same over each span of
    readings between them, among the states of one ``FastPath.mark`` where it declares marks:
    held on every final state of every check, by its own plan."""
    from bisect import bisect_left

    from d100.machine import final_weights

    seen = set()
    for data in (d for d in _cut_requests() if d["system"] == system):
        check = d100.parse(data)
        fast = tallies.system_of(check).declares.fast
        assert fast is not None and fast.reading is not None and fast.cuts is not None, data
        if fast.shape(check) is None:
            continue
        cuts = fast.cuts(check)
        if cuts is None:
            continue
        cuts = sorted(cuts)
        plan = tallies.plan_of(check)
        mark = fast.mark or (lambda state: 0)
        spans: dict[tuple[int, int], set[str]] = {}
        for state in final_weights(plan.machine)[0]:
            span = (mark(state), bisect_left(cuts, fast.reading(state)))
            spans.setdefault(span, set()).add(plan.outcome(state))
        assert all(len(levels) == 1 for levels in spans.values()), (data, cuts, spans)
        seen.add(data["system"])
    assert seen == {system}


@pytest.mark.parametrize("system", CUT_SYSTEMS)
def test_g4_a_declared_outcome_names_every_final_state_as_the_plan_does(system: str) -> None:
    """``FastPath.outcome`` spares the fast path building a plan to name a check's states: on
    every final state of every check the cut tests ask, it names what the plan's names."""
    from d100.machine import final_weights

    named = 0
    for data in (d for d in _cut_requests() if d["system"] == system):
        check = d100.parse(data)
        fast = tallies.system_of(check).declares.fast
        assert fast is not None and fast.outcome is not None, data
        if fast.shape(check) is None:
            continue
        plan, outcome = tallies.plan_of(check), fast.outcome(check)
        for state in final_weights(plan.machine)[0]:
            assert outcome(state) == plan.outcome(state), (data, state)
            named += 1
    assert named


def test_g4_a_mark_without_a_reading_is_refused() -> None:
    """``FastPath.mark`` orders states beside their reading: a mark alone is a declaration's
    mistake, refused when it is made."""
    from d100.declarations import FastPath

    with pytest.raises(ValueError, match="mark"):
        FastPath(frozenset(), shape=lambda c: None, key=lambda c: None, mark=lambda s: 0)
