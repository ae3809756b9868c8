"""The first hour at the table: files that are not what a command expects, and places a file
cannot be written, answered with one clean line naming the file, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
