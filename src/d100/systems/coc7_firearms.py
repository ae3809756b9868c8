"""Call of Cthulhu 7th firearms as the edition declares them (``Declaration.actions``): BCDice's
``FAR(...)`` (S7-14), several handgun shots with their damage (S7-13, S7-6) and d100's own full
auto (S7-14, Foundry's reading) in quick words (``coc7_quick_words``), each read from what a
person types, rolled, counted and put in words for any door to draw; with them, the attack
with its damage (``coc7_attack``, S7-6, C7-7)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..actions import Action, Report, Row
from ..dice import show_roll
from . import coc7_damage as damage
from . import coc7_far as fa
from . import coc7_full_auto as au
from . import coc7_shots as cs
from .coc7_attack_words import ATTACK
from .coc7_check import NAME
from .coc7_firing import Fired, Told, built
from .coc7_quick_words import (
    COMMON,
    TITLE,
    dealt,
    fields_of,
    given_dice,
    pool_words,
    rolls_plain,
)
from .common import rolls

# -- FAR ---------------------------------------------------------------------------------------


def read_far(words: Sequence[str], bonus: str | None = None) -> tuple[fa.Far, str | None] | None:
    """``FAR(w,x,y[,z[,d[,v]]])`` first, then dice rolled by hand (``@52,11,81``), then a label,
    as BCDice reads anything after the command as a comment."""
    if not words:
        return None
    request = fa.far(words[0])
    if request is None:
        return None
    rest = list(words[1:])
    if rest and (dice := given_dice(rest[0])) is not None:
        request = replace(request, dice=dice)
        rest.pop(0)
    return request, " ".join(rest) or None


def far_report(result: fa.FarResult, odds_json: Mapping[str, Any]) -> Report:
    r, odds = result.request, Told.of(odds_json, "jam")
    head = f"{TITLE} full auto (BCDice FAR) — {r.bullets} bullets, skill {r.skill}, "
    head += f"malfunction {r.malfunction}, volleys of {r.size}"
    rows = []
    for i, v in enumerate(result.volleys, 1):
        did = {"jam": "JAM", "miss": "miss"}.get(v.hit, f"{v.normal} normal, {v.impaling} impaling")
        text = f"{v.step}, {pool_words(v.net)}: {rolls(v.dice)} → {show_roll(v.roll)} "
        rows.append(Row(f"volley {i}", f"{text}{v.level.upper()} · {did}", v.level))
    ended = {"jam": "jammed", "empty": "all fired", "stop": "stopped as asked"}
    rows.append(
        Row(
            "hits",
            f"{result.normal} normal, {result.impaling} impaling; {result.bullets_left} "
            f"bullets left" + (f" ({ended[result.ended]})" if result.ended in ended else ""),
        )
    )
    chances = (*_hit_chances(result.hits, odds.at_least), ("a jam", odds.stop or Fraction(0)))
    hits = f"{result.normal} normal, {result.impaling} impaling"
    return Report(NAME, head, tuple(rows), chances, r.notes, hits)


def _hit_chances(hits: int, at_least: Callable[[int], Fraction]) -> list[tuple[str, Fraction]]:
    """Any hit, and this many or more where that says more."""
    out = [("any hit", at_least(1))]
    if hits > 1 and at_least(hits) != out[0][1]:
        out.append((f"{hits} or more hits", at_least(hits)))
    return out


# -- several shots and d100's own full auto, in quick words -------------------------------------

_SHOTS = {
    "shots": re.compile(r"shots=?(\d+)", re.IGNORECASE),
    "damage": re.compile(r"(?:dmg|damage)=(\S+)", re.IGNORECASE),
    **COMMON,
}
_AUTO = {
    "bullets": re.compile(r"auto=?(\d+)", re.IGNORECASE),
    "volleys": re.compile(r"volleys=?(\d+)", re.IGNORECASE),
    "volley": re.compile(r"volley=?(\d+)", re.IGNORECASE),
    "damage": re.compile(r"(?:dmg|damage)=(\S+)", re.IGNORECASE),
    **COMMON,
}
RANGE_WORDS = (
    "aim (a bonus die on the first); malN (malfunction number); pulpN (a Pulp hero's Luck: 10 "
    "of it cancels a malfunction's consequence, P-6; pulp alone for a character: its sheet's "
    "Luck, the only one it takes); normal, long or extreme: one "
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


def read_shots(
    words: Sequence[str], bonus: str | None = None
) -> tuple[cs.Shots, str | None] | None:
    """``SKILL shotsN [WORDS...] [LABEL]``: several shots in one round (S7-13)."""
    found = fields_of(words, "shots", _SHOTS, SHOT_WORDS, "several shots")
    return None if found is None else (cs.Shots(**found[0]), found[1])


def read_auto(
    words: Sequence[str], bonus: str | None = None
) -> tuple[au.FullAuto, str | None] | None:
    """``SKILL autoN [WORDS...] [LABEL]``: full auto with N bullets loaded (S7-14, Foundry's)."""
    found = fields_of(words, "bullets", _AUTO, AUTO_WORDS, "full auto")
    return None if found is None else (au.FullAuto(**found[0]), found[1])


def shots_report(result: cs.ShotsResult, odds_json: Mapping[str, Any]) -> Report:
    r, odds = result.request, Told.of(odds_json, "malfunction")
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
        if s.damage:
            did += f", damage {s.damage[-1]}" + (
                f" ({rolls_plain(s.damage[:-1])})" if s.damage[:-1] else ""
            )
        rows.append(_fired_row(f"shot {i}", s, did))
    rows.append(Row("hits", f"{result.hits} of {r.shots} ({result.extreme} extreme)"))
    chances = _hit_chances(result.hits, odds.at_least)
    _damage(result.damage, odds.damage, rows, chances)
    if r.malfunction is not None and odds.stop is not None:
        chances.append(("a malfunction", odds.stop))
    _lucked(r.pulp_luck, result.malfunction, result.luck_spent, odds_json, rows, chances)
    said = f"{result.hits} of {r.shots} hit" + dealt(result.damage)
    return Report(NAME, head, tuple(rows), tuple(chances), outcome=said)


def _lucked(
    luck: int | None,
    malfunctioned: bool,
    spent: int,
    odds_json: Mapping[str, Any],
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
    chance = Fraction(odds_json.get("luck_spent", 0))
    if chance:
        chances.append(("10 Luck spent", chance))


def auto_report(result: au.FullAutoResult, odds_json: Mapping[str, Any]) -> Report:
    r, odds = result.request, Told.of(odds_json, "malfunction")
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
        rows.append(_fired_row(f"volley {i}", v, did))
    ended = {"malfunction": " (malfunction)", "empty": " (all fired)"}.get(result.ended, "")
    rows.append(
        Row(
            "hits",
            f"{result.normal} normal, {result.impaling} impaling; "
            f"{result.bullets_left} bullets left{ended}",
        )
    )
    chances = _hit_chances(result.hits, odds.at_least)
    if r.malfunction is not None and odds.stop is not None:
        chances.append(("a malfunction", odds.stop))
    _damage(result.damage, odds.damage, rows, chances)
    jammed = result.ended == "malfunction"
    _lucked(r.pulp_luck, jammed, result.luck_spent, odds_json, rows, chances)
    said = f"{result.normal} normal, {result.impaling} impaling" + dealt(result.damage)
    return Report(NAME, head, tuple(rows), tuple(chances), outcome=said)


def _fired_row(label: str, f: Fired, did: str) -> Row:
    """A shot's or a volley's row: range, difficulty, pool, dice, level and what it did."""
    text = f"{f.range} range, {f.difficulty}, {pool_words(f.net)}: {rolls(f.dice)} → "
    return Row(label, f"{text}{show_roll(f.roll)} {f.level.upper()} · {did}", f.level)


def _damage(
    total: int | None,
    chances_of: Mapping[int, Fraction] | str | None,
    rows: list[Row],
    chances: list[tuple[str, Fraction]],
) -> None:
    """The damage in all and the chance of as much or more, where a weapon's damage is named
    (the roll stands where its odds would cost more than the budget, and says so)."""
    if total is None or chances_of is None:
        return
    if isinstance(chances_of, str):
        rows.append(Row("damage", f"{total} in all; its odds not worked out: {chances_of}"))
        return
    rows.append(Row("damage", f"{total} in all (S7-6: an impale adds the most)"))
    if total > 0:
        more = sum((p for t, p in chances_of.items() if t >= total), Fraction(0))
        chances.append((f"{total} or more damage", more))


def _shots_cost(r: cs.Shots) -> int:
    """The run's steps, and the damage's for every (hits, extreme hits) it may come to."""
    pairs = [(h, e) for h in range(r.shots + 1) for e in range(h + 1)]
    return cs.machine(r).cost + _damage_cost(r.damage, pairs)


def _auto_cost(r: au.FullAuto) -> int:
    pairs = [(h, i) for h in range(r.bullets + 1) for i in range(h // 2 + 1)]
    return au.machine(r).cost + _damage_cost(r.damage, pairs)


def _damage_cost(expression: str | None, pairs: list[tuple[int, int]]) -> int:
    if expression is None:
        return 0
    hurt = damage.weapon(expression)
    return damage.cost(hurt.rolled.high - hurt.rolled.low + 1, pairs)


PULP_WORD, PULP_FIELD = "pulp", "pulp_luck"  # a Pulp hero's Luck (P-6): pulp40, a sheet's
ACTIONS = (
    Action(
        "far",
        "FAR(bullets,skill,malfunction[,bonus[,stop[,volley]]])",
        "full auto as BCDice plays it (S7-14): volleys with fewer dice each, then one each "
        "at hard, extreme and critical; stop r, h or e; hits, impales and a jam",
        read_far,
        lambda data: built(fa.Far, data),
        lambda r: fa.machine(r).cost,
        fa.roll,
        lambda r: fa.odds(r).to_dict(),
        far_report,
        f"{TITLE} full auto (BCDice FAR)",
    ),
    Action(
        "shots",
        "SKILL shotsN [dmg=EXPR] [bN|pN] [aim] [malN] [normal|long|extreme...]",
        "several shots in a round (S7-13): a penalty die on each; " + SHOT_WORDS,
        read_shots,
        lambda data: built(cs.Shots, data),
        _shots_cost,
        cs.roll,
        lambda r: cs.odds(r).to_dict(),
        shots_report,
        f"{TITLE} multiple shots",
        PULP_WORD,
        PULP_FIELD,
    ),
    Action(
        "full_auto",
        "SKILL autoN [dmg=EXPR] [volleyN] [volleysN] [bN|pN] [aim] [malN] [normal|long|extreme...]",
        "full auto as Foundry plays it (S7-14, d100's own): a die worse each volley; " + AUTO_WORDS,
        read_auto,
        lambda data: built(au.FullAuto, data),
        _auto_cost,
        au.roll,
        lambda r: au.odds(r).to_dict(),
        auto_report,
        f"{TITLE} full auto",
        PULP_WORD,
        PULP_FIELD,
    ),
    ATTACK,
)
