"""Delta Green (SESSION Part B section 3, DG-1..DG-9, decisions S10-S12) against an oracle
written here from SESSION's text, by counting every roll and brute force over every die."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import d100
from d100 import quick
from d100.declarations import Rolled
from d100.errors import D100Error, DiceError, RuleRefusal
from d100.result_view import result_view
from d100.systems import REGISTRY
from d100.systems.delta_green import sanity_odds
from tests.helpers import _More, _Prefix, brute_force, nonzero, odds_map

NAME = "delta-green"
ROLLS = range(1, 101)
MODS = (0, -40, -20, -7, 20, 40)


# -- the oracle: SESSION's DG-1..DG-4 and decisions S10, S11, written out again -----------------


def base(test: str, n: int) -> int:
    """DG-1's T."""
    return {"stat": 5 * n, "ritual": max(1, min(99, 99 - n)), "luck": 50}.get(test, n)


def effective(test: str, n: int, m: int) -> int:
    """DG-1/DG-3: E = T without a modifier; else max(1, T + M), at most 99 unless inhuman."""
    t = base(test, n)
    if m == 0:
        return t
    inhuman = test == "stat" and t > 99
    return max(1, t + m) if inhuman else min(max(1, t + m), 99)


def oracle(r: int, test: str, n: int, m: int, zero_01: str = "critical") -> str:
    e = effective(test, n, m)
    inhuman = test == "stat" and base(test, n) > 99
    if r == 1 and (e >= 1 or zero_01 == "critical"):  # S10: 01 always a critical success
        return "critical"
    success = r != 100 and r <= e
    crit = r == 1 or r == 100 or r % 11 == 0 or (inhuman and r <= base(test, n) / 5)
    if success:
        return "critical" if crit else "success"
    return "fumble" if crit else "failure"


def request(test: str, n: int, m: int, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"system": NAME, "skill": n, "modifiers": [m] if m else [], **more}
    if test != "skill":
        out["test"] = test
    return out


CASES = [
    *(("skill", n) for n in (0, 1, 5, 10, 11, 45, 55, 98, 99, 100, 120)),
    *(("stat", n) for n in (1, 3, 10, 19, 20, 22, 30)),
    *(("sanity", n) for n in (0, 1, 50, 99)),
    *(("ritual", n) for n in (0, 1, 60, 98, 99, 100)),
    ("luck", 50),
]


@pytest.mark.parametrize(("test", "n"), CASES)
def test_dg_1_dg_2_dg_3_dg_4_every_roll_against_the_text(test: str, n: int) -> None:
    """Every roll of every modifier: its level, and the odds by counting those levels."""
    for m in MODS:
        want: Counter[str] = Counter()
        for r in ROLLS:
            result = d100.resolve(request(test, n, m, dice=[r]))
            assert result.level == oracle(r, test, n, m), (test, n, m, r)
            assert result.success == (result.level in ("critical", "success"))
            want[oracle(r, test, n, m)] += 1
        got = nonzero(odds_map(request(test, n, m)))
        assert got == {k: Fraction(v, 100) for k, v in want.items()}, (test, n, m)


def test_dg_2_criticals_and_fumbles_the_text_names() -> None:
    """Doubles under E succeed critically, over it fail critically; 01 and 00 (S10, S11)."""
    at = lambda n, r, **k: d100.resolve(request("skill", n, 0, dice=[r], **k)).level  # noqa: E731
    assert [at(55, r) for r in (44, 55, 66, 1, 100, 54)] == [
        "critical",
        "critical",
        "fumble",
        "critical",
        "fumble",
        "success",
    ]
    assert at(120, 100) == "fumble"  # S11: 00 is a critical failure at any target
    assert at(0, 1) == "critical"  # S10: 01 at E = 0
    # S10's option: Foundry's critical failure at E = 0, where no modifier applies (DG-3)
    fumble01 = {"house_rules": {"zero_target_01": "fumble"}}
    assert at(0, 1, **fumble01) == "fumble"
    assert d100.resolve(request("skill", 0, -20, dice=[1], **fumble01)).level == "critical"
    for r in range(2, 100):
        assert oracle(r, "skill", 0, 0, "fumble") == at(0, r, **fumble01)


def test_dg_3_the_clamp_only_with_a_modifier_and_the_presets() -> None:
    assert d100.resolve(request("skill", 120, 0, dice=[99])).level == "critical"  # E = 120
    assert d100.resolve(request("skill", 120, -1, dice=[99])).target == 99
    assert d100.resolve(request("skill", 0, -20, dice=[1])).target == 1
    presets = {"easier": 20, "much-easier": 40, "harder": -20, "much-harder": -40}
    for word, value in presets.items():
        quick = d100.quick.read(f"delta-green 50 {word} @30")
        assert d100.resolve(quick).target == 50 + value
    # S12: no difficulty words: CoC7's hard and extreme are refused
    for word in ("hard", "extreme", "difficult"):
        with pytest.raises(D100Error):
            d100.quick.read(f"delta-green 50 {word}")


def test_dg_4_inhuman_statistics() -> None:
    """x5 = 100 at -20 is 80 (81-99 fail); no cap at 99; criticals at or under the statistic."""
    stat = lambda n, m, r: d100.resolve(request("stat", n, m, dice=[r]))  # noqa: E731
    assert [stat(20, -20, r).level for r in (80, 81, 99)] == ["success", "failure", "fumble"]
    assert stat(22, 20, 99).target == 130
    assert [stat(22, 0, r).level for r in (22, 23, 100)] == ["critical", "success", "fumble"]
    assert stat(19, 0, 19).level == "success"  # x5 = 95: human, no statistic critical
    # the inhuman rule is a statistic test's only (S12): a skill of 110 has none
    assert d100.resolve(request("skill", 110, 0, dice=[21])).level == "success"


def test_dg_1_a_statistic_of_0_is_refused() -> None:
    with pytest.raises(RuleRefusal) as err:
        d100.resolve(request("stat", 0, 0))
    assert err.value.field == "skill"


def test_dg_9_luck_is_a_test_at_50_and_no_improvement() -> None:
    assert d100.odds(request("luck", 50, 0)).levels == d100.odds(request("skill", 50, 0)).levels
    with pytest.raises(D100Error) as err:
        d100.parse(request("luck", 60, 0))
    assert (err.value.field, err.value.value) == ("skill", 60)
    marks = REGISTRY.get(NAME).declares.marks
    failed = lambda req: d100.resolve({**req, "dice": [90]})  # noqa: E731
    # rule: DG-1 (a failed skill marks it, not Unnatural), DG-9 (Luck never improves)
    assert marks.after("failure", failed(request("skill", 40, 0)), "Search", False, 0) == 1
    assert marks.after("failure", failed(request("skill", 40, 0)), "Unnatural", False, 0) == 0
    assert marks.after("failure", failed(request("luck", 50, 0)), "Luck", False, 0) == 0
    assert marks.after("failure", failed(request("stat", 10, 0)), "STR", False, 0) == 0
    assert marks.after("failure", failed(request("skill", 40, 0)), "Search", True, 0) == 0


# -- DG-5..DG-8: the SAN test's loss, by brute force over every die ------------------------------


LOSS_RE = re.compile(r"SAN (\d+) -> (\d+)")


def loss_text(expression: str) -> tuple[list[int], int]:
    """The dice and the constant of ``NdM`` terms joined by ``+`` (the rulebook's losses)."""
    faces: list[int] = []
    constant = 0
    for term in expression.split("+"):
        count, d, sides = term.partition("d")
        if d:
            faces += [int(sides)] * int(count or 1)
        else:
            constant += int(term)
    return faces, constant


def expected_loss(
    r: int | None, dice: list[int], san: int, loss: str, **rules: Any
) -> tuple[int, int]:
    """DG-5 from the text: the success loss on a success (or adapted, DG-6, r None), the
    failure loss on a failure, its maximum on a critical failure by house rule; DG-7: a d4
    after a loss above 0 with a projection, WP less the d4 at least 1: the loss less the d4;
    DG-6: on the third incident, a loss of 1 or more without temporary insanity (5 or more)
    or the breaking point: 1D6 lost on adapting. The loss, and the 1D6 (0: none)."""
    success_loss, failure_loss = loss.split("/")
    lvl = "success" if r is None else oracle(r, "sanity", san, 0)
    chosen = success_loss if lvl in ("critical", "success") else failure_loss
    faces, constant = loss_text(chosen)
    if lvl == "fumble" and rules.get("fumble_max_loss"):
        total, rest = sum(faces) + constant, dice
    else:
        total, rest = sum(dice[: len(faces)]) + constant, dice[len(faces) :]
    willpower = rules.get("willpower")
    if willpower is not None and total > 0:
        d4, *rest = rest
        if willpower - d4 >= 1:
            total = max(0, total - d4)
    bp = rules.get("breaking_point")
    reached = bp is not None and san - total <= bp
    if rules.get("adapting") and 1 <= total <= 4 and not reached:
        (d6,) = rest
        assert 1 <= d6 <= 6
        return total, d6
    assert not rest
    return total, 0


def sequences(req: dict[str, Any]) -> list[tuple[tuple[int, ...], Fraction, d100.CheckResult]]:
    """Every dice sequence the request may draw, its weight and its result (brute force through
    the public ``resolve``)."""
    parsed = d100.parse(req)
    out = []
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        try:
            result = d100.resolve(parsed, _Prefix(prefix))
        except _More as more:
            share = weight / (more.high - more.low + 1)
            stack.extend(((*prefix, v), share) for v in range(more.low, more.high + 1))
            continue
        assert isinstance(result, d100.CheckResult)
        out.append((prefix, weight, result))
    return out


SAN_CASES = [
    (55, "1/1d6", {}),
    (30, "0/1d4", {}),
    (1, "1d4/1d8", {}),
    (0, "0/1d10", {}),
    (60, "1d4/1d6", {"house_rules": {"fumble_max_loss": True}}),
    (45, "1/1d6", {"willpower": 3, "bond": 9}),
    (45, "1d4/1d6", {"willpower": 12, "bond": 2, "breaking_point": 42}),
    (70, "1/1d4", {"adapted": True}),
    (50, "1/1d6", {"adapting": "violence", "breaking_point": 46}),
    (40, "1d4/1d6", {"adapting": "helplessness", "willpower": 2, "bond": 5}),
    # DG-5: any sum of dice and whole numbers, beyond the rulebook's tables
    (50, "1d3+1/2d4", {}),
    (40, "0/1d4+1d6+2", {"house_rules": {"fumble_max_loss": True}}),
    (60, "2/3d3", {"willpower": 4, "bond": 3, "adapting": "violence"}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("san", "loss", "more"), SAN_CASES)
def test_dg_5_dg_6_dg_7_dg_8_sanity_loss_by_brute_force(
    san: int, loss: str, more: dict[str, Any]
) -> None:
    """Every d100 and every loss die: the SAN after each as the text has it, and the exact
    loss, temporary insanity (5 or more, DG-5) and breaking point (DG-8) odds."""
    req = request("sanity", san, 0, san_loss=loss, **more)
    rules = {**more.get("house_rules", {}), **more}
    adapted = more.get("adapted", False)
    dist: Counter[int] = Counter()
    weights: dict[int, Fraction] = {}
    for dice, weight, result in sequences(req):
        r = None if adapted else dice[0]
        rolled = list(dice if adapted else dice[1:])
        want, d6 = expected_loss(r, rolled, san, loss, **rules)
        if d6:  # DG-6: what adapting costs
            lost = "CHA and each Bond" if more["adapting"] == "violence" else "POW"
            assert f"adapted to {more['adapting']}, 1D6 {d6}: {lost} -{d6}" in result.note
        else:
            assert "adapted to" not in result.note
        assert result.note is not None
        found = LOSS_RE.search(result.note)
        assert found is not None and int(found[1]) == san
        assert int(found[2]) == max(0, san - want), (dice, result.note)
        assert ("temporary insanity" in result.note) == (want >= 5)
        bp = more.get("breaking_point")
        assert ("breaking point reached" in result.note) == (bp is not None and san - want <= bp)
        dist[want] += 1
        weights[want] = weights.get(want, Fraction(0)) + weight
        if adapted:  # DG-6: no d100 drawn, an automatic success
            assert (result.roll, result.level, result.dice) == (None, "success", ())
    odds = sanity_odds(d100.parse(req))  # type: ignore[arg-type]
    assert dict(odds.loss) == weights
    assert odds.temporary_insanity == sum((p for n, p in weights.items() if n >= 5), Fraction(0))
    bp = more.get("breaking_point")
    if bp is None:
        assert odds.breaking_point is None
    else:
        assert odds.breaking_point == sum(
            (p for n, p in weights.items() if san - n <= bp), Fraction(0)
        )
    # the levels' odds stay the SAN test's own, loss dice or none
    assert nonzero(odds_map(req)) == nonzero(brute_force(req))


def test_dg_5_loss_dice_given_by_hand() -> None:
    result = d100.resolve(request("sanity", 55, 0, san_loss="1/1d6", dice=[70], san_loss_dice=[4]))
    assert result.note == "SAN loss 1d6 (4) = 4; SAN 55 -> 51"
    with pytest.raises(DiceError):  # a d6 given a 7
        d100.resolve(request("sanity", 55, 0, san_loss="1/1d6", dice=[70], san_loss_dice=[7]))
    with pytest.raises(DiceError):  # a success's constant loss rolls no die
        d100.resolve(request("sanity", 55, 0, san_loss="1/1d6", dice=[10], san_loss_dice=[3]))
    for field, value in (("san_loss", "1/1d6"), ("adapted", True), ("breaking_point", 0)):
        with pytest.raises(D100Error) as err:
            d100.parse(request("skill", 55, 0, **{field: value}))
        assert err.value.field == field
    with pytest.raises(D100Error) as err:  # DG-6: an adapted agent adapts no more
        d100.parse(request("sanity", 55, 0, san_loss="1/1d6", adapted=True, adapting="violence"))
    assert err.value.field == "adapting"
    with pytest.raises(D100Error) as err:  # DG-7: a projection names WP and a Bond
        d100.parse(request("sanity", 55, 0, san_loss="1/1d6", willpower=10))
    assert err.value.field == "bond"
    with pytest.raises(D100Error) as err:
        sanity_odds(d100.parse(request("sanity", 55, 0)))  # type: ignore[arg-type]
    assert err.value.field == "san_loss"


def test_dg_5_a_loss_is_any_sum_of_dice_and_whole_numbers_said_as_typed() -> None:
    parsed = quick.read("delta-green 45 sanity 1d3+1/2d4")
    assert parsed["san_loss"] == "1d3+1/2d4"
    made = d100.resolve(
        request("sanity", 45, 0, san_loss="1d3+1/2d4", dice=[80], san_loss_dice=[4, 2])
    )
    assert (
        made.note
        == "SAN loss 2d4 (4, 2) = 6; SAN 45 -> 39; temporary insanity (a loss of 5 or more)"
    )
    for loss, why in (
        ("1d6-1d4/1", "dice kept or taken away"),
        ("1/4d6kh3", "dice kept or taken away"),
        ("1/1d4-3", "a loss below 0"),
        ("1d6", "not success/failure"),
        ("1/1d6/2", "not success/failure"),
        ("1/DB", ""),
        ("1/x", ""),
    ):
        with pytest.raises(D100Error) as err:
            d100.parse(request("sanity", 45, 0, san_loss=loss))
        assert err.value.field == "san_loss" and why in err.value.message, (loss, err.value)


def test_dg_7_projection_keeps_a_loss_of_five_when_willpower_gives_out() -> None:
    """A d4 of 3 from WP 3 leaves WP 0: no reduction (the bot's reading, DG-7)."""
    req = request("sanity", 50, 0, san_loss="1d4/1d6", willpower=3, bond=8, dice=[90])
    failed = d100.resolve({**req, "san_loss_dice": [6, 3]})
    assert failed.note is not None and "SAN 50 -> 44" in failed.note
    assert "temporary insanity" in failed.note
    held = d100.resolve({**req, "san_loss_dice": [6, 2]})
    assert held.note is not None and "loss 4, WP 3 -> 1, Bond 8 -> 6" in held.note


# -- opposed tests (S12; suggested decision 7) ---------------------------------------------------


def winner(a: str, ra: int, o: str, ro: int) -> str:
    """A critical beats a success beats a failure; equal successes: the higher roll; equal
    rolls tie; both failing, nobody wins."""
    rank = {"critical": 2, "success": 1, "failure": 0, "fumble": 0}
    if not rank[a] and not rank[o]:
        return "none"
    if rank[a] != rank[o]:
        return "actor" if rank[a] > rank[o] else "opponent"
    if ra == ro:
        return "tie"
    return "actor" if ra > ro else "opponent"


@pytest.mark.parametrize(("a", "o"), [(55, 40), (22, 99), (0, 100)])
def test_dg_1_opposed_tests_by_counting(a: int, o: int) -> None:
    contest = {"system": NAME, "actor": {"skill": a}, "opponent": {"skill": o}}
    want: Counter[str] = Counter()
    for ra in ROLLS:
        for ro in ROLLS:
            want[winner(oracle(ra, "skill", a, 0), ra, oracle(ro, "skill", o, 0), ro)] += 1
    assert nonzero(odds_map(contest)) == {k: Fraction(v, 10000) for k, v in want.items()}
    rolled = d100.resolve(
        {**contest, "actor": {"skill": a, "dice": [33]}, "opponent": {"skill": o, "dice": [22]}}
    )
    assert isinstance(rolled, d100.ContestResult)
    want_one = winner(oracle(33, "skill", a, 0), 33, oracle(22, "skill", o, 0), 22)
    assert rolled.winner == want_one


# -- the doors: the JSON contract, the command line, the table's follow-ups ----------------------


def test_dg_5_the_json_contract_round_trip() -> None:
    req = request(
        "sanity",
        45,
        -20,
        san_loss="1d4/1d6",
        willpower=12,
        bond=7,
        breaking_point=40,
        dice=[90],
        san_loss_dice=[5, 2],
    )
    result = d100.resolve(req)
    data = result.to_dict()
    assert data["request"] == {**req, "modifier": 0, "adapted": False}  # defaults said
    assert d100.parse(data["request"]).to_dict() == data["request"]
    assert json.loads(json.dumps(data))["level"] == "failure"
    assert d100.resolve(data["request"]).to_dict() == data
    assert REGISTRY.get(NAME).declares.after(Rolled(req, result, None)) == ()


def test_dg_6_an_adapted_agent_reads_as_adapted_on_every_door() -> None:
    adapted = d100.resolve(
        request("sanity", 60, 0, san_loss="1/1d4", adapted=True, san_loss_dice=[])
    )
    view = result_view(adapted)
    assert (view.dice, view.level) == ("no roll (adapted)", "success")
    assert adapted.note == "SAN loss 1 = 1; SAN 60 -> 59"  # the success loss, a constant


def _cli(*args: str) -> str:
    src = str(Path(d100.__file__).parent.parent)
    env = {**os.environ, "PYTHONPATH": src, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "d100", *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def test_dg_1_dg_5_through_the_command_line() -> None:
    out = _cli("roll", "delta-green", "55", "sanity", "1/1d6", "@70", "loss@4")
    assert "SAN loss 1d6 (4) = 4; SAN 55 -> 51" in out
    data = json.loads(
        _cli(
            "check",
            "-s",
            "delta-green",
            "--skill",
            "14",
            "--test",
            "stat",
            "--modifier",
            "harder",
            "--dice",
            "44",
            "--json",
        )
    )
    assert (data["level"], data["target"]) == ("critical", 50)
    odds = _cli("odds", "-s", "delta-green", "--skill", "55")
    assert "6.00%" in odds and "3/50" in odds


def test_dg_5_a_san_test_s_odds_read_its_loss_once_not_once_a_final_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The exact loss of a SAN test is worked out on a worker within its deadline: its loss
    words were parsed again for each of its final states (a d100 over 1/20d20 has thousands),
    about half of its time."""
    from d100.systems import delta_green

    parsed: list[str] = []
    real = delta_green.parse

    def counted(expression: str, *args: Any, **kwargs: Any) -> Any:
        parsed.append(expression)
        return real(expression, *args, **kwargs)

    monkeypatch.setattr(delta_green, "parse", counted)
    loss = "1d2/19d20+1d20"  # words no other test reads: none of them already parsed
    odds = sanity_odds(d100.parse(request("sanity", 55, 0, san_loss=loss)))  # type: ignore[arg-type]
    assert sum(odds.loss.values()) == 1 and max(odds.loss) == 400
    assert len(parsed) <= 4, Counter(parsed)
