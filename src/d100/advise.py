"""Decision help: every option a player has for a check, with its exact odds and its cost."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .declarations import Option as Choice
from .engine import odds, parse
from .errors import D100Error
from .results import CheckOdds, frozen, thawed
from .system import System
from .systems import REGISTRY


@dataclass(frozen=True)
class Option:
    name: str
    cost: str
    request: Mapping[str, Any]  # read-only, as a result's (lists as tuples)
    odds: CheckOdds
    gain: Fraction  # change in P(success) over the check as asked

    def __post_init__(self) -> None:
        object.__setattr__(self, "request", frozen(self.request))

    @property
    def luck(self) -> Fraction:
        return self.odds.luck_spent or Fraction(0)

    def to_dict(self) -> dict[str, Any]:
        gain = f"{self.gain.numerator}/{self.gain.denominator}"
        return {
            "name": self.name,
            "cost": self.cost,
            "request": thawed(self.request),
            "odds": self.odds.to_dict(),
            "gain": gain,
        }


def advise(
    request: Any,
    luck: int | None = None,
    helpers: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[Option, ...]:
    """Options for one check, best chance of success first, cheaper first among equals.

    The options are the system's own (its declaration's ``options``): with ``luck``, the Luck
    the character has left, none that needs more is offered; ``helpers`` maps a name to the
    helper's check fields (``{"skill": 40}``) where the system has assistance.
    """
    check = parse(request) if isinstance(request, Mapping) else request
    if hasattr(check, "actor"):
        raise D100Error("request", "a contest", "a check", "advice is for a single check")
    system = REGISTRY.get(check.system)
    base = {k: v for k, v in check.to_dict().items() if k != "dice"}
    choices = [Choice("as asked", "nothing", lambda r: r, _spends(system))]
    choices += system.declares.options(base, luck, dict(helpers or {}))
    plain_odds = odds(base)
    assert isinstance(plain_odds, CheckOdds)
    out = []
    for choice in choices:
        variant = choice.change(dict(base))
        if variant is None or (luck is not None and choice.luck(variant) > luck):
            continue
        result = odds(variant)
        assert isinstance(result, CheckOdds)
        out.append(
            Option(choice.name, choice.cost, variant, result, result.success - plain_odds.success)
        )
    # ties keep the order options are listed in, cheapest first (take 50 before take 100)
    out.sort(key=lambda o: (-o.odds.success, o.luck))
    return tuple(out)


def _spends(system: System) -> Callable[[dict[str, Any]], int]:
    """The Luck a request may spend, under the system's Luck rule (none without one)."""
    rule = system.declares.luck
    return (lambda r: 0) if rule is None else rule.cost_of
