"""The first hour at the table, round two: a session log the shell cannot write, a contest's
own flags on either side of ``--vs``, the Luck a follow-up's card shows, a push refused after a
fumble, a JSON key given twice, and numbers or texts too long to echo."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from d100.sheets import load

from .conftest import clean_error, d100

SHEET = """\
[ada]
system = "coc7"
luck = { current = 40, maximum = 99 }
skills = { "Library Use" = 50 }
"""
LONG = "9" * 5000


def _unwritable(tmp_path: Path) -> Path:
    path = tmp_path / "read-only.jsonl"
    path.write_text("")
    path.chmod(0o444)
    if os.geteuid() == 0:  # root appends to any file's mode: to a file of /proc no one may
        return Path("/proc/version")
    return path


@pytest.mark.parametrize("where", ["missing directory", "directory", "unwritable file"])
def test_a_session_log_the_shell_cannot_write_is_refused_before_any_roll(
    tmp_path: Path, where: str
) -> None:
    log = {
        "missing directory": tmp_path / "nope" / "session.jsonl",
        "directory": tmp_path,
        "unwritable file": _unwritable(tmp_path),
    }[where]
    run = d100("shell", "--log", str(log), stdin="brp 65 @42\n")
    first = clean_error(run)
    assert first.startswith("d100: error: --log") and str(log) in first
    assert "target" not in run.out  # no roll was made


def test_a_session_log_is_not_left_behind_when_nothing_was_rolled(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    run = d100("shell", "--log", str(log), stdin="quit\n")
    assert run.status == 0 and not log.exists()


@pytest.mark.parametrize("command", ["contest", "odds"])
def test_a_contests_own_flag_goes_before_or_after_vs(command: str) -> None:
    # rule: C7-7 (the opponent's response to the attack is the contest's, not a side's)
    seed = ["--seed", "3"] if command == "contest" else []
    head = [command, "-s", "coc7", "--skill", "60", "--json", *seed]
    before = d100(*head, "--response", "dodge", "--vs", "--skill", "45")
    after = d100(*head, "--vs", "--skill", "45", "--response", "dodge")
    assert before.status == after.status == 0, (before, after)
    assert json.loads(before.out) == json.loads(after.out)
    plain = d100(*head, "--vs", "--skill", "45")
    assert json.loads(plain.out) != json.loads(before.out)  # the response was read
    twice = d100(*head, "--response", "dodge", "--vs", "--skill", "45", "--response", "maneuver")
    assert "--response" in clean_error(twice) and "given twice" in clean_error(twice)


def test_a_contests_own_flag_without_vs_is_refused_by_odds() -> None:
    first = clean_error(d100("odds", "-s", "coc7", "--skill", "60", "--response", "dodge"))
    assert "--response" in first and "--vs" in first


def _shell(tmp_path: Path, *lines: str) -> str:
    sheet = tmp_path / "party.toml"
    sheet.write_text(SHEET)
    log = tmp_path / "session.jsonl"
    run = d100(
        "shell", "--sheet", str(sheet), "--log", str(log), "--plain",
        stdin="\n".join(lines) + "\n",
    )  # fmt: skip
    assert run.status == 0 and "Traceback" not in run.out + run.err, run
    return run.out


def test_c7_4_a_luck_cards_head_shows_the_luck_held_not_the_least_that_buys_it(
    tmp_path: Path,
) -> None:
    # rule: C7-4 (Luck held must be greater than the cost; 10 Luck buys 60 down to 50)
    out = _shell(tmp_path, "ada library use @60", "luck")
    bought = out.split("d100> ")[2]
    head = bought.splitlines()[0]
    assert "luck 40" in head and "luck 11" not in head
    assert "ada spent 10 Luck: 30/99 left" in bought


def test_c7_5_a_push_after_a_fumble_says_why(tmp_path: Path) -> None:
    # rule: C7-5 (no push after a fumble unless the house rule allows it)
    out = _shell(tmp_path, "ada library use @100", "push")
    first, pushed = out.split("d100> ")[1:3]
    assert "level    FUMBLE" in first and "push:" not in first  # not offered
    assert pushed.startswith("error: push: a fumble cannot be pushed")
    assert "allow_push_fumbles" in pushed


def test_c7_5_the_shell_says_what_a_push_risks_and_what_a_failed_one_brings(
    tmp_path: Path,
) -> None:
    # rule: C7-5 (the shell's push card said nothing of a push, and offered another)
    out = _shell(tmp_path, "ada library use @70", "push @95")
    first, pushed = out.split("d100> ")[1:3]
    assert "push: Push the roll, 50.00% (1/2) to succeed; a failed push brings a dire" in first
    assert "the push failed: the Keeper brings a dire consequence" in pushed
    assert "may be pushed" not in pushed and "then" not in pushed


@pytest.mark.parametrize("command", ["resolve", "odds"])
def test_a_json_line_with_a_key_given_twice_is_refused_naming_it(command: str) -> None:
    run = d100(command, stdin='{"system":"brp","skill":65,"skill":70}\n')
    error = json.loads(run.out)["error"]
    assert run.status == 1 and error["field"] == "skill" and "given twice" in error["message"]
    assert "65" in error["message"] and "70" in error["message"]


@pytest.mark.parametrize(
    "args",
    [
        ("check", "-s", "brp", "--skill", LONG),
        ("roll", "brp", LONG),
        ("roll", "brp", "50", "+" + LONG),
        ("check", "-s", "brp", "--skill", "50", "--dice", "1," + LONG),
    ],
)
def test_a_number_too_long_is_said_by_its_digits_and_range(args: tuple[str, ...]) -> None:
    first = clean_error(d100(*args))
    assert "a number of 5,000 digits: too long" in first and "allowed:" in first
    assert "set_int_max_str_digits" not in first and LONG[:300] not in first


def test_a_number_too_long_in_a_json_line_names_its_field() -> None:
    run = d100("resolve", stdin='{"system":"brp","skill":' + LONG + "}\n")
    error = json.loads(run.out)["error"]
    assert error["field"] == "skill" and error["allowed"] == "an integer 0..1000"
    assert "5,000 digits" in error["message"] and "set_int_max_str_digits" not in run.out


def test_a_long_bad_text_is_echoed_by_a_short_prefix() -> None:
    huge = "x" * 100_000  # a command line holds one word of at most 128 KiB
    first = clean_error(d100("check", "-s", "brp", "--skill", "50", "--difficulty", huge))
    assert "unknown preset" in first and len(first) < 1000


REST_SHEET = """\
[alice]
system = "brp"
luck = { current = 2, maximum = 13 }
skills = { stealth = 65 }

[ada]
system = "coc7"
luck = { current = 20, maximum = 99 }
skills = { "library use" = 45 }
"""


def test_rest_restores_luck_only_where_the_system_has_a_rest_rule(tmp_path: Path) -> None:
    # rule: BRP7 (a full night's rest restores Luck); CoC7 has no such rule (C7-4)
    sheet = tmp_path / "party.toml"
    sheet.write_text(REST_SHEET)
    first = clean_error(d100("rest", "--sheet", str(sheet), "ada"))
    assert "ada" in first and "no rest rule" in first and "brp" in first
    everyone = d100("rest", "--sheet", str(sheet))
    assert everyone.status == 0, everyone
    assert "alice: Luck 2 -> 13" in everyone.out and "ada: Luck 20, unchanged" in everyone.out
    luck = {c.name: c.luck.current for c in load(str(sheet)).characters if c.luck}
    assert luck == {"alice": 13, "ada": 20}
