"""One resolution, two drivers: roll it, or enumerate it exactly (G2, G3, G4).

A rule system describes a check as a *machine*: a start state, the die a state is waiting for
(``need``), and the state after that die (``advance``). States are immutable and hashable and
hold only what the rules still need, never the history. ``run`` drives a machine with real or
given dice and records every draw; ``distribution`` drives the same machine over every face of
every die with its exact weight, merging equal states as it goes, so odds come from the very
code that resolves a roll and stay small however many dice are involved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import repeat
from math import lcm
from typing import Any, Generic, Protocol, TypeVar

from .dice import RandomSource, read_digits
from .errors import DiceError

S = TypeVar("S", bound=Hashable)
T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Need:
    """A die a machine waits for: ``stream`` names whose dice (the request field they are given
    in, such as ``actor.dice``), and the value is an integer in ``low..high``."""

    stream: str
    low: int
    high: int

    @property
    def faces(self) -> int:
        return self.high - self.low + 1


def d100(stream: str) -> Need:
    return Need(stream, 1, 100)


@dataclass(frozen=True, slots=True)
class Kept:
    """A machine's own word that it draws ``count`` of one die (``need``) and ends on the lowest
    (``lower``) or the highest value drawn, in a final state that holds the kept value and
    nothing of the other dice (BRP4's bonus and penalty dice). ``final_weights`` then counts its
    ends by how many draws keep each face, rather than die by die; each end is still the
    machine's own, reached by its ``advance`` drawing that face ``count`` times."""

    need: Need
    count: int
    lower: bool


@dataclass(frozen=True, slots=True)
class TensKept:
    """A machine's own word that its one draw (faces 0..10^(count+1)-1) is a units digit and
    ``count`` tens digits, draw = units + 10 * (t1 + 10 * t2 + ...), each tens digit read
    with the units as one d100 (``read_digits``: 0 and 0 read as 100), and that it ends on the
    lowest (``lower``) or the highest reading, in a final state that holds the kept reading
    and nothing of the other digits (BRP4's tens method, C7-3). ``final_weights`` then counts,
    for each units digit, the draws that keep each reading rather than every draw; each end
    is still the machine's own, reached by its ``advance`` of a draw whose tens digits all
    read that value."""

    count: int
    lower: bool


class Machine(Protocol[S]):
    def start(self) -> S: ...

    def need(self, state: S) -> Need | None: ...

    def advance(self, state: S, value: int) -> S: ...


@dataclass(frozen=True, slots=True)
class Given:
    """Dice a caller supplies for one stream (G3); ``per_draw`` d100 values make up one draw
    (more than one for the tens method of BRP4), so counts are reported in d100 values.
    ``spare`` dice may go unused: a coin flipped in advance for a tie that never came."""

    draws: tuple[int, ...]
    per_draw: int = 1
    spare: bool = False


class Dice:
    """Where a run's dice come from: given streams first, else the random source."""

    def __init__(self, rng: RandomSource | None, given: Mapping[str, Given]) -> None:
        self._rng = rng
        self._given = given
        self._used: dict[str, int] = {}
        self.record: dict[str, list[int]] = {}

    def draw(self, need: Need) -> int:
        given = self._given.get(need.stream)
        used = self._used.get(need.stream, 0)
        if given is not None:
            if used >= len(given.draws):
                n = len(given.draws) * given.per_draw
                raise DiceError(
                    need.stream,
                    _values(given),
                    "as many dice as the roll consumes, in order",
                    f"ran out after {n} given {_dice_word(n)}; the roll needs more",
                )
            value = given.draws[used]
        elif self._rng is None:
            raise DiceError(
                need.stream, None, "dice values 1..100", "no dice given and no random source"
            )
        else:
            value = self._rng.randint(need.low, need.high)
            # the source is the caller's: a draw off the die would be read as a real roll
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or not need.low <= value <= need.high
            ):
                raise DiceError(
                    need.stream,
                    repr(value),
                    f"integers {need.low}..{need.high} from the random source",
                    f"the random source {type(self._rng).__name__} drew {value!r} for a die "
                    f"of {need.low}..{need.high}",
                )
        self._used[need.stream] = used + 1
        self.record.setdefault(need.stream, []).append(value)
        return value

    def given(self, stream: str) -> list[int]:
        """The dice given for ``stream``, as given (none: an empty list)."""
        found = self._given.get(stream)
        return [] if found is None else _values(found)

    def finish(self) -> None:
        for stream, given in self._given.items():
            left = len(given.draws) - self._used.get(stream, 0)
            if left > 0 and not given.spare:
                used = self._used.get(stream, 0) * given.per_draw
                raise DiceError(
                    stream,
                    _values(given),
                    "exactly as many dice as the roll consumes",
                    f"{left * given.per_draw} given {_dice_word(left * given.per_draw)} left"
                    f" over; the roll used {used}",
                )


def _dice_word(n: int) -> str:
    return "die" if n == 1 else "dice"


def _values(given: Given) -> list[int]:
    return list(given.draws)


def run(machine: Machine[S], dice: Dice, strict: bool = True) -> S:
    """Resolve once, drawing every die the machine asks for; ``strict`` refuses given dice
    left over (G3)."""
    state = machine.start()
    while (need := machine.need(state)) is not None:
        state = machine.advance(state, dice.draw(need))
    if strict:
        dice.finish()
    return state


class Fixed(Generic[T]):
    """A machine that draws nothing: its start is its end (an OpenQuest master, OQ3)."""

    def __init__(self, state: T) -> None:
        self._state = state

    def start(self) -> T:
        return self._state

    def need(self, state: T) -> Need | None:
        return None

    def advance(self, state: T, value: int) -> T:
        raise AssertionError("a fixed machine draws nothing")


class Then(Generic[S, T]):
    """Run ``first`` to its end, then the machine ``then(route(key(end)))``; the final state is
    ``(True, key(end), end of the second)``. ``key`` keeps only what the result depends on, so
    that states merge during enumeration; ``route`` only what picks the second machine."""

    def __init__(
        self,
        first: Machine[S],
        then: Callable[[Any], Machine[T]],
        key: Callable[[S], Hashable] = lambda s: s,
        route: Callable[[Any], Hashable] = lambda k: None,
    ) -> None:
        self.first = first
        self.key = key
        self.route = route
        self._make = then
        self._picked: dict[Hashable, Machine[T]] = {}  # each second machine built once
        self.then: Callable[[Any], Machine[T]] = lambda k: self.pick(route(k))

    def pick(self, route: Hashable) -> Machine[T]:
        """The second machine for a route, built once per route (routes are hashable)."""
        found = self._picked.get(route)
        if found is None:
            found = self._picked[route] = self._make(route)
        return found

    def start(self) -> tuple[Any, ...]:
        return self._settle(self.first.start())

    def _settle(self, a: S) -> tuple[Any, ...]:
        if self.first.need(a) is None:
            k = self.key(a)
            return (True, k, self.then(k).start())
        return (False, a)

    def need(self, state: tuple[Any, ...]) -> Need | None:
        if state[0]:
            return self.then(state[1]).need(state[2])
        return self.first.need(state[1])

    def advance(self, state: tuple[Any, ...], value: int) -> tuple[Any, ...]:
        if state[0]:
            return (True, state[1], self.then(state[1]).advance(state[2], value))
        return self._settle(self.first.advance(state[1], value))


class Repeat(Generic[S]):
    """Run ``attempt`` again from its start while ``again(end)`` holds, at most ``times`` more
    times (BRP7's Luck rerolls). States are (earlier attempts, attempt state, done); a final
    state is (earlier attempts, end, True)."""

    def __init__(self, attempt: Machine[S], times: int, again: Callable[[S], bool]) -> None:
        self.attempt = attempt
        self.times = times
        self.again = again

    def start(self) -> tuple[int, S, bool]:
        return self._settle(0, self.attempt.start())

    def _settle(self, done: int, state: S) -> tuple[int, S, bool]:
        if self.attempt.need(state) is not None:
            return (done, state, False)
        if done < self.times and self.again(state):
            return self._settle(done + 1, self.attempt.start())
        return (done, state, True)

    def need(self, state: tuple[int, S, bool]) -> Need | None:
        return None if state[2] else self.attempt.need(state[1])

    def advance(self, state: tuple[int, S, bool], value: int) -> tuple[int, S, bool]:
        return self._settle(state[0], self.attempt.advance(state[1], value))


def final_weights(machine: Machine[S]) -> tuple[dict[S, int], int]:
    """Every final state with an integer weight, and the denominator they share: the exact
    enumeration behind ``distribution``, kept in integers so that tallies stay cheap.

    A layer in which states wait for dice of different sizes scales by their least common
    multiple; finals already reached are scaled with it so that one denominator serves all.
    """
    if isinstance(machine, Then):
        return _sequence_weights(machine)
    if isinstance(machine, Repeat):
        return _repeat_weights(machine)
    kept: Kept | None = getattr(machine, "kept", None)
    if kept is not None:
        return _kept_weights(machine, kept)
    tens: TensKept | None = getattr(machine, "tens_kept", None)
    if tens is not None:
        return _tens_weights(machine, tens)
    frontier: dict[S, int] = {machine.start(): 1}
    denominator = 1
    finals: dict[S, int] = {}
    need_of, advance = machine.need, machine.advance  # bound once: this loop is the hot path
    # a machine that looks a draw up in a table may hand over the table: its every face's
    # state in order, the very states ``advance`` reads from it
    every_face: Callable[[S], Iterable[S]] | None = getattr(machine, "every_face", None)
    while frontier:
        pending: list[tuple[S, int, Need]] = []
        for state, weight in frontier.items():
            need = need_of(state)
            if need is None:
                finals[state] = finals.get(state, 0) + weight
            else:
                pending.append((state, weight, need))
        if not pending:
            break
        scale = lcm(*(need.faces for _, _, need in pending))
        denominator *= scale
        if scale != 1:
            finals = {s: w * scale for s, w in finals.items()}
        # Every face of every die once, counted in C: states that pass on the same share of
        # weight have their children counted together, then merged with that share.
        by_share: dict[int, list[tuple[S, Need]]] = {}
        for state, weight, need in pending:
            by_share.setdefault(weight * (scale // need.faces), []).append((state, need))
        nxt: dict[S, int] = {}
        for share, group in by_share.items():
            children: Counter[S] = Counter()
            for state, need in group:
                if every_face is not None:
                    children.update(every_face(state))
                    continue
                faces = range(need.low, need.high + 1)
                children.update(map(advance, repeat(state, len(faces)), faces))
            for child, n in children.items():
                nxt[child] = nxt.get(child, 0) + n * share
        frontier = nxt
    return finals, denominator


def _kept_weights(machine: Machine[S], kept: Kept) -> tuple[dict[S, int], int]:
    """A ``Kept`` machine's ends: of the faces^count draws, (faces from v on)^count less (faces
    past v)^count keep v, on the lowest side or the highest. The same finals and weights as
    driving it die by die (``tests/test_work_budget.py``), in ``faces * count`` advances."""
    low, high, n = kept.need.low, kept.need.high, kept.count
    start, advance = machine.start(), machine.advance
    finals: dict[S, int] = {}
    for face in range(low, high + 1):
        past = high - face if kept.lower else face - low  # faces a kept die beats
        state = start
        for _ in range(n):
            state = advance(state, face)
        finals[state] = finals.get(state, 0) + (past + 1) ** n - past**n
    return finals, kept.need.faces**n


def _tens_weights(machine: Machine[S], kept: TensKept) -> tuple[dict[S, int], int]:
    """A ``TensKept`` machine's ends: over one units digit, a reading that ranks r-th among the
    ten tens digits' is kept by (digits reading it or worse)^count less (digits reading
    worse)^count of the 10^count draws of the tens digits. The same finals and weights as
    every draw of the table (``tests/test_work_budget.py``), in 100 advances rather than
    10^(count+1)."""
    n = kept.count
    start, advance = machine.start(), machine.advance
    spread = sum(10 ** (i + 1) for i in range(n))  # a draw whose n tens digits are all 1
    finals: dict[S, int] = {}
    for units in range(10):
        ranked = sorted(range(10), key=lambda tens: read_digits(tens, units))
        for rank, tens in enumerate(ranked):
            past = 9 - rank if kept.lower else rank  # tens digits a kept one reads better than
            state = advance(start, units + tens * spread)
            finals[state] = finals.get(state, 0) + (past + 1) ** n - past**n
    return finals, 10 ** (n + 1)


def _sequence_weights(machine: Then[Any, Any]) -> tuple[dict[Any, int], int]:
    """A ``Then`` enumerated part by part: the first machine's ends grouped by key, each
    followed by the ends of the second machine its route picks, enumerated once per route.
    The same finals and weights as driving the whole machine die by die, without carrying
    every end of the first part through every die of the second (two sides of a contest)."""
    firsts, first_denominator = final_weights(machine.first)
    keyed: dict[Any, int] = {}
    for state, weight in firsts.items():
        k = machine.key(state)
        keyed[k] = keyed.get(k, 0) + weight
    seconds: dict[Hashable, tuple[dict[Any, int], int]] = {}
    for k in keyed:
        r = machine.route(k)
        if r not in seconds:
            seconds[r] = final_weights(machine.pick(r))
    common = lcm(*(d for _, d in seconds.values()))
    finals: dict[Any, int] = {}
    for k, weight in keyed.items():
        ends, d = seconds[machine.route(k)]
        scale = weight * (common // d)
        for end, w in ends.items():
            state = (True, k, end)
            finals[state] = finals.get(state, 0) + scale * w
    return finals, first_denominator * common


def _repeat_weights(machine: Repeat[Any]) -> tuple[dict[Any, int], int]:
    """A ``Repeat`` from one enumeration of its attempt: every attempt repeats the same
    distribution, so attempt i ends on a state that stops with the chance of i repeats before
    it, and the last attempt keeps whatever it rolls. Over the denominator D^(n+1), with A the
    weight of ending where ``again`` holds: (i, s) weighs A^i * w(s) * D^(n-i) for a stopping
    s and i < n; (n, s) weighs A^n * w(s) for every s."""
    ends, d = final_weights(machine.attempt)
    n = machine.times
    repeats = {s for s in ends if machine.again(s)} if n else set()
    if not repeats:  # no attempt repeats: the first one stands
        return {(0, s, True): w for s, w in ends.items()}, d
    again = sum(ends[s] for s in repeats)
    finals: dict[Any, int] = {}
    reach = 1  # A^i
    for i in range(n + 1):
        rest = d ** (n - i)
        for s, w in ends.items():
            if i == n:
                finals[(i, s, True)] = reach * w
            elif s not in repeats:
                finals[(i, s, True)] = reach * w * rest
        reach *= again
    return finals, d ** (n + 1)


def distribution(machine: Machine[S]) -> dict[S, Fraction]:
    """Every final state with its exact probability, summing to exactly 1."""
    finals, denominator = final_weights(machine)
    return {state: Fraction(weight, denominator) for state, weight in finals.items()}
