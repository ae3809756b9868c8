"""Colour choices, hints on a terminal, simulate --vs, and flags never taken by abbreviation."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest

from .conftest import clean_error, d100

CHECK = ("check", "-s", "brp", "--skill", "65", "--dice", "7")


@pytest.mark.parametrize(
    ("flag", "env", "coloured"),
    [
        ([], {}, False),  # a pipe is not a terminal
        ([], {"FORCE_COLOR": "1"}, True),
        ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),  # NO_COLOR wins over FORCE_COLOR
        (["--color=always"], {"NO_COLOR": "1"}, True),  # the flag wins over both
        (["--color=never"], {"FORCE_COLOR": "1"}, False),
        (["--plain"], {"FORCE_COLOR": "1"}, False),
        (["--color", "always"], {}, True),
    ],
)
def test_colour_choices(flag: list[str], env: dict[str, str], coloured: bool) -> None:
    run = d100(*CHECK, *flag, env=env)
    assert run.status == 0, run.err
    assert ("\x1b[" in run.out) is coloured


@pytest.mark.parametrize("command", ["odds", "resolve"])
def test_a_hint_when_reading_a_terminal(command: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("D100_SYSTEM", "D100_SHEET")}
    env["XDG_CONFIG_HOME"] = str(tmp_path)
    child = pexpect.spawn(
        sys.executable, ["-m", "d100", command], env=env, encoding="utf-8", timeout=20
    )
    child.expect_exact("reading JSON Lines requests, one per line, Ctrl-D to end")
    child.sendline('{"system":"brp","skill":65}')
    child.expect_exact('"success"')
    child.sendeof()
    child.expect(pexpect.EOF)
    # and not on a pipe: stderr stays empty for scripts
    piped = d100(command, stdin='{"system":"brp","skill":65}\n')
    assert piped.status == 0 and piped.err == ""


def test_odds_by_flags_takes_the_system_from_the_environment() -> None:
    run = d100("odds", "--skill", "65", "--json", env={"D100_SYSTEM": "brp"})
    assert json.loads(run.out)["levels"]["critical"] == "3/100"  # rule: BRP3


def test_simulate_a_contest() -> None:  # rule: OQ7
    run = d100(
        "simulate", "-s", "openquest", "--skill", "60", "--vs", "--skill", "45",
        "-n", "4000", "--seed", "2", "--json",
    )  # fmt: skip
    data = json.loads(run.out)
    assert sum(data["counts"].values()) == 4000 and data["rolls"] == 4000
    assert set(data["counts"]) <= set(data["odds"]["winner"])
    assert data["odds"]["winner"]["none"] == "3/1000"


def test_simulate_a_contest_from_the_sheet(party: Path) -> None:  # rule: CH6, CH11
    run = d100(
        "simulate", "--sheet", str(party), "carol", "sneaking", "--vs", "dara", "-n", "2000",
        "--seed", "1",
    )  # fmt: skip
    assert run.status == 0, run.err
    assert run.out.startswith("carol against dara — Taking Chances; 2000 rolls, seed 1")


def test_flags_are_never_abbreviated(tmp_path: Path) -> None:
    line = clean_error(d100("chart", "-s", "brp", "--skill", "65", "-o", str(tmp_path / "c.png")))
    assert "unrecognized arguments: --skill" in line and "did you mean --skills?" in line
    assert not (tmp_path / "c.png").exists()


def test_unknown_flags_get_the_commands_usage() -> None:
    run = d100("odds", "-s", "brp", "--skil", "65")
    assert "did you mean --skill?" in clean_error(run)
    assert "usage: d100 odds" in run.err and "(see: d100 odds --help)" in run.err
    assert "did you mean check?" in clean_error(d100("chekc"))


def test_a_fraction_too_long_to_read_says_its_size() -> None:  # rule: BRP7
    """A hundred Luck rerolls under the tens method: exact odds over hundreds of digits are
    shown by their size, and given whole by --json."""
    from fractions import Fraction

    from d100.render.view import frac

    assert frac(Fraction(13, 20)) == "13/20"
    huge = Fraction(1, 10**400 + 1)
    assert frac(huge) == "exact over a 401-digit denominator (--json gives it)"
