"""Call of Cthulhu 7th firearms and attacks as the edition declares them
(``Declaration.actions``): BCDice's ``FAR(...)`` (S7-14), several handgun shots with their
damage (S7-13, S7-6), d100's own full auto (S7-14, Foundry's reading) and an attack with its
damage (S7-6, C7-7) in quick words, each read from what a person types, rolled,
counted and put in words for any door to draw."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from .. import expressions
from ..actions import Action, Report, Row
from ..dice import show_roll
from ..errors import D100Error
from ..fields import from_text
from . import coc7_attack as at
from . import coc7_damage as damage
from . import coc7_far as fa
from . import coc7_full_auto as au
from . import coc7_shots as cs
from .coc7_check import NAME
from .coc7_firing import RANGES, Fired, Told, built
from .coc7_rules import DIFFICULTIES
from .common import DICE, rolls

TITLE = "Call of Cthulhu 7th edition"


def _given(word: str) -> tuple[int, ...] | None:
    """``@52,11,81``: dice rolled by hand, in the order rolled; None for any other word."""
    if not word.startswith("@"):
        return None
    return tuple(from_text(DICE, word[1:], "dice"))


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
    if rest and (dice := _given(rest[0])) is not None:
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

_COMMON = {  # a word's pattern and the field it sets; an empty number is 1 (b: a bonus die)
    "bonus_dice": re.compile(r"(?:b|bonus)=?(\d*)", re.IGNORECASE),
    "penalty_dice": re.compile(r"(?:p|penalty)=?(\d*)", re.IGNORECASE),
    "malfunction": re.compile(r"(?:mal|malfunction)=?(\d+)", re.IGNORECASE),
    "aimed": re.compile(r"aim|aimed", re.IGNORECASE),
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
    "aim (a bonus die on the first); malN (malfunction number); normal, long or extreme: one "
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


_TEXT = frozenset({"damage", "damage_bonus"})  # words whose value is text, not a number
_FLAGS = frozenset({"aimed"})  # words that say yes by being there
_RANGES = {r: ("ranges", r) for r in RANGES}  # a shot's or volley's range, one or one each


def _word(
    word: str, patterns: dict[str, re.Pattern[str]], plain: Mapping[str, tuple[str, Any]]
) -> tuple[str, Any] | None:
    if word.lower() in plain:
        return plain[word.lower()]
    if (dice := _given(word)) is not None:
        return "dice", dice
    for name, pattern in patterns.items():
        m = pattern.fullmatch(word)
        if m:
            value = m[1] if name in _TEXT else True if name in _FLAGS else int(m[1] or 1)
            return name, value
    return None


def _fields(
    words: Sequence[str],
    key: str,
    patterns: dict[str, re.Pattern[str]],
    allowed: str,
    what: str,
    plain: Mapping[str, tuple[str, Any]] = _RANGES,
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
        found = _word(word, patterns, plain)
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


def read_shots(
    words: Sequence[str], bonus: str | None = None
) -> tuple[cs.Shots, str | None] | None:
    """``SKILL shotsN [WORDS...] [LABEL]``: several shots in one round (S7-13)."""
    found = _fields(words, "shots", _SHOTS, SHOT_WORDS, "several shots")
    return None if found is None else (cs.Shots(**found[0]), found[1])


def read_auto(
    words: Sequence[str], bonus: str | None = None
) -> tuple[au.FullAuto, str | None] | None:
    """``SKILL autoN [WORDS...] [LABEL]``: full auto with N bullets loaded (S7-14, Foundry's)."""
    found = _fields(words, "bullets", _AUTO, AUTO_WORDS, "full auto")
    return None if found is None else (au.FullAuto(**found[0]), found[1])


_ATTACK = {
    "damage": re.compile(r"(?:dmg|damage)=(\S+)", re.IGNORECASE),
    "damage_bonus": re.compile(r"db=(\S+)", re.IGNORECASE),
    "defender": re.compile(r"vs=?(\d+)", re.IGNORECASE),
    "bonus_dice": _COMMON["bonus_dice"],
    "penalty_dice": _COMMON["penalty_dice"],
}
_ATTACK_PLAIN: dict[str, tuple[str, Any]] = {
    **{d: ("difficulty", d) for d in DIFFICULTIES[1:]},
    "impale": ("impaling", True),
    "impaling": ("impaling", True),
    "dodge": ("response", "dodge"),
    "fight": ("response", "fight_back"),
    "maneuver": ("response", "maneuver"),
}
ATTACK_WORDS = (
    "dmg=EXPR (the weapon's damage: 1d8+DB, 1d6+half(DB) thrown); db=EXPR (what DB stands "
    "for, else the sheet's); impale (an impaling weapon); hard or extreme (the difficulty); bN "
    "or pN; vsN (a melee attack against a defender's skill) and dodge, fight or maneuver "
    "(dodge unless said); @DICE (the attacker's, then the defender's); then a label"
)


def read_attack(
    words: Sequence[str], bonus: str | None = None
) -> tuple[at.Attack, str | None] | None:
    """``SKILL dmg=EXPR [WORDS...] [LABEL]``: an attack with its damage (S7-6, C7-7); DB is
    ``bonus`` (a sheet's) where the words name DB and give no ``db=``."""
    found = _fields(words, "damage", _ATTACK, ATTACK_WORDS, "an attack", _ATTACK_PLAIN)
    if found is None:
        return None
    fields, label = found
    if bonus is not None and "damage_bonus" not in fields and _names_bonus(fields["damage"]):
        fields["damage_bonus"] = bonus
    return at.Attack(**fields), label


def _names_bonus(expression: str) -> bool:
    try:
        return expressions.parse(expression).names_bonus
    except D100Error:
        return False  # the request refuses it, naming where


def attack_report(result: at.AttackResult, odds: Mapping[str, Any]) -> Report:
    r = result.request
    head = f"{TITLE} attack — skill {r.skill}"
    if r.difficulty != "regular":
        head += f", {r.difficulty}"
    if r.defender is not None:
        head += f", against {r.defender} ({r.response.replace('_', ' ')})"
    head += f"; damage {r.damage}" + (f" with DB {r.damage_bonus}" if r.damage_bonus else "")
    head += ", impaling" if r.impaling else ""
    net = r.nets[0]
    rows = [
        Row(
            "attack",
            f"{_pool(net)}: {rolls(result.dice)} → {show_roll(result.roll)} {result.level.upper()}",
            result.level,
        )
    ]
    if result.defence is not None:
        values, kept, lvl = result.defence
        rows.append(Row("defence", f"{rolls(values)} → {show_roll(kept)} {lvl.upper()}", lvl))
    did = {"miss": "miss", "hit": "hit", "extreme": "extreme damage"}[result.outcome]
    if result.outcome == "extreme" and r.impaling:
        did += " and an impale"
    rows.append(Row("outcome", did))
    dealt = f"{result.damage}" + (
        f" ({rolls_plain(result.damage_dice)})" if result.damage_dice else ""
    )
    rows.append(Row("damage", f"{dealt}; mean {_mean(odds['mean_damage'])} (S7-6)"))
    outcomes = {k: Fraction(p) for k, p in odds["outcomes"].items()}
    chances = [("a hit", Fraction(odds["hit"]))]
    if outcomes["extreme"]:
        chances.append(("extreme damage", outcomes["extreme"]))
    if result.outcome != "miss":
        spread = {int(t): Fraction(p) for t, p in odds["damage"].items()}
        more = sum((p for t, p in spread.items() if t >= result.damage), Fraction(0))
        chances.append((f"{result.damage} or more damage", more))
    said = did + _dealt(result.damage)
    return Report(NAME, head, tuple(rows), tuple(chances), outcome=said)


def _dealt(damage: int | None) -> str:
    return "" if damage is None else f"; {damage} damage"


def _mean(text: str) -> str:
    value = Fraction(text)
    return str(value) if value.denominator == 1 else f"{float(value):.2f}"


def rolls_plain(dice: tuple[int, ...]) -> str:
    return " ".join(str(d) for d in dice)


def _pool(net: int) -> str:
    if net == 0:
        return "no extra dice"
    return f"{abs(net)} {'bonus' if net > 0 else 'penalty'} {'die' if abs(net) == 1 else 'dice'}"


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
    said = f"{result.hits} of {r.shots} hit" + _dealt(result.damage)
    return Report(NAME, head, tuple(rows), tuple(chances), outcome=said)


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
    said = f"{result.normal} normal, {result.impaling} impaling" + _dealt(result.damage)
    return Report(NAME, head, tuple(rows), tuple(chances), outcome=said)


def _fired_row(label: str, f: Fired, did: str) -> Row:
    """A shot's or a volley's row: range, difficulty, pool, dice, level and what it did."""
    text = f"{f.range} range, {f.difficulty}, {_pool(f.net)}: {rolls(f.dice)} → "
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
    ),
    Action(
        "attack",
        "SKILL dmg=EXPR [db=EXPR] [impale] [hard|extreme] [bN|pN] [vsN [dodge|fight|maneuver]]",
        "a skill roll or melee attack that rolls its damage when it hits (S7-6): extreme "
        "damage on an extreme success, an impale for an impaling weapon; " + ATTACK_WORDS,
        read_attack,
        lambda data: built(at.Attack, data),
        at.cost,
        at.roll,
        lambda r: at.odds(r).to_dict(),
        attack_report,
        f"{TITLE} attack",
    ),
)
