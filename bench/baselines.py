"""The same distributions written naturally in icepool and dyce, as exact fractions."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool
from dyce import H, P

from d100.systems import brp, chances, openquest

Levels = dict[str, Fraction]


def from_icepool(die: Any) -> Levels:
    return {str(k): Fraction(q, die.denominator()) for k, q in die.items()}


def from_dyce(h: Any) -> Levels:
    return {str(k): Fraction(c, h.total) for k, c in h.items()}


def icepool_d100s(net: int) -> Any:
    """BRP4: n extra dice, roll n+1 d100 and keep the lowest (bonus) or highest (penalty)."""
    dice = [icepool.d100] * (abs(net) + 1)
    if net == 0:
        return icepool.d100
    return icepool.lowest(*dice) if net > 0 else icepool.highest(*dice)


def dyce_d100s(net: int) -> Any:
    if net == 0:
        return H(100)
    return ((abs(net) + 1) @ P(100)).at(0 if net > 0 else -1)


def level_fn(check: Any) -> Callable[[int], str]:
    """The roll-to-level function of one check, from the system's own level function."""
    if check.system == "brp":
        e, rounding = check.effective, check.house_rules.threshold_rounding
        return lambda r: brp.level(r, e, rounding)
    if check.system == "openquest":
        m, master = check.modified(False), check.master
        return lambda r: openquest.level(r, m, master)
    fixed = check.factors - check.total_risk  # CH1, CH4: luck + the rest against the risk
    return lambda r: chances.degree(r + fixed)


def net_of(check: Any) -> int:
    return check.net_dice if check.system == "brp" else 0


def icepool_check(check: Any, die: Any = None) -> Any:
    die = icepool_d100s(net_of(check)) if die is None else die
    return die.map(level_fn(check))


def dyce_check(check: Any, h: Any = None) -> Any:
    h = dyce_d100s(net_of(check)) if h is None else h
    return h.apply(level_fn(check))
