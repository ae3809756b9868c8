"""How a Sanity roll reads: one view of its result and odds, built from its system's
declarations, that every renderer (the terminal, JSON) formats and none decides again."""

from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any

from .declarations import Style
from .results import fraction_text
from .sanity import SanityOdds, SanityResult
from .systems import REGISTRY


@dataclass(frozen=True)
class SanityView:
    """A Sanity roll as every door shows it: the d100 and its level in the system's words, the
    loss, SAN before and after, the INT roll, the insanity it brings, and its exact odds."""

    system: str
    title: str
    level: str
    mark: str
    style: Style
    met: bool
    verdict: str  # "a success" or "a failure"
    roll: int
    dice: tuple[int, ...]  # every d100 rolled: more than one with a pool (S7-1's house rule)
    loss: int
    loss_words: str  # "1d6 (4)", "1d6+1 at its maximum (7)"
    luck_spent: int  # Luck spent to lose less (P-2)
    sanity: int
    sanity_after: int
    most: int
    int_words: str  # "INT roll 20 vs 70: hard", or why none was made
    insanity: str  # what the loss brings, in words
    success_odds: Fraction | None = None
    mean_loss: Fraction | None = None
    temporary_odds: Fraction | None = None
    indefinite_odds: Fraction | None = None
    permanent_odds: Fraction | None = None
    label: str = ""
    explanation: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = fraction_text(value) if isinstance(value, Fraction) else value
        out["dice"] = list(self.dice)
        return out


def insanity(result: SanityResult) -> str:
    """What the loss brings (S7-3, S7-4, S7-5), the gravest first."""
    if result.permanent:
        return "permanent insanity: no SAN left"
    said = []
    if result.indefinite:
        said.append("indefinite insanity: the day's losses reached a fifth of its SAN")
    if result.temporary:
        said.append("temporary insanity: a bout of madness (1D10 rounds, or hours)")
    elif result.temporary is None:
        said.append("an INT roll is called for: no INT given")
    elif result.int_roll is not None:
        said.append("the memory is repressed: no insanity")
    return "; ".join(said) or "none"


def sanity_view(result: SanityResult, odds: SanityOdds | None = None) -> SanityView:
    system = REGISTRY.get(result.system)
    spec = system.declares.level(result.level)
    if result.maximised:
        loss_words = f"{result.loss_expression} at its maximum ({result.loss_rolled})"
    elif result.loss_dice:
        dice = ", ".join(map(str, result.loss_dice))
        loss_words = f"{result.loss_expression} ({dice}) = {result.loss_rolled}"
    else:
        loss_words = result.loss_expression
    if result.loss != result.loss_rolled:
        loss_words += f", {result.loss} lost"
    if result.luck_spent:
        loss_words += f" for {result.luck_spent} Luck"
    int_words = ""
    if result.int_roll is not None:
        int_words = f"{result.int_roll:02d} vs {result.request['intelligence']}: {result.int_level}"
    label = result.request.get("label")
    return SanityView(
        system=system.name,
        title=f"{system.title} Sanity roll",
        level=result.level,
        mark=spec.mark,
        style=spec.style,
        met=result.success,
        verdict="a success" if result.success else "a failure",
        roll=result.roll,
        dice=result.dice,
        loss=result.loss,
        loss_words=loss_words,
        luck_spent=result.luck_spent,
        sanity=result.sanity,
        sanity_after=result.sanity_after,
        most=result.most,
        int_words=int_words,
        insanity=insanity(result),
        success_odds=None if odds is None else odds.success,
        mean_loss=None if odds is None else odds.mean,
        temporary_odds=None if odds is None else odds.temporary,
        indefinite_odds=None if odds is None else odds.indefinite,
        permanent_odds=None if odds is None else odds.permanent,
        label=str(label or ""),
        explanation=result.explanation,
    )
