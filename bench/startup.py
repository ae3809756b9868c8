"""(f) Start-up: a command's wall time against a bare ``import d100``, measured in the same run.

Each command and the baseline run alternately in fresh interpreters. The figure is the child's CPU
time (user + system), which other work on a shared machine disturbs far less than wall time, and
the best of several runs stands. Both run with compiled bytecode cached, as an installed d100
does (in a throwaway cache, whatever PYTHONDONTWRITEBYTECODE says). Target: within 1.5x of the
baseline.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from .report import Report

BASELINE = [sys.executable, "-c", "import d100"]
COMMANDS = {
    "d100 check -s brp --skill 50": ["check", "-s", "brp", "--skill", "50", "--dice", "42"],
    "d100 roll brp 65 hard b1": ["roll", "brp", "65", "hard", "b1", "@42,7"],
}
TARGET = 1.5


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _once(argv: list[str], env: dict[str, str]) -> float:
    start = _cpu()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    return _cpu() - start


def startup(report: Report, quick: bool) -> None:
    runs = 5 if quick else 20
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="d100-bench-pycache-")
    for case, args in COMMANDS.items():
        command = [str(Path(sys.executable).with_name("d100")), *args]  # the console script
        _once(BASELINE, env), _once(command, env)  # fill the bytecode cache
        ours, base = [], []
        for _ in range(runs):  # alternate, so both see the same load
            base.append(_once(BASELINE, env))
            ours.append(_once(command, env))
        report.add(
            "f",
            f"start-up, {case}",
            min(ours),
            {"python -c 'import d100'": min(base)},
            f"<= {TARGET}x the bare import",
            lambda ratio: 1 / ratio <= TARGET,
            note=f"CPU time, best of {runs}",
        )
