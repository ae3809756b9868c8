"""Exact odds, fast: integer tallies, per-die work shared between requests, memoised (G4).

``reference`` is the definition: it enumerates a request's own machine with
``machine.final_weights`` and names every final state with the plan's own ``outcome``. The fast
paths below change only how much of that work is shared, never who decides:

* a check's final states depend on fewer inputs than its outcome does (a BRP roll without Luck
  rerolls ends on the kept die whatever the skill), so the enumeration is cached by that
  *shape* and the naming of states by the inputs the outcome reads (the *key*);
* a contest whose winner is an ordering of what each side rolled is counted from each side's
  cached distribution through that ordering, which is found by sorting every possible side
  result with the system's own decision function (``brp.opposed``, OpenQuest's ``_decide``).

Each fast path is held equal, exactly, to ``reference`` by ``tests/test_fast_paths.py``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, is_dataclass
from fractions import Fraction
from functools import cmp_to_key
from itertools import accumulate, compress
from math import lcm
from operator import ne
from typing import Any

from . import declarations
from .declarations import FastPath
from .errors import TooMuchWork
from .fields import Field
from .machine import final_weights
from .memo import Memo, clear_all, memoised
from .results import WINNERS, Winner
from .system import Plan, System
from .systems import REGISTRY

Weights = tuple[dict[Any, int], int]


@dataclass(frozen=True, slots=True)
class Tally:
    """Exact odds as integer counts over one denominator, one count per key (the system's
    levels, best first, or ``WINNERS``); ``luck`` is the expected Luck spent over the same
    denominator, None where the request cannot spend Luck (BRP7)."""

    keys: tuple[str, ...]
    counts: tuple[int, ...]
    denominator: int
    luck: int | None = None

    def fractions(self) -> dict[str, Fraction]:
        pairs = zip(self.keys, self.counts, strict=True)
        return {k: fraction(c, self.denominator) for k, c in pairs}


@memoised(1 << 12)
def fraction(count: int, denominator: int) -> Fraction:
    """``Fraction(count, denominator)``, shared: the checks of a table, or of one system, show
    the same few counts over the same denominators, and a Fraction is dear to normalise."""
    return Fraction(count, denominator)


def system_of(request: Any) -> System:
    """A parsed request's rule system."""
    return REGISTRY.get(getattr(request, "system", None))


def is_contest(request: Any) -> bool:
    """A parsed request is a contest when it has sides: asked once per kind of request where
    its kind declares its fields (a dataclass), as every odds request asks it."""
    kind = type(request)
    found = _CONTESTS.get(kind)
    if found is None:
        found = hasattr(request, "actor")
        if is_dataclass(kind):
            _CONTESTS[kind] = found
    return found


_CONTESTS: dict[type, bool] = {}


def plan_of(request: Any) -> Plan[Any, Any]:
    system = system_of(request)
    return system.contest_plan(request) if is_contest(request) else system.check_plan(request)


def _keys(request: Any) -> tuple[str, ...]:
    return WINNERS if is_contest(request) else system_of(request).levels


def reference(request: Any) -> Tally:
    """The definition of the odds: every die of the request's own machine, exactly."""
    plan = plan_of(request)  # its given dice (``plan.given``) are one roll's: odds weigh all
    affordable(plan)
    weights, denominator = final_weights(plan.machine)
    keys = _keys(request)
    index = {k: i for i, k in enumerate(keys)}
    counts = [0] * len(keys)
    for state, w in weights.items():
        counts[index[plan.outcome(state)]] += w
    luck = None
    if plan.luck_spent is not None:
        cost = plan.luck_spent
        luck = sum(w * cost(state) for state, w in weights.items())
    return Tally(keys, tuple(counts), denominator, luck)


BUDGET = 2_000_000  # die faces tried for one exact enumeration: about a second of CPU


def tally(request: Any) -> Tally:
    """The exact odds of a parsed request, memoised: a check its fast path takes by what its
    odds read (``_TALLIES``: a request's own hash, twice, cost more than that key), any other
    request per request (requests are frozen)."""
    return tally_of(request, system_of(request), is_contest(request))


def tally_of(request: Any, system: System, contest: bool) -> Tally:
    """``tally`` of a request whose system and kind the caller has already looked up."""
    if not contest:
        fast = _check(request, system)
        if fast is not None:
            return fast
    found = _TALLY.get(request)
    if found is None:
        fast = _contest(request) if contest else None
        found = _TALLY.put(request, fast if fast is not None else reference(request))
    return found


_TALLY: Memo[Any, Tally] = Memo(1 << 16)


def clear_caches() -> None:
    """Forget every memo: for benchmarks that time a cold start."""
    clear_all()


def affordable(plan: Plan[Any, Any]) -> None:
    """Refuse, before any work, an enumeration over the budget, naming what makes it dear."""
    if plan.cost > BUDGET:
        raise TooMuchWork(plan.dear, plan.cost, BUDGET)


# -- which requests a system's fast path may memoise --------------------------------------------


def _paths(fields: Iterable[Field]) -> dict[str, Any]:
    """Every field a request may set, as ``FastPath.inputs`` names them, with its default:
    house rules as ``house_rules.NAME``, a contest's sides by their own field names."""
    out: dict[str, Any] = {}
    for f in fields:
        if f.name == "system":
            continue
        if f.name == "house_rules":
            out.update({f"house_rules.{h.name}": _plain(h.default) for h in f.fields})
        elif f.kind == "object" and f.required:  # a contest's side
            out.update(_paths(f.fields))
        else:
            out[f.name] = _plain(f.default)
    return out


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


# Keyed by the system object, not its name: a system registered again under the same name may
# declare other fields (the memo holds the system, and unregistering clears every memo).
@memoised(64)
def _unkeyed(system: System) -> dict[str, Any]:
    """The fields the fast path does not account for, with their defaults (usually none)."""
    fast = system.declares.fast
    assert fast is not None
    every = {**_paths(system.check_fields), **_paths(system.contest_fields)}
    return {k: v for k, v in every.items() if k not in fast.inputs and k != "dice"}


def _memoisable(request: Any, system: System, fast: FastPath) -> bool:
    """False where the request sets a field the fast path does not know away from its default."""
    unkeyed = _unkeyed(system)
    if not unkeyed:
        return True
    data = request.to_dict()
    parts = [data, *(data[side] for side in ("actor", "opponent") if side in data)]
    house = data.get("house_rules", {})
    for name, default in unkeyed.items():
        if name.startswith("house_rules."):
            values = [house.get(name.removeprefix("house_rules."), default)]
        else:
            values = [part.get(name, default) for part in parts]
        if any(_plain(v) != default for v in values):
            return False
    return True


# -- checks: the enumeration cached by shape, the naming of states by key ----------------------

# A check's final states depend on fewer inputs than its outcome does (a BRP roll without Luck
# rerolls ends on the kept die whatever the skill): the system's ``FastPath.shape`` names them,
# ``key`` what the outcome reads, ``luck_key`` what the Luck spent reads.
_FINALS: Memo[tuple[str, Hashable], Weights] = Memo(1024)
# A naming as runs (level index, first state, past the last) over the states in ``_Ends``
# order: adjacent states mostly share a level (kept dice in order), so a check of any shape
# counts a run's weight as one difference of running sums.
Runs = tuple[tuple[int, int, int], ...]
_NAMES: Memo[tuple[str, Hashable, int], Runs] = Memo(1 << 14)
_LUCK: Memo[tuple[str, Hashable, Hashable], tuple[int | None]] = Memo(1024)
_TALLIES: Memo[tuple[str, Hashable, Hashable, Hashable], Tally] = Memo(1 << 16)


@dataclass(frozen=True, slots=True)
class _Ends:
    """The final states of one shape in one order per set of states (states are numbered
    as the system's shapes first reach them, then put in order of their ``FastPath.mark``
    and ``FastPath.reading`` where the system declares them), so that shapes ending on the
    same states (BRP with 0, 1 or 2 extra dice ends on the same kept dice) share one
    ``group`` and the naming of their states. ``below[i]`` is the weight of ``states[:i]``;
    ``readings`` each state's reading, ascending within each of ``blocks`` (first state,
    past the last: one per mark, or one for all the states), or None."""

    states: tuple[Any, ...]
    group: int
    weights: tuple[int, ...]
    below: tuple[int, ...]
    denominator: int
    readings: tuple[int, ...] | None = None
    blocks: tuple[tuple[int, int], ...] = ()


_ENDS: Memo[tuple[str, Hashable], _Ends] = Memo(1024)
# Every final state each system's shapes have reached, numbered, and every set of them: these
# grow only with the shapes a system has, and start again, with the memos that use their
# numbers, should they ever outgrow ``_NUMBERED``.
_IDS: dict[str, dict[Any, int]] = {}
_GROUPS: dict[tuple[str, tuple[int, ...]], int] = {}
_NUMBERED = 1 << 16


def _finals(system: str, shape: Hashable, check: Any) -> Weights:
    """The final states of every check of this shape, enumerated once by one of them."""
    found = _FINALS.get((system, shape))
    if found is None:
        plan = plan_of(check)
        affordable(plan)
        found = _FINALS.put((system, shape), final_weights(plan.machine))
    return found


def _ends(system: str, shape: Hashable, check: Any, fast: FastPath) -> _Ends:
    found = _ENDS.get((system, shape))
    if found is None:
        weights, denominator = _finals(system, shape, check)
        if sum(map(len, _IDS.values())) + len(weights) > _NUMBERED:
            _IDS.clear()
            _GROUPS.clear()
            _ENDS.cache_clear()
            _NAMES.cache_clear()
        numbers = _IDS.setdefault(system, {})
        for state in weights:
            numbers.setdefault(state, len(numbers))
        states = sorted(weights, key=numbers.__getitem__)
        readings = None
        blocks: tuple[tuple[int, int], ...] = ((0, len(states)),)
        if fast.reading is not None:  # the same states always in the same order: one group
            states.sort(key=fast.reading)  # stable: by reading, then by number
            if fast.mark is not None:  # by mark, then as before
                states.sort(key=fast.mark)
                marks = list(map(fast.mark, states))
                starts = [0, *compress(range(1, len(marks)), map(ne, marks[1:], marks))]
                blocks = tuple(zip(starts, (*starts[1:], len(marks)), strict=True))
            readings = tuple(map(fast.reading, states))
        ws = tuple(weights[s] for s in states)
        below = (0, *accumulate(ws))
        ids = tuple(numbers[s] for s in states)
        group = _GROUPS.setdefault((system, ids), len(_GROUPS))
        ends = _Ends(tuple(states), group, ws, below, denominator, readings, blocks)
        found = _ENDS.put((system, shape), ends)
    return found


def _check(check: Any, system: System) -> Tally | None:
    fast = system.declares.fast
    if fast is None or not _memoisable(check, system, fast):
        return None
    shape = fast.shape(check)
    if shape is None:
        return None
    name = system.name
    key = fast.key(check)
    luck_key = None if fast.luck_key is None else fast.luck_key(check)
    found = _TALLIES.get((name, shape, key, luck_key))
    if found is not None:
        return found
    ends = _ends(name, shape, check, fast)
    plan: Plan[Any, Any] | None = None
    # The states are named once per key and set of final states: a whole BRP table names
    # each (kept die, key) once, whatever the extra dice.
    keys = system.levels
    named = (name, key, ends.group)
    runs = _NAMES.get(named)
    if runs is None:
        # the plan's own naming, without building the rest of the plan where declared
        outcome = (plan := plan_of(check)).outcome if fast.outcome is None else fast.outcome(check)
        cuts = None if ends.readings is None or fast.cuts is None else fast.cuts(check)
        if cuts is None:
            runs = _runs(name, list(map(outcome, ends.states)), keys)
        else:  # one state named per span of readings between cuts: the span's level
            runs = _spans(name, ends, sorted(cuts), outcome, keys)
        _NAMES.put(named, runs)
    counts = [0] * len(keys)
    below = ends.below
    for i, first, past in runs:
        counts[i] += below[past] - below[first]
    # The Luck a state spends depends on the luck key, not on the outcome's key.
    luck_at = (name, shape, luck_key)
    spent = _LUCK.get(luck_at)
    if spent is None:
        plan = plan or plan_of(check)
        cost = plan.luck_spent
        luck = (
            None
            if cost is None
            else sum(w * cost(state) for state, w in zip(ends.states, ends.weights, strict=True))
        )
        spent = _LUCK.put(luck_at, (luck,))
    found = _TALLIES.put(
        (name, shape, key, luck_key), Tally(keys, tuple(counts), ends.denominator, spent[0])
    )
    return found


def _runs(system: str, names: list[str], keys: tuple[str, ...]) -> Runs:
    """Names in runs of one level, as indices into the system's ``keys``."""
    if not names:
        return ()
    index = _index(keys)
    # where the name changes, found by comparing each name with the one before it
    starts = [0, *compress(range(1, len(names)), map(ne, names[1:], names))]
    runs = []
    for first, past in zip(starts, (*starts[1:], len(names)), strict=True):
        i = index.get(names[first])
        if i is None:  # an outcome that is not one of the system's levels: the system's bug
            raise TypeError(f"{system}: outcomes {set(names) - set(keys)} are not levels {keys}")
        runs.append((i, first, past))
    return tuple(runs)


def _spans(
    system: str, ends: _Ends, cuts: list[int], outcome: Callable[[Any], str], keys: tuple[str, ...]
) -> Runs:
    """``_runs`` of the states' names where the outcome is the same over each span of readings
    between cuts (``FastPath.cuts``) within each block of states of one mark: the first state
    of each span names the whole span."""
    index = _index(keys)
    readings, states = ends.readings, ends.states
    assert readings is not None
    runs: list[tuple[int, int, int]] = []
    level = -1  # the level of the run being made, which starts at ``start``
    start = 0
    for first, end in ends.blocks:
        if first == end:
            continue
        # the block's last reading as its last cut: the span above the cuts ends the block
        for cut in (*cuts, readings[end - 1]):
            past = bisect_right(readings, cut, first, end)
            if past <= first:
                continue
            i = index.get(outcome(states[first]), -1)
            if i < 0:  # an outcome that is not one of the system's levels: the system's bug
                raise TypeError(
                    f"{system}: outcome {outcome(states[first])!r} is not one of the levels {keys}"
                )
            if i != level:  # the same level on both sides of a cut: one run
                if level >= 0:
                    runs.append((level, start, first))
                level, start = i, first
            first = past
    if level >= 0:
        runs.append((level, start, len(readings)))
    return tuple(runs)


@memoised(64)
def _index(keys: tuple[str, ...]) -> dict[str, int]:
    return {k: i for i, k in enumerate(keys)}


def check_table(requests: Iterable[Any]) -> list[Tally]:
    """Exact odds of many checks, sharing every piece of work they have in common."""
    return [tally(r) for r in requests]


# -- contests: the winner as an ordering of each side's result ---------------------------------


@dataclass(frozen=True)
class Ranking:
    """Side results in the order the system's decision puts them: ``rank[x] > rank[y]`` means
    x as actor beats y as opponent (and y as actor loses to x); results of equal rank meet
    with the equally likely outcomes ``even[rank]`` (one per face of a tie-break die: a tie,
    nobody, the actor, or a coin's two winners)."""

    rank: dict[Hashable, int]
    even: dict[int, tuple[Winner, ...]]
    faces: int  # one count for every outcome of every meeting of equal ranks


Beats = Callable[[Any, Any], tuple[Winner, ...]]


def rank_results(results: Iterable[Hashable], beats: Beats) -> Ranking:
    """Sort every possible side result with the system's own decision as the comparison;
    ``beats`` gives the winner for each face of the tie-break die, if the system has one."""

    def order(x: Any, y: Any) -> int:
        forward, backward = set(beats(x, y)), set(beats(y, x))
        if forward == {"actor"} and backward == {"opponent"}:
            return 1
        if forward == {"opponent"} and backward == {"actor"}:
            return -1
        return 0

    ordered = sorted(results, key=cmp_to_key(order))
    rank: dict[Hashable, int] = {}
    even: dict[int, tuple[Winner, ...]] = {}
    r = 0
    for i, x in enumerate(ordered):
        if i and order(ordered[i - 1], x):
            r += 1
        rank[x] = r
        even.setdefault(r, beats(x, x))
    return Ranking(rank, even, lcm(*map(len, even.values())))


@dataclass(frozen=True)
class Side:
    """One side's distribution over ranks: ascending ranks, their weights, running sums."""

    ranks: tuple[int, ...]
    weights: tuple[int, ...]
    below: tuple[int, ...]  # below[i]: weight of ranks[:i]
    denominator: int


_SIDES: Memo[Hashable, Side] = Memo(1 << 14)


def _side(key: Hashable, weights: Weights, rank_of: Callable[[Any], int]) -> Side:
    found = _SIDES.get(key)
    if found is None:
        by_rank: dict[int, int] = {}
        for state, w in weights[0].items():
            r = rank_of(state)
            by_rank[r] = by_rank.get(r, 0) + w
        ranks = tuple(sorted(by_rank))
        ws = tuple(by_rank[r] for r in ranks)
        below = [0]
        for w in ws:
            below.append(below[-1] + w)
        found = _SIDES.put(key, Side(ranks, ws, tuple(below), weights[1]))
    return found


_WINNER_INDEX = {k: i for i, k in enumerate(WINNERS)}


def _count(actor: Side, opponent: Side, ranking: Ranking) -> Tally:
    counts = [0] * len(WINNERS)  # meetings of equal ranks, one count per tie-break face
    actor_wins = opponent_wins = 0  # the rest, counted once and scaled by the faces below
    total = opponent.below[-1]
    faces = ranking.faces
    for r, w in zip(actor.ranks, actor.weights, strict=True):
        lo, hi = bisect_left(opponent.ranks, r), bisect_right(opponent.ranks, r)
        actor_wins += w * opponent.below[lo]
        opponent_wins += w * (total - opponent.below[hi])
        if hi > lo:
            outcomes = ranking.even[r]
            share = w * (opponent.below[hi] - opponent.below[lo]) * (faces // len(outcomes))
            for winner in outcomes:
                counts[_WINNER_INDEX[winner]] += share
    counts[_WINNER_INDEX["actor"]] += actor_wins * faces
    counts[_WINNER_INDEX["opponent"]] += opponent_wins * faces
    return Tally(WINNERS, tuple(counts), actor.denominator * opponent.denominator * faces)


_RANKINGS: Memo[Hashable, Ranking] = Memo(256)


def ranking_of(ranked: declarations.RankedContest) -> Ranking:
    """The ordering a system's ranked contest declares, sorted once per ranking key."""
    found = _RANKINGS.get(ranked.key)
    if found is None:
        found = _RANKINGS.put(ranked.key, rank_results(ranked.results(), ranked.beats))
    return found


def _contest(contest: Any) -> Tally | None:
    """A contest counted through the system's ranking of side results, where it has one."""
    system = system_of(contest)
    fast = system.declares.fast
    if fast is None or fast.ranking is None or not _memoisable(contest, system, fast):
        return None
    ranked = fast.ranking(contest)
    if ranked is None:
        return None
    ranking = ranking_of(ranked)
    sides = []
    for side in ranked.sides:
        weights = _finals(system.name, side.shape, side.check)

        def rank_of(s: Any, show: Callable[[Any], Hashable] = side.show) -> int:
            return ranking.rank[show(s)]

        sides.append(_side((system.name, side.shape, side.key, ranked.key), weights, rank_of))
    return _count(sides[0], sides[1], ranking)
