"""The entry points, help with examples on every command, and clean usage errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from d100 import REGISTRY, __version__
from d100.cli import flags

from .conftest import clean_error, d100

COMMANDS = [
    "roll",
    "completion",
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
    covered = {f.field for f in flags.flag_table()}
    covered |= {"system", "house_rules"}
    covered |= {s.declares.assistance.field for s in REGISTRY if s.declares.assistance}
    for system in REGISTRY:
        for field in (*system.check_fields, *system.contest_fields):
            if field.name in ("actor", "opponent"):
                assert {f.name for f in field.fields} <= covered
            else:
                assert field.name in covered, (system.name, field.name)


HEAVY = ("fastapi", "sqlalchemy", "numpy", "matplotlib", "uvicorn", "rich", "tomlkit", "shtab")


def _imported_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(done.stdout.split())


def test_the_command_line_imports_only_what_it_uses() -> None:
    loaded = _imported_after("import d100.cli")
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}
    # a plain check loads its own module and the renderer it prints with, nothing more
    loaded = _imported_after(
        "import contextlib, io\nfrom d100.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['check', '-s', 'brp', '--skill', '50', '--dice', '42'])"
    )
    assert "d100.cli.roll" in loaded and "d100.render.plain" in loaded
    others = {"d100.cli." + m for m in ("chart", "serve", "verify", "shell", "simulate", "odds")}
    assert not loaded & others
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}


def test_help_lists_every_command_without_importing_them() -> None:
    run = d100("--help")
    for command in COMMANDS:
        assert command in run.out


def test_outside_systems_are_looked_for_only_where_declared(tmp_path: Path) -> None:
    # a package declaring an entry point in the group is seen, so the full loader runs
    info = tmp_path / "dice_extra-1.0.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_text("[d100.systems]\nextra = dice_extra:SYSTEM\n")
    probe = "from d100 import plugins; print(plugins._declared_anywhere())"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    seen = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert seen.stdout.strip() == "True", seen.stderr
    # and without one, a quick roll never imports importlib.metadata
    loaded = _imported_after(
        "import contextlib, io\nfrom d100.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['roll', 'brp', '65', '@42'])"
    )
    assert "importlib.metadata" not in loaded


def test_every_systems_words_and_flags_are_its_own() -> None:
    """No quick word means two fields of one system, and no option string sets two fields:
    a system's words and flags come from its fields alone (d100.quick, flags.flag_table)."""
    from d100 import quick

    for system in REGISTRY:
        for contest in (False, True):
            fields = [f for f in quick.word_fields(system, contest) if f.option_strings]
            words = quick.words_of(system.name, contest)
            for word in words:
                quick.meaning(word, system, contest)  # raises when two fields take it
    seen: dict[str, str] = {}
    for flag in flags.flag_table():
        for name in flag.names:
            assert seen.setdefault(name, flag.dest) == flag.dest, (name, flag.dest)
    assert fields  # the loop saw fields
