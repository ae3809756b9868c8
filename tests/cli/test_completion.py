"""``d100 completion``: scripts generated from the parser, valid for their shell."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

import pytest

from d100.cli import COMMANDS

from .conftest import clean_error, d100

HERE = Path(__file__).parent


@functools.cache
def script(shell: str) -> str:
    """``d100 completion SHELL``'s script, made once per test process: building the whole
    parser imports every command's module (the Discord one loads the server's stack), and the
    script it gives is the same each time."""
    run = d100("completion", shell)
    assert run.status == 0, run.err
    return run.out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_knows_every_command_and_flag(shell: str) -> None:
    out = script(shell)
    for command in COMMANDS:
        assert command in out, command
    for flag in ("difficulty", "luck-boost", "color"):  # fish names flags without dashes
        assert flag in out
    checker = {"bash": ["bash", "-n"], "zsh": ["zsh", "-n"], "fish": ["fish", "--no-execute"]}
    if shutil.which(checker[shell][0]) is None:
        return  # the text checks above still ran; the syntax needs the shell itself
    done = subprocess.run(checker[shell], input=out, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


def test_bash_completes_a_command_and_its_flags() -> None:
    probe = (
        script("bash")
        + '\nCOMP_WORDS=(d100 che); COMP_CWORD=1; COMP_LINE="d100 che"; COMP_POINT=8\n'
        + "_shtab_d100 d100 che d100; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
        + 'COMP_WORDS=(d100 roll --sy); COMP_CWORD=2; COMP_LINE="d100 roll --sy"\n'
        + "_shtab_d100 d100 --sy roll; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert "check" in done.stdout.split() and "--system" in done.stdout.split(), done


def test_an_unknown_shell_is_a_clean_error() -> None:
    assert "did you mean bash?" in clean_error(d100("completion", "bsh"))


def bash_completes(*typed: str) -> list[str]:
    """What bash offers for the last of ``typed`` after ``d100``."""
    words = ["d100", *typed]
    line = " ".join(words)
    probe = (
        script("bash")
        + f"\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; COMP_LINE='{line}'; "
        + f"COMP_POINT={len(line)}\n"
        + f"_shtab_d100 d100 '{typed[-1]}' '{words[-2]}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
    )
    done = subprocess.run(
        ["bash", "-c", probe], capture_output=True, text=True, timeout=30, cwd=HERE
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_systems_presets_and_sheet_files() -> None:
    from d100.systems import REGISTRY

    assert set(bash_completes("check", "--system", "")) == set(REGISTRY.names())
    assert {"hard", "extreme", "regular"} <= set(bash_completes("check", "-d", ""))
    assert "coc7" in bash_completes("roll", "co")  # the quick form's first word
    assert {"tough", "take50"} & set(bash_completes("roll", "chances", "40", "t"))
    assert "test_completion.py" in bash_completes("check", "--sheet", "test_comp")
