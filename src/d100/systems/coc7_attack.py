"""Call of Cthulhu 7th edition's attack with its damage (S7-6): a skill roll, or a melee attack
against a defender's response (C7-7), that rolls the weapon's damage when the attacker wins:
W + DB on a hit; on an extreme success or better the most W + DB comes to, and for an impaling
weapon the weapon again, without DB, on top. Rolled and counted by one run (``coc7_firing``):
the exact chance of a hit, of an extreme one and of every damage dealt, a miss dealing none.
Luck may be spent on the attacker's roll once made (C7-4, decision 7): the request gives the
roll's dice, the Luck held and the level bought (``luck``, ``luck_to``), and the attack does
what that level does, its new damage drawn from the random source; a weapon roll is never
pushed (C7-5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import expressions, tallies
from ..dice import RandomSource, show_roll
from ..errors import D100Error, RuleRefusal, TooMuchWork
from ..expressions import DamageBonus, DiceRequest, Expression
from ..fields import BIG
from .coc7_check import MAX_EXTRA_DICE, NAME
from .coc7_firing import Run, fraction_text, mean, within
from .coc7_rules import (
    BUYABLE,
    DIFFICULTIES,
    RANK,
    RESPONSES,
    contest_winner,
    fumble_from,
    ladder,
    level,
    luck_offers,
)
from .coc7_rules import succeeds as reaches
from .common import rolls

OUTCOMES = ("miss", "hit", "extreme")  # what an attack does: nothing, W + DB, extreme damage
FOUGHT_BACK = "fought_back"  # the defender fought back and won: their damage to the attacker


@dataclass(frozen=True)
class Attack:
    """An attack: the skill, the weapon's damage (``1d8+DB``, ``1d6+half(DB)``) and what DB
    stands for, whether the weapon impales, the difficulty (none against a defender), the
    attacker's bonus or penalty dice, the defender's skill and response (a melee attack,
    C7-7) where there is one with the defender's damage (W + DB, and what their DB stands for)
    dealt when fighting back wins, and dice rolled by hand (the attacker's, then the
    defender's); with those dice, the Luck held after the roll and the level it buys the
    attacker's roll up to (C7-4)."""

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
    defender_damage: str | None = None
    defender_damage_bonus: str | None = None
    luck: int | None = None
    luck_to: str | None = None

    def __post_init__(self) -> None:
        within("skill", self.skill, 0, BIG)
        self.hurt  # noqa: B018 (checked when built: the damage and its DB)
        if self.defender_damage is not None:
            if self.defender is None or self.response != "fight_back":
                raise D100Error(
                    "defender_damage",
                    self.defender_damage,
                    "a defender's damage only against a defender who fights back (C7-7)",
                )
            self.hurt_back  # noqa: B018 (checked when built)
        elif self.defender_damage_bonus is not None:
            raise D100Error(
                "defender_damage_bonus",
                self.defender_damage_bonus,
                "only with the defender's damage (defender_damage)",
            )
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
        self._check_luck()

    def _check_luck(self) -> None:
        """Luck is spent on a roll made (C7-4): the Luck held and the level bought together,
        with the roll's dice."""
        if self.luck is None and self.luck_to is None:
            return
        if self.luck is None or self.luck_to is None:
            missing = "luck" if self.luck is None else "luck_to"
            raise D100Error(
                missing,
                None,
                "luck and luck_to together: the Luck held and the level it buys (C7-4)",
                "one without the other",
            )
        within("luck", self.luck, 0, BIG)
        if self.luck_to not in BUYABLE:
            raise D100Error("luck_to", self.luck_to, ", ".join(BUYABLE))
        if self.dice is None:
            raise D100Error(
                "dice", None, "the roll's dice: Luck is spent on a roll made (C7-4)", "none given"
            )

    @property
    def hurt(self) -> DiceRequest:
        """W + DB, with what DB stands for filled in."""
        try:
            return DiceRequest(self.damage, self.damage_bonus)
        except D100Error as err:
            raise err if err.field == "damage_bonus" else err.at("damage") from None

    @property
    def hurt_back(self) -> DiceRequest | None:
        """The defender's W + DB when fighting back wins, with their DB filled in."""
        if self.defender_damage is None:
            return None
        try:
            return DiceRequest(self.defender_damage, self.defender_damage_bonus)
        except D100Error as err:
            field = "defender_damage_bonus" if err.field == "damage_bonus" else "defender_damage"
            raise err.at(field) from None

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
        for name in ("defender_damage", "defender_damage_bonus", "luck", "luck_to"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out


# A state: (rolls made, the attacker's level, the defender's, the outcome once decided, else "")
State = tuple[int, str, str, str]


def outcome(request: Attack, attacker: str, defender: str | None) -> str:
    """S7-6 and C7-7: a miss unless the attacker wins (reaches the difficulty, or beats the
    response); extreme damage at the attacker's own extreme success or better; the defender's
    damage where they fight back and win, the attack carrying it (only the winning attacker's
    damage can be extreme, S7-6)."""
    if defender is None:
        won = reaches(attacker, request.difficulty)
    else:
        winner = contest_winner(attacker, defender, request.response)
        if winner == "opponent" and request.defender_damage is not None:
            return FOUGHT_BACK
        won = winner == "actor"
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


def bought(request: Attack, kept: int, end: State) -> tuple[str, int, str]:
    """C7-4 on the attacker's roll made (``kept``, the run ending at ``end``): the level
    Luck buys it up to, the Luck that costs and what the attack then does. Refused where
    C7-4 offers no such level (a fumble, a level below the difficulty or at the roll's own,
    Luck held not greater than the cost) or where it changes nothing the attack does."""
    fumbles = fumble_from(request.skill, request.difficulty)
    lvl = str(request.luck_to)
    offers = luck_offers(kept, ladder(request.skill, fumbles), request.difficulty, request.luck)
    if lvl not in offers:
        offered = ", ".join(offers) or "none"
        raise RuleRefusal(
            "luck_to",
            lvl,
            f"a level Luck buys this roll ({kept}) up to: {offered} (C7-4)",
            "not offered for this roll",
        )
    now = outcome(request, lvl, end[2] or None)
    if now == end[3]:
        raise RuleRefusal(
            "luck_to", lvl, "a level that changes what the attack does", f"it stays {now}"
        )
    return lvl, offers[lvl], now


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
    # the defender's damage to the attacker and its dice, where the attack carries it
    defender_damage: int | None = None
    defender_damage_dice: tuple[int, ...] = ()
    luck_spent: int = 0  # on the attacker's roll, after it (C7-4): ``level`` is what it bought

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": NAME,
            "attack": self.request.to_dict(),
            "dice": list(self.dice),
            "roll": self.roll,
            "level": self.level,
        }
        if self.luck_spent:
            out["luck_spent"] = self.luck_spent
        if self.defence is not None:
            values, kept, lvl = self.defence
            out["defender"] = {"dice": list(values), "roll": kept, "level": lvl}
        out |= {
            "outcome": self.outcome,
            "damage": self.damage,
            "damage_dice": list(self.damage_dice),
        }
        if self.defender_damage is not None:
            out |= {
                "defender_damage": self.defender_damage,
                "defender_damage_dice": list(self.defender_damage_dice),
            }
        return out | {"explanation": self.explanation}

    def kept(self) -> dict[str, Any]:
        """What a viewer who may not read the defender's sheet is shown of the result: the
        attacker's dice, level and damage, the defender's level, the outcome and the damage the
        defender dealt; not the request (their skill, their DB) nor their dice."""
        out = {k: v for k, v in self.to_dict().items() if k not in ("attack", "explanation")}
        if self.defence is not None:
            out["defender"] = {"level": self.defence[2]}
        out.pop("defender_damage_dice", None)
        return out


def roll(request: Attack, rng: RandomSource | None = None) -> AttackResult:
    """The attack, then its damage where it hits: the request's dice first, else the random
    source's; with Luck spent on it (``luck_to``), the damage of what it buys."""
    end, rolled = machine(request).fire(request.nets, request.dice, rng)
    (_, values, kept), *defended = rolled
    defence = None
    if defended:
        defence = (defended[0][1], defended[0][2], end[2])
    lvl, did, spent = end[1], end[3], 0
    if request.luck_to is not None:
        lvl, spent, did = bought(request, kept, end)
    hurt = request.hurt
    total, how = 0, "no damage"
    dice: tuple[int, ...] = ()
    if did == "hit":
        hit = expressions.roll(hurt, rng)
        total, dice, how = hit.total, hit.dice, f"damage {hit.explanation}"
    elif did == "extreme":
        total, how = hurt.rolled.high, f"the most {hurt.expression} comes to, {hurt.rolled.high}"
        if request.impaling:
            impale = expressions.roll(request.weapon, rng)
            total, dice = total + impale.total, impale.dice
            how += f", and the impale {impale.explanation}"
    back: int | None = None if request.defender_damage is None else 0
    back_dice: tuple[int, ...] = ()
    if did == FOUGHT_BACK and request.hurt_back is not None:
        struck = expressions.roll(request.hurt_back, rng)
        back, back_dice = struck.total, struck.dice
        how += f"; the defender's damage {struck.explanation}"
    said = f"{rolls(values)} -> {show_roll(kept)} {end[1]}"
    if spent:
        said += f", {spent} Luck lowers it to {show_roll(kept - spent)} {lvl}"
    if defence is not None:
        said += f" against {rolls(defence[0])} -> {show_roll(defence[1])} {defence[2]}"
    why = f"{said}: {did}, {how}"
    return AttackResult(
        request, values, kept, lvl, defence, did, total, dice, why, back, back_dice, spent
    )


@dataclass(frozen=True)
class AttackOdds:
    """The exact chance of each outcome and of every damage dealt (a miss: none), and of every
    damage the defender deals fighting back, where the attack carries it."""

    request: Attack
    outcomes: Mapping[str, Fraction]
    damage: Mapping[int, Fraction]
    defender_damage: Mapping[int, Fraction] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "outcomes": {k: fraction_text(p) for k, p in self.outcomes.items()},
            "hit": fraction_text(self.outcomes["hit"] + self.outcomes["extreme"]),
            "damage": {str(t): fraction_text(p) for t, p in self.damage.items()},
            "mean_damage": fraction_text(mean(self.damage)),
        }
        if self.defender_damage is not None:
            out |= {
                "defender_damage": {
                    str(t): fraction_text(p) for t, p in self.defender_damage.items()
                },
                "mean_defender_damage": fraction_text(mean(self.defender_damage)),
            }
        return out


def odds(request: Attack) -> AttackOdds:
    """S7-6's mixture over the outcome: a miss deals 0, a hit W + DB, an extreme hit the most
    W + DB comes to, plus W again for an impaling weapon; the defender's W + DB on their win
    fighting back (C7-7), else none. With Luck spent on a roll made (``luck_to``) the outcome
    is the one it buys, and only the damage is left to chance. Refused before any work
    (``TooMuchWork``, naming ``damage``) where the run and the expressions together are over
    the engine's budget, though each alone is under it."""
    dear = cost(request)
    if dear > tallies.BUDGET:
        raise TooMuchWork("damage", dear, tallies.BUDGET)
    named = OUTCOMES + ((FOUGHT_BACK,) if request.defender_damage is not None else ())
    chances = dict.fromkeys(named, Fraction(0))
    if request.luck_to is not None:
        end, rolled = machine(request).fire(request.nets, request.dice, None)
        chances[bought(request, rolled[0][2], end)[2]] = Fraction(1)
    else:
        for end, p in machine(request).distribution().items():
            chances[end[3]] += p
    hurt = request.hurt
    most = hurt.rolled.high
    # a spread is counted only where its outcome may happen (Luck bought leaves one outcome)
    parts = [({0: Fraction(1)}, 1 - chances["hit"] - chances["extreme"])]
    if chances["hit"]:
        parts.append((_spread(hurt, 0), chances["hit"]))
    if chances["extreme"]:
        extreme = _spread(request.weapon, most) if request.impaling else {most: Fraction(1)}
        parts.append((extreme, chances["extreme"]))
    back = None
    if request.hurt_back is not None:
        won = chances[FOUGHT_BACK]
        spread = _spread(request.hurt_back, 0) if won else {}
        back = _mixed([({0: Fraction(1)}, 1 - won), (spread, won)])
    return AttackOdds(request, chances, _mixed(parts), back)


def _mixed(parts: Sequence[tuple[Mapping[int, Fraction], Fraction]]) -> dict[int, Fraction]:
    """Each spread weighed by its chance, summed by total (the totals with some chance)."""
    out: dict[int, Fraction] = {}
    for spread, p in parts:
        for total, q in spread.items():
            out[total] = out.get(total, Fraction(0)) + p * q
    return {t: p for t, p in sorted(out.items()) if p}


def _spread(dice: DiceRequest, plus: int) -> dict[int, Fraction]:
    counts = expressions.distribution(dice.rolled)
    return {t + plus: Fraction(w, counts.denominator) for t, w in counts.ways().items()}


def cost(request: Attack) -> int:
    """The run's steps and the expressions' (``expressions.cost``), known before any."""
    back = request.hurt_back
    return (
        machine(request).cost
        + expressions.cost(request.hurt.rolled)
        + expressions.cost(request.weapon.rolled)
        + (0 if back is None else expressions.cost(back.rolled))
    )


__all__ = [
    "FOUGHT_BACK",
    "Attack",
    "AttackOdds",
    "AttackResult",
    "bought",
    "cost",
    "odds",
    "roll",
]
