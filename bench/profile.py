"""Where a roll's server CPU goes: section (g)'s load on one server process, sampled.

``python -m bench.profile [--database sqlite|postgresql] [--rate 30] [--seconds 12]`` sets up
(g)'s tables (every member's live stream open), runs one open-loop phase at ``--rate`` rolls/s
and reports the server's CPU per roll, as (g) counts it; with py-spy installed
(``pip install py-spy``) it samples the server meanwhile (only threads holding the GIL: about
where its CPU goes) and prints the functions on the most samples (inclusive: a function and
everything it called), with ``--flame FILE`` keeping the collapsed stacks.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import server as single
from . import tables

TOP = 30


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--rate", type=int, default=tables.TARGET_RATE)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--flame", type=Path, help="keep py-spy's collapsed stacks here")
    args = parser.parse_args()
    database: Callable[[], Any] = (
        single._sqlite_database if args.database == "sqlite" else single._postgres_database
    )
    spy = shutil.which("py-spy")
    with (
        database() as (url, _),
        tempfile.TemporaryDirectory() as work,
        tables._serve(url, Path(work), 0) as base,
    ):
        members = asyncio.run(tables._setup([base], tables.TABLES, tables.MEMBERS))
        asyncio.run(tables._phase(members, args.rate, 2.0, base))  # warm-up
        stacks = Path(work) / "stacks.txt"
        sampler = None
        if spy is not None:
            pid = tables._server_pid(base)
            sampler = subprocess.Popen(
                [spy, "record", "--pid", str(pid), "--rate", "200", "--format", "raw",
                 "--duration", str(int(args.seconds) + 1), "--output", str(stacks),
                 "--nonblocking", "--gil"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        result = asyncio.run(tables._phase(members, args.rate, args.seconds, base))
        if sampler is not None:
            sampler.wait()
        rolls = max(1, len(result.rolls))
        print(f"{args.database}, {args.rate} rolls/s offered, {len(result.rolls)} rolls: "
              f"server CPU {result.cpu / rolls * 1e3:.1f} ms per roll (its delivery included); "
              f"roll p99 {tables._pct(result.rolls, 0.99) * 1e3:.1f} ms")
        if sampler is None:
            print("(py-spy not installed: no profile)")
            return
        if args.flame is not None:
            shutil.copy(stacks, args.flame)
        _top(stacks.read_text())


def _top(collapsed: str) -> None:
    """Each function's share of the samples, counted once per sample it is on the stack of."""
    total, held = 0, Counter[str]()
    for line in collapsed.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():  # a frame's name may hold a line break
            continue
        n = int(count)
        total += n
        for frame in set(stack.split(";")):
            held[_short(frame)] += n
    print(f"{total} samples; inclusive share, top {TOP}:")
    for frame, n in held.most_common(TOP):
        print(f"{n / total:6.1%}  {frame}")


def _short(frame: str) -> str:
    """``func (path/to/module.py:line)`` as ``func (module.py)``: one entry per function."""
    name, _, where = frame.partition(" (")
    return f"{name} ({Path(where.split(':', 1)[0]).name})"


if __name__ == "__main__":
    main()
