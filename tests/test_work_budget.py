"""Bounded work (issue: one home for every rule): a Luck reroll chain costs one enumeration of
an attempt, every plan knows its cost before it runs, and a request over the budget is refused
at once with an error naming the field that makes it dear, by the library, the command line,
JSON Lines and the HTTP API alike."""

from __future__ import annotations

import io
import json
import time
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

import d100
from d100 import tallies
from d100.dice import read_digits
from d100.errors import TooMuchWork
from d100.machine import Repeat, final_weights
from d100.systems import brp
from d100.systems.common import Roll
from tests.helpers import EXPENSIVE


def test_brp7_a_long_reroll_chain_answers_at_once() -> None:
    """The request that once took seconds per odds call (and minutes per chart)."""
    tallies.clear_caches()
    started = time.process_time()
    odds = d100.odds(EXPENSIVE)
    spent = time.process_time() - started
    assert spent < 1.0, spent  # a generous bound: about 10,000 faces, enumerated once
    # E = 1: only 01 succeeds (a critical); each attempt keeps the lowest of three values
    # drawn as tens digits over one shared units die, and fails unless it shows 01.
    ones = sum(
        1 for *tens, u in product(range(10), repeat=4) if min(10 * t + u or 100 for t in tens) == 1
    )
    p = Fraction(ones, 10_000)
    assert odds.success == 1 - (1 - p) ** 101


def test_brp7_repeat_equals_the_chain_enumerated_die_by_die() -> None:
    """machine.Repeat's closed form against driving the whole chain face by face."""

    class Chain:  # the same rule written as one machine: (attempt, roll or None)
        def start(self) -> tuple[int, int | None]:
            return (0, None)

        def need(self, s: tuple[int, int | None]) -> object:
            return None if s[1] is not None else Roll("dice").need(None)

        def advance(self, s: tuple[int, int | None], v: int) -> tuple[int, int | None]:
            return (s[0] + 1, None) if v > 30 and s[0] < 4 else (s[0], v)

    chain, d = final_weights(Chain())  # type: ignore[arg-type]
    fast, e = final_weights(Repeat(Roll("dice"), 4, lambda v: v > 30))
    as_chain = {(s[0], s[1]): Fraction(w, e) for s, w in fast.items()}
    assert as_chain == {k: Fraction(w, d) for k, w in chain.items()}
    assert sum(as_chain.values()) == 1


class DieByDie:
    """A machine as it is, without its ``Kept`` word: enumerated one die at a time."""

    def __init__(self, machine: object) -> None:
        self.start = machine.start  # type: ignore[attr-defined]
        self.need = machine.need  # type: ignore[attr-defined]
        self.advance = machine.advance  # type: ignore[attr-defined]


@pytest.mark.parametrize("net", [-2, -1, 1, 2])
def test_brp4_kept_dice_counted_as_driven_die_by_die_and_by_brute_force(net: int) -> None:
    """machine.Kept's count of a BRP bonus (lowest kept) or penalty (highest) pool against
    driving the attempt face by face, and against every draw of the dice listed (rule: BRP4)."""
    attempt = brp._attempt(net, "d100", "dice")
    assert attempt.kept is not None
    fast, d = final_weights(attempt)
    slow, e = final_weights(DieByDie(attempt))  # type: ignore[arg-type]
    assert d == e == 100 ** (abs(net) + 1) and fast == slow
    if abs(net) == 1:
        pick = min if net > 0 else max
        brute = Counter((-1, pick(a, b)) for a, b in product(range(1, 101), repeat=2))
        assert fast == dict(brute)


@pytest.mark.parametrize("net", [-2, -1, 1, 2])
def test_c7_3_tens_pools_counted_by_reading_as_every_draw_and_by_brute_force(net: int) -> None:
    """machine.TensKept's count of CoC7's tens pool (each tens digit read over the one units
    digit, the lowest reading kept for bonus dice, the highest for penalty dice) against every
    draw of the pool driven face by face, and against every roll of the digits listed (rule:
    C7-3)."""
    from d100.systems.coc7_check import Pool, _attempt

    pool = Pool(_attempt(net, "dice"))  # a pool of its own: none of its draws read before
    assert pool.tens_kept is not None
    fast, d = final_weights(pool)
    slow, e = final_weights(DieByDie(pool))  # type: ignore[arg-type]
    pick = min if net > 0 else max
    k = abs(net) + 1
    draws = product(range(10), product(range(10), repeat=k))  # (units, the tens digits)
    brute = Counter(pick(read_digits(t, u) for t in tens) for u, tens in draws)
    assert d == e == 10 ** (k + 1) and fast == slow == dict(brute)


@pytest.mark.parametrize("net", [-2, 1])
def test_c7_3_a_pool_reads_a_draw_from_its_digits_as_from_its_table(
    net: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pool reads its first draws from their digits and the rest from its table: both
    readings of every draw agree (rule: C7-3)."""
    from d100.systems import coc7_check

    monkeypatch.setattr(coc7_check, "_READ_DIRECTLY", 10**6)
    pool = coc7_check.Pool(coc7_check._attempt(net, "dice"))
    table = pool.every_face(pool.start())
    assert [pool.advance(0, v) for v in range(len(table))] == list(table)
    assert pool._table is None  # every draw was read from its digits


def test_brp4_tens_pools_and_one_die_are_not_kept_pools() -> None:
    """The tens method reads its dice over one units die: not ``count`` independent d100s."""
    assert brp._attempt(2, "tens", "dice").kept is None
    assert brp._attempt(0, "d100", "dice").kept is None


def test_every_plan_knows_its_cost_and_the_budget_refuses_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = tallies.plan_of(d100.parse(EXPENSIVE))
    assert plan.cost > 0 and plan.dear == "bonus_dice"
    monkeypatch.setattr(tallies, "BUDGET", plan.cost - 1)
    tallies.clear_caches()
    enumerated: list[object] = []  # "at once": refused from the plan, before any enumeration
    monkeypatch.setattr(tallies, "final_weights", lambda machine: enumerated.append(machine))
    with pytest.raises(TooMuchWork) as err:
        d100.odds(EXPENSIVE)
    assert enumerated == []  # the refusal's time is bench (h)'s "a refusal just over the budget"
    assert err.value.field == "bonus_dice" and err.value.cost == plan.cost
    assert isinstance(err.value, d100.D100Error)


def test_the_budget_refusal_on_the_command_line_and_json_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from d100.cli import main

    monkeypatch.setattr(tallies, "BUDGET", 10)
    tallies.clear_caches()
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(EXPENSIVE) + "\n"))
    assert main(["odds"]) != 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert line["error"]["field"] == "bonus_dice" and "too much work" in line["error"]["message"]
    code = main(["odds", "-s", "brp", "--skill", "40"])
    assert code == 2 and "too much work" in capsys.readouterr().err


def test_the_budget_refusal_over_http(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    from fastapi.testclient import TestClient

    from d100.server.app import create_app

    monkeypatch.setattr(tallies, "BUDGET", 10)
    tallies.clear_caches()
    with TestClient(create_app(f"sqlite:///{tmp_path}/d.db")) as client:
        r = client.post("/api/odds", json=EXPENSIVE)
    assert r.status_code == 422
    assert "bonus_dice" in json.dumps(r.json()) and "too much work" in r.text


@pytest.mark.parametrize("net", [-2, -1, 0, 2])
def test_c7_3_a_pool_hands_over_its_table_as_advance_reads_it(net: int) -> None:
    """CoC7's tens pool enumerated from the table its ``advance`` looks draws up in: every
    face's state as ``advance`` gives it, and the same ends as driving it face by face."""
    from d100.systems.coc7_check import _attempt, _pool_machine

    pool = _pool_machine(_attempt(net, "dice"))
    need = pool.need(pool.start())
    assert need is not None
    faces = range(need.low, need.high + 1)
    assert list(pool.every_face(pool.start())) == [pool.advance(0, v) for v in faces]
    assert final_weights(pool) == final_weights(DieByDie(pool))  # type: ignore[arg-type]
