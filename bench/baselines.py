"""The same distributions written naturally in icepool and dyce, as exact fractions."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool
from dyce import H, P
from dyce.evaluation import HResult, expand

from d100.dice import read_digits
from d100.systems import brp, chances, coc7_rules, openquest, rqg

Levels = dict[str, Fraction]


def from_icepool(die: Any) -> Levels:
    return {str(k): Fraction(q, die.denominator()) for k, q in die.items()}


def from_dyce(h: Any) -> Levels:
    return {str(k): Fraction(c, h.total) for k, c in h.items()}


def tens_pool(system: str) -> bool:
    """CoC7's bonus and penalty dice are extra tens dice over one units die (C7-3)."""
    return system == "coc7"


def icepool_d100s(net: int, system: str = "brp") -> Any:
    """BRP4: n extra dice, roll n+1 d100 and keep the lowest (bonus) or highest (penalty).
    C7-3: n extra tens dice over one units die; each tens die reads with the units as a d100
    (00 with 0 is 100), the lowest or highest reading kept: per units face, the pool of tens
    readings, mixed over the units die."""
    if net == 0:
        return icepool.d100
    k = abs(net) + 1
    if tens_pool(system):
        digit = icepool.d10 - 1

        def kept(units: int) -> Any:
            reading = digit.map(lambda tens: read_digits(tens, units))
            return reading.lowest(k) if net > 0 else reading.highest(k)

        return digit.map(kept)
    dice = [icepool.d100] * k
    return icepool.lowest(*dice) if net > 0 else icepool.highest(*dice)


def dyce_d100s(net: int, system: str = "brp") -> Any:
    if net == 0:
        return H(100)
    k = abs(net) + 1
    at = 0 if net > 0 else -1
    if tens_pool(system):  # dyce's idiom for a die that decides how others read: expand
        digit = H(10) - 1

        def kept(units: HResult[int]) -> Any:
            reading = digit.apply(lambda tens: read_digits(tens, units.outcome))
            return (k @ P(reading)).at(at)

        with warnings.catch_warnings():  # dyce marks expand experimental
            warnings.simplefilter("ignore")
            return expand(kept, digit)
    return (k @ P(100)).at(at)


def level_fn(check: Any) -> Callable[[int], str]:
    """The roll-to-level function of one check, from the system's own level function."""
    if check.system == "brp":  # BRP3, the thresholds worked out once, as d100's plan does
        e = check.effective
        critical, special = brp.thresholds(e, check.house_rules.threshold_rounding)
        return lambda r: brp.banded(r, critical, special, e)
    if check.system == "openquest":
        m, master = check.modified(False), check.master
        return lambda r: openquest.level(r, m, master)
    if check.system == "coc7":  # C7-1, C7-2: the target's levels, fumbles from the required value
        t, h = check.target, check.house_rules  # the fifth and half worked out once
        f = coc7_rules.fumble_from(t, check.difficulty, h.critical_difficulty_fumbles)
        fifth, half = t // 5, t // 2
        return lambda r: coc7_rules.banded(r, f, fifth, half, t)
    if check.system == "rqg":
        return rqg_level_fn(check.judge())
    fixed = check.factors - check.total_risk  # CH1, CH4: luck + the rest against the risk
    return lambda r: chances.degree(r + fixed)


def rqg_level_fn(judge: Any) -> Callable[[int], str]:
    """RQ-1, RQ-2: the rule's level at the chance as judged; a check that does not roll fails."""
    chance = judge.chance
    return (lambda r: rqg.level(r, chance)) if judge.rolls else (lambda r: "failure")


def net_of(check: Any) -> int:
    return check.net_dice if check.system in ("brp", "coc7") else 0


def icepool_check(check: Any, die: Any = None) -> Any:
    die = icepool_d100s(net_of(check), check.system) if die is None else die
    return die.map(level_fn(check))


def dyce_check(check: Any, h: Any = None) -> Any:
    h = dyce_d100s(net_of(check), check.system) if h is None else h
    return h.apply(level_fn(check))
