"""(c) exact contest odds for all 101 x 101 skill pairs, each system, against dyce."""

from __future__ import annotations

import tracemalloc
from fractions import Fraction
from typing import Any

from dyce import H

import d100
from d100 import tallies
from d100.systems import brp, coc7_rules, openquest, rqg

from .baselines import Levels, from_dyce, rqg_level_fn
from .report import Report, best, same


def _brp(contest: Any) -> Levels:
    a, o = contest.actor.effective, contest.opponent.effective
    r = contest.house_rules.threshold_rounding
    return from_dyce(H(100).apply(lambda x, y: brp.opposed(
        brp.level(x, a, r), x, a, brp.level(y, o, r), y, o), H(100)))


def _openquest(contest: Any) -> Levels:  # sampled pairs have no master (OQ9)
    actor, opponent = contest.actor, contest.opponent
    a, o = actor.modified(False), opponent.modified(False)
    return from_dyce(H(100).apply(lambda x, y: openquest._decide(
        actor, opponent, openquest.level(x, a, False), x, openquest.level(y, o, False), y)[0],
        H(100)))


def _chances(contest: Any) -> Levels:
    """dyce's own idiom for "higher total wins": the sign of the difference of the totals;
    equal totals and abilities flip a coin (CH6)."""
    diff = (H(100) + contest.actor.factors) - (H(100) + contest.opponent.factors)
    h = diff.apply(lambda d: (d > 0) - (d < 0))
    total = 2 * h.total
    return {"actor": Fraction(2 * h.get(1, 0) + h.get(0, 0), total),
            "opponent": Fraction(2 * h.get(-1, 0) + h.get(0, 0), total)}


def _coc7(contest: Any) -> Levels:
    """C7-6 (no response) and C7-7 (a melee response): each side's level at regular
    difficulty, the winner by the edition's own ladder."""
    a, o, response = contest.actor.target, contest.opponent.target, contest.response
    fa, fo = coc7_rules.fumble_from(a), coc7_rules.fumble_from(o)
    return from_dyce(H(100).apply(lambda x, y: coc7_rules.contest_winner(
        coc7_rules.level(x, a, fa), coc7_rules.level(y, o, fo), response), H(100)))


def _rqg(contest: Any) -> Levels:
    """RQ-3: each side judged at its chance (after any reduction over 100), then the ladder."""
    la, lo = (rqg_level_fn(j) for j in contest.judges())
    return from_dyce(H(100).apply(lambda x, y: rqg.decide(la(x), lo(y)), H(100)))


DYCE = {"brp": _brp, "openquest": _openquest, "chances": _chances, "coc7": _coc7,
        "coc7 dodge": _coc7, "rqg": _rqg}
EXTRA = {"coc7 dodge": {"response": "dodge"}}  # one melee response (C7-7)


def all_pairs(report: Report, quick: bool) -> None:
    print("(c) contest odds, every skill pair", flush=True)
    skills = range(0, 101, 5) if quick else range(101)
    sampled = 12 if quick else 120
    for label, dyce_fn in DYCE.items():
        system = label.split()[0]
        contests = [d100.parse({"system": system, "actor": {"skill": a}, "opponent": {"skill": o},
                                **EXTRA.get(label, {})})
                    for a in skills for o in skills]

        def ours(contests: list[Any] = contests) -> None:
            tallies.clear_caches()
            for c in contests:
                tallies.tally(c)

        t, _ = best(ours, 1)
        # dyce takes about a second per ten pairs: timed on an even spread, scaled to all.
        sample = [c for c in contests if c.actor.skill < 100 and c.opponent.skill < 100]
        sample = sample[:: max(1, len(sample) // sampled)]
        for c in sample[:5]:
            same(f"{label} contest", d100.odds(c).winner, dyce_fn(c))
        td, _ = best(lambda sample=sample, fn=dyce_fn: [fn(c) for c in sample], 1)
        scaled = td / len(sample) * len(contests)
        tallies.clear_caches()
        tracemalloc.start()
        ours()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        report.add("c", f"{label}, {len(contests)} pairs", t, {"dyce": scaled},
                   ">= 20x dyce", lambda r: r >= 20,
                   f"dyce timed on {len(sample)} pairs, scaled; d100 memory peak "
                   f"{peak / 2**20:.1f} MiB")
