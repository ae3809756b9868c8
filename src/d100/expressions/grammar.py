"""Dice expressions as people type them (``1d6+1d4``, ``4d6kh3``, ``2d20kl1``, ``1d8+DB``):
the grammar and the tree it reads into.

A small grammar written by hand, not a parser library: the language is a dozen lines, a
library would be a new dependency for it, and a scanner of our own says exactly where a text
stops being an expression, counting characters from 1 (``1d6x``: "unexpected 'x' at
position 4"), which is what a person fixing a typo needs. The grammar::

    expression := [sign] term (sign term)*
    sign       := "+" | "-"
    term       := dice | number | "DB" | "half(DB)"
    dice       := [number] "d" number [keep]          # d6 is 1d6
    keep       := ("kh" | "kl" | "k") number          # k3 is kh3: keep the highest 3
    number     := digit digit*

Letters may be in either case (``1D100``, ``4D6KH3``, ``db``) and spaces may stand between
terms and signs. ``DB`` is the damage bonus (S7-6, S7-11), itself an expression without DB
(``+1d4``, ``-1``, ``0``) that the request gives; ``half(DB)`` is the thrown weapon's half of it
(S7-6: each die's faces halved, rounded down; a positive constant halved down, a negative one's
size halved up). Every bound is checked while reading, so what an expression costs to roll or to
count exactly is known before any work (``exact.cost``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import BadInput

MAX_LENGTH = 200  # characters of one expression
MAX_TERMS = 20
MAX_DICE = 100  # dice in all, the damage bonus's included
MAX_SIDES = 1000
MAX_CONSTANT = 1_000_000

ALLOWED = (
    "NdM dice (1d6, d20), keep highest or lowest (4d6kh3, 2d20kl1), whole numbers, DB and "
    "half(DB), joined by + or -"
)
BONUS_ALLOWED = "a dice expression or a whole number without DB, such as +1d4, -1 or 0"


@dataclass(frozen=True, slots=True)
class Dice:
    """``count`` dice of ``sides`` faces, added (``sign`` 1) or taken away (-1); ``keep`` of
    them counted, the highest or the lowest (None: all). ``bonus``: part of the damage bonus."""

    count: int
    sides: int
    sign: int = 1
    keep: int | None = None
    highest: bool = True
    bonus: bool = False

    @property
    def kept(self) -> int:
        return self.count if self.keep is None else self.keep

    @property
    def low(self) -> int:
        return self.kept if self.sign > 0 else -self.kept * self.sides

    @property
    def high(self) -> int:
        return self.kept * self.sides if self.sign > 0 else -self.kept

    def text(self) -> str:
        keep = "" if self.keep is None else f"{'kh' if self.highest else 'kl'}{self.keep}"
        return f"{self.count}d{self.sides}{keep}"

    def __str__(self) -> str:
        return ("+" if self.sign > 0 else "-") + self.text()


@dataclass(frozen=True, slots=True)
class Constant:
    """A whole number, signed."""

    value: int
    bonus: bool = False

    @property
    def low(self) -> int:
        return self.value

    @property
    def high(self) -> int:
        return self.value

    def text(self) -> str:
        return str(abs(self.value))

    def __str__(self) -> str:
        return f"{self.value:+d}"


@dataclass(frozen=True, slots=True)
class DamageBonus:
    """Where the damage bonus goes (``DB``), or half of it (``half(DB)``, S7-6)."""

    sign: int = 1
    half: bool = False

    def text(self) -> str:
        return "half(DB)" if self.half else "DB"

    def __str__(self) -> str:
        return ("+" if self.sign > 0 else "-") + self.text()


Term = Dice | Constant | DamageBonus
Rolled = Dice | Constant  # the terms of an expression ready to roll


@dataclass(frozen=True, slots=True)
class Expression:
    """Terms added up in order; ``str`` writes it back in the grammar (``1d6+1d4-1``)."""

    terms: tuple[Term, ...]

    def __str__(self) -> str:
        text = "".join(str(t) for t in self.terms)
        return text.removeprefix("+") or "0"

    @property
    def names_bonus(self) -> bool:
        """Whether the damage bonus is a term (``DB`` or ``half(DB)``)."""
        return any(isinstance(t, DamageBonus) for t in self.terms)

    @property
    def dice(self) -> int:
        """How many dice a roll draws."""
        return sum(t.count for t in self.terms if isinstance(t, Dice))

    def rolled(self) -> tuple[Rolled, ...]:
        """The terms, once no damage bonus is left to fill in."""
        out: list[Rolled] = []
        for t in self.terms:
            assert not isinstance(t, DamageBonus), "fill in the damage bonus first"
            out.append(t)
        return tuple(out)

    @property
    def low(self) -> int:
        return sum(t.low for t in self.rolled())

    @property
    def high(self) -> int:
        """The most it can come to: every die at its maximum (S7-6's ``max(W + DB)``)."""
        return sum(t.high for t in self.rolled())

    def with_bonus(self, bonus: Expression | None, field: str = "damage_bonus") -> Expression:
        """The expression with its ``DB`` terms replaced by ``bonus`` (halved for
        ``half(DB)``, negated for ``-DB``); a bonus given to an expression without DB, or DB
        without a bonus, is refused naming ``field``."""
        if not self.names_bonus:
            if bonus is not None:
                raise BadInput(
                    field,
                    str(bonus),
                    "a damage bonus only for an expression with DB or half(DB)",
                    f"no DB in {self}",
                )
            return self
        if bonus is None:
            raise BadInput(
                field, None, BONUS_ALLOWED, f"{self} names DB, and no damage bonus is given"
            )
        out: list[Term] = []
        for t in self.terms:
            if not isinstance(t, DamageBonus):
                out.append(t)
                continue
            given = bonus.halved() if t.half else bonus
            out += [_signed(b, t.sign) for b in given.terms]
        return within(Expression(tuple(out)), field, str(self))

    def halved(self) -> Expression:
        """Half of a damage bonus (S7-6): each die's faces halved, rounded down (1d4 -> 1d2,
        2d6 -> 2d3; a d1 drops out), a positive constant halved down (3 -> 1), a negative
        one's size halved up (-1 -> -1, -3 -> -2)."""
        out: list[Term] = []
        for t in self.rolled():
            if isinstance(t, Dice):
                if t.sides // 2:
                    out.append(replace(t, sides=t.sides // 2))
            elif t.value >= 0:
                out.append(replace(t, value=t.value // 2))
            else:
                out.append(replace(t, value=-((1 - t.value) // 2)))
        return Expression(tuple(out) or (Constant(0),))


def _signed(term: Term, sign: int) -> Rolled:
    assert not isinstance(term, DamageBonus)
    if isinstance(term, Dice):
        return replace(term, sign=term.sign * sign, bonus=True)
    return replace(term, value=term.value * sign, bonus=True)


def within(expression: Expression, field: str, text: str) -> Expression:
    """Refuse an expression over the bounds of a whole expression (terms, dice in all)."""
    if len(expression.terms) > MAX_TERMS:
        raise BadInput(field, text, f"at most {MAX_TERMS} terms", f"{len(expression.terms)} terms")
    if expression.dice > MAX_DICE:
        raise BadInput(
            field, text, f"at most {MAX_DICE} dice in all", f"{expression.dice} dice in all"
        )
    return expression


# -- reading -----------------------------------------------------------------------------------

_NUMBER = re.compile(r"[0-9]+")
_LOOKS = re.compile(r"[+-]?[0-9]*d[0-9]|[+-]?[0-9]+d|[+-]?[0-9]+[^0-9%]|db$|half\(", re.IGNORECASE)


def looks_like(text: str) -> bool:
    """Whether a word looks like a dice expression, right or wrong (``1d6``, ``2d``,
    ``1d6x``, ``4x``), rather than a name: a word to refuse by the grammar, not by the sheet."""
    return _LOOKS.match(text) is not None


def parse(text: object, field: str = "expression", bonus: bool = True) -> Expression:
    """``text`` read by the grammar above, or a refusal naming ``field``, the text, what is
    allowed and the position (from 1) where it goes wrong. ``bonus``: whether DB may appear."""
    allowed = ALLOWED if bonus else BONUS_ALLOWED
    if not isinstance(text, str):
        raise BadInput(field, text, allowed, "not text")
    if len(text) > MAX_LENGTH:
        raise BadInput(field, text, f"at most {MAX_LENGTH} characters", f"{len(text)} characters")
    return within(_Reader(text, field, allowed, bonus).expression(), field, text)


class _Reader:
    def __init__(self, text: str, field: str, allowed: str, bonus: bool) -> None:
        self.text, self.field, self.allowed, self.bonus = text, field, allowed, bonus
        self.low = text.lower()
        self.at = 0

    def expression(self) -> Expression:
        terms: list[Term] = []
        sign = self.sign()
        while True:
            terms.append(self.term(1 if sign is None else sign))
            self.spaces()
            if self.at == len(self.text):
                return Expression(tuple(terms))
            sign = self.sign()
            if sign is None:
                raise self.wrong("unexpected " + repr(self.text[self.at]))

    def spaces(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def sign(self) -> int | None:
        self.spaces()
        if self.at < len(self.text) and self.text[self.at] in "+-":
            self.at += 1
            return 1 if self.text[self.at - 1] == "+" else -1
        return None

    def term(self, sign: int) -> Term:
        self.spaces()
        start = self.at
        for word, half in (("half(db)", True), ("db", False)):
            if self.low.startswith(word, self.at):
                if not self.bonus:
                    raise self.wrong("DB inside the damage bonus", start)
                self.at += len(word)
                return DamageBonus(sign, half)
        count = self.optional_number()
        if self.low.startswith("d", self.at):
            self.at += 1
            sides = self.number("the number of faces")
            if count is not None:
                self.bounded(count, 1, MAX_DICE, "dice", start)
            self.bounded(sides, 1, MAX_SIDES, "faces", start)
            die = Dice(1 if count is None else count, sides, sign)
            return self.keep(die, start)
        if count is None:
            raise self.missing("a term")
        self.bounded(count, 0, MAX_CONSTANT, "as a number", start)
        return Constant(sign * count)

    def keep(self, die: Dice, start: int) -> Dice:
        if not self.low.startswith("k", self.at):
            return die
        self.at += 1
        highest = not self.low.startswith("l", self.at)
        if self.low.startswith(("h", "l"), self.at):
            self.at += 1
        kept = self.number("how many dice to keep")
        self.bounded(kept, 1, die.count, "dice kept", start)
        return replace(die, keep=None if kept == die.count else kept, highest=highest)

    def number(self, what: str) -> int:
        found = self.optional_number()
        if found is None:
            raise self.missing(what)
        return found

    def optional_number(self) -> int | None:
        found = _NUMBER.match(self.text, self.at)
        if found is None:
            return None
        digits = found.group().lstrip("0") or "0"
        self.at = found.end()
        return int(digits) if len(digits) <= 9 else MAX_CONSTANT * 10  # past every bound

    def bounded(self, value: int, low: int, high: int, what: str, start: int) -> None:
        if not low <= value <= high:
            shown = f"more than {MAX_CONSTANT:,}" if value > MAX_CONSTANT else f"{value:,}"
            raise BadInput(
                self.field,
                self.text,
                f"{low}..{high:,} {what}",
                f"{shown} {what} at position {start + 1}",
            )

    def missing(self, what: str) -> BadInput:
        if self.at == len(self.text):
            return self.wrong(f"{what} missing (the end)")
        return self.wrong("unexpected " + repr(self.text[self.at]))

    def wrong(self, what: str, at: int | None = None) -> BadInput:
        where = self.at if at is None else at
        return BadInput(
            self.field,
            self.text,
            self.allowed,
            f"not a dice expression: {what} at position {where + 1}",
        )
