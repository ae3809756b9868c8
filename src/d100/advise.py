"""Decision help: every option a player has for a check, with its exact odds and its cost."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .engine import odds, parse
from .errors import D100Error
from .results import CheckOdds


@dataclass(frozen=True)
class Option:
    name: str
    cost: str
    request: dict[str, Any]
    odds: CheckOdds
    gain: Fraction  # change in P(success) over the check as asked

    @property
    def luck(self) -> Fraction:
        return self.odds.luck_spent or Fraction(0)

    def to_dict(self) -> dict[str, Any]:
        gain = f"{self.gain.numerator}/{self.gain.denominator}"
        return {
            "name": self.name,
            "cost": self.cost,
            "request": self.request,
            "odds": self.odds.to_dict(),
            "gain": gain,
        }


Variant = tuple[str, str, Callable[[dict[str, Any]], dict[str, Any]]]


def advise(
    request: Any,
    luck: int | None = None,
    helpers: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[Option, ...]:
    """Options for one check, best chance of success first, cheaper first among equals.

    ``luck`` is the Luck the character has left (BRP7: options that need more are left out);
    ``helpers`` maps a name to the helper's check fields (``{"skill": 40}``), offered as an
    OpenQuest assist (OQ11) or a Taking Chances assister (CH8).
    """
    check = parse(request) if isinstance(request, Mapping) else request
    if hasattr(check, "actor"):
        raise D100Error("request", "a contest", "a check", "advice is for a single check")
    base = {k: v for k, v in check.to_dict().items() if k != "dice"}
    variants: list[Variant] = [("as asked", "nothing", lambda r: r)]
    variants += _VARIANTS[check.system](base, luck, dict(helpers or {}))
    plain_odds = odds(base)
    assert isinstance(plain_odds, CheckOdds)
    out = []
    for name, cost, change in variants:
        variant = change(dict(base))
        result = odds(variant)
        assert isinstance(result, CheckOdds)
        if luck is not None and result.luck_spent is not None:
            most = int(variant.get("luck_boost", False)) + variant.get("luck_rerolls", 0)
            if most > luck:
                continue
        out.append(Option(name, cost, variant, result, result.success - plain_odds.success))
    # ties keep the order options are listed in, cheapest first (take 50 before take 100)
    out.sort(key=lambda o: (-o.odds.success, o.luck))
    return tuple(out)


def _brp(base: dict[str, Any], luck: int | None, helpers: dict[str, Any]) -> list[Variant]:
    out: list[Variant] = []
    if not base.get("luck_boost"):
        out.append(
            ("Luck boost", "1 Luck before rolling (+20)", lambda r: {**r, "luck_boost": True})
        )
    # BRP7's house rule may cap the rerolls one check takes: no option asks for more.
    cap = base.get("house_rules", {}).get("max_luck_rerolls")
    may_reroll = not base.get("luck_rerolls") and cap != 0
    if may_reroll:
        out.append(
            ("Luck reroll", "1 Luck, only if the roll fails", lambda r: {**r, "luck_rerolls": 1})
        )
        most = min(luck if luck is not None else 3, cap if cap is not None else 3)
        if most > 1:
            out.append(
                (
                    f"Luck rerolls (up to {most})",
                    "1 Luck per failed roll",
                    lambda r: {**r, "luck_rerolls": most},
                )
            )
    if not base.get("luck_boost") and may_reroll:
        out.append(
            (
                "Luck boost and a reroll",
                "1 Luck, and 1 more if the roll fails",
                lambda r: {**r, "luck_boost": True, "luck_rerolls": 1},
            )
        )
    if base.get("bonus_dice", 0) < 2:
        out.append(
            (
                "a bonus die",
                "if the Keeper grants one",
                lambda r: {**r, "bonus_dice": r.get("bonus_dice", 0) + 1},
            )
        )
    return out


def _openquest(base: dict[str, Any], luck: int | None, helpers: dict[str, Any]) -> list[Variant]:
    if base.get("assist"):
        return []
    return [
        (f"assisted by {name}", f"{name}'s action (OQ11)", _with("assist", dict(help_)))
        for name, help_ in helpers.items()
    ]


def _with(key: str, value: Any, append: bool = False) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A change to a request: set ``key``, or append ``value``'s items to the list there."""

    def change(request: dict[str, Any]) -> dict[str, Any]:
        if append:
            return {**request, key: [*request.get(key, []), *value]}
        return {**request, key: value}

    return change


def _chances(base: dict[str, Any], luck: int | None, helpers: dict[str, Any]) -> list[Variant]:
    out: list[Variant] = []
    if base.get("take") is None:
        out.append(("take 50", "not rushed, threatened or distracted", lambda r: {**r, "take": 50}))
        out.append(
            (
                "take 100",
                "about 100 times as long; only if failure costs nothing",
                lambda r: {**r, "take": 100},
            )
        )
    for name, help_ in helpers.items():
        out.append(
            (
                f"helped by {name}",
                f"{name} assists (CH8)",
                _with("assisters", [dict(help_)], append=True),
            )
        )
    if len(helpers) > 1:
        everyone = [dict(h) for h in helpers.values()]
        out.append(
            (
                "helped by everyone",
                "every helper assists (CH8)",
                _with("assisters", everyone, append=True),
            )
        )
    return out


_VARIANTS: dict[str, Callable[[dict[str, Any], int | None, dict[str, Any]], list[Variant]]] = {
    "brp": _brp,
    "openquest": _openquest,
    "chances": _chances,
}
