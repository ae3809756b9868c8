"""Call of Cthulhu 7th edition's rules as pure functions of numbers and level names: levels
(C7-1), the required level (C7-2), what Luck can buy (C7-4) and who wins a contest (C7-6,
C7-7). The edition's requests and machines (``coc7.py``) read these."""

from __future__ import annotations

from typing import Literal, get_args

from ..dice import show_span
from ..memo import memoised
from ..results import Winner

Level = Literal["critical", "extreme", "hard", "regular", "failure", "fumble"]  # best first
LEVELS: tuple[Level, ...] = get_args(Level)
# C7-6: the ladder Foundry ranks by (fumble -99 < failure 0 < regular 1 < ... < critical 4)
RANK: dict[str, int] = {level: len(LEVELS) - 1 - i for i, level in enumerate(LEVELS)}
Difficulty = Literal["regular", "hard", "extreme", "critical"]  # the required levels (C7-2)
DIFFICULTIES: tuple[Difficulty, ...] = get_args(Difficulty)
BUYABLE: tuple[Level, ...] = ("regular", "hard", "extreme", "critical")  # lowest first (C7-4)
Response = Literal["dodge", "fight_back", "maneuver"]  # melee responses (C7-7)
RESPONSES: tuple[Response, ...] = get_args(Response)
SPLIT = 50  # a required value under this fumbles from 96, else only on 100 (C7-1)


def required_value(target: int, difficulty: str) -> int | None:
    """The value a roll must reach for the required level (C7-2); None for critical, which
    only 01 reaches."""
    if difficulty == "hard":
        return target // 2
    if difficulty == "extreme":
        return target // 5
    if difficulty == "critical":
        return None
    return target


def fumble_from(target: int, difficulty: str = "regular", critical_fumbles: bool = False) -> int:
    """The lowest fumbling roll (C7-1, C7-2): 96 when the required value is under 50, else
    100. Critical difficulty has no required value: Foundry fumbles only on 100 (the default,
    decision 2); BCDice compares a need of 0 and fumbles from 96 (``critical_fumbles``)."""
    need = required_value(target, difficulty)
    if need is None:
        return 96 if critical_fumbles else 100
    return 96 if need < SPLIT else 100


def level(roll: int, target: int, fumbles: int) -> Level:
    """C7-1, in its order: 01 is always critical, a fumble comes before any success (00
    fumbles even when the target is over 100), then fifths, halves and the whole target."""
    return banded(roll, fumbles, target // 5, target // 2, target)


def banded(roll: int, fumbles: int, extreme: int, hard: int, target: int) -> Level:
    """``level`` with the target's fifth and half worked out: a table reads every roll."""
    if roll == 1:
        return "critical"
    if roll >= fumbles:
        return "fumble"
    if roll <= extreme:
        return "extreme"
    if roll <= hard:
        return "hard"
    if roll <= target:
        return "regular"
    return "failure"


def succeeds(lvl: str, difficulty: str) -> bool:
    """C7-2: a roll succeeds iff its level is at least the required one."""
    return RANK[lvl] >= RANK[difficulty]


def winning(difficulty: str) -> frozenset[str]:
    """The levels that succeed under a required level."""
    return _WINNING[difficulty]


_WINNING: dict[str, frozenset[str]] = {
    d: frozenset(lv for lv in LEVELS if succeeds(lv, d)) for d in DIFFICULTIES
}


# Each roll's level, indexed by the roll 1..100 (index 0, no roll, is a failure): C7-1's
# bands, or a house rule's whole level function (``coc7_setcoc``)
Ladder = tuple[Level, ...]


@memoised(4096)
def ladder(target: int, fumbles: int) -> Ladder:
    """C7-1's level of every roll for one target and fumble range."""
    return ("failure", *(level(r, target, fumbles) for r in range(1, 101)))


@memoised(4096)
def changes(lad: Ladder) -> tuple[int, ...]:
    """The rolls after which the level changes (``FastPath.cuts``)."""
    return tuple(r for r in range(1, 100) if lad[r] != lad[r + 1])


@memoised(4096)
def _last(lad: Ladder) -> dict[str, tuple[int, ...]]:
    """For each level, the highest roll at or under each roll that has it (0: none): what
    Luck must lower a roll to (C7-4). Foundry lowers to the top of a level's range; on a
    ladder whose levels come back (SealDice's Delta Green doubles) that is the nearest below."""
    out: dict[str, tuple[int, ...]] = {}
    for lvl in LEVELS:
        last, seen = [], 0
        for r, at in enumerate(lad):
            seen = r if at == lvl and r > 0 else seen
            last.append(seen)
        out[lvl] = tuple(last)
    return out


def luck_offers(roll: int, lad: Ladder, difficulty: str, available: int | None) -> dict[str, int]:
    """The levels Luck is offered for after ``roll``, with their costs (C7-4, Foundry's
    ``availableButtons``): none on a fumble; "regular" only when the roll failed the required
    level; no level below the required one nor at or below the roll's own; and the Luck
    available strictly greater than the cost (every level the rule would offer where
    ``available`` is None). Lowest level first."""
    return _offers(roll, lad, _last(lad), difficulty, available)


def _offers(
    roll: int, lad: Ladder, last: dict[str, tuple[int, ...]], difficulty: str, available: int | None
) -> dict[str, int]:
    rolled = lad[roll]
    if rolled == "fumble":
        return {}
    out: dict[str, int] = {}
    for lvl in BUYABLE:
        if not succeeds(lvl, difficulty) or RANK[lvl] <= RANK[rolled]:
            continue
        if lvl == "regular" and succeeds(rolled, difficulty):
            continue
        below = last[lvl][roll]
        cost = roll - below
        if below and (available is None or available > cost):
            out[lvl] = cost
    return out


Bought = tuple[int, str] | None  # (Luck spent, the level it buys), or nothing bought


def luck_bought(
    lad: Ladder, difficulty: str, available: int, to: str | None = None
) -> tuple[Bought, ...]:
    """What Luck buys after each roll (``_buys``), indexed by the roll (index 0, no roll,
    buys nothing)."""
    last = _last(lad)
    return (None, *(_buys(r, lad, last, difficulty, available, to) for r in range(1, 101)))


def _buys(
    roll: int,
    lad: Ladder,
    last: dict[str, tuple[int, ...]],
    difficulty: str,
    available: int,
    to: str | None,
) -> Bought:
    """Decision 7: a roll that fails the required level and that Luck can buy up to it, as
    (the least Luck that does, the level it reaches); None where the roll already succeeds or
    cannot be bought. With ``to``, that level bought where C7-4 offers it, a success raised
    too. The lowered roll is the highest of the level bought below it, so the level is that."""
    offers = _offers(roll, lad, last, difficulty, available)
    if to is not None:
        return (offers[to], to) if to in offers else None
    if succeeds(lad[roll], difficulty):
        return None
    if not offers:
        return None
    # the cheapest level on offer, the lowest of equal costs: every level on offer succeeds (on
    # C7-1's bands the lowest is the cheapest; a Delta Green double may be cheaper under dg)
    lvl = min(offers, key=offers.__getitem__)
    return offers[lvl], lvl


def contest_winner(actor: str, opponent: str, response: str | None) -> Winner:
    """C7-6 without a response: the higher rank wins and equal ranks tie (a failure beats a
    fumble; two failures tie). C7-7 with one, the actor attacking: nobody wins when both are
    below regular; a dodge wins ties (the attacker must beat it), fighting back and
    maneuvering lose them (the attacker wins ties)."""
    a, o = RANK[actor], RANK[opponent]
    if response is None:
        return "tie" if a == o else "actor" if a > o else "opponent"
    if a < RANK["regular"] and o < RANK["regular"]:
        return "none"
    if response == "dodge":
        return "actor" if a > o else "opponent"
    return "actor" if a >= o else "opponent"


@memoised(4096)  # every result of a target shows the same bands
def bands(lad: Ladder) -> str:
    """Which rolls give which level: each level's runs of rolls, best level first."""
    runs: dict[str, list[list[int]]] = {}
    for r in range(1, 101):
        spans = runs.setdefault(lad[r], [])
        if spans and spans[-1][1] == r - 1:
            spans[-1][1] = r
        else:
            spans.append([r, r])
    return ", ".join(
        f"{lvl} " + " ".join(show_span(lo, hi) for lo, hi in runs[lvl])
        for lvl in LEVELS
        if lvl in runs and lvl != "failure"
    )
