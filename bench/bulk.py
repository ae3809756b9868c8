"""(d) bulk sampling: seeded checks reduced to level counts, against drawing the dice alone."""

from __future__ import annotations

import random
import time
import tracemalloc
from collections import Counter
from typing import Any

import d20
import numpy as np

import d100
from d100.batch import sample
from d100.dice import read_digits

from .baselines import level_fn, net_of, tens_pool
from .report import Report, best


def _loop(check: Any, n: int) -> Counter[str]:
    """The plain Python way: random d100s, lowest/highest kept, a level function per roll;
    for a tens-die pool, one units die and the tens dice read over it (C7-3)."""
    rng, level, k = random.Random(1), level_fn(check), abs(net_of(check)) + 1
    keep = min if net_of(check) >= 0 else max
    if tens_pool(check.system) and k > 1:
        def roll() -> int:
            units = rng.randint(0, 9)
            return keep(read_digits(rng.randint(0, 9), units) for _ in range(k))

        return Counter(level(roll()) for _ in range(n))
    return Counter(level(keep(rng.randint(1, 100) for _ in range(k))) for _ in range(n))


def _draws(check: Any) -> tuple[int, int]:
    """Dice per check and their faces: k d100s, or one units die and k tens dice (C7-3)."""
    k = abs(net_of(check)) + 1
    return (k + 1, 10) if tens_pool(check.system) and k > 1 else (k, 100)


def _d20_expr(check: Any) -> str | None:
    """d20's keep-lowest/highest of d100s; it has no way to read tens dice over one units
    die, so a tens-die pool has none."""
    k = abs(net_of(check)) + 1
    if tens_pool(check.system) and k > 1:
        return None
    return "1d100" if k == 1 else f"{k}d100{'kl1' if net_of(check) > 0 else 'kh1'}"


def _d20(check: Any, expr: str, n: int) -> Counter[str]:
    level = level_fn(check)
    return Counter(level(d20.roll(expr).total) for _ in range(n))


def sampling(report: Report, quick: bool) -> None:
    n = 1_000_000 if quick else 10_000_000
    print(f"(d) bulk sampling, {n:,} checks", flush=True)
    for label, request in [
        ("brp", {"system": "brp", "skill": 65}),
        ("brp, 2 bonus dice", {"system": "brp", "skill": 65, "bonus_dice": 2}),
        ("openquest", {"system": "openquest", "skill": 65}),
        ("chances", {"system": "chances", "skill": 40, "risk": "average"}),
        ("coc7", {"system": "coc7", "skill": 65}),
        ("coc7, 2 bonus dice", {"system": "coc7", "skill": 65, "bonus_dice": 2}),
        ("rqg", {"system": "rqg", "skill": 65}),
    ]:
        check = d100.parse(request)
        per, faces = _draws(check)
        dice = n * per
        sample(check, 1000, seed=1)  # warm: numpy's first use and the lookup code
        t, counts = best(lambda check=check: sample(check, n, seed=1), 1 if quick else 2)
        assert sum(counts.values()) == n
        tracemalloc.start()
        sample(check, n, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()

        def numpy_draw(dice: int = dice, faces: int = faces) -> None:
            # The dice the rules roll, in one array: the practical limit.
            low = 1 if faces == 100 else 0
            np.random.default_rng(1).integers(low, low + faces, size=dice, dtype=np.uint8)

        tn, _ = best(numpy_draw, 1 if quick else 2)
        few = n // 50
        tl, _ = best(lambda check=check, few=few: _loop(check, few), 1)
        theirs = {"numpy draw alone": tn, "python loop": tl * n / few}
        expr = _d20_expr(check)
        if expr is not None:
            tz, _ = best(lambda check=check, e=expr, few=few: _d20(check, e, few // 20), 1)
            theirs["d20"] = tz * n / (few // 20)
        report.add("d", f"{label}, {n:,}", t, theirs,
                   "<= 2x numpy", lambda r: r >= 0.5,
                   f"loop and d20 timed on {few:,} and {few // 20:,} checks, scaled; memory peak "
                   f"{peak / 2**20:.1f} MiB")
    walked(report, quick)


def _cpu(fn: Any, repeat: int) -> tuple[float, Any]:
    """The least CPU time of ``repeat`` runs: numpy here is single-threaded, and CPU time is far
    less disturbed than wall time by other work on a shared machine."""
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return min(times), result


def walked(report: Report, quick: bool) -> None:
    """Rolls that are not one kept value (Luck rerolls, helpers) against the plain vectorised
    path on the same checks without them, at the same count, in CPU time. Target: within 3x."""
    n = 200_000 if quick else 2_000_000
    for label, request, plain in [
        ("brp, 2 Luck rerolls", {"system": "brp", "skill": 45, "luck_rerolls": 2},
         {"system": "brp", "skill": 45}),
        ("openquest, assisted", {"system": "openquest", "skill": 55, "assist": {"skill": 40}},
         {"system": "openquest", "skill": 55}),
        ("chances, 2 assisters",
         {"system": "chances", "skill": 40, "risk": "tough",
          "assisters": [{"skill": 30}, {"skill": 20}]},
         {"system": "chances", "skill": 40, "risk": "tough"}),
    ]:
        sample(request, 1000, seed=1)
        sample(plain, 1000, seed=1)
        t, counts = _cpu(lambda r=request: sample(r, n, seed=1), 1 if quick else 5)
        assert sum(counts.values()) == n
        tp, _ = _cpu(lambda r=plain: sample(r, n, seed=1), 1 if quick else 5)
        report.add("d", f"{label}, {n:,}", t, {"vectorised, without them": tp},
                   "<= 3x the vectorised path", lambda r: r >= 1 / 3, "CPU time, best of 5")
