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


@memoised(4096)
def tops(target: int, fumbles: int) -> dict[str, int]:
    """The highest roll of each level that some roll reaches: the top of its range, which is
    what Luck must lower a roll to (C7-4). Foundry builds a level's range only where its
    threshold passes the one below and the fumble range leaves room: exactly the levels some
    roll 1..100 has."""
    out: dict[str, int] = {}
    for r in range(1, 101):
        out[level(r, target, fumbles)] = r
    return out


def luck_offers(
    roll: int, target: int, difficulty: str, fumbles: int, available: int | None
) -> dict[str, int]:
    """The levels Luck is offered for after ``roll``, with their costs (C7-4, Foundry's
    ``availableButtons``): none on a fumble; "regular" only when the roll failed the required
    level; no level below the required one; a cost above 0; and the Luck available strictly
    greater than the cost (every level the rule would offer where ``available`` is None).
    Lowest level first, so that the cheapest comes first."""
    rolled = level(roll, target, fumbles)
    if rolled == "fumble":
        return {}
    top = tops(target, fumbles)
    out: dict[str, int] = {}
    for lvl in BUYABLE:
        if not succeeds(lvl, difficulty) or lvl not in top:
            continue
        if lvl == "regular" and succeeds(rolled, difficulty):
            continue
        cost = roll - top[lvl]
        if cost > 0 and (available is None or available > cost):
            out[lvl] = cost
    return out


def luck_buys(
    roll: int,
    target: int,
    difficulty: str,
    fumbles: int,
    available: int | None,
    to: str | None = None,
) -> tuple[int, str] | None:
    """Decision 7: a roll that fails the required level and that Luck can buy up to it, as
    (the least Luck that does, the level it reaches); None where the roll already succeeds or
    cannot be bought. With ``to``, that level bought where C7-4 offers it, a success raised
    too. The lowered roll is the top of the level bought, so the level is that."""
    if available is None:
        return None
    offers = luck_offers(roll, target, difficulty, fumbles, available)
    if to is not None:
        return (offers[to], to) if to in offers else None
    if succeeds(level(roll, target, fumbles), difficulty):
        return None
    if not offers:
        return None
    lvl = next(iter(offers))  # the lowest level on offer: every level on offer succeeds
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
def bands(target: int, fumbles: int) -> str:
    """Which rolls give which level, for one target and fumble range."""
    spans: dict[str, list[int]] = {}
    for r in range(1, 101):
        spans.setdefault(level(r, target, fumbles), []).append(r)
    parts = []
    for lvl in LEVELS:
        if lvl in spans and lvl != "failure":
            lo, hi = spans[lvl][0], spans[lvl][-1]
            parts.append(f"{lvl} {show_span(lo, hi)}")
    return ", ".join(parts)
