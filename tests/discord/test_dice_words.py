"""Dice expressions in Discord's quick commands (issue 35: dice on every door): ``/roll words:
2d6+1`` on the interaction's provable dice with its exact odds, ``/odds 3d6`` each total's
chance; icepool, an independent dice library, is the oracle of every chance."""

from __future__ import annotations

from fractions import Fraction

import icepool

from d100 import expressions
from d100.discord.answers import dice_for, quick_answer
from d100.discord.limits import problems

SECRET = b"k" * 32


def fields_of(body: dict[str, object]) -> dict[str, str]:
    embeds = body["embeds"]
    assert isinstance(embeds, list)
    return {f["name"]: f["value"] for f in embeds[0]["fields"]}


def chances(die: icepool.Die) -> dict[int, Fraction]:
    total = die.denominator()
    return {int(t): Fraction(n, total) for t, n in die.items()}


def fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def test_roll_rolls_a_dice_expression_with_its_exact_odds() -> None:
    oracle = chances(2 @ icepool.d6 + 1)
    for words in ("2d6+1", "coc7 2d6+1", "2D6+1 damage"):
        body = quick_answer("roll", words, None, False, "Vera", SECRET, "41")
        assert not problems(body)
        rolled = expressions.roll("2d6+1", dice_for(SECRET, "41"))
        assert body["embeds"][0]["title"] == f"Total {rolled.total}", words
        found = fields_of(body)
        assert found["Dice"] == rolled.explanation.replace("*", "\\*")
        chance = oracle[rolled.total]
        at_least = sum(p for t, p in oracle.items() if t >= rolled.total)
        said = f"{fraction(chance)} ({fraction(at_least)} for it or more)"
        assert found["Exact chance"] == said
        assert Fraction(found["Mean"]) == Fraction(8)


def test_odds_lists_every_total_of_a_small_expression_and_counts_the_rest() -> None:
    body = quick_answer("odds", "3d6", None, True, "Vera", SECRET, "1")
    assert not problems(body) and body["flags"] == 64  # asked privately
    lines = body["embeds"][0]["description"].split("\n")
    oracle = chances(3 @ icepool.d6)
    for line in lines:
        total, _, rest = line.partition(": ")
        chance = Fraction(rest.split(" ")[0])
        assert chance == oracle[int(total)], line
    assert len(lines) == 16 and fields_of(body)["Mean"] == "21/2"
    wide = quick_answer("odds", "10d10", None, False, "Vera", SECRET, "2")
    assert not problems(wide) and "more totals" in wide["embeds"][0]["description"]


def test_a_dice_expression_past_its_bounds_is_refused_in_words() -> None:
    body = quick_answer("roll", "1d5000", None, False, "Vera", SECRET, "3")
    assert not problems(body)
    assert "faces" in str(body["content"]) and "Traceback" not in str(body)
