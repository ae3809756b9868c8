"""A run of Call of Cthulhu 7th rolls fired one after another (S7-13's shots, S7-14's volleys):
each roll is C7-3's pool, and the kept die moves the run on. One machine rolls it through
``machine.Dice`` and gives its exact odds: the enumeration lumps each roll's 100 kept values by
the state they lead to, with the weights the pool's own machine counts, so a run of ten
three-dice volleys costs ten times a hundred steps per state, not 10,000 faces per state."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from math import comb
from typing import Any, Generic, Protocol, TypeVar

from .. import tallies
from ..dice import RandomSource, show_roll
from ..errors import D100Error, DiceError, TooMuchWork
from ..machine import Dice, Given, Need, final_weights, run
from ..memo import memoised
from .brp import Attempt
from .coc7_check import MAX_EXTRA_DICE, Coc7Check, Pool, attempt_of
from .coc7_rules import fumble_from, level, succeeds
from .common import rolls

S = TypeVar("S", bound=Hashable)
STREAM = "dice"
# the range band's difficulty (S7-6), and the steps an excess penalty die climbs (S7-13)
RANGES = {"normal": "regular", "long": "hard", "extreme": "extreme"}
LADDER = ("regular", "hard", "extreme", "critical", "impossible")


def clamped(net: int, band: str) -> tuple[int, str]:
    """A shot's or volley's pool and difficulty (S7-13, Foundry's 1030-1041): the net dice
    held to two either way, each penalty die beyond raising the range's difficulty a step."""
    step = LADDER.index(RANGES[band]) + max(0, -MAX_EXTRA_DICE - net)
    return max(-MAX_EXTRA_DICE, min(MAX_EXTRA_DICE, net)), LADDER[min(step, len(LADDER) - 1)]


def aimed(kept: int, skill: int, difficulty: str) -> tuple[str, bool]:
    """A ranged roll's level, with the fumble range of the required value (C7-2; an impossible
    one fumbles as a critical one does), and whether it reaches the difficulty."""
    need = "critical" if difficulty == "impossible" else difficulty
    lvl = level(kept, skill, fumble_from(skill, need))
    return lvl, difficulty != "impossible" and succeeds(lvl, difficulty)


def check_ranges(ranges: tuple[str, ...], count: int, what: str) -> None:
    """One range for all, or one for each of ``count`` rolls, each a band of ``RANGES``."""
    if len(ranges) not in (1, count):
        raise D100Error("ranges", list(ranges), f"one range, or one per {what} ({count})")
    for r in ranges:
        if r not in RANGES:
            raise D100Error("ranges", r, ", ".join(RANGES))


@memoised(16)
def pool_of(net: int) -> Pool:
    """C7-3's roll with ``net`` bonus (positive) or penalty (negative) dice, as coc7's check
    rolls it: the tens method, one draw per roll."""
    return Pool(
        attempt_of(Coc7Check(skill=0, bonus_dice=max(net, 0), penalty_dice=max(-net, 0)), STREAM)
    )


@memoised(16)
def kept_weights(net: int) -> tuple[tuple[int, Fraction], ...]:
    """Each kept die 1..100 of a pool with its exact chance, from the pool's own machine."""
    ends, denominator = final_weights(pool_of(net))
    return tuple(sorted((kept, Fraction(w, denominator)) for kept, w in ends.items()))


class Run(Generic[S]):
    """The run as a machine: ``pool(state)`` is the net dice of the next roll (None when the
    run has ended) and ``step(state, kept)`` the state after it. A state holds only what the
    rest of the run and its result depend on, so equal states merge."""

    def __init__(
        self,
        start: S,
        pool: Callable[[S], int | None],
        step: Callable[[S, int], S],
        scoring: Sequence[bool],
        field: str,
    ) -> None:
        self._start = start
        self.pool = pool
        self.step = step
        self.cost = cost(scoring)
        self.field = field  # what makes the run dear, named when it is refused

    def start(self) -> S:
        return self._start

    def need(self, state: S) -> Need | None:
        net = self.pool(state)
        return None if net is None else pool_of(net).need(0)

    def advance(self, state: S, value: int) -> S:
        net = self.pool(state)
        assert net is not None  # the machine's driver asks only where ``need`` is a die
        return self.step(state, pool_of(net).advance(0, value))

    def distribution(self) -> dict[S, Fraction]:
        """Every final state with its exact chance: each roll's kept values grouped by the
        state they lead to (``step``), weighted as the pool's machine counts them;
        refused before any work when its ``cost`` is over the engine's budget."""
        if self.cost > tallies.BUDGET:
            raise TooMuchWork(self.field, self.cost, tallies.BUDGET)
        frontier: dict[S, Fraction] = {self._start: Fraction(1)}
        finals: dict[S, Fraction] = {}
        while frontier:
            nxt: dict[S, Fraction] = {}
            for state, p in frontier.items():
                net = self.pool(state)
                if net is None:
                    finals[state] = finals.get(state, Fraction(0)) + p
                    continue
                for kept, q in kept_weights(net):
                    child = self.step(state, kept)
                    nxt[child] = nxt.get(child, Fraction(0)) + p * q
            frontier = nxt
        return finals

    def fire(
        self, nets: list[int], dice: tuple[int, ...] | None, rng: RandomSource | None
    ) -> tuple[S, list[tuple[S, tuple[int, ...], int]]]:
        """Roll the run, the dice given by hand first (``nets``: each roll's dice, to read
        them by), else the random source's: its end, and each roll's state before it, its d100
        values and its kept die."""
        drawn = Dice(rng, {} if dice is None else given(dice, nets, "dice"))
        end = run(self, drawn)
        rolled = [(s, v, k) for s, _, v, k in self.replay(drawn.record.get(STREAM, []))]
        return end, rolled

    def outcomes(
        self, key: Callable[[S], tuple[int, int]], stopped: Callable[[S], bool]
    ) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
        """The exact chance of each pair ``key`` gives an end (hits and extreme ones, normal
        and impaling), lowest first, and of an end that ``stopped`` the run (a malfunction)."""
        pairs: dict[tuple[int, int], Fraction] = {}
        stop = Fraction(0)
        for end, p in self.distribution().items():
            pairs[key(end)] = pairs.get(key(end), Fraction(0)) + p
            stop += p if stopped(end) else 0
        return dict(sorted(pairs.items())), stop

    def replay(self, draws: list[int]) -> Iterator[tuple[S, int, tuple[int, ...], int]]:
        """Each roll of a run already drawn: the state before it, its net dice, its d100
        values and the kept die."""
        state = self._start
        for draw in draws:
            net = self.pool(state)
            assert net is not None
            pool = pool_of(net)
            kept = pool.advance(0, draw)
            yield state, net, pool.attempt.values(draw), kept
            state = self.step(state, kept)


KINDS = 4  # what a roll may score: nothing, hits, hits and impales, every bullet


def cost(scoring: Sequence[bool]) -> int:
    """A bound of the steps of ``Run.distribution``, known before it runs: a roll tries 100
    kept values for each state before it; the states are at most the ways the rolls before it
    that may score (``scoring``: a roll at an impossible difficulty may not) can add up, one
    of ``KINDS`` each, and twice that for the runs that ended."""
    steps, scored = 0, 0
    for may in scoring:
        steps += 100 * 2 * comb(scored + KINDS - 1, KINDS - 1)
        scored += may
    return steps


def given(values: tuple[int, ...], nets: list[int], field: str) -> dict[str, Given]:
    """Dice rolled by hand, as d100 values in the order rolled (each roll's group of values
    sharing its units digit), as the draws of the run whose rolls have ``nets`` dice in turn;
    a group cut short is refused, dice left over are refused when the run ends."""
    draws: list[int] = []
    at = 0
    for net in nets:
        if at >= len(values):
            break
        attempt: Attempt = pool_of(net).attempt
        group = values[at : at + attempt.count]
        if len(group) < attempt.count:
            raise DiceError(
                field,
                list(values),
                f"{attempt.count} values for a roll with {abs(net)} extra dice",
                f"the last roll has only {rolls(group)}",
            )
        draws += attempt.encode(group, field).draws
        at += attempt.count
    if at < len(values):
        raise DiceError(
            field,
            list(values),
            "exactly as many dice as the run rolls",
            f"{len(values) - at} given dice left over after every roll of the run",
        )
    return {STREAM: Given(tuple(draws))}


def within(name: str, value: int, low: int, high: int) -> None:
    """A request's integer field checked when built: its name, value and range on refusal."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise D100Error(name, value, f"an integer {low}..{high}", "not an integer")
    if not low <= value <= high:
        raise D100Error(name, value, f"an integer {low}..{high}")


R = TypeVar("R")


def built(kind: Callable[..., R], data: Mapping[str, Any]) -> R:
    """A request made again from its contract JSON (a table's log): its fields by name, lists
    as tuples; anything else refused, naming it (G5)."""
    if not isinstance(data, Mapping):
        raise D100Error("request", data, "a JSON object of the request's fields", "not an object")
    known = {f.name for f in fields(kind)}  # type: ignore[arg-type]
    for key in data:
        if key not in known:
            raise D100Error(str(key), data[key], "fields " + ", ".join(sorted(known)), "unknown")
    return kind(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


class Fired(Protocol):
    """A shot or a volley as fired: what its explanation and its report's row read of it."""

    @property
    def range(self) -> str: ...
    @property
    def difficulty(self) -> str: ...
    @property
    def net(self) -> int: ...
    @property
    def dice(self) -> tuple[int, ...]: ...
    @property
    def roll(self) -> int: ...
    @property
    def level(self) -> str: ...


def explained(fired: Fired, did: str) -> str:
    """A shot's or volley's part of a run's explanation: its range, difficulty, dice, level
    and what it did."""
    f = fired
    rolled = f"{rolls(f.dice)} -> {show_roll(f.roll)} {f.level}"
    return f"{f.range} ({f.difficulty}, {f.net:+d}) {rolled}: {did}"


def fraction_text(p: Fraction) -> str:
    """An exact chance as the contract writes it: "3/8"."""
    return f"{p.numerator}/{p.denominator}"


def totals(
    outcomes: Mapping[tuple[int, int], Fraction], key: Callable[[int, int], int]
) -> dict[int, Fraction]:
    """The chance of each value ``key`` gives a run's outcome pairs, lowest first."""
    out: dict[int, Fraction] = {}
    for (a, b), p in outcomes.items():
        out[key(a, b)] = out.get(key(a, b), Fraction(0)) + p
    return dict(sorted(out.items()))


def mean(chances: Mapping[int, Fraction]) -> Fraction:
    return sum((v * p for v, p in chances.items()), Fraction(0))


def at_least(chances: Mapping[int, Fraction], least: int) -> Fraction:
    return sum((p for v, p in chances.items() if v >= least), Fraction(0))


@dataclass(frozen=True)
class Told:
    """A run's exact odds read back from their contract JSON, for its report at any door (a
    table works them out on a worker and reports the roll with them): each number of hits,
    the chance of what stops the run (a malfunction or a jam), and the damage's chances, the
    reason they were not worked out, or None where no damage is named."""

    hits: Mapping[int, Fraction]
    stop: Fraction | None
    damage: Mapping[int, Fraction] | str | None

    @classmethod
    def of(cls, odds: Mapping[str, Any], stop: str) -> Told:
        hurt = odds.get("damage")
        damage: Mapping[int, Fraction] | str | None = None
        if isinstance(hurt, Mapping) and "not_worked_out" in hurt:
            damage = str(hurt["not_worked_out"]["message"])
        elif isinstance(hurt, Mapping):
            damage = {int(t): Fraction(p) for t, p in hurt.items()}
        hits = {int(h): Fraction(p) for h, p in odds.get("hits", {}).items()}
        return cls(hits, Fraction(odds[stop]) if stop in odds else None, damage)

    def at_least(self, hits: int) -> Fraction:
        return at_least(self.hits, hits)
