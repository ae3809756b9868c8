"""The errors the library raises for bad input (G5): one root, a few kinds to catch by.

Every error names the field, the value and what is allowed, and says its ``kind``:

* ``BadInput`` ("bad_input"): a request that does not fit its field table, the default kind;
* ``RuleRefusal`` ("rule_refusal"): a well-formed request that a rule refuses (CH7's training,
  OQ8's difficulty on both sides);
* ``DiceError`` ("dice"): given dice that do not fit the roll (too few, left over, a tens-method
  group whose values do not share a units die);
* ``TooMuchWork`` ("too_much_work"): a request whose exact odds would cost more than the budget,
  with the ``cost`` and the ``budget``.

``D100Error(...)`` called directly builds a ``BadInput``, so every error has a concrete kind.
"""

from __future__ import annotations

import copy
import math
import re
import reprlib
import sys
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

# How much of a value an error echoes as text: enough to recognise it, not a copy of a body.
SHOWN_CHARS = 200
# The most decimal digits Python turns an integer into (its default, 4,300): past that, repr
# and JSON fail, so an error about such a number says how long it is instead.
MAX_DIGITS = sys.get_int_max_str_digits() or 4300
_BRIEF = reprlib.Repr()  # a value nested too deep for repr (3,000 levels), shown shallowly
_BRIEF.maxlevel, _BRIEF.maxstring, _BRIEF.maxother = 3, SHOWN_CHARS, SHOWN_CHARS


class D100Error(ValueError):
    """Bad or contradictory input, with the field, the value and what is allowed.

    ``field`` is a dotted path into the request (``actor.assist.dice``, ``assisters[1].skill``);
    ``allowed`` says in words what the field accepts. The CLI maps this to exit status 2 and the
    HTTP API to status 422; both show ``to_dict()`` (or its ``message``).
    """

    kind: ClassVar[str] = "bad_input"

    def __new__(cls, *args: Any, **kwargs: Any) -> D100Error:
        return super().__new__(BadInput if cls is D100Error else cls, *args)

    def __init__(self, field: str, value: Any, allowed: str, reason: str | None = None) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        self.reason = _shortened(reason, value)
        self.message = self._text()
        super().__init__(self.message)

    def _text(self) -> str:
        text = (
            f"{self.field}: {self.reason}"
            if self.reason
            else f"{self.field}: got {_show(self.value)}"
        )
        return f"{text}; allowed: {self.allowed}" if self.allowed else text

    def at(self, field: str) -> D100Error:
        """The same error about a field the caller names differently (the HTTP body's path)."""
        moved = copy.copy(self)
        moved.field = field
        moved.message = moved._text()
        moved.args = (moved.message,)
        return moved

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles keep the kind and fields
        return (_restore, (type(self), dict(self.__dict__)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "field": self.field,
            "value": echoed(self.value),
            "allowed": self.allowed,
            "message": self.message,
        }


class BadInput(D100Error):
    """A request that does not fit its field table: a wrong type, a value out of range."""

    kind = "bad_input"


class RuleRefusal(D100Error):
    """A well-formed request that a rule refuses (CH5, CH7, OQ8 and the like)."""

    kind = "rule_refusal"


class DiceError(D100Error):
    """Given dice that do not fit the roll: too few, left over, or not a roll's shape (G3)."""

    kind = "dice"


class TooMuchWork(D100Error):
    """An exact computation whose cost, known before it runs, is over the budget: ``field``
    names what makes it dear."""

    kind = "too_much_work"

    def __init__(self, field: str, cost: int, budget: int) -> None:
        super().__init__(
            field,
            cost,
            f"requests that try at most {budget:,} die faces",
            f"too much work: about {cost:,} die faces to enumerate exactly",
        )
        self.cost = cost
        self.budget = budget

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "cost": self.cost, "budget": self.budget}


def _restore(cls: type[D100Error], state: dict[str, Any]) -> D100Error:
    err = Exception.__new__(cls)
    err.__dict__.update(state)
    err.args = (state["message"],)
    return err


def _shortened(reason: str | None, value: Any) -> str | None:
    """A reason that quotes a long text value whole (``unknown preset '...'``) quotes its
    prefix instead: an error echoes at most ``SHOWN_CHARS`` of what was refused."""
    if reason is None or not isinstance(value, str) or len(value) <= SHOWN_CHARS:
        return reason
    return reason.replace(repr(value), _show(value)).replace(value, _cut(value))


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


class LongNumber:
    """A number written with more digits than Python turns into an integer (its digit limit,
    ``MAX_DIGITS``), kept as its length: the field it was given for refuses it by name."""

    __slots__ = ("digits",)

    def __init__(self, text: str) -> None:
        self.digits = len(text.strip().lstrip("+-"))

    def __repr__(self) -> str:
        return f"a number of {self.digits:,} digits"


def json_int(text: str) -> int | LongNumber:
    """A JSON reader's integer (``json.loads(..., parse_int=json_int)``): a ``LongNumber``
    past Python's digit limit, where ``int`` would fail the whole document."""
    return LongNumber(text) if len(text.lstrip("-")) > MAX_DIGITS else int(text)


def integer(text: str, field: str, allowed: str) -> int:
    """Text of digits as an integer; a number of more digits than Python converts is refused
    by its length, never with the interpreter's advice to raise its limit, and one written in
    other digits than 0-9 by what they are (``²`` passes ``str.isdigit`` and breaks ``int``;
    ``٣`` is no digit a table reads)."""
    digits = len(text.strip().lstrip("+-"))
    if digits > MAX_DIGITS:
        raise BadInput(field, LongNumber(text), allowed, f"a number of {digits:,} digits: too long")
    if _INTEGER.fullmatch(text.strip()) is None:
        raise BadInput(field, text, allowed, "not a whole number in digits 0-9")
    return int(text)


_INTEGER = re.compile(r"[+-]?[0-9]+")


_LONG = re.compile(rf"[0-9]{{{MAX_DIGITS + 1},}}")
Words = TypeVar("Words", str, Sequence[str])
Read = TypeVar("Read")


def read_words(read: Callable[[Words], Read], words: Words) -> Read:
    """``read(words)``, a system's reader of typed words (its command forms, its actions),
    which turns the numbers it matches with ``int``: one longer than Python converts is
    refused by its digit count, not a crash with the interpreter's advice to raise its
    limit."""
    try:
        return read(words)
    except D100Error:
        raise
    except ValueError:
        long = _LONG.search(words if isinstance(words, str) else " ".join(words))
        if long is None:
            raise
        number, reason = LongNumber(long[0]), f"a number of {len(long[0]):,} digits: too long"
        raise BadInput("word", number, "a number in its word's range", reason) from None


def shown(value: Any) -> str:
    """A value as an error's words quote it: ``repr`` cut to ``SHOWN_CHARS``, or what can be
    said of one ``repr`` fails on."""
    return _cut(_repr(value))


def _show(value: Any) -> str:
    if isinstance(value, str):
        return _cut(repr(value))
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return _cut(_repr(value))


def _repr(value: Any) -> str:
    """``repr``, or what can be said of a value it fails on: an integer of more digits than
    Python writes out, or a value nested past the interpreter's recursion limit."""
    if isinstance(value, int) and not isinstance(value, bool) and _too_long(value):
        return f"an integer of about {_digits(value):,} digits"
    try:
        return repr(value)
    except (ValueError, RecursionError):
        try:
            return _BRIEF.repr(value)
        except (ValueError, RecursionError):
            return f"a {type(value).__name__} nested too deep to show"


def _too_long(value: int) -> bool:
    return value.bit_length() > MAX_DIGITS * 3  # 3 bits a digit at least: 4,300 is safe


def _digits(value: int) -> int:
    return max(1, round(value.bit_length() * math.log10(2)))


def echoed(value: Any) -> Any:
    """The value as an error answer carries it: as it is where JSON can carry it in at most
    ``SHOWN_CHARS`` characters, else a prefix of the text (or of its ``repr``: NaN and
    infinity are no JSON, nor is an object), so rendering a refusal never fails on what was
    refused, nor copies a body."""
    if isinstance(value, str):
        return _cut(value)
    try:
        if _jsonable(value) and (
            not isinstance(value, list | tuple | dict) or len(_repr(value)) <= SHOWN_CHARS
        ):
            return value
    except RecursionError:  # nested deeper than the interpreter walks: no JSON writes it
        pass
    return _cut(_repr(value))


def _jsonable(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return not _too_long(value)
    if value is None or isinstance(value, str | bool):
        return True
    if isinstance(value, list | tuple):
        return all(_jsonable(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _jsonable(v) for k, v in value.items())
    return False
