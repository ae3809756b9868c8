"""SealDice's critical and fumble rules for ``coc7`` (``.setcoc``): the shared frame of
SealDice's ``ResultCheckBase`` (SD-core) and each rule's critical value, fumble value and
overrides (SD-0..SD-5, SD-dg), declared as data. A check's house rule ``setcoc`` replaces the
whole level function (C7-1, C7-2) with the ladder built here (decision S8)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..memo import memoised
from .coc7_rules import Ladder, Level

# SealDice's ranks (SD-core) as coc7's levels
LEVEL_OF_RANK: dict[int, Level] = {
    4: "critical",
    3: "extreme",
    2: "hard",
    1: "regular",
    -1: "failure",
    -2: "fumble",
}
# SealDice's ``difficultyRequired``: 0 is the SAN roll's and development's (``.sc``, ``.en``)
REQUIRED = {"regular": 1, "hard": 2, "extreme": 3, "critical": 4}


def quot(a: int, b: int) -> int:
    """Go's integer division, truncating toward zero (SealDice's ``S / 2`` on a negative S)."""
    q = abs(a) // b
    return -q if a < 0 else q


def double(roll: int) -> bool:
    """SealDice's double: units equal to tens of ``roll mod 100``, so 100 is one (SD-dg)."""
    return roll % 10 == (roll % 100) // 10


# (skill S, required value) -> a value of the rule
Value = Callable[[int, int], int]
# (rank from the frame, roll) -> the rank that stands
Override = Callable[[int, int], int]


def _keep(rank: int, roll: int) -> int:
    return rank


@dataclass(frozen=True)
class SealRule:
    """One of SealDice's rules: what ``.setcoc`` takes, its help in English, the last roll
    that is critical and the first that fumbles, what it does to the frame's rank, and
    whether the lower roll wins an opposed roll both sides succeed at one level."""

    key: str
    summary: str
    crit: Value
    fum: Value
    override: Override = _keep
    lower_roll_wins: bool = False  # opposed, both succeeding at one level (``.rav``, SD-dg)


def _rule0(rank: int, roll: int) -> int:
    return 4 if roll == 1 else -2 if roll == 100 else rank


def _one_critical(rank: int, roll: int) -> int:
    return 4 if roll == 1 else rank


def _rule3(rank: int, roll: int) -> int:
    return 4 if roll <= 5 else -2 if roll >= 96 else rank


def _dg(rank: int, roll: int) -> int:
    if roll == 1:  # SealDice 23.3: 01 is a critical success
        return 4
    if rank > 0:
        return 4 if double(roll) else 1
    return -2 if double(roll) else -1


RULES: dict[str, SealRule] = {
    rule.key: rule
    for rule in (
        SealRule(
            "0",
            "the rulebook's: 01 critical; 96-00 fumble where the value needed is under 50, else 00",
            lambda s, need: 1,
            lambda s, need: 96 if need < 50 else 100,
            _rule0,
        ),
        SealRule(
            "1",
            "01 critical, 01-05 where the skill is 50 or more; 96-00 fumble under 50, else 00",
            lambda s, need: 5 if s >= 50 else 1,
            lambda s, need: 96 if s < 50 else 100,
            _one_critical,
        ),
        SealRule(
            "2",
            "01-05 critical where they succeed, 01 always; 96-00 fumble where they fail",
            lambda s, need: min(5, s),
            lambda s, need: 96 if s < 96 else min(s + 1, 100),
            _one_critical,
        ),
        SealRule(
            "3",
            "01-05 always critical, 96-00 always fumble, whatever the skill",
            lambda s, need: 5,
            lambda s, need: 96,
            _rule3,
        ),
        SealRule(
            "4",
            "01 to a tenth of the skill (at most 05) critical; fumble from 96 plus a tenth "
            "of the skill (at most 00)",
            lambda s, need: min(5, quot(s, 10)),
            lambda s, need: min(100, 96 + quot(s, 10)),
        ),
        SealRule(
            "5",
            "01 to a fifth of the skill (at most 02) critical; 96-00 fumble under 50, else 99-00",
            lambda s, need: min(2, quot(s, 5)),
            lambda s, need: 96 if s < 50 else 99,
        ),
        SealRule(
            "dg",
            "Delta Green: 01 and successful doubles critical, failed doubles fumble (00 is a "
            "double); no hard or extreme",
            lambda s, need: 1,
            lambda s, need: 100,
            _dg,
            lower_roll_wins=True,
        ),
    )
}
# What the house rule takes: SealDice's number or its text, and ``dg`` (decision S8)
VALUES: tuple[int | str, ...] = (*range(6), *(str(n) for n in range(6)), "dg")


def rule_of(value: int | str) -> SealRule:
    """The rule a ``setcoc`` value names (a number and its text name the same one)."""
    return RULES[str(value)]


def rank(rule: SealRule, skill: int, required: int, roll: int) -> int:
    """SD-core: SealDice's rank of ``roll`` (1..100) against ``skill`` with
    ``difficultyRequired`` 0..4. Hard and extreme are measured from the whole skill, a roll
    that meets the skill but not the difficulty fails, and a fumble only outside the success
    branch; then the rule's overrides."""
    need = {2: quot(skill, 2), 3: quot(skill, 5), 4: 1}.get(required, skill)
    crit, fum = rule.crit(skill, need), rule.fum(skill, need)
    if roll <= need or roll <= crit:
        got = 1
        if roll <= quot(skill, 2):
            got = 2
        if roll <= quot(skill, 5):
            got = 3
        if roll <= crit:
            got = 4
    else:
        got = -2 if roll >= fum else -1
    return rule.override(got, roll)


@memoised(4096)
def ladder(value: int | str, target: int, difficulty: str) -> Ladder:
    """Each roll's level (index 0, no roll, is a failure) under one of SealDice's rules."""
    rule, required = rule_of(value), REQUIRED[difficulty]
    return (
        "failure",
        *(LEVEL_OF_RANK[rank(rule, target, required, r)] for r in range(1, 101)),
    )
