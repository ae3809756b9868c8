"""Run the benchmarks and print one Markdown table of figures and ratios."""

from __future__ import annotations

import argparse
import os
import platform
import time

from . import bulk, contests, odds_checks, server
from .report import Report

SECTIONS = {
    "a": odds_checks.one_check,
    "b": odds_checks.full_tables,
    "c": contests.all_pairs,
    "d": bulk.sampling,
    "e": server.rolls,
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a short smoke run (subsets)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help="comma-separated sections among " + ",".join(SECTIONS))
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
