"""Timing helpers and the results table."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


def best(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """The best wall time of ``repeat`` runs (the least disturbed by other work), and a result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def best_each(fns: dict[str, Callable[[], Any]], repeat: int = 1) -> dict[str, float]:
    """The least CPU time of this process (``time.process_time``) each function took over
    ``repeat`` rounds, the functions taking turns within each round: CPU time leaves out the
    waits for a shared machine's other work, and a neighbour's burst of it (its cache misses)
    then falls on all of them alike, not on whichever happened to be timed during it."""
    times = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.process_time()
            fn()
            times[name] = min(times[name], time.process_time() - start)
    return times


def same(label: str, ours: dict[str, Fraction], theirs: dict[str, Fraction]) -> None:
    """A baseline that does not give d100's numbers is not timed: the comparison would lie."""
    a = {k: v for k, v in ours.items() if v}
    b = {k: v for k, v in theirs.items() if v}
    if a != b:
        raise SystemExit(f"baseline disagrees with d100 on {label}: {b} != {a}")


def seconds(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:.0f} µs"
    if t < 1:
        return f"{t * 1e3:.1f} ms"
    return f"{t:.2f} s"


@dataclass
class Row:
    section: str
    case: str
    ours: float
    baselines: dict[str, float]
    target: str
    met: bool | None
    note: str = ""
    text: tuple[str, str] | None = None  # figures already written out (d100, baselines)


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, section: str, case: str, ours: float, baselines: dict[str, float],
            target: str, goal: Callable[[float], bool] | None, note: str = "") -> None:
        """``goal`` gets the ratio fastest-baseline / d100 (above 1: d100 is faster)."""
        fastest = min(baselines.values()) if baselines else float("nan")
        met = goal(fastest / ours) if goal and baselines else None
        row = Row(section, case, ours, baselines, target, met, note)
        self.rows.append(row)
        print(f"  {section} {case}: d100 {seconds(ours)}; "
              + ", ".join(f"{k} {seconds(v)} ({v / ours:.1f}x)" for k, v in baselines.items())
              + f"  [{target}: {'met' if met else 'NOT met' if met is not None else '-'}]",
              flush=True)

    def line(self, section: str, case: str, ours: str, baselines: str, target: str,
             met: bool | None) -> None:
        """A row whose figures are not one time against baseline times (rates, latencies)."""
        self.rows.append(Row(section, case, 0.0, {}, target, met, text=(ours, baselines)))
        word = "met" if met else "NOT met" if met is not None else "-"
        verdict = f"  [{target}: {word}]" if target else ""  # a row with no target: no verdict
        print(f"  {section} {case}: {ours}; {baselines}{verdict}", flush=True)

    def note(self, text: str) -> None:
        self.notes.append(text)
        print("  note: " + text, flush=True)

    def print(self) -> None:
        print("\n| | case | d100 | baselines (time, ratio = baseline / d100) | target | met |")
        print("|---|---|---|---|---|---|")
        for r in self.rows:
            base = "; ".join(
                f"{k} {seconds(v)} ({v / r.ours:.1f}x)" for k, v in r.baselines.items())
            ours = seconds(r.ours)
            if r.text is not None:
                ours, base = r.text
            met = "yes" if r.met else "no" if r.met is not None else "-"
            case = f"{r.case} ({r.note})" if r.note else r.case
            print(f"| {r.section} | {case} | {ours} | {base} | {r.target} | {met} |")
        for n in self.notes:
            print(f"\n- {n}")
