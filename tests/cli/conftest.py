"""Run the command (``python -m d100``'s main, in a process of its own) as a user would,
colour off."""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import forked

HOME = Path(tempfile.mkdtemp(prefix="d100-cli-tests-"))

PARTY = """\
[alice]
system = "brp"
luck = { current = 2, maximum = 13 }
skills = { stealth = 65, "spot hidden" = 50, spot = 20, dodge = 40 }

[bob]
system = "brp"
luck = { current = 5, maximum = 10 }
skills = { stealth = 40, listen = 55 }

[carol]
system = "chances"
skills = { sneaking = 40, hiding = 30, hearing = 50, shooting = 45 }
abilities = { dex = 10, per = 5 }
synergy = { sneaking = ["hiding"] }

[dara]
system = "chances"
skills = { sneaking = 20, hearing = 60 }
abilities = { dex = 5, per = 12 }

[erin]
system = "openquest"
skills = { perception = 55, stealth = 70 }

[finn]
system = "openquest"
skills = { perception = 40 }
"""


@dataclass(frozen=True)
class Run:
    status: int
    out: str
    err: str


def d100(
    *args: str, stdin: str = "", env: dict[str, str] | None = None, cwd: Path | None = None
) -> Run:
    ignored = ("D100_SHEET", "D100_SYSTEM", "NO_COLOR", "FORCE_COLOR")
    environ = {k: v for k, v in os.environ.items() if k not in ignored}
    # no config file or shell history of the person running the tests
    environ["XDG_CONFIG_HOME"] = environ["XDG_STATE_HOME"] = str(HOME / "xdg")
    environ.update(forked.environment())
    environ.update(env or {})
    done = subprocess.run(
        [forked.SHIM, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environ,
        cwd=cwd,
        timeout=60,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def clean_error(run: Run) -> str:
    """Bad input: exit 2, nothing on stdout, and one line on stderr that is not a traceback."""
    assert run.status == 2, run
    assert "Traceback" not in run.err
    first = run.err.splitlines()[0]
    assert first.startswith("d100: error: "), run.err
    return first


@pytest.fixture
def party(tmp_path: Path) -> Path:
    path = tmp_path / "party.toml"
    path.write_text(PARTY)
    return path
