"""The first hour at the table: files that are not what a command expects, and places a file
cannot be written, answered with one clean line naming the file, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from d100.sheets import load

from .conftest import clean_error, d100

BINARY = b"\xff\xfe\x00\x9c binary \x80\x81"


@pytest.mark.parametrize(
    "args",
    [
        ("verify", "{file}"),
        ("sheet", "validate", "{file}"),
        ("roll", "--sheet", "{file}", "alice", "stealth"),
    ],
)
def test_a_binary_file_is_named_not_a_traceback(tmp_path: Path, args: tuple[str, ...]) -> None:
    path = tmp_path / "blob.dat"
    path.write_bytes(BINARY)
    first = clean_error(d100(*(a.format(file=path) for a in args)))
    assert str(path) in first and "UTF-8" in first


def test_a_huge_sheet_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_text("# " + "x" * (3 << 20) + "\n")
    first = clean_error(d100("sheet", "validate", str(path)))
    assert str(path) in first and "bytes" in first


def test_chart_into_a_missing_directory(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "odds.svg"
    first = clean_error(d100("chart", "-s", "brp", "-o", str(target)))
    assert str(target) in first and "directory" in first


def test_sheet_new_into_a_missing_directory(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "party.toml"
    run = d100("sheet", "new", str(target), "alice", "-s", "brp", "--skill", "stealth=50")
    first = clean_error(run)
    assert str(target) in first and "directory" in first
    assert not target.parent.exists()


@pytest.mark.parametrize("command", ["resolve", "odds"])
def test_a_line_past_python_limits_does_not_end_the_stream(command: str) -> None:
    good = (
        '{"system":"brp","skill":65,"dice":[42]}'
        if command == "resolve"
        else ('{"system":"brp","skill":65}')
    )
    lines = [
        good,
        '{"system":"brp","skill":' + "9" * 5000 + "}",
        "[" * 100_000 + "]" * 100_000,
        '{"system":"brp","skill":' + "[" * 900 + "]" * 900 + "}",
        good,
    ]
    run = d100(command, stdin="\n".join(lines) + "\n")
    assert run.status == 1 and "Traceback" not in run.err, run.err[-400:]
    out = [json.loads(text) for text in run.out.splitlines()]
    assert len(out) == 5
    assert "error" not in out[0] and "error" not in out[4]
    assert [o["error"]["line"] for o in out[1:4]] == [2, 3, 4]


def test_a_character_is_not_its_own_opponent(party: Path) -> None:
    run = d100("contest", "--sheet", str(party), "alice", "stealth", "--vs", "ALICE", "dodge")
    first = clean_error(run)
    assert "--vs" in first and "alice" in first


def test_a_contest_names_both_sides_skills(party: Path) -> None:
    run = d100("contest", "--sheet", str(party), "alice", "stealth", "--vs", "bob", "listen")
    assert run.status == 0, run.err
    assert "stealth" in run.out and "listen" in run.out


@pytest.mark.parametrize("value", ["0", "false"])
def test_force_color_0_is_off(value: str) -> None:
    run = d100("check", "-s", "brp", "--skill", "50", "--dice", "42", env={"FORCE_COLOR": value})
    assert run.status == 0 and "\x1b[" not in run.out


def test_force_color_1_is_on_and_no_color_wins() -> None:
    args = ("check", "-s", "brp", "--skill", "50", "--dice", "42")
    assert "\x1b[" in d100(*args, env={"FORCE_COLOR": "1"}).out
    assert "\x1b[" not in d100(*args, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).out


def test_advise_says_the_luck_it_assumed() -> None:
    run = d100("advise", "-s", "brp", "--skill", "60")
    assert run.status == 0, run.err
    head = run.out.splitlines()[0]
    assert "Luck" in head and "--luck" in head
    given = d100("advise", "-s", "brp", "--skill", "60", "--luck", "1").out.splitlines()[0]
    assert "--luck" not in given and "Luck left 1" in given


def test_a_sheet_roll_json_says_who_skill_and_luck_left(party: Path) -> None:
    run = d100("check", "--sheet", str(party), "alice", "stealth", "--dice", "42", "--json")
    data = json.loads(run.out)
    assert data["who"] == "alice" and data["skill"] == "stealth" and data["luck_left"] == 2
    spent = d100(
        "check",
        "--sheet",
        str(party),
        "bob",
        "stealth",
        "--luck-rerolls",
        "1",
        "--dice",
        "90,20",
        "--json",
    )
    assert json.loads(spent.out)["luck_left"] == 4, spent.err


def test_a_sheet_contest_json_says_each_side_s_who_skill_and_luck_left(party: Path) -> None:
    run = d100(
        "contest", "--sheet", str(party), "alice", "stealth", "--luck-boost",
        "--dice", "20", "--vs", "bob", "listen", "--dice", "30", "--json",
    )  # fmt: skip
    data = json.loads(run.out)
    actor, opponent = data["actor"], data["opponent"]
    assert (actor["who"], actor["skill"], actor["luck_left"]) == ("alice", "stealth", 1)
    assert (opponent["who"], opponent["skill"], opponent["luck_left"]) == ("bob", "listen", 5)
    assert load(party).get("alice").luck.current == 1  # type: ignore[union-attr]
