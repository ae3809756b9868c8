"""A development phase as one view (``development.DevelopmentResult`` with its odds), which
the page, Discord and a table's log only format: each marked skill's exact chance to improve
and mean gain, shown before its roll, then the roll and the value it leaves."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .development import DevelopmentResult


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:.2f}%"


@dataclass(frozen=True)
class RollLine:
    name: str
    value: int
    improves: str  # exact, as a fraction's text
    improves_percent: str
    mean_gain: str  # to two places
    d100: int
    improved: bool
    gain: int
    after: int
    reward: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class DevelopmentView:
    title: str
    rule: str
    rolls: tuple[RollLine, ...]
    reward: dict[str, Any] | None  # the value mastery rewards: name, before, after

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "rule": self.rule,
            "rolls": [r.to_dict() for r in self.rolls],
            "reward": self.reward,
        }


def development_view(
    name: str, result: DevelopmentResult, odds: list[dict[str, Any]]
) -> DevelopmentView:
    """The view of a phase rolled, from its odds as ``RollOdds.to_dict`` gives them, in the
    order rolled."""
    rules = result.request.rules
    made = [*result.skills, *([result.luck] if result.luck else [])]
    lines = tuple(
        RollLine(
            r.name,
            r.before,
            str(o["improves"]),
            _percent(Fraction(o["improves"])),
            f"{float(Fraction(o['mean_gain'])):.2f}",
            r.roll,
            r.improved,
            r.gain,
            r.after,
            r.reward,
        )
        for r, o in zip(made, odds, strict=True)
    )
    reward = None
    if result.reward_before is not None and result.reward_after != result.reward_before:
        reward = {
            "name": rules.reward_to,
            "before": result.reward_before,
            "after": result.reward_after,
        }
    return DevelopmentView(f"Development phase: {name}", result.request.rule, lines, reward)
