"""A roll of a dice expression: the request, the result and the exact odds, as contract JSON.

The request (``DiceRequest``) is the expression as typed, the damage bonus its ``DB`` stands for,
and optionally the dice (given instead of drawn, G3) and a label. Dice are drawn through the
same path as every d100 (``machine.Dice``: ``rng.randint(1, faces)`` per die, term by term, in
the order written), so a provable source (``provable.ProvableSource``) draws them as it draws a
check's, and ``provable.replay_draws`` with the ranges ``(1, faces)`` recomputes them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..dice import RandomSource
from ..errors import BadInput, DiceError
from ..machine import Dice as Draws
from ..machine import Given, Need
from ..results import frozen, thawed
from .exact import Counts, distribution
from .grammar import MAX_DICE, Constant, Dice, Expression, parse

STREAM = "dice"  # the request field given dice come in, and the stream they are drawn for
FIELDS = ("expression", "damage_bonus", "dice", "label")
MAX_LABEL = 200


@dataclass(frozen=True)
class DiceRequest:
    """A dice expression to roll (``1d8+DB``), its damage bonus where it names ``DB``
    (``+1d4``, ``-1``, ``0``), dice rolled by hand (every die, in the order written), and a
    label the roll is shown with. Checked when built: a bad one raises ``D100Error``."""

    expression: str
    damage_bonus: str | None = None
    dice: tuple[int, ...] | None = None
    label: str | None = None
    rolled: Expression = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        read = parse(self.expression)
        bonus = None
        if self.damage_bonus is not None:
            bonus = parse(self.damage_bonus, "damage_bonus", bonus=False)
        object.__setattr__(self, "rolled", read.with_bonus(bonus))
        if self.dice is not None:
            object.__setattr__(self, "dice", _dice(self.dice))
        if self.label is not None and (
            not isinstance(self.label, str) or len(self.label) > MAX_LABEL
        ):
            raise BadInput("label", self.label, f"text of at most {MAX_LABEL} characters")

    @classmethod
    def from_dict(cls, data: object) -> DiceRequest:
        """The request a contract dict describes; unknown fields are an error (G5)."""
        if not isinstance(data, Mapping):
            raise BadInput("request", data, "a JSON object with an expression", "not an object")
        unknown = [k for k in data if k not in FIELDS]
        if unknown:
            raise BadInput(
                str(unknown[0]), data[unknown[0]], "fields " + ", ".join(FIELDS), "unknown field"
            )
        if "expression" not in data:
            raise BadInput("expression", None, "a dice expression such as 1d6+1d4", "required")
        bonus: Any = data.get("damage_bonus")
        if isinstance(bonus, int) and not isinstance(bonus, bool):
            bonus = str(bonus)  # a constant bonus as a number: -1, 0
        given = data.get("dice")
        return cls(
            data["expression"],
            bonus,
            None if given is None else _dice(given),
            data.get("label"),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"expression": self.expression}
        if self.damage_bonus is not None:
            out["damage_bonus"] = self.damage_bonus
        if self.dice is not None:
            out["dice"] = list(self.dice)
        if self.label is not None:
            out["label"] = self.label
        return out

    def without_dice(self) -> DiceRequest:
        return DiceRequest(self.expression, self.damage_bonus, None, self.label)


def _dice(values: object) -> tuple[int, ...]:
    allowed = f"a list of at most {MAX_DICE} die values, each 1..its faces, in the order written"
    if not isinstance(values, list | tuple) or len(values) > MAX_DICE:
        raise BadInput(STREAM, values, allowed)
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise BadInput(STREAM, values, allowed, f"not a die's value: {v!r}")
    return tuple(values)


@dataclass(frozen=True)
class TermResult:
    """One term as rolled: its text (``4d6kh3``, ``+1``), every die, the dice it counts, and
    what it adds (negative for a term taken away); ``bonus``: part of the damage bonus."""

    term: str
    dice: tuple[int, ...]
    kept: tuple[int, ...]
    value: int
    bonus: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "term": self.term,
            "dice": list(self.dice),
            "kept": list(self.kept),
            "value": self.value,
            "bonus": self.bonus,
        }


@dataclass(frozen=True)
class DiceResult:
    """A dice expression rolled: the expression with the damage bonus filled in, its total,
    every die in the order drawn, each term, and one line a person reads (G6)."""

    expression: str
    total: int
    dice: tuple[int, ...]
    terms: tuple[TermResult, ...]
    explanation: str
    request: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "request", frozen(self.request))

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "total": self.total,
            "dice": list(self.dice),
            "terms": [t.to_dict() for t in self.terms],
            "explanation": self.explanation,
            "request": thawed(self.request),
        }


@dataclass(frozen=True)
class DiceOdds:
    """Every total an expression can come to with its exact chance, lowest first, and the
    mean. ``counts``: the ways of each total, out of ``denominator`` (faces ** dice)."""

    expression: str
    counts: Mapping[int, int]
    denominator: int
    mean: Fraction
    request: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", frozen(self.counts))
        object.__setattr__(self, "request", frozen(self.request))

    @property
    def totals(self) -> dict[int, Fraction]:
        return {t: Fraction(c, self.denominator) for t, c in self.counts.items()}

    def chance(self, total: int) -> Fraction:
        return Fraction(self.counts.get(total, 0), self.denominator)

    def at_least(self, total: int) -> Fraction:
        """The chance of ``total`` or more."""
        return Fraction(sum(c for t, c in self.counts.items() if t >= total), self.denominator)

    def to_dict(self) -> dict[str, Any]:
        rows = []
        above = self.denominator
        for t, c in self.counts.items():
            rows.append(
                {
                    "total": t,
                    "chance": _text(Fraction(c, self.denominator)),
                    "at_least": _text(Fraction(above, self.denominator)),
                }
            )
            above -= c
        return {
            "expression": self.expression,
            "distribution": rows,
            "mean": _text(self.mean),
            "request": thawed(self.request),
        }


def reading(result: Mapping[str, Any], odds: Mapping[str, Any]) -> dict[str, Any]:
    """How a dice roll reads: its total, how it was made, and the exact chance of that total
    and of at least it, with the mean (``DiceOdds``' fractions, as text)."""
    total = result["total"]
    rows: list[dict[str, Any]] = odds["distribution"]
    row = next((r for r in rows if r["total"] == total), {})
    return {
        "title": result["expression"],
        "total": total,
        "explanation": result["explanation"],
        "chance": row.get("chance"),
        "at_least": row.get("at_least"),
        "mean": odds["mean"],
    }


def _text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def request_of(request: DiceRequest | Mapping[str, Any] | str) -> DiceRequest:
    """A request object as it is, a contract dict read, or an expression's text alone."""
    if isinstance(request, DiceRequest):
        return request
    if isinstance(request, str):
        return DiceRequest(request)
    return DiceRequest.from_dict(request)


def roll(
    request: DiceRequest | Mapping[str, Any] | str, rng: RandomSource | None = None
) -> DiceResult:
    """Roll an expression: dice from the request's ``dice`` where given (G3), else from ``rng``
    (G2), e.g. ``random.Random(7)``, one ``randint(1, faces)`` per die in the order written."""
    asked = request_of(request)
    draws = Draws(rng, {STREAM: Given(asked.dice)} if asked.dice is not None else {})
    found = rolled(asked.rolled, draws, STREAM, asked.to_dict())
    draws.finish()
    return found


def rolled(
    expression: Expression, draws: Draws, stream: str, request: Mapping[str, Any]
) -> DiceResult:
    """An expression (no DB left in it) rolled with ``draws``, its dice drawn for ``stream``:
    one roll among others sharing the draws (a Sanity loss after its d100)."""
    terms: list[TermResult] = []
    for t in expression.rolled():
        if isinstance(t, Constant):
            terms.append(TermResult(str(t), (), (), t.value, t.bonus))
            continue
        values = tuple(_draw(draws, t, stream) for _ in range(t.count))
        kept = values if t.keep is None else tuple(sorted(values, reverse=t.highest)[: t.keep])
        terms.append(TermResult(_shown(t, terms), values, kept, t.sign * sum(kept), t.bonus))
    total = sum(t.value for t in terms)
    dice = tuple(d for t in terms for d in t.dice)
    return DiceResult(
        str(expression), total, dice, tuple(terms), explain(terms, total), dict(request)
    )


def _shown(t: Dice, before: list[TermResult]) -> str:
    return t.text() if not before and t.sign > 0 else str(t)


def _draw(draws: Draws, t: Dice, stream: str) -> int:
    value = draws.draw(Need(stream, 1, t.sides))
    if not 1 <= value <= t.sides:  # given by hand: held to the die it stands for
        n = len(draws.record[stream])
        raise DiceError(
            stream,
            draws.given(stream),
            f"each die's value within its faces: die {n} is a d{t.sides}, 1..{t.sides}",
            f"{value} for die {n}, a d{t.sides}",
        )
    return value


def explain(terms: list[TermResult], total: int) -> str:
    """``1d6 (4) + DB 1d4 (3) + 1 = 8``; dice a keep leaves out after a semicolon."""
    parts: list[str] = []
    for i, t in enumerate(terms):
        sign, text = ("-" if t.term.startswith("-") else "+"), t.term.lstrip("+-")
        said = f"DB {text}" if t.bonus else text
        if t.dice:
            dropped = list(t.dice)
            for k in t.kept:
                dropped.remove(k)
            shown = ", ".join(map(str, t.kept))
            if dropped:
                shown += "; dropped " + ", ".join(map(str, dropped))
            said += f" ({shown})"
        parts.append(said if i == 0 and sign == "+" else f"{sign} {said}")
    return f"{' '.join(parts)} = {total}"


def odds(request: DiceRequest | Mapping[str, Any] | str) -> DiceOdds:
    """The exact chance of every total of an expression, and its mean. Given dice are one
    roll's: odds weigh every roll. Refused before any work past the budget (``TooMuchWork``)."""
    asked = request_of(request)
    found: Counts = distribution(asked.rolled)
    return DiceOdds(
        str(asked.rolled), found.ways(), found.denominator, found.mean(), asked.to_dict()
    )
