"""The luck ledger: the successes' exact distribution against brute force and the binomial,
each level's observed and expected counts, the rolls left out and why, windows, and a ledger
too long to work out refused."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d100.errors import D100Error
from d100.ledger import MAX_ROLLS, Window, distribution, ledger, successes, tails
from d100.systems import REGISTRY
from tests.conftest import depth

chances = st.lists(
    st.fractions(min_value=0, max_value=1, max_denominator=60), min_size=0, max_size=8
)


def brute_force(ps: list[Fraction]) -> list[Fraction]:
    """P(exactly k successes), every one of the 2^n outcomes enumerated."""
    out = [Fraction(0)] * (len(ps) + 1)
    for outcome in itertools.product((False, True), repeat=len(ps)):
        weight = Fraction(1)
        for p, hit in zip(ps, outcome, strict=True):
            weight *= p if hit else 1 - p
        out[sum(outcome)] += weight
    return out


@settings(max_examples=depth(60, 400), deadline=None)
@given(chances)
def test_the_successes_distribution_is_brute_force_exactly(ps: list[Fraction]) -> None:
    assert list(distribution(ps)) == brute_force(ps)


@settings(max_examples=depth(60, 400), deadline=None)
@given(chances, st.integers(min_value=0, max_value=9))
def test_the_tails_sum_the_brute_force_distribution(ps: list[Fraction], observed: int) -> None:
    exact = brute_force(ps)
    at_least, at_most = tails(ps, observed)
    assert at_least == sum(exact[observed:], Fraction(0))
    assert at_most == sum(exact[: observed + 1], Fraction(0))


@pytest.mark.parametrize(
    ("n", "p"), [(1, Fraction(1, 2)), (12, Fraction(13, 20)), (40, Fraction(3, 100))]
)
def test_equal_chances_give_the_binomial(n: int, p: Fraction) -> None:
    binomial = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    assert list(distribution([p] * n)) == binomial


def test_a_certain_success_and_a_certain_failure_are_no_luck() -> None:
    run = successes([Fraction(1), Fraction(0)], 1)
    assert (run.at_least, run.at_most) == (1, 1)
    assert "exactly as expected" in run.verdict


def test_a_rare_run_is_told_as_rare_with_fair_dice_never_as_unfair_dice() -> None:
    good = successes([Fraction(1, 2)] * 12, 12)
    assert good.at_least == Fraction(1, 4096)
    assert "luckier than 99.98%" in good.verdict and "once in 4,096" in good.verdict
    assert "very rare with fair dice" in good.verdict and "unfair" not in good.verdict
    bad = successes([Fraction(1, 2)] * 4, 1)
    assert bad.at_most == Fraction(5, 16) and "unluckier" in bad.verdict
    assert "well within what fair dice give" in bad.verdict


# -- ledgers of events -------------------------------------------------------------------

SYSTEM = "brp"
LEVELS = REGISTRY.get(SYSTEM).declares.levels
ODDS = {"levels": {spec.name: f"1/{len(LEVELS)}" for spec in LEVELS}, "success": "3/5"}
ALICE = {"id": "c1", "name": "Alice", "member_id": "m2"}
ORC = {"id": "c2", "name": "Orc", "member_id": "m1"}
OPENING = [
    {"seq": 1, "kind": "table", "gm": {"id": "m1", "name": "Gina"}},
    {"seq": 2, "kind": "join", "member": {"id": "m2", "name": "Pat"}},
]


def roll(seq: int, level: int, who: dict[str, Any] = ALICE, **extra: Any) -> dict[str, Any]:
    spec = LEVELS[level]
    result = {"system": SYSTEM, "level": spec.name, "success": spec.success}
    at = f"2026-05-01T20:{seq:02d}:00+00:00"
    made = {"seq": seq, "kind": "roll", "at": at, "character": who, "odds": ODDS, "result": result}
    return {**made, **extra}


def test_each_level_observed_against_its_exact_expected_count() -> None:
    events = [*OPENING, roll(3, 0), roll(4, 0), roll(5, -1, ORC)]
    book = ledger(events)
    assert book.rolls == 3 and book.seqs == (3, 4, 5) and book.left_out == ()
    assert [t.level for t in book.levels] == [spec.name for spec in LEVELS]
    assert all(t.expected == Fraction(3, len(LEVELS)) for t in book.levels)
    assert [t.observed for t in book.levels] == [2, *[0] * (len(LEVELS) - 2), 1]
    assert book.successes.expected == Fraction(9, 5) and book.successes.observed == 2
    shown = book.to_dict()
    assert shown["successes"]["expected"] == "9/5" and shown["levels"][0]["expected"] == "3/5"


def test_a_character_or_a_member_by_name_or_id() -> None:
    events = [*OPENING, roll(3, 0), roll(4, 0, ORC), roll(5, -1)]
    assert ledger(events, character="Alice").seqs == (3, 5)
    assert ledger(events, character="c2").seqs == (4,)
    assert ledger(events, member="Gina").seqs == (4,) == ledger(events, member="m1").seqs
    with pytest.raises(D100Error, match=r"no character 'Bob'.*Alice, Orc"):
        ledger(events, character="Bob")
    with pytest.raises(D100Error, match="no member 'Zed'"):
        ledger(events, member="Zed")


def test_rolls_the_viewer_may_not_see_are_left_out_and_told() -> None:
    blind = {k: v for k, v in roll(4, 0).items() if k != "result"} | {"hidden": True}
    contest = {**roll(6, 0), "kind": "contest", "odds": {"winner": {}}}
    events = [
        *OPENING,
        roll(3, 0),
        blind,
        {"seq": 5, "kind": "hidden", "hidden": True, "provable": {"seed_id": "s", "nonce": 1}},
        {"seq": 7, "kind": "hidden", "hidden": True},  # a roll or not: it does not say
        contest,
        roll(8, 0, odds=None),
    ]
    book = ledger(events)
    assert book.seqs == (3,)
    left = {x.reason.split(":")[0].split(" ")[0]: x.seqs for x in book.left_out}
    assert left == {"hidden": (5, 7), "blind": (4,), "a": (6,), "no": (8,)}


def test_a_blind_roll_shown_later_counts_once_where_it_was_rolled() -> None:
    blind = {k: v for k, v in roll(4, 0).items() if k != "result"} | {"hidden": True}
    shown = {**roll(9, 0), "kind": "unblind", "unblinds": 4, "roll_kind": "roll"}
    assert ledger([*OPENING, blind, shown]).seqs == (4,)  # the roller's export
    assert ledger([*OPENING, roll(4, 0), shown]).seqs == (4,)  # the GM's: seen whole before


def test_a_window_by_number_time_or_last_rolls() -> None:
    events = [*OPENING, *(roll(seq, seq % 2) for seq in range(3, 13))]
    assert ledger(events, window=Window(first=5, final=7)).seqs == (5, 6, 7)
    assert ledger(events, window=Window(last=2)).seqs == (11, 12)
    since = Window(since="2026-05-01T20:10:00+00:00")
    assert ledger(events, window=since).seqs == (10, 11, 12)
    with pytest.raises(D100Error, match="since"):
        Window(since="yesterday")
    with pytest.raises(D100Error, match=f"last.*1..{MAX_ROLLS}"):
        Window(last=0)


def test_a_ledger_too_long_to_work_out_is_refused_and_asked_to_be_windowed() -> None:
    events = [*OPENING, *(roll(seq, 0) for seq in range(3, MAX_ROLLS + 4))]
    with pytest.raises(D100Error) as refused:
        ledger(events)
    err = refused.value
    assert err.field == "rolls" and err.value == MAX_ROLLS + 1
    assert f"at most {MAX_ROLLS:,} rolls" in err.allowed or f"at most {MAX_ROLLS}" in err.allowed
    assert ledger(events, window=Window(last=10)).rolls == 10
