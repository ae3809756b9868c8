"""The development phase between sessions, as a system declares it (``investigators.
Development``): each skill marked for improvement makes its own improvement roll, and Luck may
recover by a roll of its own. One machine per roll (``machine``) both rolls it, through
``machine.Dice`` like every other die, and gives its exact odds before it is made, so the
chance shown beside a roll is the chance of the code that rolls it.

A request names the marked skills with their values, the Luck to recover (optional), and the
value a skill's mastery rewards (CoC7's SAN, S7-8) with its cap; ``from_character`` builds one
from a sheet and ``apply`` writes a result back onto the character."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from . import tallies
from .declarations import DEVELOP_WORDS
from .dice import RandomSource
from .errors import BadInput, DiceError, TooMuchWork
from .expressions.grammar import Dice, parse
from .investigators import Development, Recovery
from .luck import Luck
from .machine import Dice as Draws
from .machine import Given, Need, distribution
from .sheets import Character
from .systems import REGISTRY

STREAM = "dice"  # the request field dice rolled by hand come in, and the stream drawn for
FIELDS = (
    "system",
    "skills",
    "luck",
    "reward_value",
    "reward_most",
    "house_rules",
    "options",
    STREAM,
    "bonus",
)
WORDS = DEVELOP_WORDS  # the words asking for a character's phase at a table
MAX_ROLLS = 200  # rolls in one phase: a party's marks are a few dozen
MOST_VALUE = 10_000  # a skill or Luck a roll is made against


@dataclass(frozen=True, slots=True)
class Pool:
    """A declared dice expression as its dice, drawn in the order written (sides, sign), and
    the constant added."""

    dice: tuple[tuple[int, int], ...]
    constant: int

    @classmethod
    def of(cls, text: str) -> Pool:
        dice: list[tuple[int, int]] = []
        constant = 0
        for t in parse(text).rolled():
            if isinstance(t, Dice):
                assert t.keep is None, "a development gain adds every die"
                dice += [(t.sides, t.sign)] * t.count
            else:
                constant += t.value
        return cls(tuple(dice), constant)

    def totals(self) -> int:
        """How many totals it can come to."""
        return sum(sides - 1 for sides, _ in self.dice) + 1

    def cost(self) -> int:
        """The states an enumeration visits drawing it: each die times the totals so far."""
        width, out = 1, 0
        for sides, _ in self.dice:
            out += width * sides
            width += sides - 1
        return out


@dataclass(frozen=True, slots=True)
class Step:
    """Where a development roll stands: the d100 read (None: not rolled), the gain's dice
    drawn and their sum, and the mastery reward's."""

    improved: bool | None = None
    gain: int = 0
    gained: int = 0
    reward: int = 0
    rewarded: int = 0


class ImprovementRoll:
    """One development roll as a machine: a plain d100 (``succeeds(roll)``), then the dice of
    ``gain`` (or ``otherwise`` on a failure), then, where the gain takes the value from below
    ``mastery`` to it or above, the dice of ``reward``."""

    def __init__(
        self,
        value: int,
        succeeds: Callable[[int], bool],
        gain: Pool,
        otherwise: Pool | None = None,
        mastery: int | None = None,
        reward: Pool | None = None,
        most: int | None = None,
    ) -> None:
        self.value = value
        self.succeeds = succeeds
        self.gain_pool = gain
        self.otherwise = otherwise
        self.mastery = mastery
        self.reward_pool = reward
        self.most = most

    def pool(self, s: Step) -> Pool | None:
        return self.gain_pool if s.improved else self.otherwise

    def gain(self, s: Step) -> int:
        """What the value gains, within its cap."""
        pool = self.pool(s)
        raw = 0 if pool is None else s.gain + pool.constant
        return raw if self.most is None else max(0, min(self.most - self.value, raw))

    def masters(self, s: Step) -> bool:
        """Whether the gain takes the value from below mastery to it (S7-8)."""
        m = self.mastery
        return bool(s.improved) and m is not None and self.value < m <= self.value + self.gain(s)

    def reward(self, s: Step) -> int:
        if self.reward_pool is None or not self.masters(s):
            return 0
        return s.reward + self.reward_pool.constant

    def start(self) -> Step:
        return Step()

    def need(self, s: Step) -> Need | None:
        if s.improved is None:
            return Need(STREAM, 1, 100)
        pool = self.pool(s)
        if pool is not None and s.gained < len(pool.dice):
            return Need(STREAM, 1, pool.dice[s.gained][0])
        reward = self.reward_pool
        if reward is not None and self.masters(s) and s.rewarded < len(reward.dice):
            return Need(STREAM, 1, reward.dice[s.rewarded][0])
        return None

    def advance(self, s: Step, value: int) -> Step:
        if s.improved is None:
            return replace(s, improved=self.succeeds(value))
        pool = self.pool(s)
        if pool is not None and s.gained < len(pool.dice):
            sign = pool.dice[s.gained][1]
            return replace(s, gain=s.gain + sign * value, gained=s.gained + 1)
        assert self.reward_pool is not None
        sign = self.reward_pool.dice[s.rewarded][1]
        return replace(s, reward=s.reward + sign * value, rewarded=s.rewarded + 1)

    def cost(self) -> int:
        """An upper bound of the states its enumeration visits."""
        pools = [p for p in (self.gain_pool, self.otherwise) if p is not None]
        out = 100 + sum(p.cost() for p in pools)
        if self.reward_pool is not None:
            out += self.gain_pool.totals() * self.reward_pool.cost()
        return out


# -- requests ------------------------------------------------------------------------------------


def _value(where: str, value: object) -> int:
    allowed = f"an integer 0..{MOST_VALUE}"
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MOST_VALUE:
        raise BadInput(where, value, allowed)
    return value


@dataclass(frozen=True)
class DevelopmentRequest:
    """A development phase: the marked skills with their values, in the order rolled; the
    Luck to recover, where the optional rule is played (None: not); the value mastery rewards
    now and its cap (CoC7's SAN and SAN max, S7-8); the house rules and sheet options it
    plays by; dice rolled by hand (every die, in order); the sheet's experience bonus, added
    to each skill's d100 where the rules have one (``Development.bonus``). Checked when
    built."""

    system: str
    skills: tuple[tuple[str, int], ...]
    luck: int | None = None
    reward_value: int | None = None
    reward_most: int | None = None
    house_rules: frozenset[str] = frozenset()
    options: frozenset[str] = frozenset()
    dice: tuple[int, ...] | None = None
    bonus: int = 0
    rules: Development = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        system = REGISTRY.get(self.system)
        rules = system.declares.development
        if rules is None:
            having = [s.name for s in REGISTRY if s.declares.development is not None]
            raise BadInput(
                "system", self.system, "a system with a development phase: " + ", ".join(having)
            )
        object.__setattr__(self, "rules", rules)
        rolls = len(self.skills) + (self.luck is not None)
        if rolls > MAX_ROLLS:
            raise BadInput("skills", f"{rolls} rolls", f"at most {MAX_ROLLS} rolls in one phase")
        names = [pair[0] if isinstance(pair, tuple) else pair for pair in self.skills]
        for pair, name in zip(self.skills, names, strict=True):
            if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(name, str)):
                raise BadInput("skills", pair, "(name, value) pairs")
            if names.count(name) > 1:
                raise BadInput("skills", name, "each skill once", "a skill given twice")
            _value(f"skills.{name}", pair[1])
        for key in ("reward_value", "reward_most"):
            if getattr(self, key) is not None:
                _value(key, getattr(self, key))
        if _value("bonus", self.bonus) and rules.bonus is None:
            raise BadInput("bonus", self.bonus, "0: the system's rules add no experience bonus")
        options = system.declares.investigator.options if system.declares.investigator else {}
        for option in self.options:
            if option not in options:
                raise BadInput("options", option, "one of: " + (", ".join(options) or "none"))
        if self.luck is not None:
            _value("luck", self.luck)
            if self.recovery is None:
                raise BadInput("luck", self.luck, "no Luck: the system has no Luck recovery")
        for rule in self.house_rules:
            if rule not in rules.house_rules:
                allowed = ", ".join(rules.house_rules) or "none"
                raise BadInput("house_rules", rule, f"one of: {allowed}", "unknown house rule")
        if self.reward_value is None and rules.mastery is not None:
            reachable = [n for n, v in self.skills if (m := self.roll_of(v)).masters(_best(m))]
            if reachable:
                raise BadInput(
                    rules.reward_to or "reward",
                    None,
                    f"a {rules.reward_to} on the sheet, which {reachable[0]} may gain",
                    f"no {rules.reward_to} to add to",
                )
        if self.dice is not None:
            for v in self.dice:
                if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                    raise BadInput(STREAM, list(self.dice), "die values, each 1..its faces")
        cost = sum(m.cost() for _, m in self.machines())
        if cost > tallies.BUDGET:
            raise TooMuchWork("skills", cost, tallies.BUDGET)

    @property
    def rule(self) -> str:
        """The rule in words, with the experience bonus this phase adds where it adds one."""
        rules = self.rules
        return rules.rule if not self.bonus else f"{rules.rule}; {rules.bonus}: +{self.bonus}"

    @property
    def recovery(self) -> Recovery | None:
        return self.rules.recovery(self.options)

    def roll_of(self, value: int) -> ImprovementRoll:
        """A marked skill's improvement roll (S7-7, S7-8)."""
        r = self.rules
        reward = None if r.reward is None else Pool.of(r.reward)
        house, bonus = self.house_rules, self.bonus
        return ImprovementRoll(
            value,
            lambda roll: r.improves(roll + bonus, value, house),
            Pool.of(r.gain),
            None,
            r.mastery,
            reward,
        )

    def luck_roll(self, luck: int) -> ImprovementRoll:
        """Luck's recovery roll (S7-9; P-1 under pulp)."""
        rec = self.recovery
        assert rec is not None
        otherwise = None if rec.otherwise is None else Pool.of(rec.otherwise)
        return ImprovementRoll(
            luck, lambda roll: rec.recovers(roll, luck), Pool.of(rec.gain), otherwise, most=rec.most
        )

    def machines(self) -> list[tuple[str, ImprovementRoll]]:
        """Every roll of the phase, in order: the skills as marked, then Luck."""
        out = [(name, self.roll_of(value)) for name, value in self.skills]
        if self.luck is not None:
            named = REGISTRY.get(self.system).declares.investigator
            out.append((LUCK if named is None else named.luck, self.luck_roll(self.luck)))
        return out

    @classmethod
    def from_dict(cls, data: object) -> DevelopmentRequest:
        """The request ``to_dict`` describes (a logged one, recomputed by ``d100 verify``);
        unknown fields are an error."""
        if not isinstance(data, Mapping) or not isinstance(data.get("skills"), Mapping):
            raise BadInput("request", data, "a JSON object with system and skills {name: value}")
        for key in data:
            if key not in FIELDS:
                raise BadInput(str(key), data[key], "fields " + ", ".join(FIELDS), "unknown field")
        sets = [data.get(k, []) for k in ("house_rules", "options")]
        for key, given in zip(("house_rules", "options"), sets, strict=True):
            if not isinstance(given, list):
                raise BadInput(key, given, "a list of names")
        dice = data.get(STREAM)
        if dice is not None and not isinstance(dice, list):
            raise BadInput(STREAM, dice, "a list of die values")
        return cls(
            str(data.get("system")),
            tuple(data["skills"].items()),
            data.get("luck"),
            data.get("reward_value"),
            data.get("reward_most"),
            frozenset(sets[0]),
            frozenset(sets[1]),
            None if dice is None else tuple(dice),
            data.get("bonus", 0),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"system": self.system, "skills": dict(self.skills)}
        for key in ("luck", "reward_value", "reward_most"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.house_rules:
            out["house_rules"] = sorted(self.house_rules)
        if self.options:
            out["options"] = sorted(self.options)
        if self.dice is not None:
            out[STREAM] = list(self.dice)
        if self.bonus:
            out["bonus"] = self.bonus
        return out


LUCK = "Luck"  # Luck's roll's name where the system declares no investigator to name it


def _best(m: ImprovementRoll) -> Step:
    """The step of a roll that improves with every die at its highest: the most it may gain."""
    top = sum(s for s, sign in m.gain_pool.dice if sign > 0)
    return Step(True, top, len(m.gain_pool.dice))


# -- odds and results ------------------------------------------------------------------------


def _text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


@dataclass(frozen=True)
class RollOdds:
    """One development roll before it is made: the chance it improves, the mean gain (within
    a cap), and the chance and mean of the mastery reward."""

    name: str
    value: int
    improves: Fraction
    gain: Fraction
    rewards: Fraction
    reward: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "improves": _text(self.improves),
            "mean_gain": _text(self.gain),
            "rewards": _text(self.rewards),
            "mean_reward": _text(self.reward),
        }


def roll_odds(name: str, m: ImprovementRoll) -> RollOdds:
    """Exact, from every final state of the roll's own machine."""
    ends = distribution(m)
    return RollOdds(
        name,
        m.value,
        sum((p for s, p in ends.items() if s.improved), Fraction(0)),
        sum((p * m.gain(s) for s, p in ends.items()), Fraction(0)),
        sum((p for s, p in ends.items() if m.masters(s)), Fraction(0)),
        sum((p * m.reward(s) for s, p in ends.items()), Fraction(0)),
    )


def odds(request: DevelopmentRequest) -> tuple[RollOdds, ...]:
    """Every roll of the phase, before any is made."""
    return tuple(roll_odds(name, m) for name, m in request.machines())


@dataclass(frozen=True)
class RollResult:
    """One development roll as made: its d100, whether it improved, the gain, the value
    before and after, the mastery reward, and every die it drew."""

    name: str
    before: int
    roll: int
    improved: bool
    gain: int
    after: int
    reward: int
    dice: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "before": self.before,
            "roll": self.roll,
            "improved": self.improved,
            "gain": self.gain,
            "after": self.after,
            "reward": self.reward,
            "dice": list(self.dice),
        }


@dataclass(frozen=True)
class DevelopmentResult:
    """A phase as rolled: each marked skill's roll, Luck's where it recovered, and the
    rewarded value before and after (within its cap)."""

    request: DevelopmentRequest
    skills: tuple[RollResult, ...]
    luck: RollResult | None
    reward_before: int | None
    reward_after: int | None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "request": self.request.to_dict(),
            "skills": [r.to_dict() for r in self.skills],
            "luck": None if self.luck is None else self.luck.to_dict(),
        }
        if self.reward_before is not None:
            out["reward"] = {
                "name": self.request.rules.reward_to,
                "before": self.reward_before,
                "after": self.reward_after,
            }
        return out


def develop(request: DevelopmentRequest, rng: RandomSource | None = None) -> DevelopmentResult:
    """Roll the phase: dice from the request's ``dice`` where given, else from ``rng``."""
    given = {STREAM: Given(request.dice)} if request.dice is not None else {}
    draws = Draws(rng, given)
    rolled = [roll_one(name, m, draws, request.dice) for name, m in request.machines()]
    draws.finish()
    luck = rolled.pop() if request.luck is not None else None
    before = request.reward_value
    after = None
    if before is not None:
        most, total = request.reward_most, before + sum(r.reward for r in rolled)
        after = total if most is None else max(before, min(most, total))  # S7-5's clamp
    return DevelopmentResult(request, tuple(rolled), luck, before, after)


def roll(
    request: DevelopmentRequest | Mapping[str, Any], rng: RandomSource | None = None
) -> DevelopmentResult:
    """``develop`` for a request or its ``to_dict`` (a table's logged roll, verified again)."""
    asked = (
        request
        if isinstance(request, DevelopmentRequest)
        else DevelopmentRequest.from_dict(request)
    )
    return develop(asked, rng)


def roll_one(
    name: str, m: ImprovementRoll, draws: Draws, given: tuple[int, ...] | None
) -> RollResult:
    """One roll of the machine, its dice drawn from ``draws`` (``given``: the dice given by
    hand, named where one is outside its faces)."""
    state, dice = m.start(), list[int]()
    while (need := m.need(state)) is not None:
        value = draws.draw(need)
        if not need.low <= value <= need.high:  # given by hand: held to its die
            raise DiceError(
                STREAM,
                list(given or ()),
                f"each die within its faces: {name}'s die {len(dice) + 1} is 1..{need.high}",
                f"{value} for a die of 1..{need.high}",
            )
        dice.append(value)
        state = m.advance(state, value)
    gain = m.gain(state)
    improved = bool(state.improved)
    return RollResult(
        name, m.value, dice[0], improved, gain, m.value + gain, m.reward(state), tuple(dice)
    )


# -- a sheet's phase -----------------------------------------------------------------------------


def from_character(
    c: Character,
    luck: bool = False,
    house_rules: frozenset[str] = frozenset(),
    dice: tuple[int, ...] | None = None,
) -> DevelopmentRequest:
    """The phase of a character's marks: each marked skill at its value (a base skill's where
    the sheet lists none), Luck where asked (and the sheet has it), and the value mastery
    rewards as the sheet or its rule gives it."""
    rules = REGISTRY.get(c.system).declares.development
    skills = tuple((name, c.rollable[name]) for name in (c.marked(m) for m in c.marks))
    if luck and c.luck is None:
        raise BadInput("luck", None, f"a luck entry on {c.name}'s sheet", f"{c.name} has no Luck")
    derived = c.derived_values
    reward = most = None
    if rules is not None and rules.reward_to in derived:
        reward = _number(derived[rules.reward_to][0])
    if rules is not None and rules.reward_cap in derived:
        most = _number(derived[rules.reward_cap][0])
    try:
        return DevelopmentRequest(
            c.system,
            skills,
            c.luck.current if luck and c.luck is not None else None,
            reward,
            most,
            house_rules,
            frozenset(c.rules),
            dice,
            c.experience_bonus or 0,
        )
    except BadInput as err:
        if rules is None or err.field != rules.reward_to:
            raise
        where = f"{c.name}.derived.{rules.reward_to}"  # where the sheet would give it
        raise BadInput(where, err.value, err.allowed, err.reason) from None


def _number(value: int | str) -> int:
    assert isinstance(value, int), "a rewarded value is a number"
    return value


def apply(c: Character, result: DevelopmentResult) -> Character:
    """The character after the phase: skills raised (a base skill written onto the sheet),
    every mark cleared, the reward added to its value, Luck recovered."""
    skills = dict(c.skills)
    for r in result.skills:
        if r.improved or r.name in skills:
            skills[r.name] = r.after
    derived: Mapping[str, int | str] = c.derived
    rules = result.request.rules
    if result.reward_after is not None and result.reward_after != result.reward_before:
        assert rules.reward_to is not None
        derived = {**c.derived, rules.reward_to: result.reward_after}
    luck = c.luck
    if result.luck is not None and luck is not None:
        now = result.luck.after
        luck = Luck(now, max(luck.maximum, now))
    return replace(c, skills=skills, marks=(), derived=dict(derived), luck=luck)
