"""Call of Cthulhu 7th edition's actions in quick words (``55 shots3 long``, ``60 dmg=1d8+DB
vs40``): a skill's number, then words each setting a request field, then a label; and the bits
of their reports the actions share."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import D100Error
from ..fields import from_text
from .coc7_firing import RANGES
from .coc7_rules import DIFFICULTIES
from .common import DICE

TITLE = "Call of Cthulhu 7th edition"


def given_dice(word: str) -> tuple[int, ...] | None:
    """``@52,11,81``: dice rolled by hand, in the order rolled; None for any other word."""
    if not word.startswith("@"):
        return None
    return tuple(from_text(DICE, word[1:], "dice"))


COMMON = {  # a word's pattern and the field it sets; an empty number is 1 (b: a bonus die)
    "bonus_dice": re.compile(r"(?:b|bonus)=?(\d*)", re.IGNORECASE),
    "penalty_dice": re.compile(r"(?:p|penalty)=?(\d*)", re.IGNORECASE),
    "malfunction": re.compile(r"(?:mal|malfunction)=?(\d+)", re.IGNORECASE),
    "aimed": re.compile(r"aim|aimed", re.IGNORECASE),
    "pulp_luck": re.compile(r"pulp=?(\d+)", re.IGNORECASE),  # a Pulp hero's Luck (P-6)
}
TEXT = frozenset(  # words whose value is text, not a number
    {"damage", "damage_bonus", "defender_damage", "defender_damage_bonus"}
)
FLAGS = frozenset({"aimed"})  # words that say yes by being there
RANGE_PLAIN = {r: ("ranges", r) for r in RANGES}  # a shot's or volley's range, one or one each


def word_of(
    word: str, patterns: dict[str, re.Pattern[str]], plain: Mapping[str, tuple[str, Any]]
) -> tuple[str, Any] | None:
    if word.lower() in plain:
        return plain[word.lower()]
    if (dice := given_dice(word)) is not None:
        return "dice", dice
    for name, pattern in patterns.items():
        m = pattern.fullmatch(word)
        if m:
            value = m[1] if name in TEXT else True if name in FLAGS else int(m[1] or 1)
            return name, value
    return None


def fields_of(
    words: Sequence[str],
    key: str,
    patterns: dict[str, re.Pattern[str]],
    allowed: str,
    what: str,
    plain: Mapping[str, tuple[str, Any]] = RANGE_PLAIN,
) -> tuple[dict[str, Any], str | None] | None:
    """``SKILL WORDS... [LABEL]`` as request fields once the ``key`` field's word is among the
    words, else None; ``plain`` words set a field to a value (ranges gather, one each); the
    label is the words from the first that is none of them."""
    if not words or not words[0].isdigit():
        return None
    if not any(patterns[key].fullmatch(w) for w in words[1:]):
        return None
    out: dict[str, Any] = {"skill": int(words[0])}
    ranges: list[str] = []
    label: list[str] = []
    for word in words[1:]:
        found = word_of(word, patterns, plain)
        if found is None or label:
            if found is not None:
                raise D100Error("word", word, "its words first, then the label", "after a label")
            if not word[:1].isalpha() or word.lower() in DIFFICULTIES:  # no label: a mistake
                raise D100Error("word", word, allowed, f"not a word of {what}")
            label.append(word)
            continue
        name, value = found
        if name == "ranges":
            ranges.append(value)
        elif name in out:
            raise D100Error(name, word, f"one word for {name}", f"{name} given twice")
        else:
            out[name] = value
    if ranges:
        out["ranges"] = tuple(ranges)
    return out, " ".join(label) or None


def rolls_plain(dice: tuple[int, ...]) -> str:
    return " ".join(str(d) for d in dice)


def pool_words(net: int) -> str:
    if net == 0:
        return "no extra dice"
    return f"{abs(net)} {'bonus' if net > 0 else 'penalty'} {'die' if abs(net) == 1 else 'dice'}"


def dealt(damage: int | None) -> str:
    return "" if damage is None else f"; {damage} damage"
