"""(a) exact odds of one check and (b) whole odds tables, against icepool and dyce."""

from __future__ import annotations

from typing import Any

import d100
from d100 import tallies
from d100.systems import brp, chances, coc7_rules, openquest, rqg

from . import baselines as B
from .report import Report, best_each, same

SKILLS = range(101)


def _checks(system: str, **fields: Any) -> list[Any]:
    return [d100.parse({"system": system, "skill": s, **fields}) for s in SKILLS]


def _verify(label: str, checks: list[Any], step: int = 1) -> None:
    for c in checks[::step]:
        ours = d100.odds(c).levels
        same(f"{label} icepool", ours, B.from_icepool(B.icepool_check(c)))
        same(f"{label} dyce", ours, B.from_dyce(B.dyce_check(c)))


def icepool_all(checks: list[Any]) -> list[Any]:
    """icepool asked as d100 is: its die built once per distinct pool (one per dice count and
    kind of pool), then mapped to levels for each check."""
    dice = {pool: B.icepool_d100s(*pool) for pool in {_pool(c) for c in checks}}
    return [B.icepool_check(c, dice[_pool(c)]) for c in checks]


def dyce_all(checks: list[Any]) -> list[Any]:
    """dyce likewise: one histogram per distinct pool, applied for each check."""
    hs = {pool: B.dyce_d100s(*pool) for pool in {_pool(c) for c in checks}}
    return [B.dyce_check(c, hs[_pool(c)]) for c in checks]


def _pool(check: Any) -> tuple[int, str]:
    """What a peer's die depends on: the extra dice, and whether they are tens dice (C7-3)."""
    return B.net_of(check), check.system


def d100_all(checks: list[Any]) -> list[Any]:
    """d100 from cold: every memo forgotten first, so its dice are enumerated again, as each
    peer builds its pool again."""
    tallies.clear_caches()
    return [d100.odds(c) for c in checks]


def one_check(report: Report, quick: bool) -> None:
    """Per check, over skills 0..100, each library asked alike: d100's caches cleared once
    for the 101 checks, icepool's and dyce's pool built once for them (each library's own
    internal caching counts as it would in use)."""
    print("(a) exact odds of one check", flush=True)
    cases = [
        ("brp", _checks("brp")), ("brp, 1 bonus die", _checks("brp", bonus_dice=1)),
        ("brp, 2 bonus dice", _checks("brp", bonus_dice=2)),
        ("openquest", _checks("openquest")), ("chances", _checks("chances", risk="average")),
        ("coc7", _checks("coc7")), ("coc7, 1 bonus die", _checks("coc7", bonus_dice=1)),
        ("coc7, 2 penalty dice, hard", _checks("coc7", penalty_dice=2, difficulty="hard")),
        ("rqg", _checks("rqg")),
    ]
    repeat = 1 if quick else 15
    for label, checks in cases:
        _verify(label, checks)
        n = len(checks)
        times = best_each({
            "d100": lambda checks=checks: d100_all(checks),
            "icepool": lambda checks=checks: icepool_all(checks),
            "dyce": lambda checks=checks: dyce_all(checks),
        }, repeat)
        t, ti, td = times["d100"], times["icepool"], times["dyce"]
        report.add("a", label, t / n, {"icepool": ti / n, "dyce": td / n},
                   "> 1x fastest", lambda r: r > 1, "per check, skills 0..100, pools built once")


def _tables() -> dict[str, list[Any]]:
    """The full tables: every skill x difficulty preset (risk preset and -2..+2 factors for
    chances) x bonus/penalty dice -2..+2 for brp; coc7's required levels x its tens-die pool
    -2..+2; rqg's modifiers -40..+40 in steps of 20, and its characteristics at every
    multiplier."""
    brp_table = [
        d100.parse({"system": "brp", "skill": s, "difficulty": d,
                    "bonus_dice": max(n, 0), "penalty_dice": max(-n, 0)})
        for s in SKILLS for d in brp.DIFFICULTIES for n in range(-2, 3)]
    oq_table = [d100.parse({"system": "openquest", "skill": s, "difficulty": d})
                for s in SKILLS for d in openquest.DIFFICULTIES]
    ch_table = [
        d100.parse({"system": "chances", "skill": s, "risk": r, "modifiers": [10 * f] if f else []})
        for s in SKILLS for r in chances.RISKS for f in range(-2, 3)]
    coc7_table = [  # C7-2, C7-3: every required level x the pool, bonus -2..+2
        d100.parse({"system": "coc7", "skill": s, "difficulty": d,
                    "bonus_dice": max(n, 0), "penalty_dice": max(-n, 0)})
        for s in SKILLS for d in coc7_rules.DIFFICULTIES for n in range(-2, 3)]
    rqg_table = [  # RQ-2: modifiers and augments -40..+40
        d100.parse({"system": "rqg", "skill": s, "modifiers": [m] if m else []})
        for s in SKILLS for m in range(-40, 41, 20)]
    rqg_chars = [  # RQ-2: characteristics 0..25 at every multiplier
        d100.parse({"system": "rqg", "characteristic": c, "multiplier": m})
        for c in range(26) for m in rqg.MULTIPLIERS]
    return {"brp": brp_table, "openquest": oq_table, "chances": ch_table, "coc7": coc7_table,
            "rqg": rqg_table, "rqg characteristics": rqg_chars}


def full_tables(report: Report, quick: bool) -> None:
    print("(b) full odds tables", flush=True)
    for system, checks in _tables().items():
        _verify(f"{system} table", checks, step=7)

        def ours(checks: list[Any] = checks) -> None:
            tallies.clear_caches()
            tallies.check_table(checks)

        repeat = 1 if quick else 5
        times = best_each({"d100": ours, "dyce": lambda checks=checks: dyce_all(checks)}, repeat)
        # icepool, seconds a table: once, its CPU time as the others'
        ice = best_each({"icepool": lambda checks=checks: icepool_all(checks)})["icepool"]
        t, theirs = times["d100"], {"icepool": ice, "dyce": times["dyce"]}
        report.add("b", f"{system}, {len(checks)} checks", t, theirs, "> 1x fastest",
                   lambda r: r > 1)
