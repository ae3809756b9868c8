"""(f) Start-up: a command's wall time against a bare ``import d100``, measured in the same run.

Each command and the baseline run alternately in fresh interpreters, and the best of several runs
stands (the least disturbed by other work on the machine). Target: within 1.5x of the baseline.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from .report import Report

BASELINE = [sys.executable, "-c", "import d100"]
COMMANDS = {
    "d100 check -s brp --skill 50": ["check", "-s", "brp", "--skill", "50", "--dice", "42"],
    "d100 roll brp 65 hard b1": ["roll", "brp", "65", "hard", "b1", "@42,7"],
}
TARGET = 1.5


def _once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def startup(report: Report, quick: bool) -> None:
    runs = 5 if quick else 20
    for case, args in COMMANDS.items():
        command = [str(Path(sys.executable).with_name("d100")), *args]  # the console script
        ours, base = [], []
        for _ in range(runs):  # alternate, so both see the same load
            base.append(_once(BASELINE))
            ours.append(_once(command))
        report.add(
            "f",
            f"start-up, {case}",
            min(ours),
            {"python -c 'import d100'": min(base)},
            f"<= {TARGET}x the bare import",
            lambda ratio: 1 / ratio <= TARGET,
            note=f"best of {runs}",
        )
