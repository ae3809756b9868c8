"""Call of Cthulhu 7th firearms as the edition declares them (``Declaration.actions``): BCDice's
``FAR(...)`` (S7-14), several handgun shots with their damage (S7-13, S7-6) and d100's own full
auto (S7-14, Foundry's reading) in quick words, each read from what a person types, rolled,
counted and put in words for any door to draw."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..actions import Action, Report, Row
from ..dice import show_roll
from ..errors import D100Error, TooMuchWork
from ..fields import from_text
from . import coc7_far as fa
from . import coc7_full_auto as au
from . import coc7_shots as cs
from .coc7_check import NAME
from .coc7_firing import RANGES
from .coc7_rules import DIFFICULTIES
from .common import DICE, rolls

TITLE = "Call of Cthulhu 7th edition"


def _given(word: str) -> tuple[int, ...] | None:
    """``@52,11,81``: dice rolled by hand, in the order rolled; None for any other word."""
    if not word.startswith("@"):
        return None
    return tuple(from_text(DICE, word[1:], "dice"))


# -- FAR ---------------------------------------------------------------------------------------


def read_far(words: Sequence[str]) -> tuple[fa.Far, str | None] | None:
    """``FAR(w,x,y[,z[,d[,v]]])`` first, then dice rolled by hand (``@52,11,81``), then a label,
    as BCDice reads anything after the command as a comment."""
    if not words:
        return None
    request = fa.far(words[0])
    if request is None:
        return None
    rest = list(words[1:])
    if rest and (dice := _given(rest[0])) is not None:
        request = replace(request, dice=dice)
        rest.pop(0)
    return request, " ".join(rest) or None


def far_report(result: fa.FarResult, odds: fa.FarOdds) -> Report:
    r = result.request
    head = f"{TITLE} full auto (BCDice FAR) — {r.bullets} bullets, skill {r.skill}, "
    head += f"malfunction {r.malfunction}, volleys of {r.size}"
    rows = []
    for i, v in enumerate(result.volleys, 1):
        did = {"jam": "JAM", "miss": "miss"}.get(v.hit, f"{v.normal} normal, {v.impaling} impaling")
        text = f"{v.step}, {_pool(v.net)}: {rolls(v.dice)} → {show_roll(v.roll)} "
        rows.append(Row(f"volley {i}", f"{text}{v.level.upper()} · {did}", v.level))
    ended = {"jam": "jammed", "empty": "all fired", "stop": "stopped as asked"}
    rows.append(
        Row(
            "hits",
            f"{result.normal} normal, {result.impaling} impaling; {result.bullets_left} "
            f"bullets left" + (f" ({ended[result.ended]})" if result.ended in ended else ""),
        )
    )
    chances = (*_hit_chances(result.hits, odds.at_least), ("a jam", odds.jam))
    return Report(NAME, head, tuple(rows), chances, r.notes)


def _hit_chances(hits: int, at_least: Callable[[int], Fraction]) -> list[tuple[str, Fraction]]:
    """Any hit, and this many or more where that says more."""
    out = [("any hit", at_least(1))]
    if hits > 1 and at_least(hits) != out[0][1]:
        out.append((f"{hits} or more hits", at_least(hits)))
    return out


# -- several shots and d100's own full auto, in quick words -------------------------------------

_COMMON = {  # a word's pattern and the field it sets; an empty number is 1 (b: a bonus die)
    "bonus_dice": re.compile(r"(?:b|bonus)=?(\d*)", re.IGNORECASE),
    "penalty_dice": re.compile(r"(?:p|penalty)=?(\d*)", re.IGNORECASE),
    "malfunction": re.compile(r"(?:mal|malfunction)=?(\d+)", re.IGNORECASE),
    "aimed": re.compile(r"aim|aimed", re.IGNORECASE),
    "pulp_luck": re.compile(r"pulp=?(\d+)", re.IGNORECASE),
}
_SHOTS = {
    "shots": re.compile(r"shots=?(\d+)", re.IGNORECASE),
    "damage": re.compile(r"(?:dmg|damage)=(\S+)", re.IGNORECASE),
    **_COMMON,
}
_AUTO = {
    "bullets": re.compile(r"auto=?(\d+)", re.IGNORECASE),
    "volleys": re.compile(r"volleys=?(\d+)", re.IGNORECASE),
    "volley": re.compile(r"volley=?(\d+)", re.IGNORECASE),
    "damage": re.compile(r"(?:dmg|damage)=(\S+)", re.IGNORECASE),
    **_COMMON,
}
RANGE_WORDS = (
    "aim (a bonus die on the first); malN (malfunction number); pulpN (a Pulp hero's Luck: 10 "
    "of it cancels a malfunction's consequence, P-6); normal, long or extreme: one "
    "range for all, or one each in order (the difficulty is the range's); @DICE; then a label"
)
SHOT_WORDS = (
    "shotsN; dmg=EXPR (each hit's damage, S7-6); bN or pN (the pool before each shot's "
    f"penalty die); {RANGE_WORDS}"
)
AUTO_WORDS = (
    f"autoN (bullets loaded); dmg=EXPR (a bullet's damage); volleyN (bullets a volley fires); "
    f"volleysN (how many: else until "
    f"the bullets run out); bN or pN (the first volley's pool); {RANGE_WORDS}"
)


def _word(word: str, patterns: dict[str, re.Pattern[str]]) -> tuple[str, Any] | None:
    if word.lower() in RANGES:
        return "ranges", word.lower()
    if (dice := _given(word)) is not None:
        return "dice", dice
    for name, pattern in patterns.items():
        m = pattern.fullmatch(word)
        if m:
            value = m[1] if name == "damage" else True if name == "aimed" else int(m[1] or 1)
            return name, value
    return None


def _fields(
    words: Sequence[str], key: str, patterns: dict[str, re.Pattern[str]], allowed: str, what: str
) -> tuple[dict[str, Any], str | None] | None:
    """``SKILL WORDS... [LABEL]`` as request fields once the ``key`` field's word is among the
    words, else None; the label is the words from the first that is none of them."""
    if not words or not words[0].isdigit():
        return None
    if not any(patterns[key].fullmatch(w) for w in words[1:]):
        return None
    out: dict[str, Any] = {"skill": int(words[0])}
    ranges: list[str] = []
    label: list[str] = []
    for word in words[1:]:
        found = _word(word, patterns)
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


def read_shots(words: Sequence[str]) -> tuple[cs.Shots, str | None] | None:
    """``SKILL shotsN [WORDS...] [LABEL]``: several shots in one round (S7-13)."""
    found = _fields(words, "shots", _SHOTS, SHOT_WORDS, "several shots")
    return None if found is None else (cs.Shots(**found[0]), found[1])


def read_auto(words: Sequence[str]) -> tuple[au.FullAuto, str | None] | None:
    """``SKILL autoN [WORDS...] [LABEL]``: full auto with N bullets loaded (S7-14, Foundry's)."""
    found = _fields(words, "bullets", _AUTO, AUTO_WORDS, "full auto")
    return None if found is None else (au.FullAuto(**found[0]), found[1])


def rolls_plain(dice: tuple[int, ...]) -> str:
    return " ".join(str(d) for d in dice)


def _pool(net: int) -> str:
    if net == 0:
        return "no extra dice"
    return f"{abs(net)} {'bonus' if net > 0 else 'penalty'} {'die' if abs(net) == 1 else 'dice'}"


def shots_report(result: cs.ShotsResult, odds: cs.ShotsOdds) -> Report:
    r = result.request
    head = f"{TITLE} multiple shots — skill {r.skill}, {r.shots} shots"
    if r.malfunction is not None:
        head += f", malfunction {r.malfunction}"
    rows = []
    for i, s in enumerate(result.shots, 1):
        did = (
            "MALFUNCTION"
            if s.malfunction
            else "extreme hit"
            if s.extreme
            else "hit"
            if s.hit
            else "miss"
        )
        text = f"{s.range} range, {s.difficulty}, {_pool(s.net)}: {rolls(s.dice)} → "
        if s.damage:
            did += f", damage {s.damage[-1]}" + (
                f" ({rolls_plain(s.damage[:-1])})" if s.damage[:-1] else ""
            )
        rows.append(
            Row(f"shot {i}", f"{text}{show_roll(s.roll)} {s.level.upper()} · {did}", s.level)
        )
    rows.append(Row("hits", f"{result.hits} of {r.shots} ({result.extreme} extreme)"))
    chances = _hit_chances(result.hits, odds.at_least)
    _damage(result.damage, lambda: odds.damage, rows, chances)
    if r.malfunction is not None:
        chances.append(("a malfunction", odds.malfunction))
    _lucked(r.pulp_luck, result.malfunction, result.luck_spent, odds.luck_spent, rows, chances)
    return Report(NAME, head, tuple(rows), tuple(chances))


def _lucked(
    luck: int | None,
    malfunctioned: bool,
    spent: int,
    chance: Fraction,
    rows: list[Row],
    chances: list[tuple[str, Fraction]],
) -> None:
    """P-6, for a Pulp hero: the Luck spent cancelling a malfunction (the shot still fails,
    the weapon not jammed), or why it stays jammed; the chance the Luck is spent."""
    if luck is None:
        return
    if spent:
        said = f"{luck} → {luck - spent} (P-6): {spent} cancels the malfunction; the shot "
        rows.append(Row("Luck", said + "still fails, the weapon is not jammed"))
    elif malfunctioned:
        rows.append(Row("Luck", f"{luck} (P-6): 10 needed, the weapon stays jammed"))
    if chance:
        chances.append(("10 Luck spent", chance))


def auto_report(result: au.FullAutoResult, odds: au.FullAutoOdds) -> Report:
    r = result.request
    head = f"{TITLE} full auto — skill {r.skill}, {r.bullets} bullets, volleys of {r.size}"
    if r.malfunction is not None:
        head += f", malfunction {r.malfunction}"
    rows = []
    for i, v in enumerate(result.volleys, 1):
        did = (
            "MALFUNCTION"
            if v.malfunction
            else f"{v.normal} normal, {v.impaling} impaling"
            if v.normal or v.impaling
            else "miss"
        )
        if v.damage:
            did += f", damage {sum(v.damage)}"
        text = f"{v.range} range, {v.difficulty}, {_pool(v.net)}: {rolls(v.dice)} → "
        rows.append(
            Row(f"volley {i}", f"{text}{show_roll(v.roll)} {v.level.upper()} · {did}", v.level)
        )
    ended = {"malfunction": " (malfunction)", "empty": " (all fired)"}.get(result.ended, "")
    rows.append(
        Row(
            "hits",
            f"{result.normal} normal, {result.impaling} impaling; "
            f"{result.bullets_left} bullets left{ended}",
        )
    )
    chances = _hit_chances(result.hits, odds.at_least)
    if r.malfunction is not None:
        chances.append(("a malfunction", odds.malfunction))
    _damage(result.damage, lambda: odds.damage, rows, chances)
    jammed = result.ended == "malfunction"
    _lucked(r.pulp_luck, jammed, result.luck_spent, odds.luck_spent, rows, chances)
    return Report(NAME, head, tuple(rows), tuple(chances))


def _damage(
    total: int | None,
    odds_of: Callable[[], dict[int, Fraction] | None],
    rows: list[Row],
    chances: list[tuple[str, Fraction]],
) -> None:
    """The damage in all and the chance of as much or more, where a weapon's damage is named
    (the roll stands where its odds would cost more than the budget, and says so)."""
    if total is None:
        return
    try:
        chances_of = odds_of()
    except TooMuchWork as err:
        rows.append(Row("damage", f"{total} in all; its odds not worked out: {err.reason}"))
        return
    if chances_of is None:
        return
    rows.append(Row("damage", f"{total} in all (S7-6: an impale adds the most)"))
    if total > 0:
        more = sum((p for t, p in chances_of.items() if t >= total), Fraction(0))
        chances.append((f"{total} or more damage", more))


def with_odds(result: Any, odds: Any) -> dict[str, Any]:
    """A result's contract JSON with its exact odds beside."""
    return {**result.to_dict(), "odds": odds.to_dict()}


ACTIONS = (
    Action(
        "far",
        "FAR(bullets,skill,malfunction[,bonus[,stop[,volley]]])",
        "full auto as BCDice plays it (S7-14): volleys with fewer dice each, then one each "
        "at hard, extreme and critical; stop r, h or e; hits, impales and a jam",
        read_far,
        fa.roll,
        fa.odds,
        far_report,
        with_odds,
    ),
    Action(
        "shots",
        "SKILL shotsN [bN|pN] [aim] [malN] [normal|long|extreme...]",
        "several shots in a round (S7-13): a penalty die on each; " + SHOT_WORDS,
        read_shots,
        cs.roll,
        cs.odds,
        shots_report,
        with_odds,
    ),
    Action(
        "full_auto",
        "SKILL autoN [volleyN] [volleysN] [bN|pN] [aim] [malN] [normal|long|extreme...]",
        "full auto as Foundry plays it (S7-14, d100's own): a die worse each volley; " + AUTO_WORDS,
        read_auto,
        au.roll,
        au.odds,
        auto_report,
        with_odds,
    ),
)
