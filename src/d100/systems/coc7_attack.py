"""Call of Cthulhu 7th edition's attack with its damage (S7-6): a skill roll, or a melee attack
against a defender's response (C7-7), that rolls the weapon's damage when the attacker wins:
W + DB on a hit; on an extreme success or better the most W + DB comes to, and for an impaling
weapon the weapon again, without DB, on top. Rolled and counted by one run (``coc7_firing``):
the exact chance of a hit, of an extreme one and of every damage dealt, a miss dealing none."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import expressions, tallies
from ..actions import Action, Report, Row
from ..dice import RandomSource, show_roll
from ..errors import D100Error, TooMuchWork
from ..expressions import DamageBonus, DiceRequest, Expression
from ..fields import BIG
from .coc7_check import MAX_EXTRA_DICE, NAME
from .coc7_firing import Run, built, fraction_text, mean, within
from .coc7_quick_words import COMMON, TITLE, dealt, fields_of, pool_words, rolls_plain
from .coc7_rules import DIFFICULTIES, RANK, RESPONSES, contest_winner, fumble_from, level
from .coc7_rules import succeeds as reaches
from .common import rolls

OUTCOMES = ("miss", "hit", "extreme")  # what an attack does: nothing, W + DB, extreme damage


@dataclass(frozen=True)
class Attack:
    """An attack: the skill, the weapon's damage (``1d8+DB``, ``1d6+half(DB)``) and what DB
    stands for, whether the weapon impales, the difficulty (none against a defender), the
    attacker's bonus or penalty dice, the defender's skill and response (a melee attack,
    C7-7) where there is one, and dice rolled by hand (the attacker's, then the defender's)."""

    skill: int
    damage: str
    damage_bonus: str | None = None
    impaling: bool = False
    difficulty: str = "regular"
    bonus_dice: int = 0
    penalty_dice: int = 0
    defender: int | None = None
    response: str = "dodge"
    dice: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        within("skill", self.skill, 0, BIG)
        self.hurt  # noqa: B018 (checked when built: the damage and its DB)
        if self.difficulty not in DIFFICULTIES:
            raise D100Error("difficulty", self.difficulty, ", ".join(DIFFICULTIES))
        within("bonus_dice", self.bonus_dice, 0, MAX_EXTRA_DICE)
        within("penalty_dice", self.penalty_dice, 0, MAX_EXTRA_DICE)
        if self.response not in RESPONSES:
            raise D100Error("response", self.response, ", ".join(RESPONSES))
        if self.defender is not None:
            within("defender", self.defender, 0, BIG)
            if self.difficulty != "regular":
                raise D100Error(
                    "difficulty",
                    self.difficulty,
                    "regular against a defender: the response is the difficulty (C7-7)",
                )
        if self.dice is not None:
            for v in self.dice:
                within("dice", v, 1, 100)

    @property
    def hurt(self) -> DiceRequest:
        """W + DB, with what DB stands for filled in."""
        try:
            return DiceRequest(self.damage, self.damage_bonus)
        except D100Error as err:
            raise err if err.field == "damage_bonus" else err.at("damage") from None

    @property
    def weapon(self) -> DiceRequest:
        """W alone, the impale's roll: the damage without its DB terms."""
        terms = expressions.parse(self.damage).terms
        return DiceRequest(
            str(Expression(tuple(t for t in terms if not isinstance(t, DamageBonus))))
        )

    @property
    def nets(self) -> list[int]:
        """Each roll's net dice: the attacker's, then the defender's (none extra)."""
        return [self.bonus_dice - self.penalty_dice] + ([] if self.defender is None else [0])

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"skill": self.skill, "damage": self.damage}
        if self.damage_bonus is not None:
            out["damage_bonus"] = self.damage_bonus
        for name in ("impaling", "bonus_dice", "penalty_dice"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.difficulty != "regular":
            out["difficulty"] = self.difficulty
        if self.defender is not None:
            out |= {"defender": self.defender, "response": self.response}
        if self.dice is not None:
            out["dice"] = list(self.dice)
        return out


# A state: (rolls made, the attacker's level, the defender's, the outcome once decided, else "")
State = tuple[int, str, str, str]


def outcome(request: Attack, attacker: str, defender: str | None) -> str:
    """S7-6 and C7-7: a miss unless the attacker wins (reaches the difficulty, or beats the
    response); extreme damage at the attacker's own extreme success or better."""
    if defender is None:
        won = reaches(attacker, request.difficulty)
    else:
        won = contest_winner(attacker, defender, request.response) == "actor"
    return "miss" if not won else "extreme" if RANK[attacker] >= RANK["extreme"] else "hit"


def machine(request: Attack) -> Run[State]:
    def pool(state: State) -> int | None:
        return None if state[3] else request.nets[state[0]]

    def step(state: State, kept: int) -> State:
        made, mine, _, _ = state
        if made == 0:
            lvl = level(kept, request.skill, fumble_from(request.skill, request.difficulty))
            if request.defender is None:
                return (1, lvl, "", outcome(request, lvl, None))
            return (1, lvl, "", "")
        defender = request.defender or 0  # a second roll only where there is a defender
        theirs = level(kept, defender, fumble_from(defender))
        return (2, mine, theirs, outcome(request, mine, theirs))

    return Run((0, "", "", ""), pool, step, [True] * len(request.nets), "skill")


@dataclass(frozen=True)
class AttackResult:
    request: Attack
    dice: tuple[int, ...]
    roll: int
    level: str
    defence: tuple[tuple[int, ...], int, str] | None  # the defender's dice, kept die and level
    outcome: str
    damage: int
    damage_dice: tuple[int, ...]
    explanation: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": NAME,
            "attack": self.request.to_dict(),
            "dice": list(self.dice),
            "roll": self.roll,
            "level": self.level,
        }
        if self.defence is not None:
            values, kept, lvl = self.defence
            out["defender"] = {"dice": list(values), "roll": kept, "level": lvl}
        return out | {
            "outcome": self.outcome,
            "damage": self.damage,
            "damage_dice": list(self.damage_dice),
            "explanation": self.explanation,
        }


def roll(request: Attack, rng: RandomSource | None = None) -> AttackResult:
    """The attack, then its damage where it hits: the request's dice first, else the random
    source's."""
    end, rolled = machine(request).fire(request.nets, request.dice, rng)
    (_, values, kept), *defended = rolled
    defence = None
    if defended:
        defence = (defended[0][1], defended[0][2], end[2])
    hurt = request.hurt
    total, how = 0, "no damage"
    dice: tuple[int, ...] = ()
    if end[3] == "hit":
        hit = expressions.roll(hurt, rng)
        total, dice, how = hit.total, hit.dice, f"damage {hit.explanation}"
    elif end[3] == "extreme":
        total, how = hurt.rolled.high, f"the most {hurt.expression} comes to, {hurt.rolled.high}"
        if request.impaling:
            impale = expressions.roll(request.weapon, rng)
            total, dice = total + impale.total, impale.dice
            how += f", and the impale {impale.explanation}"
    said = f"{rolls(values)} -> {show_roll(kept)} {end[1]}"
    if defence is not None:
        said += f" against {rolls(defence[0])} -> {show_roll(defence[1])} {defence[2]}"
    why = f"{said}: {end[3]}, {how}"
    return AttackResult(request, values, kept, end[1], defence, end[3], total, dice, why)


@dataclass(frozen=True)
class AttackOdds:
    """The exact chance of each outcome and of every damage dealt (a miss: none)."""

    request: Attack
    outcomes: Mapping[str, Fraction]
    damage: Mapping[int, Fraction]

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcomes": {k: fraction_text(p) for k, p in self.outcomes.items()},
            "hit": fraction_text(self.outcomes["hit"] + self.outcomes["extreme"]),
            "damage": {str(t): fraction_text(p) for t, p in self.damage.items()},
            "mean_damage": fraction_text(mean(self.damage)),
        }


def odds(request: Attack) -> AttackOdds:
    """S7-6's mixture over the outcome: a miss deals 0, a hit W + DB, an extreme hit the most
    W + DB comes to, plus W again for an impaling weapon. Refused before any work
    (``TooMuchWork``, naming ``damage``) where the run and both expressions together are over
    the engine's budget, though each alone is under it."""
    dear = cost(request)
    if dear > tallies.BUDGET:
        raise TooMuchWork("damage", dear, tallies.BUDGET)
    chances = dict.fromkeys(OUTCOMES, Fraction(0))
    for end, p in machine(request).distribution().items():
        chances[end[3]] += p
    hurt = request.hurt
    most = hurt.rolled.high
    parts = [({0: Fraction(1)}, chances["miss"]), (_spread(hurt, 0), chances["hit"])]
    extreme = _spread(request.weapon, most) if request.impaling else {most: Fraction(1)}
    parts.append((extreme, chances["extreme"]))
    out: dict[int, Fraction] = {}
    for spread, p in parts:
        for total, q in spread.items():
            out[total] = out.get(total, Fraction(0)) + p * q
    return AttackOdds(request, chances, {t: p for t, p in sorted(out.items()) if p})


def _spread(dice: DiceRequest, plus: int) -> dict[int, Fraction]:
    counts = expressions.distribution(dice.rolled)
    return {t + plus: Fraction(w, counts.denominator) for t, w in counts.ways().items()}


def cost(request: Attack) -> int:
    """The run's steps and the two expressions' (``expressions.cost``), known before any."""
    return (
        machine(request).cost
        + expressions.cost(request.hurt.rolled)
        + expressions.cost(request.weapon.rolled)
    )


# -- in quick words ---------------------------------------------------------------------------

_ATTACK = {
    "damage": re.compile(r"(?:dmg|damage)=(\S+)", re.IGNORECASE),
    "damage_bonus": re.compile(r"db=(\S+)", re.IGNORECASE),
    "defender": re.compile(r"vs=?(\d+)", re.IGNORECASE),
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
    "(dodge unless said); @DICE (the attacker's, then the defender's); then a label"
)


def read_attack(words: Sequence[str], bonus: str | None = None) -> tuple[Attack, str | None] | None:
    """``SKILL dmg=EXPR [WORDS...] [LABEL]``: an attack with its damage (S7-6, C7-7); DB is
    ``bonus`` (a sheet's) where the words name DB and give no ``db=``."""
    found = fields_of(words, "damage", _ATTACK, ATTACK_WORDS, "an attack", _ATTACK_PLAIN)
    if found is None:
        return None
    fields, label = found
    if bonus is not None and "damage_bonus" not in fields and _names_bonus(fields["damage"]):
        fields["damage_bonus"] = bonus
    return Attack(**fields), label


def _names_bonus(expression: str) -> bool:
    try:
        return expressions.parse(expression).names_bonus
    except D100Error:
        return False  # the request refuses it, naming where


def attack_report(result: AttackResult, odds: Mapping[str, Any]) -> Report:
    r = result.request
    head = f"{TITLE} attack — skill {r.skill}"
    if r.difficulty != "regular":
        head += f", {r.difficulty}"
    if r.defender is not None:
        head += f", against {r.defender} ({r.response.replace('_', ' ')})"
    head += f"; damage {r.damage}" + (f" with DB {r.damage_bonus}" if r.damage_bonus else "")
    head += ", impaling" if r.impaling else ""
    net = r.nets[0]
    rolled = f"{rolls(result.dice)} → {show_roll(result.roll)} {result.level.upper()}"
    rows = [Row("attack", f"{pool_words(net)}: {rolled}", result.level)]
    if result.defence is not None:
        values, kept, lvl = result.defence
        rows.append(Row("defence", f"{rolls(values)} → {show_roll(kept)} {lvl.upper()}", lvl))
    did = {"miss": "miss", "hit": "hit", "extreme": "extreme damage"}[result.outcome]
    if result.outcome == "extreme" and r.impaling:
        did += " and an impale"
    rows.append(Row("outcome", did))
    shown = f"{result.damage}" + (
        f" ({rolls_plain(result.damage_dice)})" if result.damage_dice else ""
    )
    rows.append(Row("damage", f"{shown}; mean {_mean(odds['mean_damage'])} (S7-6)"))
    outcomes = {k: Fraction(p) for k, p in odds["outcomes"].items()}
    chances = [("a hit", Fraction(odds["hit"]))]
    if outcomes["extreme"]:
        chances.append(("extreme damage", outcomes["extreme"]))
    if result.outcome != "miss":
        spread = {int(t): Fraction(p) for t, p in odds["damage"].items()}
        more = sum((p for t, p in spread.items() if t >= result.damage), Fraction(0))
        chances.append((f"{result.damage} or more damage", more))
    said = did + dealt(result.damage)
    return Report(NAME, head, tuple(rows), tuple(chances), outcome=said)


def _mean(text: str) -> str:
    value = Fraction(text)
    return str(value) if value.denominator == 1 else f"{float(value):.2f}"


ATTACK = Action(
    "attack",
    "SKILL dmg=EXPR [db=EXPR] [impale] [hard|extreme] [bN|pN] [vsN [dodge|fight|maneuver]]",
    "a skill roll or melee attack that rolls its damage when it hits (S7-6): extreme "
    "damage on an extreme success, an impale for an impaling weapon; " + ATTACK_WORDS,
    read_attack,
    lambda data: built(Attack, data),
    cost,
    roll,
    lambda r: odds(r).to_dict(),
    attack_report,
    f"{TITLE} attack",
)


__all__ = ["ATTACK", "Attack", "AttackOdds", "AttackResult", "cost", "odds", "read_attack", "roll"]
