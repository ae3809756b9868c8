"""Call of Cthulhu 7th edition's attack (``coc7_attack``) in quick words and in its report:
``60 dmg=1d8+DB vs40 fight fb=1d6+DB``, or at a table against a defender's sheet, whose skill
and damage bonus the table reads there (``Facing``); and the report a viewer who may not read
that sheet is shown: no odds, the defender by level."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from .. import expressions
from ..actions import Action, Facing, Report, Row
from ..dice import show_roll
from ..errors import D100Error
from .coc7_attack import FOUGHT_BACK, Attack, AttackResult, cost, odds, roll
from .coc7_attack_luck import follow_ups
from .coc7_check import NAME
from .coc7_firing import built
from .coc7_quick_words import COMMON, TITLE, dealt, fields_of, pool_words, rolls_plain
from .coc7_rules import DIFFICULTIES
from .common import rolls

_ATTACK = {
    "damage": re.compile(r"(?:dmg|damage)=(\S+)", re.IGNORECASE),
    "damage_bonus": re.compile(r"db=(\S+)", re.IGNORECASE),
    "defender": re.compile(r"vs=?(\d+)", re.IGNORECASE),
    "defender_damage": re.compile(r"fb=(\S+)", re.IGNORECASE),
    "defender_damage_bonus": re.compile(r"fbdb=(\S+)", re.IGNORECASE),
    "bonus_dice": COMMON["bonus_dice"],
    "penalty_dice": COMMON["penalty_dice"],
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
    "(dodge unless said); fb=EXPR (the defender's damage when fighting back wins, fbdb=EXPR "
    "their DB); @DICE (the attacker's, then the defender's); then a label"
)
# the words of a defender at a table, whose sheet gives their skill and DB (``Facing``)
SHEET_SIDE = ("defender", "defender_damage_bonus")
PLACEHOLDER = "0"  # the defender's DB until their sheet's is filled in (``fill``)


def _fields(words: Sequence[str], bonus: str | None) -> tuple[dict[str, Any], str | None] | None:
    found = fields_of(words, "damage", _ATTACK, ATTACK_WORDS, "an attack", _ATTACK_PLAIN)
    if found is None:
        return None
    fields, label = found
    if bonus is not None and "damage_bonus" not in fields and _names_bonus(fields["damage"]):
        fields["damage_bonus"] = bonus
    return fields, label


def read_attack(words: Sequence[str], bonus: str | None = None) -> tuple[Attack, str | None] | None:
    """``SKILL dmg=EXPR [WORDS...] [LABEL]``: an attack with its damage (S7-6, C7-7); DB is
    ``bonus`` (a sheet's) where the words name DB and give no ``db=``."""
    found = _fields(words, bonus)
    return None if found is None else (Attack(**found[0]), found[1])


def read_facing(words: Sequence[str], bonus: str | None) -> tuple[Attack, str | None] | None:
    """The words as a melee attack against a defender whose sheet gives their skill and DB
    (``fill`` puts them in): refused where the words type either (``vsN``, ``fbdb=``)."""
    found = _fields(words, bonus)
    if found is None:
        return None
    fields, label = found
    typed = next((f for f in SHEET_SIDE if f in fields), None)
    if typed is not None:
        raise D100Error(
            typed,
            fields[typed],
            "none: the defender's sheet gives it",
            "an attack on a character is made against their sheet",
        )
    fields["defender"] = 0
    if "defender_damage" in fields and _names_bonus(fields["defender_damage"]):
        fields["defender_damage_bonus"] = PLACEHOLDER
    return Attack(**fields), label


def fill(request: Attack, skill: int, bonus: str | None) -> Attack:
    """The attack with the defender's skill and damage bonus, as their sheet gives them."""
    names = request.defender_damage is not None and _names_bonus(request.defender_damage)
    return replace(request, defender=skill, defender_damage_bonus=bonus if names else None)


def side(request: Attack) -> tuple[int | None, str | None]:
    return request.defender, request.defender_damage_bonus


def default_skill(request: Attack) -> str:
    """The skill a response is made with (C7-7): Dodge to dodge, Fighting otherwise."""
    return "dodge" if request.response == "dodge" else "fighting"


def _names_bonus(expression: str) -> bool:
    try:
        return expressions.parse(expression).names_bonus
    except D100Error:
        return False  # the request refuses it, naming where


def _head(r: Attack, defender: str) -> str:
    head = f"{TITLE} attack — skill {r.skill}"
    if r.difficulty != "regular":
        head += f", {r.difficulty}"
    if r.defender is not None:
        head += f", against {defender} ({r.response.replace('_', ' ')})"
    head += f"; damage {r.damage}" + (f" with DB {r.damage_bonus}" if r.damage_bonus else "")
    return head + (", impaling" if r.impaling else "")


def _did(result: AttackResult) -> str:
    if result.outcome == FOUGHT_BACK:
        return "fought back"
    did = {"miss": "miss", "hit": "hit", "extreme": "extreme damage"}[result.outcome]
    return did + (
        " and an impale" if result.outcome == "extreme" and result.request.impaling else ""
    )


def _rows(result: AttackResult, defence: Row | None, means: Mapping[str, Any] | None) -> list[Row]:
    """The attack's rows: the attacker's roll, the defence, the outcome, the damage dealt and
    the defender's where they fought back, each with its mean where the odds are shown."""
    kept = show_roll(result.roll)
    if result.luck_spent:  # C7-4: the roll as Luck lowered it
        kept += f" - {result.luck_spent} Luck = {show_roll(result.roll - result.luck_spent)}"
    rolled = f"{rolls(result.dice)} → {kept} {result.level.upper()}"
    rows = [Row("attack", f"{pool_words(result.request.nets[0])}: {rolled}", result.level)]
    rows += [defence] if defence is not None else []
    rows.append(Row("outcome", _did(result)))
    shown = f"{result.damage}" + (
        f" ({rolls_plain(result.damage_dice)})" if result.damage_dice else ""
    )
    mean = "" if means is None else f"; mean {_mean(means['mean_damage'])}"
    rows.append(Row("damage", f"{shown}{mean} (S7-6)"))
    if result.defender_damage is not None:
        back = f"{result.defender_damage}"
        if means is not None:
            dice = result.defender_damage_dice
            back += f" ({rolls_plain(dice)})" if dice else ""
            back += f"; mean {_mean(means['mean_defender_damage'])}"
        rows.append(Row("defender's damage", f"{back} (C7-7)"))
    return rows


def _outcome(result: AttackResult) -> str:
    if result.outcome == FOUGHT_BACK:
        return _did(result) + f"; {result.defender_damage} damage to the attacker"
    return _did(result) + dealt(result.damage)


def attack_report(result: AttackResult, odds: Mapping[str, Any]) -> Report:
    r = result.request
    defence = None
    if result.defence is not None:
        values, kept, lvl = result.defence
        defence = Row("defence", f"{rolls(values)} → {show_roll(kept)} {lvl.upper()}", lvl)
    rows = _rows(result, defence, odds)
    outcomes = {k: Fraction(p) for k, p in odds["outcomes"].items()}
    chances = [("a hit", Fraction(odds["hit"]))]
    if outcomes["extreme"]:
        chances.append(("extreme damage", outcomes["extreme"]))
    if result.outcome in ("hit", "extreme"):
        chances.append(_at_least(result.damage, odds["damage"], "damage"))
    if FOUGHT_BACK in outcomes:
        chances.append(("the defender fighting back and winning", outcomes[FOUGHT_BACK]))
        if result.outcome == FOUGHT_BACK and result.defender_damage is not None:
            back = _at_least(
                result.defender_damage, odds["defender_damage"], "damage to the attacker"
            )
            chances.append(back)
    head = _head(r, str(r.defender))
    return Report(NAME, head, tuple(rows), tuple(chances), outcome=_outcome(result))


def kept_report(result: AttackResult) -> tuple[Report, dict[str, Any]]:
    """The attack as a viewer who may not read the defender's sheet sees it: the attacker's
    roll and damage, the defender's level, the outcome and the damage dealt; not the
    defender's skill, DB or dice, nor any odds (each chance tells the defender's skill)."""
    defence = None
    if result.defence is not None:
        lvl = result.defence[2]
        defence = Row("defence", lvl.upper(), lvl)
    rows = _rows(result, defence, None)
    head = _head(result.request, "the defender")
    report = Report(NAME, head, tuple(rows), (), outcome=_outcome(result))
    return report, result.kept()


def _at_least(total: int, spread: Mapping[str, str], what: str) -> tuple[str, Fraction]:
    more = sum((Fraction(p) for t, p in spread.items() if int(t) >= total), Fraction(0))
    return f"{total} or more {what}", more


def _mean(text: str) -> str:
    value = Fraction(text)
    return str(value) if value.denominator == 1 else f"{float(value):.2f}"


ATTACK = Action(
    "attack",
    "SKILL dmg=EXPR [db=EXPR] [impale] [hard|extreme] [bN|pN] [vsN [dodge|fight|maneuver] "
    "[fb=EXPR [fbdb=EXPR]]]",
    "a skill roll or melee attack that rolls its damage when it hits (S7-6): extreme "
    "damage on an extreme success, an impale for an impaling weapon; the defender's damage "
    "when fighting back wins (C7-7); " + ATTACK_WORDS,
    read_attack,
    lambda data: built(Attack, data),
    cost,
    roll,
    lambda r: odds(r).to_dict(),
    attack_report,
    f"{TITLE} attack",
    facing=Facing(default_skill, fill, side, kept_report, read_facing),
    after=follow_ups,
)


__all__ = ["ATTACK", "attack_report", "kept_report", "read_attack", "read_facing"]
