"""SealDice's check words on the command line (SD-W1, SD-W3, SD-W5): ``.ra`` judged by the
table's ``--house setcoc``, else rule 0; ``.rc`` by rule 0 only; repeats and hidden rolls."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import clean_error, d100


def house(*args: str) -> object:
    run = d100("roll", *args, "--json")
    assert run.status == 0, run
    return json.loads(run.out)["request"]["house_rules"]


def test_sd_w1_ra_takes_the_tables_rule_else_rule_0() -> None:
    assert house(".ra", "侦查50", "@3") == {"setcoc": 0}
    assert house(".ra", "侦查50", "--house", "setcoc=dg", "@3") == {"setcoc": "dg"}


def test_sd_w1_rc_forces_rule_0() -> None:
    assert house(".rc", "侦查50", "--house", "setcoc=0", "@3") == {"setcoc": 0}
    refused = clean_error(d100("roll", ".rc", "侦查50", "--house", "setcoc=2", "@3"))
    assert "--house" in refused and "setcoc" in refused


def test_sd_w3_sd_w5_hidden_and_repeated() -> None:
    run = d100("roll", ".rah", "3#侦查50", "--seed", "7", "--json")
    assert run.status == 0, run
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert len(lines) == 3 and all(line["secret"] for line in lines)
    assert len({line["roll"] for line in lines}) > 1  # one seeded source for the three


def test_sd_w8_setcoc_sets_the_shells_rule_for_the_session(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    lines = [".ra 侦查50 @44", ".setcoc dg", ".ra 侦查50 @44", "coc7 50 @44", ".rc 侦查50 @44"]
    run = d100("shell", "--log", str(log), "--plain", stdin="\n".join(lines) + "\n")
    assert run.status == 0, run
    assert "coc7 from now on: house rules: setcoc dg" in run.out
    rolls = [json.loads(line)["result"] for line in log.read_text().splitlines()]
    assert [r["request"]["house_rules"] for r in rolls] == [
        {"setcoc": 0},  # SealDice's default where the table sets none
        {"setcoc": "dg"},
        {"setcoc": "dg"},
        {"setcoc": 0},  # .rc: rule 0 whatever the table's
    ]
    assert [r["level"] for r in rolls] == ["regular", "critical", "critical", "regular"]


def test_sd_w8_setcoc_is_a_setting_not_a_roll_on_one_command_line() -> None:
    refused = clean_error(d100("roll", ".setcoc", "2"))
    assert "a setting, not a roll" in refused and "--house" in refused
    assert "0, 1, 2, 3, 4, 5 or dg" in clean_error(d100("roll", ".setcoc", "9"))
