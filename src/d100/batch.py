"""Many seeded rolls of one request reduced to counts: ``d100 simulate`` and sampling tests."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from .engine import parse, resolve
from .results import CheckResult

ProgressFn = Callable[[int], None]


def sample(
    request: Any, n: int, seed: int | None = None, progress: ProgressFn | None = None
) -> dict[str, int]:
    """Counts of each level (a check) or winner (a contest) over ``n`` seeded rolls.

    ``progress``, when given, is called now and then with the number of rolls done."""
    parsed = parse(request) if isinstance(request, dict) else request
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    step = max(1, n // 100)
    for i in range(n):
        result = resolve(parsed, rng)
        counts[result.level if isinstance(result, CheckResult) else result.winner] += 1
        if progress is not None and (i + 1) % step == 0:
            progress(i + 1)
    return dict(counts)
