"""Run the benchmarks and print one Markdown table of figures and ratios."""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import bulk, contests, discord, odds_checks, server, startup, tables, worst
from .report import Report

SECTIONS = {
    "a": odds_checks.one_check,
    "b": odds_checks.full_tables,
    "c": contests.all_pairs,
    "d": bulk.sampling,
    "e": server.rolls,
    "f": startup.startup,
    "g": tables.many_tables,
    "h": worst.worst,
    "i": discord.discord_load,
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a short smoke run (subsets)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help="comma-separated sections among " + ",".join(SECTIONS))
    parser.add_argument("--fsync-delay-ms", type=float, metavar="MS",
                        help="(e) on SQLite only: make every fsync wait MS first, emulating a "
                             "slow disk (an LD_PRELOAD shim built from bench/slow_fsync.c)")
    args = parser.parse_args()
    if args.fsync_delay_ms is not None and server.FSYNC_DELAY_ENV not in os.environ:
        _with_slow_fsync(parser, args.fsync_delay_ms)  # does not return
    wanted = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in wanted if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown sections {unknown}; choose among {list(SECTIONS)}")
    report = Report()
    started = time.perf_counter()
    print(f"# d100 bench ({'quick' if args.quick else 'full'}): python {platform.python_version()},"
          f" {os.cpu_count()} cpus, {platform.machine()}", flush=True)
    for name in wanted:
        SECTIONS[name](report, args.quick)
    report.print()
    print(f"\ntotal {time.perf_counter() - started:.1f} s")


def _with_slow_fsync(parser: argparse.ArgumentParser, delay_ms: float) -> None:
    """Run this bench again with the shim preloaded, for this process and the server's."""
    if delay_ms < 0:
        parser.error(f"--fsync-delay-ms: {delay_ms} is negative; give 0 or more")
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        parser.error("--fsync-delay-ms needs a C compiler (cc, or $CC) to build the shim")
    shim = Path(tempfile.mkdtemp(prefix="d100-bench-")) / "slow_fsync.so"
    source = Path(__file__).with_name("slow_fsync.c")
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(shim), str(source), "-ldl"],
                   check=True)
    env = {**os.environ, "LD_PRELOAD": str(shim),
           server.FSYNC_DELAY_ENV: str(round(delay_ms * 1000))}
    os.execve(sys.executable, [sys.executable, "-m", "bench", *sys.argv[1:]], env)


if __name__ == "__main__":
    main()
