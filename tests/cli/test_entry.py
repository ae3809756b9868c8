"""The entry points, help with examples on every command, and clean usage errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from d100 import REGISTRY, __version__
from d100.cli import flags

from .conftest import clean_error, d100

COMMANDS = [
    "check",
    "contest",
    "group",
    "odds",
    "sheet",
    "rest",
    "advise",
    "simulate",
    "chart",
    "shell",
    "resolve",
]


def test_version_both_ways() -> None:
    assert d100("--version").out == f"d100 {__version__}\n"
    script = Path(sys.executable).parent / "d100"
    done = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == f"d100 {__version__}\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_examples(command: str) -> None:
    run = d100(command, "--help")
    assert run.status == 0 and "examples:" in run.out and f"d100 {command}" in run.out


def test_usage_errors_are_one_line() -> None:
    assert "invalid choice" in clean_error(d100("frobnicate"))
    assert "unrecognized arguments" in clean_error(d100("odds", "--nope"))


def test_every_contract_input_has_a_flag() -> None:
    """CONTRACT.md's fields, per system, for checks and contests, each set by some flag."""
    covered = {f.field for f in (flags.SKILL, *flags.SIDE_FLAGS, *flags.CHECK_FLAGS)}
    covered |= {"system", "house_rules", "coin"}
    covered |= {s.declares.assistance.field for s in REGISTRY if s.declares.assistance}
    for system in REGISTRY:
        for field in (*system.check_fields, *system.contest_fields):
            if field.name in ("actor", "opponent"):
                assert {f.name for f in field.fields} <= covered
            else:
                assert field.name in covered, (system.name, field.name)
