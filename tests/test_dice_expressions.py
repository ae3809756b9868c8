"""Dice expressions (issue 35, item 1): the grammar and its refusals, exact distributions held
to icepool, seeded and provable rolls, the damage bonus (S7-6, S7-11) and the contract's JSON."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import icepool
import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d100 import expressions, provable, schema, tallies
from d100.errors import BadInput, D100Error, DiceError, TooMuchWork
from d100.expressions import DiceRequest, exact, parse
from tests.conftest import depth

ORACLE = settings(
    max_examples=depth(25, 200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# -- the grammar -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("1d6+1d4", "1d6+1d4"),
        ("1D100", "1d100"),
        ("d20", "1d20"),
        ("4d6kh3", "4d6kh3"),
        ("4D6KH3", "4d6kh3"),
        ("4d6k3", "4d6kh3"),
        ("2d20kl1", "2d20kl1"),
        ("3d6kh3", "3d6"),  # keeping every die is the plain sum
        (" 1d8 + 2 - 1d4 ", "1d8+2-1d4"),
        ("-1", "-1"),
        ("+1d4", "1d4"),
        ("0", "0"),
        ("007", "7"),
        ("1d8+DB", "1d8+DB"),
        ("1d6+half(db)", "1d6+half(DB)"),
        ("1d4-DB", "1d4-DB"),
    ],
)
def test_expressions_read_and_write_back(text: str, written: str) -> None:
    assert str(parse(text)) == written
    assert str(parse(written)) == written


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1d6x", "not a dice expression: unexpected 'x' at position 4"),
        ("1d100<=65", "not a dice expression: unexpected '<' at position 6"),
        ("1d", "not a dice expression: the number of faces missing (the end) at position 3"),
        ("1d6+", "not a dice expression: a term missing (the end) at position 5"),
        ("1d6++1", "not a dice expression: unexpected '+' at position 5"),
        ("4d6k", "not a dice expression: how many dice to keep missing (the end) at position 5"),
        ("1d6 2", "not a dice expression: unexpected '2' at position 5"),
        ("", "not a dice expression: a term missing (the end) at position 1"),
        ("spot", "not a dice expression: unexpected 's' at position 1"),
        ("2*d6", "not a dice expression: unexpected '*' at position 2"),
    ],
)
def test_a_broken_expression_is_refused_at_its_position(text: str, reason: str) -> None:
    with pytest.raises(BadInput) as err:
        parse(text)
    assert err.value.field == "expression"
    assert err.value.value == text
    assert err.value.reason == reason
    assert "NdM dice" in err.value.allowed


@pytest.mark.parametrize(
    ("text", "reason", "allowed"),
    [
        ("101d6", "101 dice at position 1", "1..100 dice"),
        ("0d6", "0 dice at position 1", "1..100 dice"),
        ("1d6+2d1001", "1,001 faces at position 5", "1..1,000 faces"),
        ("1d0", "0 faces at position 1", "1..1,000 faces"),
        ("4d6kh5", "5 dice kept at position 1", "1..4 dice kept"),
        ("4d6kl0", "0 dice kept at position 1", "1..4 dice kept"),
        ("1d6+99999999999", "more than 1,000,000 as a number at position 5", "0..1,000,000"),
        ("60d6+50d6", "110 dice in all", "at most 100 dice in all"),
        ("+1" * 21, "21 terms", "at most 20 terms"),
        ("1" * 201, "201 characters", "at most 200 characters"),
    ],
)
def test_bounds_are_refused_naming_the_value_and_what_is_allowed(
    text: str, reason: str, allowed: str
) -> None:
    with pytest.raises(BadInput) as err:
        parse(text)
    assert (err.value.field, err.value.reason) == ("expression", reason)
    assert allowed in err.value.allowed


def test_words_that_look_like_dice_and_words_that_do_not() -> None:
    for word in ("1d6", "1d6x", "2d", "d6", "4x", "D100", "db", "half(DB)", "3d6kh"):
        assert expressions.looks_like(word), word
    for word in ("alice", "spot", "dodge", "65", "+20", "65%", "CC<=65", "brp", "dara"):
        assert not expressions.looks_like(word), word


# -- the damage bonus (S7-6, S7-11) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("bonus", "weapon", "written"),
    [
        ("+1d4", "1d8+DB", "1d8+1d4"),
        ("-1", "1d8+DB", "1d8-1"),
        ("0", "1d3+DB", "1d3+0"),
        ("2d6", "1d6-DB", "1d6-2d6"),
    ],
)
def test_s7_11_a_damage_bonus_is_given_as_an_expression(
    bonus: str, weapon: str, written: str
) -> None:
    request = DiceRequest(weapon, bonus)
    assert str(request.rolled) == written
    assert all(t.bonus for t in request.rolled.terms[1:])


@pytest.mark.parametrize(
    ("bonus", "halved"),
    [
        ("+1d4", "1d2"),
        ("+1d6", "1d3"),
        ("+2d6", "2d3"),
        ("+3d6", "3d3"),
        ("-2", "-1"),
        ("-1", "-1"),
        ("-3", "-2"),
        ("+3", "1"),
        ("0", "0"),
        ("1d1", "0"),
    ],
)
def test_s7_6_half_damage_bonus_halves_faces_and_constants(bonus: str, halved: str) -> None:
    assert str(parse(bonus, bonus=False).halved()) == halved
    request = DiceRequest("1d6+half(DB)", bonus)
    assert str(request.rolled) == f"1d6{'' if halved.startswith('-') else '+'}{halved}"


def test_s7_6_the_maximum_of_weapon_and_bonus_is_every_die_at_its_highest() -> None:
    assert DiceRequest("1d8+DB", "+1d4").rolled.high == 12  # extreme damage: max(W + DB)
    assert DiceRequest("1d8+DB", "-1").rolled.high == 7
    assert DiceRequest("1d8+DB", "-1").rolled.low == 0  # a negative DB can make a hit 0


def test_the_damage_bonus_is_needed_exactly_where_db_is() -> None:
    with pytest.raises(BadInput) as err:
        DiceRequest("1d8+DB")
    assert err.value.field == "damage_bonus"
    assert "no damage bonus is given" in str(err.value)
    with pytest.raises(BadInput) as err:
        DiceRequest("1d8", "+1d4")
    assert (err.value.field, err.value.reason) == ("damage_bonus", "no DB in 1d8")
    with pytest.raises(BadInput) as err:
        DiceRequest("1d8+DB", "1d4+DB")
    assert err.value.field == "damage_bonus"
    assert "DB inside the damage bonus at position 5" in str(err.value)
    with pytest.raises(BadInput) as err:
        DiceRequest("60d6+DB", "50d6")
    assert (err.value.field, err.value.reason) == ("damage_bonus", "110 dice in all")


# -- exact distributions, held to icepool ------------------------------------------------------

Term = tuple[int, int, int, int | None, bool]  # sign, count, sides, keep, highest


@st.composite
def expressions_(draw: st.DrawFn) -> tuple[str, Any]:
    """A random expression and icepool's die for it."""
    terms: list[Term] = draw(
        st.lists(
            st.tuples(
                st.sampled_from([1, 1, -1]),
                st.integers(1, 5),
                st.sampled_from([1, 2, 3, 4, 6, 8, 10, 12, 20]),
                st.none() | st.integers(1, 5),
                st.booleans(),
            ),
            min_size=1,
            max_size=3,
        )
    )
    constant = draw(st.integers(-5, 5))
    text = ""
    die: Any = icepool.Die([constant])
    for sign, count, sides, keep, highest in terms:
        kept = None if keep is None else min(keep, count)
        text += f"{'+' if sign > 0 else '-'}{count}d{sides}"
        pool = icepool.d(sides).pool(count)
        if kept is not None:
            text += f"{'kh' if highest else 'kl'}{kept}"
            pool = pool.highest(kept) if highest else pool.lowest(kept)
        part = pool.sum()
        die = die + part if sign > 0 else die - part
    text += f"{constant:+d}"
    return text, die


@ORACLE
@given(expressions_())
def test_distributions_are_icepools(case: tuple[str, Any]) -> None:
    text, die = case
    found = expressions.odds(text)
    assert found.denominator % die.denominator() == 0
    scale = found.denominator // die.denominator()
    assert dict(found.counts) == {t: c * scale for t, c in die.items() if c}
    assert found.mean == Fraction(die.mean())


@pytest.mark.parametrize(
    ("text", "mean"),
    [("3d6", Fraction(21, 2)), ("4d6kh3", Fraction(15869, 1296)), ("2d20kl1", Fraction(287, 40))],
)
def test_known_means(text: str, mean: Fraction) -> None:
    assert expressions.odds(text).mean == mean


def test_three_d6_to_the_last_count() -> None:
    found = expressions.odds("3d6")
    assert found.denominator == 216
    assert found.counts[3] == 1 and found.counts[10] == 27 and found.counts[18] == 1
    assert found.at_least(11) == Fraction(1, 2)
    assert found.at_least(3) == 1 and found.at_least(19) == 0 and found.at_least(-5) == 1


def test_keep_highest_counts_every_roll_by_brute_force() -> None:
    from itertools import product

    for count, sides, keep in ((4, 6, 3), (5, 4, 2), (3, 5, 1)):
        brute: dict[int, int] = {}
        for faces in product(range(1, sides + 1), repeat=count):
            top = sum(sorted(faces, reverse=True)[:keep])
            brute[top] = brute.get(top, 0) + 1
        assert exact.highest(count, sides, keep).ways() == brute


def test_the_cost_is_known_first_and_over_the_budget_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    big = parse("100d1000")
    assert exact.cost(big) > tallies.BUDGET
    with pytest.raises(TooMuchWork) as err:
        expressions.odds("100d1000")
    assert err.value.field == "expression" and err.value.budget == tallies.BUDGET
    assert expressions.roll("100d1000", random.Random(1)).total > 0  # rolling costs little
    monkeypatch.setattr(tallies, "BUDGET", 10)  # the server sets its own budget
    with pytest.raises(TooMuchWork):
        expressions.odds("3d6")
    for text in ("3d6", "4d6kh3", "2d20kl1+1d8-2", "20d20kh10", "100d100"):
        assert exact.cost(parse(text)) <= 2_000_000, text


# -- rolls: seeded, given and provable ---------------------------------------------------------


@ORACLE
@given(expressions_(), st.integers(0, 2**32))
def test_a_seeded_roll_is_in_the_support_and_the_same_seed_rolls_the_same(
    case: tuple[str, Any], seed: int
) -> None:
    text, _ = case
    first = expressions.roll(text, random.Random(seed))
    again = expressions.roll(text, random.Random(seed))
    assert first == again
    assert first.total in expressions.odds(text).counts
    assert first.total == sum(t.value for t in first.terms)
    replayed = expressions.roll({"expression": text, "dice": list(first.dice)})
    assert replayed.total == first.total and replayed.dice == first.dice


def test_dice_are_drawn_one_randint_per_die_in_the_order_written() -> None:
    calls: list[tuple[int, int]] = []

    class Source:
        def randint(self, a: int, b: int, /) -> int:
            calls.append((a, b))
            return b

    found = expressions.roll("2d6kl1+1d4-1d8+3", Source())
    assert calls == [(1, 6), (1, 6), (1, 4), (1, 8)]
    assert found.dice == (6, 6, 4, 8) and found.total == 6 + 4 - 8 + 3


def test_a_provable_source_draws_the_dice_verify_recomputes() -> None:
    request = DiceRequest("1d8+DB", "+1d4", label="club")
    seed, client = b"server seed", "client"
    rolled = expressions.roll(request, provable.ProvableSource(seed, client, nonce=3))
    ranges = [(1, 8), (1, 4)]
    assert list(rolled.dice) == provable.replay_draws(seed, client, 3, ranges)
    again = expressions.roll(request.to_dict(), provable.ProvableSource(seed, client, nonce=3))
    assert again == rolled


def test_given_dice_are_held_to_their_dice() -> None:
    found = expressions.roll(
        {"expression": "4d6kh3+DB", "damage_bonus": "1d4", "dice": [1, 5, 3, 6, 2]}
    )
    assert found.total == 14 + 2
    assert found.explanation == "4d6kh3 (6, 5, 3; dropped 1) + DB 1d4 (2) = 16"
    with pytest.raises(DiceError) as err:
        expressions.roll({"expression": "1d6+1d4", "dice": [3, 5]})
    assert err.value.field == "dice" and "a d4" in str(err.value)
    with pytest.raises(DiceError, match="ran out"):
        expressions.roll({"expression": "2d6", "dice": [3]})
    with pytest.raises(DiceError, match="left over"):
        expressions.roll({"expression": "1d6", "dice": [3, 4]})
    with pytest.raises(DiceError, match="no random source"):
        expressions.roll("1d6")


# -- the contract's objects --------------------------------------------------------------------


def test_requests_are_strict() -> None:
    for data, where in (
        ({"expression": "1d6", "sides": 6}, "sides"),
        ({}, "expression"),
        ({"expression": 6}, "expression"),
        ({"expression": "1d6", "dice": [True]}, "dice"),
        ({"expression": "1d6", "dice": "3"}, "dice"),
        ({"expression": "1d6", "label": "x" * 201}, "label"),
    ):
        with pytest.raises(D100Error) as err:
            expressions.roll(data, random.Random(1))
        assert err.value.field == where, data
    assert DiceRequest.from_dict({"expression": "1d8+DB", "damage_bonus": -1}).damage_bonus == "-1"


def test_results_and_odds_fit_their_schema_and_round_trip() -> None:
    check = jsonschema.Draft202012Validator(schema.shipped("dice"))
    request = {"expression": "1d8+half(DB)", "damage_bonus": "+1d6", "label": "a thrown knife"}
    rolled = expressions.roll(request, random.Random(4))
    shown = json.loads(json.dumps(rolled.to_dict()))
    assert shown["request"] == request
    assert shown["expression"] == "1d8+1d3"
    check.validate(request)
    check.validate(shown)
    check.validate(expressions.odds("1d4-3").to_dict())
    assert expressions.odds("1d4-3").to_dict()["mean"] == "-1/2"
    assert DiceRequest.from_dict(shown["request"]) == DiceRequest(**request)
    with pytest.raises(jsonschema.ValidationError):
        check.validate({"expression": "1d6", "sides": 6})


# -- the quick form's words (item 7) ------------------------------------------------------------


def test_the_percentile_form_is_a_check_of_the_system_chosen() -> None:
    from d100 import quick

    for text, system in (("1d100<=65", "coc7"), ("1D100<=65", "brp"), ("d100<=65", "rqg")):
        assert quick.read(text, system) == {"system": system, "skill": 65}
    assert quick.read("coc6 1D100<=40") == {"system": "coc6", "skill": 40}
    with pytest.raises(D100Error) as err:
        quick.read("1d100<=65")
    assert err.value.field == "system" and "no system is given" in str(err.value)


def test_forms_take_a_label_and_the_secret_prefix() -> None:
    from d100 import quick

    found = quick.form(["CC<=65", "hard", "Spot", "Hidden"], "coc7")
    assert found is not None and found.label == "Spot Hidden" and not found.secret
    assert found.request["skill"] == 65 and found.request["difficulty"] == "hard"
    hidden = quick.form(["SCC<=65"], "coc7")
    assert hidden is not None and hidden.secret and hidden.label is None
    assert quick.form(["Sam", "stealth"], "coc7") is None  # a name beginning with S
    assert quick.read("coc7 CC<=65 Spot Hidden") == quick.read("coc7 CC<=65")
    with pytest.raises(D100Error) as err:
        quick.read("coc7 CC<=65 Spot @42")
    assert err.value.reason == "'@42' after the label 'Spot'"


def test_words_that_look_like_dice_are_refused_as_dice() -> None:
    from d100 import quick

    with pytest.raises(BadInput) as err:
        quick.read("1d6x")
    assert err.value.reason == "not a dice expression: unexpected 'x' at position 4"
    with pytest.raises(D100Error) as err:
        quick.read("1d6+1d4")
    assert err.value.reason == "a dice expression, not a check"


def test_digits_are_ascii_digits() -> None:
    from d100 import quick

    with pytest.raises(D100Error):
        quick.parse("brp ²")  # a digit to str.isdigit, no number to int
    with pytest.raises(BadInput):
        parse("1d٦")
