"""Many seeded rolls of one request reduced to counts: ``d100 simulate`` and sampling tests.

With numpy installed, the dice of every roll are drawn at once as arrays and each roll is named
by a lookup table. The table is filled by the resolution code itself: each cell is the request
resolved on given dice (G3), so the sampler decides nothing the engine does not. What cannot be
put in a table (Luck rerolls, assists, given dice) takes the plain loop, as does everything
when numpy is absent: numpy stays optional for the core.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .declarations import Roller
from .dice import read_digits
from .engine import parse, resolve
from .machine import Dice, run
from .results import CheckResult
from .tallies import is_contest, plan_of, system_of

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

ProgressFn = Callable[[int], None]
CHUNK = 1 << 20  # rolls per block: bounds memory at a few tens of MB and paces progress


def sample(
    request: Any, n: int, seed: int | None = None, progress: ProgressFn | None = None
) -> dict[str, int]:
    """Counts of each level (a check) or winner (a contest) over ``n`` seeded rolls.

    ``progress``, when given, is called now and then with the number of rolls done."""
    parsed = parse(request) if isinstance(request, dict) else request
    try:
        import numpy  # noqa: F401  (optional: the loop below needs nothing but the core)
    except ImportError:
        return _loop(parsed, n, seed, progress)
    sides = _sides(parsed)
    if sides is None:
        return _loop(parsed, n, seed, progress)
    return _vectorised(parsed, sides, n, seed, progress)


def _loop(parsed: Any, n: int, seed: int | None, progress: ProgressFn | None) -> dict[str, int]:
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    step = max(1, n // 100)
    for i in range(n):
        result = resolve(parsed, rng)
        counts[result.level if isinstance(result, CheckResult) else result.winner] += 1
        if progress is not None and (i + 1) % step == 0:
            progress(i + 1)
    return dict(counts)


def _draw(roller: Roller, rng: np.random.Generator, n: int) -> NDArray[np.uint8]:
    """The kept value 1..100 of ``n`` rolls as the system's roller declares them."""
    import numpy as np

    if roller.tens:  # one units die shared by every tens die, each pair read as G1 reads it
        units = rng.integers(0, 10, size=n, dtype=np.uint8)
        tens = rng.integers(0, 10, size=(roller.count, n), dtype=np.uint8)
        values = _digits_table()[10 * tens + units]
    else:
        values = rng.integers(1, 101, size=(roller.count, n), dtype=np.uint8)
    kept: NDArray[np.uint8] = (
        values[0]
        if roller.count == 1
        else values.min(axis=0)
        if roller.lower
        else values.max(axis=0)
    )
    return kept


def _digits_table() -> NDArray[np.uint8]:
    """Every (tens, units) pair of digits, indexed 10 * tens + units, as the d100 it reads."""
    import numpy as np

    return np.array([read_digits(t, u) for t in range(10) for u in range(10)], dtype=np.uint8)


def _kept_by(roller: Roller, kept: int) -> tuple[int, ...]:
    """Dice that keep ``kept``: every die showing it (they share their units, for tens)."""
    return (kept,) * roller.count


def _sides(parsed: Any) -> list[Roller] | None:
    """Each side's roller, or None where a side's roll is not one kept value (the loop)."""
    sampler = system_of(parsed).declares.sampler
    if is_contest(parsed):
        if getattr(parsed, "coin", None) is not None:
            return None
        rollers = [sampler(parsed.actor), sampler(parsed.opponent)]
    else:
        rollers = [sampler(parsed)]
    return None if None in rollers else [r for r in rollers if r is not None]


def _with_dice(parsed: Any, sides: list[Roller], kept: tuple[int, ...], coin: int) -> Any:
    """The request with the dice that keep ``kept`` given, side by side (and the coin)."""
    if not is_contest(parsed):
        return dataclasses.replace(parsed, dice=_kept_by(sides[0], kept[0]))
    changes: dict[str, Any] = {
        name: dataclasses.replace(getattr(parsed, name), dice=_kept_by(roller, k))
        for name, roller, k in zip(("actor", "opponent"), sides, kept, strict=True)
    }
    if hasattr(parsed, "coin"):  # CH6: the tie-break flip is one more die, 1..2
        changes["coin"] = ("actor", "opponent")[coin]
    return dataclasses.replace(parsed, **changes)


def _outcome(request: Any) -> str:
    """The resolution code's verdict on a request whose dice are all given (G3). Dice a roll
    does not use (a master's, OQ3; a coin without a tie) are left over, hence not strict."""
    plan = plan_of(request)
    return plan.outcome(run(plan.machine, Dice(None, plan.given), strict=False))


def _vectorised(
    parsed: Any, sides: list[Roller], n: int, seed: int | None, progress: ProgressFn | None
) -> dict[str, int]:
    import numpy as np

    rng = np.random.default_rng(seed)
    coins = 2 if is_contest(parsed) and hasattr(parsed, "coin") else 1
    # One cell per (kept value of each side, coin): 100, 10,000 or 20,000 cells.
    shape = (*(101,) * len(sides), coins)
    cells = np.zeros(int(np.prod(shape)), dtype=np.int64)
    done = 0
    while done < n:
        m = min(CHUNK, n - done)
        index: NDArray[Any] = _draw(sides[0], rng, m)  # a check's kept values index directly
        for roller in sides[1:]:
            index = index.astype(np.int64) * 101 + _draw(roller, rng, m)
        if coins > 1:
            index = index * coins + rng.integers(0, coins, size=m)
        cells += np.bincount(index, minlength=cells.size)
        done += m
        if progress is not None:
            progress(done)
    counts: Counter[str] = Counter()
    for flat in np.flatnonzero(cells):
        *kept, coin = np.unravel_index(flat, shape)
        request = _with_dice(parsed, sides, tuple(int(k) for k in kept), int(coin))
        counts[_outcome(request)] += int(cells[flat])
    return dict(counts)
