"""``d100 simulate``: many seeded rolls, observed frequencies beside the exact odds."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import Progress

from ..batch import sample
from ..engine import odds
from ..errors import D100Error
from ..render.checks import inputs_text
from ..render.odds_views import simulate_view
from ..results import CheckOdds, ContestOdds
from ..systems import REGISTRY
from . import flags
from .output import show
from .parser import Parser
from .roll import check_request, contest_request

HELP = """\
Roll a request N times with a seed and print each level's observed frequency beside its exact
probability. Long runs show a progress bar on a terminal.

examples:
  d100 simulate -s brp --skill 65 --bonus 1 -n 100000 --seed 1
  d100 simulate -s chances --skill 40 --ability 10 --risk tough -n 20000
  d100 simulate --sheet party.toml alice stealth -n 50000 --seed 7
  d100 simulate -s openquest --skill 60 --vs --skill 45 -n 20000 --seed 1
  d100 simulate --sheet party.toml carol sneaking --vs dara -n 20000
"""
PROGRESS_FROM = 20_000  # shorter runs finish before a bar would help


def register(sub: Any) -> None:
    p = flags.check_parser(sub, "simulate", HELP, dice=False)
    p.add_argument("-n", "--rolls", type=int, default=10_000, help="how many rolls (10000)")
    p.add_argument("--seed", type=int, default=None, help="seed: the same seed, the same counts")
    p.add_argument(
        "--vs",
        nargs=argparse.REMAINDER,
        metavar="OPPONENT",
        help="simulate a contest: the opponent's [WHO SKILL] and flags, as in d100 contest",
    )
    flags.add_output(p)
    p.set_defaults(run=run)


@contextmanager
def progress_bar(n: int, shown: bool) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on standard error, or nothing (short runs, pipes)."""
    if not shown:
        yield None
        return
    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("rolling", total=n)
        yield lambda done: bar.update(task, completed=done)


def run(ns: argparse.Namespace) -> int:
    if ns.vs is not None:
        rolls = Parser(add_help=False)
        rolls.add_argument("-n", "--rolls", type=int)
        after, ns.vs = rolls.parse_known_args(ns.vs)  # -n may come after --vs too
        ns.rolls = after.rolls if after.rolls is not None else ns.rolls
        request, names, _ = contest_request(ns)
        title: str | None = f"{names[0]} against {names[1]}"
        contest = odds(request)
        assert isinstance(contest, ContestOdds)
        exact, outcomes = contest.to_dict(), contest.winner
    else:
        sheet = flags.open_sheet(ns) if ns.names else None
        title, request = check_request(ns, sheet)
        check = odds(request)
        assert isinstance(check, CheckOdds)
        exact, outcomes = check.to_dict(), check.levels
    if not 1 <= ns.rolls <= 100_000_000:
        raise D100Error("--rolls", ns.rolls, "an integer 1..100000000", f"out of range: {ns.rolls}")
    shown = sys.stderr.isatty() and ns.rolls >= PROGRESS_FROM and not ns.json
    with progress_bar(ns.rolls, shown) as progress:
        counts = sample(request, ns.rolls, ns.seed, progress)
    asked = inputs_text(request) if ns.vs is None else REGISTRY.get(request["system"]).title
    head = f"{title or 'Simulation'} — {asked}; {ns.rolls} rolls"
    if ns.seed is not None:
        head += f", seed {ns.seed}"
    data = {"rolls": ns.rolls, "seed": ns.seed, "counts": counts, "odds": exact}
    levels_of = request["system"] if ns.vs is None else None
    show(ns, simulate_view(head, counts, outcomes, levels_of), data)
    return 0
