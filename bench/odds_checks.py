"""(a) exact odds of one check and (b) whole odds tables, against icepool and dyce."""

from __future__ import annotations

from typing import Any

import d100
from d100 import tallies
from d100.systems import brp, chances, coc7_rules, openquest, rqg

from . import baselines as B
from .report import Report, best, best_each, same

SKILLS = range(101)


def _checks(system: str, **fields: Any) -> list[Any]:
    return [d100.parse({"system": system, "skill": s, **fields}) for s in SKILLS]


def _verify(label: str, checks: list[Any], step: int = 1) -> None:
    for c in checks[::step]:
        ours = d100.odds(c).levels
        same(f"{label} icepool", ours, B.from_icepool(B.icepool_check(c)))
        same(f"{label} dyce", ours, B.from_dyce(B.dyce_check(c)))


def one_check(report: Report, quick: bool) -> None:
    """Per check, over skills 0..100, d100's caches cleared first: each library's own caching
    (icepool's and dyce's internal ones, d100's per-die cache) counts as it would in use."""
    print("(a) exact odds of one check", flush=True)
    cases = [
        ("brp", _checks("brp")), ("brp, 1 bonus die", _checks("brp", bonus_dice=1)),
        ("brp, 2 bonus dice", _checks("brp", bonus_dice=2)),
        ("openquest", _checks("openquest")), ("chances", _checks("chances", risk="average")),
        ("coc7", _checks("coc7")), ("coc7, 1 bonus die", _checks("coc7", bonus_dice=1)),
        ("coc7, 2 penalty dice, hard", _checks("coc7", penalty_dice=2, difficulty="hard")),
        ("rqg", _checks("rqg")),
    ]
    repeat = 1 if quick else 5
    for label, checks in cases:
        _verify(label, checks)
        n = len(checks)

        def ours(checks: list[Any] = checks) -> None:
            tallies.clear_caches()
            for c in checks:
                d100.odds(c)

        times = best_each({
            "d100": ours,
            "icepool": lambda checks=checks: [B.icepool_check(c) for c in checks],
            "dyce": lambda checks=checks: [B.dyce_check(c) for c in checks],
        }, repeat)
        t, ti, td = times["d100"], times["icepool"], times["dyce"]
        report.add("a", label, t / n, {"icepool": ti / n, "dyce": td / n},
                   "> 1x fastest", lambda r: r > 1, "per check, skills 0..100, cold start")


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

        kind = checks[0].system

        def ice(checks: list[Any] = checks, kind: str = kind) -> None:  # a die per pool, mapped
            dice = {n: B.icepool_d100s(n, kind) for n in {B.net_of(c) for c in checks}}
            for c in checks:
                B.icepool_check(c, dice[B.net_of(c)])

        def dy(checks: list[Any] = checks, kind: str = kind) -> None:
            hs = {n: B.dyce_d100s(n, kind) for n in {B.net_of(c) for c in checks}}
            for c in checks:
                B.dyce_check(c, hs[B.net_of(c)])

        repeat = 1 if quick else 3
        times = best_each({"d100": ours, "dyce": dy}, repeat)  # icepool, seconds a table: once
        t, theirs = times["d100"], {"icepool": best(ice, 1)[0], "dyce": times["dyce"]}
        report.add("b", f"{system}, {len(checks)} checks", t, theirs, "> 1x fastest",
                   lambda r: r > 1)
