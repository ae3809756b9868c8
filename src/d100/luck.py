"""Luck points as a character holds them (BRP7)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import D100Error
from .systems import REGISTRY


@dataclass(frozen=True)
class Luck:
    current: int
    maximum: int

    def __post_init__(self) -> None:
        if self.maximum < 0:
            raise D100Error("luck.maximum", self.maximum, "an integer >= 0", "negative")
        if not 0 <= self.current <= self.maximum:
            raise D100Error(
                "luck.current",
                self.current,
                f"an integer 0..{self.maximum}",
                f"out of range: {self.current}",
            )

    def spend(self, points: int = 1) -> Luck:
        """Spending more than is left is an error, not a clamp (BRP7)."""
        if points > self.current:
            raise D100Error(
                "luck",
                self.current,
                f"at least {points} Luck point(s) to spend",
                f"only {self.current} Luck left",
            )
        return replace(self, current=self.current - points)

    def rest(self) -> Luck:
        """A full night's rest restores Luck to its maximum."""
        return replace(self, current=self.maximum)


def luck_needed(request: object) -> int:
    """The most Luck a parsed request may spend, by its system's Luck rule (none without)."""
    rule = REGISTRY.get(getattr(request, "system", None)).declares.luck
    if rule is None:
        return 0
    boost = bool(getattr(request, rule.boost_field, False))
    return rule.cost(boost, int(getattr(request, rule.reroll_field, 0)))
