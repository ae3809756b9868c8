"""The seed's opposed-chance examples as data (CH11), and the failure tally (CH12)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .results import CheckResult


@dataclass(frozen=True)
class OpposedTask:
    task: str
    skill: str
    ability: str
    opposing_skill: str
    opposing_ability: str


OPPOSED_TASKS: tuple[OpposedTask, ...] = tuple(
    OpposedTask(*row)
    for row in (
        ("Win an election", "Politics", "Cha.", "Politics", "Cha."),
        ("Expose false papers", "Forgery", "Int.", "Forgery", "Int."),
        ("Secure PC network", "Security", "Dex.", "Security", "Dex."),
        ("Win a car race", "Driving", "Dex.", "Driving", "Dex."),
        ("Shoot someone", "Shooting", "Dex.", "Dodging", "Dex."),
        ("Sneak up on someone", "Sneaking", "Dex.", "Hearing", "Per."),
        ("Hide from someone", "Hiding", "Dex.", "Seeing", "Per."),
        ("Con someone", "Deception", "Cha.", "Empathy", "Per."),
        ("Pretend to be someone else", "Disguise", "Cha.", "Seeing", "Per."),
        ("Steal a keychain", "Stealing", "Dex.", "Seeing", "Per."),
    )
)


def find_task(name: str) -> OpposedTask | None:
    key = name.strip().lower()
    return next((t for t in OPPOSED_TASKS if t.task.lower() == key), None)


def failures(log: Iterable[tuple[str, str, CheckResult]]) -> Counter[tuple[str, str]]:
    """Failures per (character, skill): the seed stops at "Learning From Failure", so the log
    only counts them and each table applies its own improvement rule (CH12)."""
    return Counter((who, skill.lower()) for who, skill, result in log if not result.success)
