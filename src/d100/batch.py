"""Many seeded rolls of one request reduced to counts: ``d100 simulate`` and sampling tests.

With numpy installed, the dice of every roll are drawn at once as arrays and each roll is named
by a lookup table. The table is filled by the resolution code itself: each cell is the request
resolved on given dice (G3), so the sampler decides nothing the engine does not. Where a roll
is not one kept value per side (Luck rerolls, helpers), the request's own machine is walked
instead: every state it can reach and where each face of its next die leads, so that all
rolls take their next die at once, step by step. Given dice, and machines with too many states
to list, take the plain loop, as does everything when numpy is absent: numpy stays optional
for the core.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from .declarations import Roller
from .dice import read_digits
from .engine import parse, resolve
from .machine import Dice, run
from .memo import memoised
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
    if sides is not None:
        return _vectorised(parsed, sides, n, seed, progress)
    walk = _walk(parsed)
    if walk is not None:
        return _stepped(walk, n, seed, progress)
    return _loop(parsed, n, seed, progress)


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

    if roller.tens and roller.count > 1:
        # One units die shared by every tens die: all of a roll's digits drawn as one number
        # below 10^(count+1) (each digit uniform and independent, as separate dice), its
        # kept value looked up in a table of every such number (``_tens_kept``).
        faces = 10 ** (roller.count + 1)
        kind = np.uint16 if faces <= 1 << 16 else np.uint32
        draws = rng.integers(0, faces, size=n, dtype=kind)
        return np.take(_tens_kept(roller.count, roller.lower), draws)
    # one tens die over its units die reads as one d100 (G1)
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


@memoised(8)
def _tens_kept(count: int, lower: bool) -> NDArray[np.uint8]:
    """The kept value of every draw ``units + 10 * tens`` of ``count`` tens digits (the i-th
    the i-th decimal digit of ``tens``, as given dice encode them): each tens digit read with
    the units as G1 reads a pair, the lowest (bonus) or highest (penalty) kept."""
    import numpy as np

    draws = np.arange(10 ** (count + 1))
    units = draws % 10
    tens = [(draws // 10 ** (i + 1)) % 10 for i in range(count)]
    readings = _digits_table()[np.stack([10 * t + units for t in tens])]
    kept: NDArray[np.uint8] = readings.min(axis=0) if lower else readings.max(axis=0)
    kept.flags.writeable = False  # shared by every chunk and call
    return kept


def _kept_by(roller: Roller, kept: int) -> tuple[int, ...]:
    """Dice that keep ``kept``: every die showing it (they share their units, for tens)."""
    return (kept,) * roller.count


def _sides(parsed: Any) -> list[Roller] | None:
    """Each side's roller, or None where a side's roll is not one kept value (the loop)."""
    declares = system_of(parsed).declares
    sampler = declares.sampler
    if is_contest(parsed):
        tie = declares.tie_break
        if tie is not None and getattr(parsed, tie.field, None) is not None:
            return None  # a flip given: the loop takes it as given
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
    tie = system_of(parsed).declares.tie_break
    if tie is not None:  # the tie-break flip is one more die, a face per winner (CH6)
        changes[tie.field] = tie.faces[coin]
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
    tie = system_of(parsed).declares.tie_break
    coins = len(tie.faces) if is_contest(parsed) and tie is not None else 1
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


MAX_STATES = 20_000  # a walk this large costs more to list than the loop saves


@dataclasses.dataclass(frozen=True)
class Walk:
    """A machine as arrays: for state ``s``, its next die is ``low[s]..low[s]+faces[s]-1``
    (``faces[s]`` 0 when ``s`` is final) and face ``low[s]+k`` leads to ``nxt[first[s]+k]``;
    ``outcome[s]`` names a final state's level or winner."""

    low: NDArray[np.int64]
    faces: NDArray[np.int64]
    first: NDArray[np.int64]
    nxt: NDArray[np.int64]
    outcome: tuple[str, ...]


def _walk(parsed: Any) -> Walk | None:
    """Every state the request's machine can reach from its start, or None: dice are given
    (the loop checks them), or there are more than ``MAX_STATES``."""
    import numpy as np

    plan = plan_of(parsed)
    if plan.given:
        return None
    machine = plan.machine
    start = machine.start()
    index = {start: 0}
    states = [start]
    low: list[int] = []
    faces: list[int] = []
    first: list[int] = []
    nxt: list[int] = []
    outcome: list[str] = []
    for state in states:  # grows as new states are found: a breadth-first listing
        need = machine.need(state)
        first.append(len(nxt))
        if need is None:
            low.append(0)
            faces.append(0)
            outcome.append(plan.outcome(state))
            continue
        low.append(need.low)
        faces.append(need.faces)
        outcome.append("")
        for value in range(need.low, need.high + 1):
            child = machine.advance(state, value)
            found = index.get(child)
            if found is None:
                if len(states) >= MAX_STATES:
                    return None
                found = index[child] = len(states)
                states.append(child)
            nxt.append(found)
    return Walk(
        np.array(low, dtype=np.int64),
        np.array(faces, dtype=np.int64),
        np.array(first, dtype=np.int64),
        np.array(nxt, dtype=np.int64),
        tuple(outcome),
    )


def _steps(dense: NDArray[np.int32], live: NDArray[np.bool_]) -> int:
    """How many dice every roll takes, when that is the same for all (helpers: each rolls
    once); 0 when it varies (a reroll only after a failure)."""
    import numpy as np

    most = np.zeros(len(live), dtype=np.int64)
    least = np.zeros(len(live), dtype=np.int64)
    for _ in range(len(live)):  # a DAG: settles within its depth
        new_most = np.where(live, 1 + most[dense].max(axis=1), 0)
        new_least = np.where(live, 1 + least[dense].min(axis=1), 0)
        if (new_most == most).all() and (new_least == least).all():
            break
        most, least = new_most, new_least
    return int(most[0]) if most[0] == least[0] else 0


def _stepped(walk: Walk, n: int, seed: int | None, progress: ProgressFn | None) -> dict[str, int]:
    """``n`` rolls walked together: each step, every roll not yet final draws its next die."""
    import numpy as np

    rng = np.random.default_rng(seed)
    live = walk.faces > 0
    sizes = set(walk.faces[live].tolist())
    size = sizes.pop() if len(sizes) == 1 else 0
    if size and size <= 256:
        # Every die the same size (d100s): one table (state, face) -> state in which final
        # states stay put, so a step moves every roll at once, dice drawn as bytes.
        table = np.repeat(np.arange(len(live), dtype=np.int32)[:, None], size, axis=1)
        table[live] = walk.nxt.reshape(-1, size)
        walk_chunk: Callable[[int], NDArray[Any]] = partial(
            _dense, rng, (table * size).ravel(), np.repeat(live, size), size, _steps(table, live)
        )
    else:
        walk_chunk = partial(_ragged, rng, walk)
    finals = np.zeros(len(walk.outcome), dtype=np.int64)
    done = 0
    while done < n:
        m = min(CHUNK, n - done)
        finals += np.bincount(walk_chunk(m), minlength=finals.size)
        done += m
        if progress is not None:
            progress(done)
    counts: Counter[str] = Counter()
    for s in np.flatnonzero(finals):
        counts[walk.outcome[s]] += int(finals[s])
    return dict(counts)


def _dense(
    rng: np.random.Generator,
    table: NDArray[np.int32],
    live: NDArray[np.bool_],
    size: int,
    steps: int,
    m: int,
) -> NDArray[np.int32]:
    """The final states of ``m`` rolls from the start (state 0), on same-sized dice.

    Rolls hold ``state * size``, the row of their state in ``table`` (which holds rows too, as
    ``live`` is indexed by them), so that a step is one addition and one lookup."""
    import numpy as np

    cut = 256 - 256 % size  # bytes below it, taken modulo size, are uniform faces

    def draw(k: int) -> NDArray[np.uint8]:
        """``k`` uniform faces 0..size-1 from random bytes, those at or above ``cut`` dropped:
        several times faster than ``integers`` on bytes, and as exact."""
        out = np.empty(k, dtype=np.uint8)
        got = 0
        while got < k:
            want = k - got
            raw = np.frombuffer(rng.bytes(want + want // 2 + 16), dtype=np.uint8)
            kept = raw[raw < cut][:want]
            out[got : got + kept.size] = kept % size
            got += kept.size
        return out

    row: NDArray[np.int32] = np.zeros(m, dtype=np.int32)
    if steps:  # every roll takes as many dice (helpers): no roll needs checking
        for _ in range(steps):
            row = table[row + draw(m)]
        return row // size
    while True:
        alive = live[row]
        k = int(np.count_nonzero(alive))
        if not k:
            return row // size
        if k == m:
            row = table[row + draw(m)]
        else:  # dice only for the rolls still going: rerolls after failures
            at = np.flatnonzero(alive)
            row[at] = table[row[at] + draw(k)]


def _ragged(rng: np.random.Generator, walk: Walk, m: int) -> NDArray[np.int64]:
    """The final states of ``m`` rolls from the start, each die its own size (a coin, say)."""
    import numpy as np

    state: NDArray[np.int64] = np.zeros(m, dtype=np.int64)
    running = np.flatnonzero(walk.faces[state] > 0)
    while running.size:
        at = state[running]
        state[running] = walk.nxt[walk.first[at] + rng.integers(0, walk.faces[at])]
        running = running[walk.faces[state[running]] > 0]
    return state
