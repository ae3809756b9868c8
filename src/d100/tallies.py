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
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cmp_to_key, lru_cache
from math import lcm
from typing import Any

from .errors import D100Error
from .machine import Dice, Given, final_weights, run
from .results import WINNERS, Winner
from .system import Plan, System
from .systems import REGISTRY, brp, chances, openquest
from .systems.common import dice_stream

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
        return {k: Fraction(c, self.denominator) for k, c in pairs}


def system_of(request: Any) -> System:
    """A parsed request's rule system."""
    return REGISTRY.get(getattr(request, "system", None))


def is_contest(request: Any) -> bool:
    """A parsed request is a contest when it has sides."""
    return hasattr(request, "actor")


def plan_of(request: Any) -> Plan[Any, Any]:
    system = system_of(request)
    return system.contest_plan(request) if is_contest(request) else system.check_plan(request)


def _keys(request: Any) -> tuple[str, ...]:
    return WINNERS if is_contest(request) else system_of(request).levels


def reference(request: Any) -> Tally:
    """The definition of the odds: every die of the request's own machine, exactly."""
    plan = plan_of(request)
    for stream, given in plan.given.items():
        raise D100Error(
            stream,
            list(given.draws),
            "no dice: odds cover every roll",
            "dice given in an odds request",
        )
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


@lru_cache(maxsize=1 << 16)
def tally(request: Any) -> Tally:
    """The exact odds of a parsed request, memoised per request (requests are frozen)."""
    fast = _contest(request) if is_contest(request) else _check(request)
    return fast if fast is not None else reference(request)


def clear_caches() -> None:
    """Forget every memo: for benchmarks that time a cold start."""
    tally.cache_clear()
    _FINALS.clear()
    _NAMES.clear()
    _TALLIES.clear()
    _LUCK.clear()
    _ENDS.clear()
    _IDS.clear()
    _GROUPS.clear()
    brp.thresholds.cache_clear()
    _SIDES.clear()
    _CHANCES.clear()
    _brp_ranking.cache_clear()
    _oq_ranking.cache_clear()


# -- checks: the enumeration cached by shape, the naming of states by key ----------------------

# What a check's *final states* depend on: None where the fast path does not apply (dice given,
# Luck rerolls, assists), so the request goes to ``reference``. A BRP machine without rerolls
# ends on the kept die whatever the effective skill; an unassisted OpenQuest check ends on its
# roll (or on no roll, for a master); an unassisted Taking Chances check on its luck.
_SHAPES: dict[str, Callable[[Any], Hashable | None]] = {
    "brp": lambda c: (
        None
        if c.dice is not None or c.luck_rerolls
        else (c.net_dice, c.house_rules.bonus_dice_method)
    ),
    "openquest": lambda c: None if c.dice is not None or c.assist is not None else (c.master,),
    "chances": lambda c: None if c.dice is not None or c.assisters else (c.take,),
}
# Everything the plan's ``outcome`` reads from such a check.
_OUTCOME_KEYS: dict[str, Callable[[Any], Hashable]] = {
    "brp": lambda c: (c.effective, c.house_rules.threshold_rounding),
    "openquest": lambda c: (c.modified(False), c.master),
    # CH1, CH4: the outcome is the degree of the total less the risk, and the total is the luck
    # (and assisters) plus the factors, so it reads the factors and the risk only through their
    # difference: checks that share it share their naming (held by test_fast_paths).
    "chances": lambda c: c.factors - c.total_risk,
}
# Everything the plan's ``luck_spent`` reads from such a check (BRP7: ``luck_cost`` reads the
# boost; the state gives the rerolls taken). Systems whose checks spend no Luck are absent.
_LUCK_KEYS: dict[str, Callable[[Any], Hashable]] = {
    "brp": lambda c: c.luck_boost,
}

_FINALS: dict[tuple[str, Hashable], Weights] = {}
_NAMES: dict[tuple[str, Hashable, int], list[str]] = {}
_LUCK: dict[tuple[str, Hashable, Hashable], int | None] = {}
_TALLIES: dict[tuple[str, Hashable, Hashable, Hashable], Tally] = {}


@dataclass(frozen=True, slots=True)
class _Ends:
    """The final states of one shape in one order per set of states (states are numbered
    as the system's shapes first reach them), so that shapes ending on the same states (BRP
    with 0, 1 or 2 extra dice ends on the same kept dice) share one ``group`` and the naming
    of their states. ``uniform`` is the one weight every state has, or 0."""

    states: tuple[Any, ...]
    group: int
    weights: tuple[int, ...]
    uniform: int
    denominator: int


_ENDS: dict[tuple[str, Hashable], _Ends] = {}
_IDS: dict[str, dict[Any, int]] = {}  # per system: every final state seen, numbered
_GROUPS: dict[tuple[str, tuple[int, ...]], int] = {}  # every set of final states, numbered


def _finals(system: str, shape: Hashable, check: Any) -> Weights:
    """The final states of every check of this shape, enumerated once by one of them."""
    found = _FINALS.get((system, shape))
    if found is None:
        found = _FINALS[(system, shape)] = final_weights(plan_of(check).machine)
    return found


def _ends(system: str, shape: Hashable, check: Any) -> _Ends:
    found = _ENDS.get((system, shape))
    if found is None:
        weights, denominator = _finals(system, shape, check)
        numbers = _IDS.setdefault(system, {})
        for state in weights:
            numbers.setdefault(state, len(numbers))
        states = sorted(weights, key=numbers.__getitem__)
        ws = tuple(weights[s] for s in states)
        uniform = ws[0] if len(set(ws)) == 1 else 0
        ids = tuple(numbers[s] for s in states)
        group = _GROUPS.setdefault((system, ids), len(_GROUPS))
        found = _ENDS[(system, shape)] = _Ends(tuple(states), group, ws, uniform, denominator)
    return found


def _check(check: Any) -> Tally | None:
    system = check.system
    shape = _SHAPES[system](check)
    if shape is None:
        return None
    key = _OUTCOME_KEYS[system](check)
    luck_of = _LUCK_KEYS.get(system)
    luck_key = None if luck_of is None else luck_of(check)
    found = _TALLIES.get((system, shape, key, luck_key))
    if found is not None:
        return found
    ends = _ends(system, shape, check)
    plan: Plan[Any, Any] | None = None
    # The states are named once per key and set of final states: a whole BRP table names
    # each (kept die, key) once, whatever the extra dice.
    names = _NAMES.get((system, key, ends.group))
    if names is None:
        plan = plan_of(check)
        names = _NAMES[(system, key, ends.group)] = list(map(plan.outcome, ends.states))
    keys = system_of(check).levels
    if ends.uniform:  # every state weighs the same: count the names in C
        counts = [names.count(k) * ends.uniform for k in keys]
        known = sum(counts) == len(names) * ends.uniform
    else:
        by_level = dict.fromkeys(keys, 0)
        for name, w in zip(names, ends.weights, strict=True):
            by_level[name] += w
        counts, known = list(by_level.values()), len(by_level) == len(keys)
    if not known:  # an outcome that is not one of the system's levels
        raise AssertionError(f"unknown levels {set(names) - set(keys)}")
    # The Luck a state spends (BRP7) depends on the luck key, not on the outcome's key.
    luck_at = (system, shape, luck_key)
    if luck_at in _LUCK:
        luck = _LUCK[luck_at]
    else:
        plan = plan or plan_of(check)
        cost = plan.luck_spent
        luck = (
            None
            if cost is None
            else sum(w * cost(state) for state, w in zip(ends.states, ends.weights, strict=True))
        )
        _LUCK[luck_at] = luck
    found = _TALLIES[(system, shape, key, luck_key)] = Tally(
        keys, tuple(counts), ends.denominator, luck
    )
    return found


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


_SIDES: dict[Hashable, Side] = {}


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
        found = _SIDES[key] = Side(ranks, ws, tuple(below), weights[1])
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


@cache
def _brp_ranking(rounding: str) -> Ranking:
    """Every (kept roll, effective skill) a BRP side can show, ordered by BRP6 itself."""
    levels = {(r, e): brp.level(r, e, rounding) for r in range(1, 101) for e in range(1, 101)}

    def beats(x: tuple[int, int], y: tuple[int, int]) -> tuple[Winner]:
        return (brp.opposed(levels[x], x[0], x[1], levels[y], y[0], y[1]),)

    return rank_results(levels, beats)


def _brp_contest(contest: brp.BrpContest) -> Tally | None:
    sides = []
    ranking = _brp_ranking(contest.house_rules.threshold_rounding)
    for check in (contest.actor, contest.opponent):
        shape = _SHAPES["brp"](check)
        if shape is None:
            return None
        e = check.effective
        weights = _finals("brp", shape, check)
        # Attempts' final state is (attempt, -1, kept die): the side shows the kept die.
        rounding = contest.house_rules.threshold_rounding

        def rank_of(s: Any, e: int = e) -> int:
            return ranking.rank[(s[2], e)]

        side = _side(("brp", shape, e, rounding), weights, rank_of)
        sides.append(side)
    return _count(sides[0], sides[1], ranking)


@cache
def _oq_ranking() -> Ranking:
    """Every (level, roll) an OpenQuest side that rolls can show, ordered by OQ7 itself."""
    roller = openquest.OpenQuestCheck(skill=0)  # _decide reads only who is a master (OQ9)
    results = [(lvl, r) for lvl in openquest.LEVELS for r in range(1, 101)]

    def beats(x: tuple[str, int], y: tuple[str, int]) -> tuple[Winner]:
        return (openquest._decide(roller, roller, x[0], x[1], y[0], y[1])[0],)

    return rank_results(results, beats)


def _oq_contest(contest: openquest.OpenQuestContest) -> Tally | None:
    sides = []
    ranking = _oq_ranking()
    for check in (contest.actor, contest.opponent):
        shape = _SHAPES["openquest"](check)
        if shape is None or check.master:  # masters (OQ9) are few and cheap: the reference
            return None
        m = check.modified(False)
        weights = _finals("openquest", shape, check)

        # An unassisted check's final state is (True, False, roll).
        def rank_of(s: Any, m: int = m) -> int:
            return ranking.rank[(openquest.level(s[2], m, False), s[2])]

        side = _side(("openquest", shape, m), weights, rank_of)
        sides.append(side)
    return _count(sides[0], sides[1], ranking)


_CHANCES: dict[Hashable, Tally] = {}


def _chances_sides(difference: int, a_ability: int, o_ability: int) -> list[list[tuple[int, int]]]:
    """The (total, ability) each side can show: luck 1..100 plus its fixed part (the
    opponent's taken as 0)."""
    return [
        [(luck + shift, ability) for luck in range(1, 101)]
        for shift, ability in ((difference, a_ability), (0, o_ability))
    ]


def _chances_ranking(sides: list[list[tuple[int, int]]]) -> Ranking:
    """Both sides' results ordered by CH6 itself, with the coin's faces on equal ones."""
    coin = range(1, len(chances.COIN) + 1)

    def beats(x: tuple[int, int], y: tuple[int, int]) -> tuple[Winner, ...]:
        return tuple(chances.opposed(x[0], x[1], y[0], y[1], c) for c in coin)

    return rank_results(sides[0] + sides[1], beats)


def _chances_contest(contest: chances.ChancesContest) -> Tally | None:
    """CH6 compares the two totals, each luck plus a fixed part: the odds depend only on the
    difference of the fixed parts (and the abilities, for ties), so contests sharing it share
    one count through the ranking of every total either side can show."""
    sides = (contest.actor, contest.opponent)
    if contest.coin is not None or any(
        s.dice is not None or s.assisters or s.take is not None for s in sides
    ):
        return None
    plan = plan_of(contest)
    # The real machine on luck 1 against luck 1: its final state (True, (actor total,
    # opponent total), coin) gives the fixed parts as the system itself adds them up.
    ones = {dice_stream(w): Given((1,)) for w in ("actor", "opponent")}
    state = run(plan.machine, Dice(None, {**ones, "coin": Given((1,))}), strict=False)
    key = (state[1][0] - state[1][1], contest.actor.ability, contest.opponent.ability)
    found = _CHANCES.get(key)
    if found is None:
        shown = _chances_sides(*key)
        ranking = _chances_ranking(shown)
        # Unassisted, untaken: each side's luck is one d100, every face weighing the same.
        a, o = (
            _side(("chances", key, who), (dict.fromkeys(results, 1), 100), ranking.rank.__getitem__)
            for who, results in zip(("actor", "opponent"), shown, strict=True)
        )
        found = _CHANCES[key] = _count(a, o, ranking)
    return found


_CONTESTS: dict[str, Callable[[Any], Tally | None]] = {
    "brp": _brp_contest,
    "openquest": _oq_contest,
    "chances": _chances_contest,
}


def _contest(contest: Any) -> Tally | None:
    fast = _CONTESTS.get(contest.system)
    return fast(contest) if fast is not None else None
