"""Luck spent outside a check, and wounds, as a system's investigator declares them
(``investigators.Spend``, ``investigators.Wounds``): Pulp Cthulhu's in ``coc7`` under the sheet
option that allows them. The dice a spend heals by are drawn through ``machine.Dice`` (seeded or
given by hand) by one machine that also gives the exact odds of the hit points after it, so the
chance shown is the chance of the code that rolls. Pure: no I/O; ``from_character`` and
``apply`` read a sheet's character and write the result back onto it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from .development import Pool
from .dice import RandomSource
from .errors import BadInput, DiceError, RuleRefusal
from .investigators import MOST_USED, Investigator, Spend, Wound
from .luck import Luck
from .machine import Dice as Draws
from .machine import Given, Need, distribution
from .sheets import Character
from .systems import REGISTRY

STREAM = "dice"  # the request field dice rolled by hand come in
MOST = 10_000  # Luck, hit points or damage a request may give


def _number(where: str, value: object, least: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not least <= value <= MOST:
        raise BadInput(where, value, f"an integer {least}..{MOST}")
    return value


def _investigator(system: str) -> Investigator:
    rules = REGISTRY.get(system).declares.investigator
    if rules is None:
        having = [s.name for s in REGISTRY if s.declares.investigator is not None]
        raise BadInput("system", system, "a system with investigators: " + ", ".join(having))
    return rules


class HealRoll:
    """A spend's healing as a machine: the pool's dice in order; the hit points after are
    ``hp`` plus their sum and constant, never above ``most``."""

    def __init__(self, pool: Pool, hp: int, most: int) -> None:
        self.pool, self.hp, self.most = pool, hp, most

    def start(self) -> tuple[int, ...]:
        return ()

    def need(self, s: tuple[int, ...]) -> Need | None:
        return Need(STREAM, 1, self.pool.dice[len(s)][0]) if len(s) < len(self.pool.dice) else None

    def advance(self, s: tuple[int, ...], value: int) -> tuple[int, ...]:
        return (*s, value)

    def after(self, s: tuple[int, ...]) -> int:
        signs = (sign for _, sign in self.pool.dice)
        healed = sum(v * sign for v, sign in zip(s, signs, strict=True)) + self.pool.constant
        return max(self.hp, min(self.most, self.hp + healed))


@dataclass(frozen=True)
class SpendRequest:
    """A Luck spend: the system and its word (``Spend.name``), the Luck held, the sheet's
    options, the uses since its cost was reset (a doubling spend), the hit points now and
    at most (a spend that heals needs them), dice rolled by hand. Checked when built."""

    system: str
    spend: str
    luck: int
    options: frozenset[str] = frozenset()
    used: int = 0
    hp: int | None = None
    hp_most: int | None = None
    dice: tuple[int, ...] | None = None
    rule: Spend = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rules = _investigator(self.system)
        if not rules.spends:
            raise RuleRefusal("spend", self.spend, "a system with Luck spends", "none declared")
        allowed = rules.spends_under(self.options)
        if not allowed:
            wanted = " or ".join(f'rules = ["{o}"]' for o in rules.spends)
            raise RuleRefusal(
                "rules",
                sorted(self.options),
                f"{wanted} on the sheet, to spend Luck this way",
                "no Luck spends under these rules",
            )
        chosen = next((s for s in allowed if s.name == self.spend), None)
        if chosen is None:
            raise BadInput("spend", self.spend, "one of: " + ", ".join(s.name for s in allowed))
        object.__setattr__(self, "rule", chosen)
        _number("luck", self.luck)
        if not isinstance(self.used, int) or isinstance(self.used, bool):
            raise BadInput("used", self.used, f"an integer 0..{MOST_USED}")
        if not 0 <= self.used <= MOST_USED:
            raise BadInput("used", self.used, f"an integer 0..{MOST_USED}")
        if self.used and not chosen.counted:
            raise BadInput("used", self.used, "0: only a doubling spend counts its uses")
        least = chosen.least(self.used)
        if self.luck < least:
            raise RuleRefusal(
                "luck",
                self.luck,
                f"at least {least} Luck for {chosen.name} ({chosen.rule_id})",
                f"only {self.luck} Luck",
            )
        if chosen.heal is not None:
            hp_name = rules.hp or "hp"
            if self.hp_most is None:
                raise BadInput(hp_name, None, f"a {hp_name} on the sheet to heal", "unknown")
            _number(f"{hp_name} max", self.hp_most)
            if self.hp is None:
                raise BadInput(hp_name, None, f"a {hp_name} on the sheet to heal", "unknown")
            _number(hp_name, self.hp)
            if self.hp > self.hp_most:
                raise BadInput(hp_name, self.hp, f"at most {hp_name} max, {self.hp_most}")
        if self.dice is not None:
            for v in self.dice:
                if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                    raise BadInput(STREAM, list(self.dice), "die values, each 1..its faces")

    @property
    def cost(self) -> int:
        return self.rule.cost(self.luck, self.used)

    def heal_roll(self) -> HealRoll | None:
        if self.rule.heal is None:
            return None
        assert self.hp is not None and self.hp_most is not None
        return HealRoll(Pool.of(self.rule.heal), self.hp, self.hp_most)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"system": self.system, "spend": self.spend, "luck": self.luck}
        if self.options:
            out["options"] = sorted(self.options)
        if self.rule.counted:
            out["used"] = self.used
        if self.hp is not None:
            out["hp"], out["hp_most"] = self.hp, self.hp_most
        if self.dice is not None:
            out[STREAM] = list(self.dice)
        return out


def _text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def odds(request: SpendRequest) -> dict[int, Fraction]:
    """The exact chance of each hit point total after the spend (one total where it heals
    none), from the machine that rolls it."""
    m = request.heal_roll()
    if m is None:
        return {} if request.hp is None else {request.hp: Fraction(1)}
    out: dict[int, Fraction] = {}
    for s, p in distribution(m).items():
        out[m.after(s)] = out.get(m.after(s), Fraction(0)) + p
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class SpendResult:
    """A spend as made: the Luck spent and left, the hit points before and after (None where
    it heals none and none were given), every die drawn, what it cancels, and the next cost of
    a doubling spend."""

    request: SpendRequest
    cost: int
    luck_after: int
    hp_after: int | None
    dice: tuple[int, ...]
    cancels: str | None
    next_cost: int | None

    def to_dict(self) -> dict[str, Any]:
        r = self.request
        out: dict[str, Any] = {
            "request": r.to_dict(),
            "rule": r.rule.rule_id,
            "title": r.rule.title,
            "cost": self.cost,
            "luck_before": r.luck,
            "luck_after": self.luck_after,
        }
        if r.hp is not None:
            out["hp_before"], out["hp_after"] = r.hp, self.hp_after
        if r.rule.heal is not None:
            out["heal"] = r.rule.heal
            out["dice"] = list(self.dice)
            out["odds"] = {str(k): _text(p) for k, p in odds(r).items()}
        if self.cancels is not None:
            out["cancels"] = self.cancels
        if self.next_cost is not None:
            out["next_cost"] = self.next_cost
        return out


def spend(request: SpendRequest, rng: RandomSource | None = None) -> SpendResult:
    """Make the spend: dice from the request's ``dice`` where given, else from ``rng``."""
    rule, cost = request.rule, request.cost
    hp, dice = request.hp, list[int]()
    m = request.heal_roll()
    if m is not None:
        draws = Draws(rng, {STREAM: Given(request.dice)} if request.dice is not None else {})
        state = m.start()
        while (need := m.need(state)) is not None:
            value = draws.draw(need)
            if not need.low <= value <= need.high:
                raise DiceError(
                    STREAM,
                    list(request.dice or ()),
                    f"die {len(dice) + 1} is 1..{need.high}",
                    f"{value} for a die of 1..{need.high}",
                )
            dice.append(value)
            state = m.advance(state, value)
        draws.finish()
        hp = m.after(state)
    elif request.dice is not None:
        raise DiceError(STREAM, list(request.dice), "no dice: this spend rolls none", "dice given")
    following = rule.cost(request.luck, request.used + 1) if rule.counted else None
    return SpendResult(request, cost, request.luck - cost, hp, tuple(dice), rule.cancels, following)


# -- advice --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpendAdvice:
    """Whether one spend pays, now: its cost, whether the Luck held buys it (and why not),
    the exact chance of each hit point gained (healing held to the most) with the mean and
    the mean a Luck point buys, and what else it buys, in words. A spend that heals pays
    only where it may heal at all; one that buys something else pays where it is bought."""

    spend: Spend
    cost: int | None  # None: not affordable now
    refused: str | None
    gained: dict[int, Fraction]
    buys: str | None

    @property
    def mean(self) -> Fraction | None:
        if not self.gained:
            return None
        return sum((g * p for g, p in self.gained.items()), Fraction(0))

    @property
    def per_luck(self) -> Fraction | None:
        mean = self.mean
        return None if mean is None or not self.cost else mean / self.cost

    @property
    def pays(self) -> bool:
        if self.cost is None:
            return False
        if self.spend.heal is not None:
            return any(g > 0 for g in self.gained)
        return self.buys is not None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "spend": self.spend.name,
            "rule": self.spend.rule_id,
            "cost": self.cost,
            "pays": self.pays,
        }
        if self.refused is not None:
            out["refused"] = self.refused
        if self.gained:
            out["gained"] = {str(g): _text(p) for g, p in self.gained.items()}
            out["mean"] = _text(self.mean or Fraction(0))
            if self.per_luck is not None:
                out["per_luck"] = _text(self.per_luck)
        if self.buys is not None:
            out["buys"] = self.buys
        return out


def advise(c: Character, used: int | None = None) -> tuple[SpendAdvice, ...]:
    """Every spend the character's sheet allows, in the order declared, with the exact odds of
    what it heals against what it costs now (``odds``: the machine that rolls it), so a
    player sees which pays: a healing spend at full hit points heals nothing."""
    rules = _investigator(c.system)
    out = []
    for rule in rules.spends_under(frozenset(c.rules)):
        try:
            asked = spend_of(c, rule.name, used if rule.counted else None)
        except RuleRefusal as err:
            out.append(SpendAdvice(rule, None, f"{err.reason}; {err.allowed}", {}, None))
            continue
        gained: dict[int, Fraction] = {}
        if rule.heal is not None:
            assert asked.hp is not None
            for hp, p in odds(asked).items():
                gained[hp - asked.hp] = gained.get(hp - asked.hp, Fraction(0)) + p
        buys = None if rule.heal is not None else (rule.cancels or rule.title)
        out.append(SpendAdvice(rule, asked.cost, None, gained, buys))
    return tuple(out)


# -- wounds --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WoundRequest:
    """One hit: the damage, the hit points now and at most, the sheet's options."""

    system: str
    damage: int
    hp: int
    hp_most: int
    options: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        rules = _investigator(self.system)
        if rules.wounds is None:
            raise RuleRefusal("system", self.system, "a system with wounds", "none declared")
        _number("damage", self.damage)
        _number("hp max", self.hp_most, 1)
        _number("hp", self.hp)
        if self.hp > self.hp_most:
            raise BadInput("hp", self.hp, f"at most hp max, {self.hp_most}")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "system": self.system,
            "damage": self.damage,
            "hp": self.hp,
            "hp_most": self.hp_most,
        }
        if self.options:
            out["options"] = sorted(self.options)
        return out


@dataclass(frozen=True)
class WoundResult:
    request: WoundRequest
    wound: Wound
    heals_a_day: int

    def to_dict(self) -> dict[str, Any]:
        w = self.wound
        return {
            "request": self.request.to_dict(),
            "rule": w.rule_id,
            "hp_before": self.request.hp,
            "hp_after": w.hp_after,
            "state": w.state,
            "calls_for": w.calls_for,
            "marks": list(w.marks),
            "heals_a_day": self.heals_a_day,
        }


def wound(request: WoundRequest) -> WoundResult:
    rules = _investigator(request.system).wounds
    assert rules is not None
    r = request
    return WoundResult(r, rules.take(r.damage, r.hp, r.hp_most, r.options), rules.heals(r.options))


# -- a sheet's -----------------------------------------------------------------------------------


def hit_points(c: Character) -> tuple[str, int | None, int | None]:
    """The derived value holding hit points, those now (the sheet's, else the most) and the
    most (the rule's, from the characteristics)."""
    rules = _investigator(c.system)
    if rules.hp is None:
        return "hp", None, None
    made = rules.derive(replace(c.profile, derived={})).get(rules.hp)
    most = made if isinstance(made, int) else None
    now = c.derived.get(rules.hp, most)
    return rules.hp, (now if isinstance(now, int) else None), most


def _hp_known(c: Character, name: str, most: int | None, now: int | None) -> tuple[int, int]:
    if most is None:
        raise BadInput(
            f"{c.name}.characteristics",
            None,
            f"the characteristics {name} max is made from",
            f"{c.name}'s {name} max is unknown",
        )
    if now is None:
        raise BadInput(f"{c.name}.derived.{name}", None, f"{name} now", "unknown")
    return now, most


def spend_of(
    c: Character, word: str, used: int | None = None, dice: tuple[int, ...] | None = None
) -> SpendRequest:
    """A spend of the character's Luck, with hit points where the spend heals; a doubling
    spend's uses since its reset are the sheet's (``luck_uses``, P-3) unless ``used`` says."""
    if c.luck is None:
        raise BadInput("luck", None, f"a luck entry on {c.name}'s sheet", f"{c.name} has no Luck")
    name, now, most = hit_points(c)
    if used is None:
        used = c.luck_uses.get(word, 0)
    try:
        return SpendRequest(
            c.system, word, c.luck.current, frozenset(c.rules), used, now, most, dice
        )
    except BadInput as err:
        if err.field != name:
            raise
        _hp_known(c, name, most, now)
        raise


def wound_of(c: Character, damage: int) -> WoundRequest:
    name, now, most = hit_points(c)
    now, most = _hp_known(c, name, most, now)
    return WoundRequest(c.system, damage, now, most, frozenset(c.rules))


def _with_hp(c: Character, hp: int | None) -> Character:
    name, now, _ = hit_points(c)
    if hp is None or hp == now:
        return c
    return replace(c, derived={**c.derived, name: hp})


def apply_spend(c: Character, result: SpendResult) -> Character:
    """The character after the spend: Luck spent, hit points healed, one more use of a
    doubling spend counted on the sheet (P-3: its cost doubles until the Keeper resets it)."""
    assert c.luck is not None
    c = replace(c, luck=Luck(result.luck_after, c.luck.maximum))
    r = result.request
    if r.rule.counted:
        c = replace(c, luck_uses={**c.luck_uses, r.spend: min(r.used + 1, MOST_USED)})
    return _with_hp(c, result.hp_after) if result.request.rule.heal is not None else c


def apply_wound(c: Character, result: WoundResult) -> Character:
    return _with_hp(c, result.wound.hp_after)
