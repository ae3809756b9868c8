"""The contract's request objects (CONTRACT.md) as type checkers see them.

They give ``resolve``, ``odds`` and ``parse`` their overloads: a dict written out as a check
types as a check, one with ``actor`` and ``opponent`` as a contest. The keys are the fields the
built-in systems declare, written here from their field tables by ``python -m d100.schema
--write`` (``tests/test_typing.py`` holds them to the tables); a dict that fits neither, or one
held in a ``dict[str, Any]``, gets the union. Values are checked at run time by the field
tables, as ever."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Required, TypedDict

from .systems import CheckRequest, ContestRequest

Request = CheckRequest | ContestRequest

__all__ = ["CheckData", "CheckRequest", "ContestData", "ContestRequest", "Request"]


class CheckData(TypedDict, total=False):
    """A check as a contract dict: every field any system declares for a check."""

    system: Required[str]
    skill: int
    difficulty: int | str
    modifiers: Sequence[int]
    assist: Mapping[str, Any]
    dice: Sequence[int]
    house_rules: Mapping[str, Any]
    bonus_dice: int
    penalty_dice: int
    aim_rounds: int
    luck_boost: bool
    luck_rerolls: int
    ability: int
    risk: int | str
    take: int | None
    risk_modifiers: Sequence[int]
    synergy: Sequence[int]
    assisters: Sequence[Mapping[str, Any]]
    luck: int
    luck_to: str
    push: bool
    combined: Sequence[int]
    characteristic: int
    multiplier: float | int
    resistance: Mapping[str, Any]
    malfunction: int
    permanent_modifiers: Sequence[int]
    versus: Mapping[str, Any]
    test: str
    modifier: int | str
    san_loss: str
    san_loss_dice: Sequence[int]
    adapted: bool
    willpower: int
    bond: int
    adapting: str
    breaking_point: int


class ContestData(TypedDict, total=False):
    """A contest as a contract dict: two sides."""

    system: Required[str]
    actor: Required[Mapping[str, Any]]
    opponent: Required[Mapping[str, Any]]
    house_rules: Mapping[str, Any]
    coin: str | None
    response: str | None
