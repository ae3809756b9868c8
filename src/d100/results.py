"""Frozen results (G6) and exact odds (G4), written to the JSON of CONTRACT.md.

Results carry data only; text for people is made by the renderers."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

Winner = Literal["actor", "opponent", "tie", "none"]
WINNERS: tuple[Winner, ...] = ("actor", "opponent", "tie", "none")


@dataclass(frozen=True)
class CheckResult:
    """One check, resolved. ``roll`` is the deciding d100 (None for an OpenQuest master, OQ3)."""

    system: str
    level: str
    success: bool
    roll: int | None
    dice: tuple[int, ...]
    target: int
    margin: int | None
    explanation: str
    request: dict[str, Any] = field(default_factory=dict)
    total: int | None = None
    luck_spent: int | None = None
    attempts: tuple[int, ...] = ()
    bands: str | None = None
    note: str | None = None
    assist: CheckResult | None = None
    assisters: tuple[CheckResult, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "level": self.level,
            "success": self.success,
            "roll": self.roll,
            "dice": list(self.dice),
            "digits": [[(d // 10) % 10, d % 10] for d in self.dice],
            "target": self.target,
            "margin": self.margin,
        }
        if self.total is not None:
            out["total"] = self.total
        if self.luck_spent is not None:
            out["luck_spent"] = self.luck_spent
        if self.attempts:
            out["attempts"] = list(self.attempts)
        if self.bands is not None:
            out["bands"] = self.bands
        if self.note is not None:
            out["note"] = self.note
        if self.assist is not None:
            out["assist"] = self.assist.to_dict()
        if self.assisters:
            out["assisters"] = [a.to_dict() for a in self.assisters]
        out["explanation"] = self.explanation
        out["request"] = self.request
        return out


@dataclass(frozen=True)
class ContestResult:
    system: str
    winner: Winner
    actor: CheckResult
    opponent: CheckResult
    explanation: str
    request: dict[str, Any] = field(default_factory=dict)
    degree: str | None = None
    coin: str | None = None

    @property
    def success(self) -> bool:
        return self.winner == "actor"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "winner": self.winner,
            "actor": self.actor.to_dict(),
            "opponent": self.opponent.to_dict(),
        }
        if self.degree is not None:
            out["degree"] = self.degree
        if self.coin is not None:
            out["coin"] = self.coin
        out["explanation"] = self.explanation
        out["request"] = self.request
        return out


Result = CheckResult | ContestResult


def fraction_text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


@dataclass(frozen=True)
class CheckOdds:
    """Exact probability of every level of the system, best level first."""

    system: str
    levels: dict[str, Fraction]
    success: Fraction
    request: dict[str, Any] = field(default_factory=dict)
    luck_spent: Fraction | None = None  # brp: the expected Luck points spent

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "levels": {k: fraction_text(v) for k, v in self.levels.items()},
            "success": fraction_text(self.success),
        }
        if self.luck_spent is not None:
            out["luck_spent"] = fraction_text(self.luck_spent)
        return out


@dataclass(frozen=True)
class ContestOdds:
    system: str
    winner: dict[str, Fraction]
    degree: dict[str, Fraction] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"winner": {k: fraction_text(v) for k, v in self.winner.items()}}
        if self.degree:
            out["degree"] = {k: fraction_text(v) for k, v in self.degree.items()}
        return out


Odds = CheckOdds | ContestOdds
