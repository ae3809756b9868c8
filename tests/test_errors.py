"""Errors as a small tree under D100Error (G5): each kind caught by its class and named in its
``to_dict()``, and the CLI, JSON Lines and the HTTP API all send that same object."""

from __future__ import annotations

import io
import json
import pickle
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

import d100
from d100 import tallies
from d100.cli.jsonl import answer_lines
from d100.server.app import create_app
from d100.server.errors import invalid, renamed
from tests.cli.conftest import d100 as run_cli

CASES: list[tuple[dict[str, Any], type[d100.D100Error], str]] = [
    ({"system": "brp", "skill": 65, "bonus_dice": 3}, d100.BadInput, "bonus_dice"),  # rule: BRP4
    ({"system": "openquest", "skill": "x"}, d100.BadInput, "skill"),  # rule: OQ1
    # rule: CH7: training is required for a practically impossible attempt
    (
        {"system": "chances", "skill": 20, "risk": 50, "modifiers": [-100]},
        d100.RuleRefusal,
        "skill",
    ),
    # rule: OQ8: only one side of an opposed test is modified
    (
        {
            "system": "openquest",
            "actor": {"skill": 50, "difficulty": -20},
            "opponent": {"skill": 50, "difficulty": 20},
        },
        d100.RuleRefusal,
        "opponent.difficulty",
    ),
    # rule: CH5: nobody takes 100 in a contest
    (
        {"system": "chances", "actor": {"skill": 50, "take": 100}, "opponent": {"skill": 50}},
        d100.RuleRefusal,
        "actor.take",
    ),
    # rule: CH8: the GM's cap on assisters
    (
        {
            "system": "chances",
            "skill": 50,
            "risk": 50,
            "assisters": [{"skill": 10}],
            "house_rules": {"max_assisters": 0},
        },
        d100.RuleRefusal,
        "assisters",
    ),
    # rule: G3: too few dice, dice left over
    ({"system": "brp", "skill": 50, "bonus_dice": 1, "dice": [5]}, d100.DiceError, "dice"),
    ({"system": "openquest", "skill": 50, "dice": [5, 6]}, d100.DiceError, "dice"),
    (
        {"system": "openquest", "skill": 50, "assist": {"skill": 5, "dice": [5, 6]}},
        d100.DiceError,
        "assist.dice",
    ),
    # rule: BRP4: under the tens method one roll's values share their units die
    (
        {
            "system": "brp",
            "skill": 50,
            "bonus_dice": 1,
            "dice": [15, 27],
            "house_rules": {"bonus_dice_method": "tens"},
        },
        d100.DiceError,
        "dice",
    ),
]


@pytest.mark.parametrize(("request_", "kind", "field"), CASES)
def test_g5_each_error_is_caught_by_its_kind(
    request_: dict[str, Any], kind: type[d100.D100Error], field: str
) -> None:
    with pytest.raises(kind) as err:
        d100.resolve(request_, random.Random(1))
    assert err.value.field == field
    data = err.value.to_dict()
    assert data["kind"] == kind.kind and data["field"] == field
    others = {d100.BadInput, d100.RuleRefusal, d100.DiceError, d100.TooMuchWork} - {kind}
    assert not isinstance(err.value, tuple(others))


def test_g5_d100error_built_directly_is_a_bad_input() -> None:
    err = d100.D100Error("skill", 3, "an integer 5..9", "too low")
    assert isinstance(err, d100.BadInput) and err.to_dict()["kind"] == "bad_input"
    assert str(err) == "skill: too low; allowed: an integer 5..9"


def test_g5_too_much_work_carries_its_cost_and_budget() -> None:
    err = d100.TooMuchWork("luck_rerolls", 9000, 4000)
    assert isinstance(err, d100.D100Error)
    data = err.to_dict()
    assert data["kind"] == "too_much_work" and data["field"] == "luck_rerolls"
    assert (data["cost"], data["budget"]) == (9000, 4000)
    again = pickle.loads(pickle.dumps(err))  # a worker process can hand it back
    assert type(again) is d100.TooMuchWork and again.to_dict() == data


def test_g5_too_much_work_from_the_engine_is_mapped_like_any_error(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tallies, "BUDGET", 1)  # every enumeration is over this budget
    dear = {"system": "brp", "skill": 37, "bonus_dice": 2, "luck_rerolls": 3}
    with pytest.raises(d100.TooMuchWork) as err:
        d100.odds(dear)
    expected = err.value.to_dict()
    assert expected["budget"] == 1 and expected["cost"] > 1
    out = io.StringIO()
    assert answer_lines(io.StringIO(json.dumps(dear) + "\n"), out, lambda r: d100.odds(r).to_dict())
    assert json.loads(out.getvalue()) == {"error": {**expected, "line": 1}}
    with TestClient(create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}")) as client:
        r = client.post("/api/odds", json=dear)
    assert r.status_code == 422 and r.json() == {"error": expected}


def test_g5_an_error_placed_in_a_body_keeps_its_kind() -> None:
    err = d100.RuleRefusal("skill", 20, "trained skill >= 50", "refused")
    moved = err.at("actor.skill")
    assert type(moved) is d100.RuleRefusal and moved.field == "actor.skill"
    assert moved.message == "actor.skill: refused; allowed: trained skill >= 50"
    assert err.field == "skill"  # the original is untouched
    assert invalid(err, "actor").to_dict() == {"error": moved.to_dict()}
    assert renamed(err, "skill_name").to_dict()["error"]["kind"] == "rule_refusal"


@pytest.mark.parametrize(("request_", "kind", "field"), CASES)
def test_g5_http_and_json_lines_send_the_same_error_object(
    request_: dict[str, Any], kind: type[d100.D100Error], field: str, tmp_path: Any
) -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.resolve(request_, random.Random(1))
    expected = err.value.to_dict()
    out = io.StringIO()
    lines = io.StringIO(json.dumps(request_) + "\n")
    assert (
        answer_lines(lines, out, lambda data: d100.resolve(data, random.Random(1)).to_dict()) == 1
    )
    assert json.loads(out.getvalue()) == {"error": {**expected, "line": 1}}
    if kind is d100.DiceError:  # odds weigh every roll: the dice of one are not read
        return
    with pytest.raises(d100.D100Error) as err:
        d100.odds(request_)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}")) as client:
        r = client.post("/api/odds", json=request_)
    assert r.status_code == 422
    assert r.json() == {"error": err.value.to_dict()}


def test_g5_cli_json_errors_are_the_error_object() -> None:
    run = run_cli("check", "--system", "brp", "--skill", "65", "--bonus", "3", "--json")
    assert run.status == 2 and "Traceback" not in run.err
    error = json.loads(run.out)["error"]
    assert error["kind"] == "bad_input" and error["field"]
    assert error["message"] in run.err


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (float("nan"), "nan"),
        ([1, float("-inf")], "[1, -inf]"),
        ({"a": object}, "{'a': <class 'object'>}"),
        ("x" * 200, "x" * 200),  # JSON carries a short text as it is
        ("x" * 500, "x" * 199 + "…"),  # a long one by its prefix
        ({"k": b"y" * 500}, ("{'k': b'" + "y" * 500)[:199] + "…"),  # cut to 200 characters
    ],
)
def test_g5_an_error_answer_never_fails_on_the_value_it_echoes(value: Any, shown: str) -> None:
    """NaN, infinity and objects are no JSON: echoed as given, the error answer itself failed
    (a 500); a value JSON cannot carry is echoed as its repr, cut short."""
    from d100.server.errors import ApiError

    for err in (d100.D100Error("f", value, "x"), ApiError(422, "f", value, "x", "f: bad")):
        body = json.loads(json.dumps(err.to_dict(), allow_nan=False))
        assert body.get("error", body)["value"] == shown


def test_g5_a_huge_value_is_echoed_by_a_short_prefix_everywhere() -> None:
    """A 10 MB text is refused in a few hundred characters: the message, the echoed value
    and the reason that quotes it (an unknown preset) all carry its prefix only."""
    huge = "x" * 10_000_000
    for request in (
        {"system": "brp", "skill": huge},
        {"system": "brp", "skill": 50, "difficulty": huge},
        {"system": "brp", "skill": 50, "modifiers": [1] * 1_000_000},
    ):
        with pytest.raises(d100.D100Error) as err:
            d100.resolve(request, random.Random(1))
        data = err.value.to_dict()
        assert len(err.value.message) < 1000 and len(json.dumps(data)) < 2000, data["field"]


def test_g5_a_huge_integer_is_said_by_its_length() -> None:
    with pytest.raises(d100.D100Error) as err:
        d100.resolve({"system": "brp", "skill": 10**5000}, random.Random(1))
    assert "about 5,000 digits" in err.value.message
    assert "set_int_max_str_digits" not in err.value.message


LONG = "9" * 5000
# A system's own words, each read by its reader with a number longer than Python converts:
# each was a ValueError carrying the interpreter's advice, a traceback on every door (issue 32).
TOO_LONG_WORDS = [
    f"coc7 .sc 1/1d6 {LONG}",  # rule: SD-W6
    f"coc7 .en 侦查{LONG}",  # rule: SD-W7
    f"coc7 FAR({LONG},50,100)",  # rule: S7-14
    f"coc7 50 shots{LONG}",  # rule: S7-13
    f"coc7 CC<={LONG}",
    f"coc7 CBR({LONG},50)",
]


@pytest.mark.parametrize("words", TOO_LONG_WORDS)
def test_g5_a_number_too_long_in_a_system_s_own_words_is_said_by_its_length(words: str) -> None:
    from d100 import quick
    from d100.actions import find

    said = words.split()
    with pytest.raises(d100.D100Error) as err:
        if find(said, None) is None and quick.read_command(" ".join(said[1:]), said[0]) is None:
            quick.read(said)
    assert err.value.message.startswith("word: a number of 5,000 digits: too long"), err.value
    assert "set_int_max_str_digits" not in err.value.message and LONG[:300] not in str(err.value)
