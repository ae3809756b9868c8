"""Every example in every command's ``--help`` and in the README runs against the README's own
party sheet, with the exit status it shows (0, or 2 where the README shows an error)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from d100.cli import COMMANDS, build_parser

README = Path(__file__).parents[2] / "README.md"
BIN = Path(sys.executable).parent
# Examples that cannot run here: a server that runs until stopped, a table log to verify.
SKIPPED = ("d100 serve", "d100 verify")


def readme_party() -> str:
    text = README.read_text()
    block = re.search(r"```console\n\$ cat party\.toml\n(.*?)```", text, re.S)
    assert block, "the README shows its party with `cat party.toml`"
    return block[1]


def readme_examples() -> list[tuple[str, int]]:
    """Each ``$ d100 ...`` line of the README's console blocks, with the status its output
    shows."""
    out = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), re.S):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("$ ") and "d100" in line and "cat party" not in line:
                shown = lines[i + 1] if i + 1 < len(lines) else ""
                out.append((line[2:], 2 if shown.startswith("d100: error:") else 0))
    return out


def help_examples() -> list[tuple[str, int]]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    parsers = dict(sub.choices)  # type: ignore[attr-defined]
    out = []
    for name, p in parsers.items():
        if name not in COMMANDS or not p.description or "examples:" not in p.description:
            continue
        for line in p.description.split("examples:", 1)[1].splitlines():
            command = line.split("  #")[0].strip()
            if "d100" in command:
                out.append((command, 0))
    return sorted(set(out))


EXAMPLES = sorted(
    e for e in set(readme_examples()) | set(help_examples()) if not e[0].startswith(SKIPPED)
)


@pytest.mark.parametrize(("command", "status"), EXAMPLES)
def test_the_example_runs(command: str, status: int, tmp_path: Path) -> None:
    if "sheet new" not in command:  # sheet new makes its own sheet from nothing
        (tmp_path / "party.toml").write_text(readme_party())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("D100_", "NO_COLOR"))}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", XDG_CONFIG_HOME=str(tmp_path))
    env["XDG_STATE_HOME"] = str(tmp_path)
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=tmp_path,
        env=env,
        input="quit\n",  # d100 shell reads one line and leaves
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == status, (command, done.stdout[-500:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr


def test_examples_were_found() -> None:
    assert len(readme_examples()) > 20 and len(help_examples()) > 30
    assert shutil.which("bash")
    # only the server and the log checker are left out, and only their own examples
    left_out = [c for c, _ in {*readme_examples(), *help_examples()} if c.startswith(SKIPPED)]
    assert left_out and all(c.split()[1] in ("serve", "verify") for c in left_out)
