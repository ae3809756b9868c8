"""An independent reading of EDITIONS.md section 2 (C7-1 to C7-8) for the coc7 tests, written
from the text and Foundry's range construction as the text describes it. It imports nothing
from d100: the edition's odds and results are checked against it, never against themselves."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

ORDER = ["fumble", "failure", "regular", "hard", "extreme", "critical"]  # worst first


def rank(level: str) -> int:
    return ORDER.index(level)


def need(target: int, difficulty: str) -> int | None:
    """C7-2's required value: T, T/2, T/5 rounded down; none for critical."""
    return {"regular": target, "hard": target // 2, "extreme": target // 5}.get(difficulty)


def fumble_start(target: int, difficulty: str = "regular", bcdice: bool = False) -> int:
    value = need(target, difficulty)
    if value is None:  # critical difficulty: Foundry falls through to 100; BCDice needs 0 < 50
        return 96 if bcdice else 100
    return 96 if value < 50 else 100


def level(r: int, target: int, difficulty: str = "regular", bcdice: bool = False) -> str:
    """C7-1's formula, as EDITIONS.md prints it."""
    fumble_from = fumble_start(target, difficulty, bcdice)
    if r == 1:
        return "critical"
    if r >= fumble_from:
        return "fumble"
    if r <= target // 5:
        return "extreme"
    if r <= target // 2:
        return "hard"
    if r <= target:
        return "regular"
    return "failure"


def range_tops(target: int, difficulty: str = "regular", bcdice: bool = False) -> dict[str, int]:
    """Foundry's ranges as C7-1 describes them: critical [1, 1], then extreme, hard and regular,
    each made only when its threshold exceeds the previous one, capped at fumble_from - 1
    (and none after a capped one). The tops of the ranges that exist."""
    top_allowed = fumble_start(target, difficulty, bcdice) - 1
    tops = {"critical": 1}
    minimum, maximum = 1, top_allowed
    for name, threshold in (
        ("extreme", target // 5),
        ("hard", target // 2),
        ("regular", target),
    ):
        if threshold > minimum and maximum > 0:
            minimum = threshold
            tops[name] = min(threshold, maximum)
            if tops[name] == maximum:
                maximum = 0
    return tops


def offers(
    r: int, target: int, difficulty: str, available: int | None, bcdice: bool = False
) -> dict[str, int]:
    """C7-4: the Luck buttons Foundry shows after roll r."""
    rolled = level(r, target, difficulty, bcdice)
    if rolled == "fumble":
        return {}
    tops = range_tops(target, difficulty, bcdice)
    succeeded = rank(rolled) >= rank(difficulty)
    out = {}
    for name in ("regular", "hard", "extreme", "critical"):
        if rank(name) < rank(difficulty) or (name == "regular" and succeeded):
            continue
        cost = max(0, r - tops[name]) if name in tops else 0
        if cost > 0 and (available is None or available > cost):
            out[name] = cost
    return out


def after_luck(
    r: int, target: int, difficulty: str, available: int | None, bcdice: bool = False
) -> tuple[str, int]:
    """Decision 7: a failed roll bought up to the difficulty with the least Luck that does."""
    rolled = level(r, target, difficulty, bcdice)
    if available is None or rank(rolled) >= rank(difficulty):
        return rolled, 0
    buyable = offers(r, target, difficulty, available, bcdice)
    if not buyable:
        return rolled, 0
    name, cost = min(buyable.items(), key=lambda kv: kv[1])
    assert level(r - cost, target, difficulty, bcdice) == name  # the lowered roll's level
    return name, cost


def kept_rolls(net: int) -> Counter[int]:
    """C7-3 by hand: |net| + 1 tens digits over one units digit, 00 with 0 reading 100; the
    lowest kept for bonus dice, the highest for penalty dice. Weights over 10^(|net|+2)."""
    counts: Counter[int] = Counter()
    for units in range(10):
        for tens in product(range(10), repeat=abs(net) + 1):
            values = [10 * t + units or 100 for t in tens]
            counts[min(values) if net >= 0 else max(values)] += 1
    return counts


def check_odds(
    target: int,
    difficulty: str = "regular",
    net: int = 0,
    luck: int | None = None,
    push: bool = False,
    push_fumbles: bool = False,
    bcdice: bool = False,
) -> tuple[dict[str, Fraction], Fraction]:
    """Each level's probability and the expected Luck spent: Luck first, then the push
    (C7-4, C7-5, decisions 7 and 8), the pushed roll standing as rolled."""
    kept = kept_rolls(net)
    total = sum(kept.values())
    levels = dict.fromkeys(ORDER, Fraction(0))
    spent = Fraction(0)
    for r1, w1 in kept.items():
        p1 = Fraction(w1, total)
        name, cost = after_luck(r1, target, difficulty, luck, bcdice)
        spent += p1 * cost
        pushable = rank(name) < rank(difficulty) and (name != "fumble" or push_fumbles)
        if not (push and pushable):
            levels[name] += p1
            continue
        for r2, w2 in kept.items():
            levels[level(r2, target, difficulty, bcdice)] += p1 * Fraction(w2, total)
    return levels, spent


def winner(actor: str, opponent: str, response: str | None) -> str:
    """C7-6 and C7-7 from their text."""
    a, o = rank(actor), rank(opponent)
    if response is None:
        return "actor" if a > o else "opponent" if o > a else "tie"
    if a < rank("regular") and o < rank("regular"):
        return "none"
    if response == "dodge":
        return "actor" if a > o else "opponent"
    return "actor" if a >= o else "opponent"


def side_levels(target: int, net: int) -> dict[str, Fraction]:
    kept = kept_rolls(net)
    total = sum(kept.values())
    out = dict.fromkeys(ORDER, Fraction(0))
    for r, w in kept.items():
        out[level(r, target)] += Fraction(w, total)
    return out


def contest_odds(
    actor: tuple[int, int], opponent: tuple[int, int], response: str | None
) -> dict[str, Fraction]:
    """Each winner's probability for sides (target, net dice)."""
    a, o = side_levels(*actor), side_levels(*opponent)
    out = dict.fromkeys(("actor", "opponent", "tie", "none"), Fraction(0))
    for la, pa in a.items():
        for lo, po in o.items():
            out[winner(la, lo, response)] += pa * po
    return out
