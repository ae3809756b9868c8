"""The JSON contract: schemas generated from the code, CONTRACT.md's examples, and the JSON
Lines commands `d100 resolve` and `d100 odds`."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import d100
from d100 import schema
from tests import forked

CONTRACT = Path(__file__).resolve().parents[2] / "shared" / "CONTRACT.md"


def examples() -> list[Any]:
    text = CONTRACT.read_text()
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]


def validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema.shipped(name))


def test_shipped_schemas_are_the_generated_ones() -> None:
    for name, text in schema.generated().items():
        assert schema.shipped(name) == json.loads(text), f"run: make schemas ({name})"


def test_schemas_are_valid_json_schema() -> None:
    for name in schema.SCHEMAS:
        jsonschema.Draft202012Validator.check_schema(schema.shipped(name))


def test_contract_examples_validate_and_resolve() -> None:
    check_request, check_result, contest_request, odds = examples()
    validator("request").validate(check_request)
    validator("request").validate(contest_request)
    validator("result").validate(check_result)
    validator("odds").validate(odds)
    result = d100.resolve(check_request).to_dict()
    assert {k: result[k] for k in check_result} == check_result
    validator("result").validate(result)
    contest = d100.resolve(contest_request).to_dict()
    validator("result").validate(contest)
    assert contest["winner"] == "opponent"  # both critical (33 and 44): the higher roll
    assert d100.odds({"system": "brp", "skill": 65}).to_dict() == odds


@pytest.mark.parametrize(
    "request_",
    [
        {"system": "openquest", "skill": 100, "assist": {"skill": 20}},
        {"system": "brp", "actor": {"skill": 60}, "opponent": {"skill": 60, "luck_boost": True}},
        {"system": "chances", "skill": 40, "risk": 80, "assisters": [{"skill": 20}], "take": None},
        {"system": "chances", "actor": {"skill": 40}, "opponent": {"skill": 40}, "coin": "actor"},
    ],
)
def test_results_and_odds_match_their_schemas(request_: dict[str, Any]) -> None:
    import random

    validator("request").validate(request_)
    validator("result").validate(d100.resolve(request_, random.Random(4)).to_dict())
    without = {k: v for k, v in request_.items() if k != "coin"}
    validator("odds").validate(d100.odds(without).to_dict())


def test_request_schema_rejects_what_the_parser_rejects() -> None:
    bad = {"system": "brp", "skill": 65, "colour": "red"}
    assert not validator("request").is_valid(bad)
    with pytest.raises(d100.D100Error):
        d100.parse(bad)


def run_cli(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [forked.SHIM, *args],
        env={**os.environ, **forked.environment()},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_resolve_jsonl_answers_every_line_and_fails_at_the_end() -> None:
    lines = [
        '{"system": "brp", "skill": 65, "dice": [42]}',
        '{"system": "brp", "skill": "lots"}',
        "not json",
        "",
        '{"system": "openquest", "actor": {"skill": 60, "dice": [33]}, '
        '"opponent": {"skill": 45, "dice": [44]}}',
    ]
    done = run_cli(["resolve"], "\n".join(lines) + "\n")
    assert done.returncode == 1
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == 4
    assert out[0]["level"] == "success" and out[0]["roll"] == 42
    assert out[1]["error"]["field"] == "skill" and out[1]["error"]["line"] == 2
    assert out[2]["error"]["field"] == "request" and "not JSON" in out[2]["error"]["message"]
    assert out[3]["winner"] == "opponent"
    assert "Traceback" not in done.stderr


def test_resolve_seed_repeats() -> None:
    line = '{"system": "chances", "skill": 40, "risk": 80}\n' * 3
    first = run_cli(["resolve", "--seed", "11"], line)
    again = run_cli(["resolve", "--seed", "11"], line)
    assert first.returncode == 0 and first.stdout == again.stdout


def test_odds_jsonl_prints_the_contract_distribution() -> None:
    done = run_cli(["odds"], '{"system":"brp","skill":65}\n')
    assert done.returncode == 0
    assert json.loads(done.stdout) == examples()[3]
    rolled = run_cli(["odds"], '{"system":"brp","skill":65,"dice":[3]}\n')  # every roll weighed
    assert rolled.returncode == 0 and json.loads(rolled.stdout) == examples()[3]
    bad = run_cli(["odds"], '{"system":"brp","skill":65,"dice":[0]}\n')
    assert bad.returncode == 1 and json.loads(bad.stdout)["error"]["field"] == "dice[0]"
