"""Pieces ``rqg`` and ``coc6`` share: the resistance request (an active against a passive
characteristic), the one-of-several target fields, and the arithmetic of BCDice's command text
(``RES(13-10)``, ``CC<=65+10``) as BCDice 3.16.1 reads it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from ..fields import BIG, Field, validate

RESISTANCE_FIELDS = (
    Field("active", "int", "the active characteristic", low=0, high=BIG, required=True),
    Field("passive", "int", "the passive characteristic", low=0, high=BIG, required=True),
)


def resistance_field(description: str) -> Field:
    return Field(
        "resistance", "object", description, fields=RESISTANCE_FIELDS, flags=("--resistance",)
    )


@dataclass(frozen=True)
class Resistance:
    """An active characteristic against a passive one (coc6 C6-3, rqg RQ-2)."""

    active: int
    passive: int

    def __post_init__(self) -> None:
        validate(self, RESISTANCE_FIELDS)

    @property
    def difference(self) -> int:
        return self.active - self.passive

    def to_dict(self) -> dict[str, int]:
        return {"active": self.active, "passive": self.passive}


def resistance(values: Mapping[str, Any] | None) -> Resistance | None:
    return None if values is None else Resistance(values["active"], values["passive"])


# -- BCDice's command text ---------------------------------------------------------------------

Rounding = Literal["floor", "round"]  # Ruby integer division, or Float#round (half away from 0)
EXPR = r"[-+*/\d]+"
_PARENS = re.compile(r"\([-+*/\d]+\)")
_PLAIN_SUM = re.compile(r"[+-]?\d+(?:[+-]\d+)*")
_TOKEN = re.compile(r"\d+|[-+*/()]")


def first_word(text: str) -> str:
    """BCDice reads the text up to the first space; the rest is a comment."""
    words = text.strip().split(None, 1)
    return words[0] if words else ""


def preprocess(word: str) -> str:
    """BCDice's preprocessor: every parenthesised arithmetic, innermost first, replaced by its
    value (rounded down: neither game system sets another rounding), until none is left."""
    while True:
        done = _PARENS.sub(lambda m: _value_or(m.group(0)), word)
        if done == word:
            return done
        word = done


def _value_or(text: str) -> str:
    value = evaluate(text, "floor")
    return text if value is None else str(value)


def evaluate(text: str, rounding: Rounding) -> int | None:
    """The value of integer arithmetic with + - * / and parentheses, each division rounded as
    ``rounding``; None where BCDice finds no value (a syntax error, a division by zero)."""
    tokens = _TOKEN.findall(text)
    if "".join(tokens) != text:
        return None
    parser = _Parser(tokens, rounding)
    try:
        value = parser.sum()
    except _NoValue:
        return None
    return value if parser.at == len(tokens) else None


class _NoValue(Exception):
    pass


class _Parser:
    def __init__(self, tokens: list[str], rounding: Rounding) -> None:
        self.tokens = tokens
        self.rounding = rounding
        self.at = 0

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self) -> str:
        token = self._peek()
        if token is None:
            raise _NoValue
        self.at += 1
        return token

    def sum(self) -> int:
        value = self.product()
        while self._peek() in ("+", "-"):
            op = self._take()
            right = self.product()
            value = value + right if op == "+" else value - right
        return value

    def product(self) -> int:
        value = self.unary()
        while self._peek() in ("*", "/"):
            op = self._take()
            right = self.unary()
            value = value * right if op == "*" else self._divide(value, right)
        return value

    def _divide(self, n: int, d: int) -> int:
        if d == 0:
            raise _NoValue
        if self.rounding == "floor":
            return n // d
        q = abs(Fraction(n, d))
        whole = int(q + Fraction(1, 2))  # halves away from zero, as Ruby's Float#round
        return whole if (n < 0) == (d < 0) else -whole

    def unary(self) -> int:
        token = self._take()
        if token == "-":
            return -self.unary()
        if token == "+":
            return self.unary()
        if token == "(":
            value = self.sum()
            if self._take() != ")":
                raise _NoValue
            return value
        if token.isdigit():
            return int(token)
        raise _NoValue


def skill_and_modifiers(text: str, rounding: Rounding) -> dict[str, Any] | None:
    """A target expression as request fields: a plain sum keeps its first term as the skill and
    the rest as modifiers (``65+10-5``); anything else is its value, a negative one as a
    modifier of a skill of 0. None where the text has no value."""
    if _PLAIN_SUM.fullmatch(text):
        terms = [int(t) for t in re.findall(r"[+-]?\d+", text)]
        if terms[0] >= 0:
            return {"skill": terms[0], **({"modifiers": terms[1:]} if terms[1:] else {})}
        return {"skill": 0, "modifiers": terms}
    value = evaluate(text, rounding)
    if value is None:
        return None
    return {"skill": value} if value >= 0 else {"skill": 0, "modifiers": [value]}


def difference_sides(difference: int) -> dict[str, int]:
    """A difference of characteristics as an active and a passive side: only the difference
    counts in either resistance table."""
    return {"active": max(difference, 0), "passive": max(-difference, 0)}
