"""Sanity rolls: d100 against the current Sanity, a loss ``A/B`` by the outcome, and the
insanity a loss brings (CoC7's S7-1..S7-5), with exact odds.

A system declares its numbers (``declarations.Sanity``: its levels, which levels lose the
failure loss at its maximum, the loss that calls for an INT roll, the day's limit, the highest
Sanity); this module reads them. One roll: the d100 (stream ``dice``), the loss's dice
(``loss_dice``, none where the loss is a maximum), then the INT roll where one is called for
(``int_dice``), all through ``machine.Dice`` in that order, so a seeded or provable source draws
them as it draws a check's; the d100 is the system's own machine (``Sanity.die``, with a pool
under a house rule). The odds weigh every kept roll of that machine through the same ``level``,
every total of the loss through the expressions' exact counts, and every INT roll;
what a loss brings (``outcome``) is the one function the roll and the odds both call."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from . import expressions
from .declarations import Sanity, SanityDie
from .dice import RandomSource
from .errors import BadInput, RuleRefusal
from .expressions import Expression
from .expressions.grammar import MAX_DICE, MAX_SIDES
from .expressions.rolls import rolled
from .fields import is_int
from .machine import Dice, Given, distribution, run
from .results import fraction_text, frozen, thawed
from .systems import REGISTRY

STREAMS = ("dice", "loss_dice", "int_dice")  # the given dice's fields, in the order drawn
FIELDS = (
    "system",
    "sanity",
    "loss",
    "intelligence",
    "mythos",
    "lost_today",
    "day_start",
    "insane",
    "source_lost",
    "halve",
    "pulp",
    "luck",
    "pulp_halve_san_cost_foundry",
    "pool",
    "sanity_pool",
    *STREAMS,
    "label",
)
MOST = 999  # a characteristic or a day's Sanity beyond this is a typing mistake
LOSS_ALLOWED = "A/B: the loss on a success, then on a failure, each a dice expression (1/1d6)"


def rules_of(system: object) -> Sanity:
    """The Sanity roll a system declares, or a refusal naming the systems that have one."""
    spec = REGISTRY.get(system, "system")
    if spec.declares.sanity is None:
        having = [s.name for s in REGISTRY if s.declares.sanity is not None]
        raise RuleRefusal(
            "system", spec.name, "a system with Sanity rolls: " + ", ".join(having), "no Sanity"
        )
    return spec.declares.sanity


def _number(name: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadInput(name, value, f"an integer {low}..{high}")
    return value


def _loss(text: object) -> tuple[Expression, Expression]:
    """``A/B`` read by the expressions' grammar; a loss that could come below 0 is refused."""
    if not isinstance(text, str) or text.count("/") != 1:
        raise BadInput("loss", text, LOSS_ALLOWED, None if isinstance(text, str) else "not text")
    read = []
    for part in text.split("/"):
        try:
            found = expressions.parse(part.strip(), "loss", bonus=False)
        except BadInput as err:  # said of the whole loss, with the part that breaks
            raise BadInput("loss", text, LOSS_ALLOWED, f"{part!r}: {err.reason}") from None
        if found.low < 0:
            raise BadInput("loss", text, LOSS_ALLOWED + " that never comes below 0", f"{found}")
        read.append(found)
    return read[0], read[1]


parse_loss = _loss  # a loss ``A/B`` as another Sanity roll reads it (SealDice's ``.sc``)


@dataclass(frozen=True)
class SanityRequest:
    """A Sanity roll: the system, the current Sanity, the loss ``A/B``; INT for the roll a big
    loss calls for (none: the roll is left to the table); the Cthulhu Mythos (the highest
    Sanity is the system's most less it); SAN lost earlier today and the day's first Sanity
    (by default the current one plus that loss); whether already indefinitely insane; the SAN
    already lost to this loss's source (the per-source cap, off when None) and ``halve`` (Mythos
    Hardened); ``pulp`` with the ``luck`` to spend halving a loss where that lowers it and the
    Luck covers it (P-2; the cost Foundry's with ``pulp_halve_san_cost_foundry``); dice rolled
    by hand, per stream; ``pool`` bonus (+) or penalty (-) dice on the d100 against SAN, only
    with the house rule ``sanity_pool`` (S7-1, decision S1); a label. Checked when built."""

    system: str
    sanity: int
    loss: str
    intelligence: int | None = None
    mythos: int = 0
    lost_today: int = 0
    day_start: int | None = None
    insane: bool = False
    source_lost: int | None = None
    halve: bool = False
    pulp: bool = False
    luck: int | None = None
    pulp_halve_san_cost_foundry: bool = False
    pool: int = 0
    sanity_pool: bool = False
    dice: tuple[int, ...] | None = None
    loss_dice: tuple[int, ...] | None = None
    int_dice: tuple[int, ...] | None = None
    label: str | None = None
    rules: Sanity = field(init=False, repr=False, compare=False)
    success_loss: Expression = field(init=False, repr=False, compare=False)
    failure_loss: Expression = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rules = rules_of(self.system)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "system", REGISTRY.get(self.system).name)
        mythos = _number("mythos", self.mythos, 0, rules.most)
        _number("sanity", self.sanity, 0, max(0, rules.most - mythos))
        a, b = _loss(self.loss)
        object.__setattr__(self, "success_loss", a)
        object.__setattr__(self, "failure_loss", b)
        if self.intelligence is not None:
            _number("intelligence", self.intelligence, 0, MOST)
        _number("lost_today", self.lost_today, 0, MOST)
        if self.day_start is not None:
            _number("day_start", self.day_start, 0, MOST)
        if self.source_lost is not None:
            _number("source_lost", self.source_lost, 0, MOST)
        for flag in ("insane", "halve", "pulp", "pulp_halve_san_cost_foundry", "sanity_pool"):
            if not isinstance(getattr(self, flag), bool):
                raise BadInput(flag, getattr(self, flag), "true or false")
        self._pulp(rules)
        _number("pool", self.pool, -rules.most_pool, rules.most_pool)
        if self.pool and not self.sanity_pool:
            raise RuleRefusal(
                "pool",
                self.pool,
                "bonus or penalty dice only with the house rule sanity_pool",
                "no bonus or penalty dice on a Sanity roll (S7-1)",
            )
        for stream in STREAMS:
            given = getattr(self, stream)
            if given is not None:
                object.__setattr__(self, stream, _dice(stream, given))
        if self.label is not None and (not isinstance(self.label, str) or len(self.label) > 200):
            raise BadInput("label", self.label, "text of at most 200 characters")

    def _pulp(self, rules: Sanity) -> None:
        """Luck on a Sanity roll only with Pulp's rule (S7-1, P-2), and then its amount."""
        if self.pulp:
            if rules.luck_halves is None:
                raise RuleRefusal("pulp", True, "a system with Pulp's Luck", "no Pulp Luck")
            if self.luck is None:
                raise BadInput("luck", None, "the Luck to spend, with pulp (P-2)", "required")
            _number("luck", self.luck, 0, MOST)
        elif self.luck is not None:
            raise RuleRefusal(
                "luck", self.luck, "Luck only with pulp (P-2)", "no Luck on a Sanity roll (S7-1)"
            )
        elif self.pulp_halve_san_cost_foundry:
            raise BadInput("pulp_halve_san_cost_foundry", True, "only with pulp (P-2)")

    @classmethod
    def from_dict(cls, data: object) -> SanityRequest:
        """The request a contract dict describes; unknown fields are an error (G5)."""
        if not isinstance(data, Mapping):
            raise BadInput("request", data, "a JSON object with system, sanity and loss")
        for key in data:
            if key not in FIELDS:
                raise BadInput(str(key), data[key], "fields " + ", ".join(FIELDS), "unknown field")
        for key in FIELDS[:3]:
            if key not in data:
                raise BadInput(
                    key, None, "system, sanity and loss: 'coc7', 60, '1/1d6'", "required"
                )
        return cls(**{k: v for k, v in data.items()})

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"system": self.system, "sanity": self.sanity, "loss": self.loss}
        for name in FIELDS[3:]:
            value = getattr(self, name)
            default = SanityRequest.__dataclass_fields__[name].default
            if value != default:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @property
    def most(self) -> int:
        """The highest Sanity: the system's most less the Cthulhu Mythos (S7-5)."""
        return max(0, self.rules.most - self.mythos)

    @property
    def daily_limit(self) -> int:
        """A day's losses that bring indefinite insanity (S7-4)."""
        start = self.sanity + self.lost_today if self.day_start is None else self.day_start
        return start // self.rules.daily_divisor

    def lost(self, rolled: int) -> int:
        """The loss a rolled loss comes to under the options: the source's cap first (never more
        than the failure loss's maximum in all), then halved, rounded down (S7-2)."""
        loss = rolled
        if self.source_lost is not None:
            loss = min(loss, max(0, self.failure_loss.high - self.source_lost))
        return loss // 2 if self.halve else loss

    def with_luck(self, loss: int) -> tuple[int, int]:
        """P-2: the loss kept and the Luck spent, where Pulp's Luck lowers a loss and covers
        its cost; else the loss as it is, for no Luck."""
        halves = self.rules.luck_halves
        if not self.pulp or halves is None or self.luck is None:
            return loss, 0
        kept, cost = halves(loss, self.pulp_halve_san_cost_foundry)
        return (kept, cost) if kept < loss and cost <= self.luck else (loss, 0)


def _dice(stream: str, values: object) -> tuple[int, ...]:
    """Dice given for a stream: the loss's within their faces (checked as drawn), a d100's
    1..100."""
    faces = "its faces" if stream == STREAMS[1] else "100"
    allowed = f"a list of die values, each 1..{faces}, in the order drawn"
    if not isinstance(values, list | tuple) or len(values) > MAX_DICE:
        raise BadInput(stream, values, allowed)
    for v in values:
        if not is_int(v) or not 1 <= v <= (MAX_SIDES if stream == STREAMS[1] else 100):
            raise BadInput(stream, values, allowed, f"not a die's value: {v!r}")
    return tuple(values)


@dataclass(frozen=True)
class Outcome:
    """What one loss brings (S7-3, S7-4, S7-5): the Sanity after it, whether it calls for an
    INT roll, brings a bout of madness without one (already insane), reaches the day's limit
    (indefinite insanity) or leaves no Sanity (permanent insanity)."""

    after: int
    int_roll: bool
    bout: bool
    indefinite: bool
    permanent: bool


def outcome(request: SanityRequest, loss: int) -> Outcome:
    """S7-5: Sanity kept within 0..the highest. S7-4: the day's losses at or past its limit
    bring indefinite insanity (after a loss above 0); no Sanity left is permanent insanity.
    S7-3: a loss of ``int_roll_from`` or more that leaves Sanity calls for the INT roll, unless
    that loss also brings indefinite insanity (decision S2); already insane, any smaller loss
    brings a bout."""
    after = min(max(request.sanity - loss, 0), request.most)
    indefinite = loss > 0 and request.lost_today + loss >= request.daily_limit
    big = loss >= request.rules.int_roll_from and after > 0
    small = request.insane and loss > 0 and after > 0 and not big
    return Outcome(after, big and not indefinite, small, indefinite, after == 0)


@dataclass(frozen=True)
class SanityResult:
    """A Sanity roll: the d100 kept and every d100 rolled (more than one with a pool), its
    level, success, the loss expression rolled (or its
    maximum), its dice, the loss as rolled and as lost, Sanity before and after, the highest
    Sanity, the INT roll and its level where made, and the insanity it brings: ``temporary``
    (None where an INT roll is called for and no INT is given), ``indefinite``, ``permanent``."""

    system: str
    roll: int
    dice: tuple[int, ...]
    level: str
    success: bool
    loss_expression: str
    maximised: bool
    loss_dice: tuple[int, ...]
    loss_rolled: int
    loss: int
    luck_spent: int
    sanity: int
    sanity_after: int
    most: int
    int_roll: int | None
    int_level: str | None
    temporary: bool | None
    indefinite: bool
    permanent: bool
    explanation: str
    request: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "request", frozen(self.request))

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in SanityResult.__dataclass_fields__}
        out["dice"], out["loss_dice"] = list(self.dice), list(self.loss_dice)
        out["request"] = thawed(self.request)
        return out


def roll(
    request: SanityRequest | Mapping[str, Any], rng: RandomSource | None = None
) -> SanityResult:
    """Roll a Sanity check: dice from the request where given (G3), else from ``rng``."""
    asked = request if isinstance(request, SanityRequest) else SanityRequest.from_dict(request)
    rules = asked.rules
    pooled = rules.die(asked.pool, STREAMS[0])
    given = {s: Given(getattr(asked, s)) for s in STREAMS[1:] if getattr(asked, s) is not None}
    if asked.dice is not None:
        given[STREAMS[0]] = pooled.encode(asked.dice, STREAMS[0])
    draws = Dice(rng, given)
    die = run(pooled, draws, strict=False)
    level = rules.level(die, asked.sanity)
    success = level in REGISTRY.get(asked.system).declares.success_names
    expression = asked.success_loss if success else asked.failure_loss
    maximised = level in rules.maximised
    loss_dice: tuple[int, ...]
    if maximised:  # every die at its maximum: none is drawn (S7-2)
        loss_dice, loss_rolled, said = (), expression.high, f"{expression} at its maximum"
    else:
        found = rolled(expression, draws, STREAMS[1], {"expression": str(expression)})
        loss_dice, loss_rolled = found.dice, found.total
        said = found.explanation if found.dice else str(found.total)
    loss, luck = asked.with_luck(asked.lost(loss_rolled))
    then = outcome(asked, loss)
    int_roll = int_level = None
    temporary: bool | None = then.bout
    if then.int_roll and asked.intelligence is not None:
        int_roll = run(rules.die(0, STREAMS[2]), draws, strict=False)
        int_level = rules.level(int_roll, asked.intelligence)
        temporary = int_level in REGISTRY.get(asked.system).declares.success_names
    elif then.int_roll:
        temporary = None
    draws.finish()
    shown = tuple(v for d in draws.record[STREAMS[0]] for v in pooled.values(d))
    kept = f"{die:02d}" if len(shown) == 1 else f"{die:02d} (of {', '.join(map(str, shown))})"
    why = (
        f"rolled {kept} vs SAN {asked.sanity}: {level}; loss {said}"
        + ("" if loss == loss_rolled else f", {loss} lost")
        + (f" for {luck} Luck" if luck else "")
        + f"; SAN {asked.sanity} -> {then.after}"
    )
    return SanityResult(
        asked.system,
        die,
        shown,
        level,
        success,
        str(expression),
        maximised,
        tuple(loss_dice),
        loss_rolled,
        loss,
        luck,
        asked.sanity,
        then.after,
        asked.most,
        int_roll,
        int_level,
        temporary,
        then.indefinite,
        then.permanent,
        why,
        asked.to_dict(),
    )


@dataclass(frozen=True)
class SanityOdds:
    """A Sanity roll's exact odds: each level, success, every loss with its chance and the
    mean, the Luck spent on average (P-2), one loss big enough for an INT roll (``big_loss``,
    S7-3's P(loss >= 5)) and one calling for it (SAN left, the day's limit not reached),
    temporary insanity
    (the INT roll included; None where one may be called for and no INT is given), indefinite
    and permanent insanity."""

    levels: Mapping[str, Fraction]
    success: Fraction
    losses: Mapping[int, Fraction]
    mean: Fraction
    luck_spent: Fraction
    big_loss: Fraction
    int_roll: Fraction
    temporary: Fraction | None
    indefinite: Fraction
    permanent: Fraction
    request: Mapping[str, Any]

    def __post_init__(self) -> None:
        for name in ("levels", "losses", "request"):
            object.__setattr__(self, name, frozen(getattr(self, name)))

    def at_least(self, loss: int) -> Fraction:
        return sum((p for x, p in self.losses.items() if x >= loss), Fraction(0))

    def to_dict(self) -> dict[str, Any]:
        return {
            "levels": {k: fraction_text(p) for k, p in self.levels.items()},
            "success": fraction_text(self.success),
            "losses": [{"loss": x, "chance": fraction_text(p)} for x, p in self.losses.items()],
            "mean": fraction_text(self.mean),
            "luck_spent": fraction_text(self.luck_spent),
            "big_loss": fraction_text(self.big_loss),
            "int_roll": fraction_text(self.int_roll),
            "temporary": None if self.temporary is None else fraction_text(self.temporary),
            "indefinite": fraction_text(self.indefinite),
            "permanent": fraction_text(self.permanent),
            "request": thawed(self.request),
        }


def _levels(die: SanityDie, level: Callable[[int, int], str], value: int) -> dict[str, Fraction]:
    """Every kept roll of the die, from the roll's own machine, against ``value`` through the
    roll's own ``level``."""
    out: dict[str, Fraction] = {}
    for kept, p in distribution(die).items():
        lvl = level(kept, value)
        out[lvl] = out.get(lvl, Fraction(0)) + p
    return out


def odds(request: SanityRequest | Mapping[str, Any]) -> SanityOdds:
    """The exact odds of a Sanity roll; refused before any work (``TooMuchWork``, naming
    ``loss``) where counting a loss's totals is over the budget. Given dice weigh nothing."""
    asked = request if isinstance(request, SanityRequest) else SanityRequest.from_dict(request)
    rules = asked.rules
    declared = REGISTRY.get(asked.system).declares
    wins = declared.success_names
    counts = [expressions.distribution(e, "loss") for e in (asked.success_loss, asked.failure_loss)]
    levels = _levels(rules.die(asked.pool, STREAMS[0]), rules.level, asked.sanity)
    rolled_losses: dict[int, Fraction] = {}
    for lvl, p in levels.items():
        if lvl in rules.maximised:
            totals = {asked.failure_loss.high: Fraction(1)}
        else:
            found = counts[0] if lvl in wins else counts[1]
            totals = {t: Fraction(w, found.denominator) for t, w in found.ways().items()}
        for t, q in totals.items():
            rolled_losses[t] = rolled_losses.get(t, Fraction(0)) + p * q
    losses: dict[int, Fraction] = {}
    luck = Fraction(0)
    for t, p in rolled_losses.items():
        x, cost = asked.with_luck(asked.lost(t))
        losses[x] = losses.get(x, Fraction(0)) + p
        luck += p * cost
    int_win = None
    if asked.intelligence is not None:
        faces = _levels(rules.die(0, STREAMS[2]), rules.level, asked.intelligence)
        int_win = sum((p for lvl, p in faces.items() if lvl in wins), Fraction(0))
    calls = bouts = indefinite = permanent = Fraction(0)
    for x, p in losses.items():
        then = outcome(asked, x)
        calls += p if then.int_roll else 0
        bouts += p if then.bout else 0
        indefinite += p if then.indefinite else 0
        permanent += p if then.permanent else 0
    temporary = None if int_win is None and calls else bouts + calls * (int_win or 0)
    return SanityOdds(
        {
            lvl: levels[lvl]
            for lvl in REGISTRY.get(asked.system).declares.level_names
            if lvl in levels
        },
        sum((p for lvl, p in levels.items() if lvl in wins), Fraction(0)),
        dict(sorted(losses.items())),
        sum((x * p for x, p in losses.items()), Fraction(0)),
        luck,
        sum((p for x, p in losses.items() if x >= rules.int_roll_from), Fraction(0)),
        calls,
        temporary,
        indefinite,
        permanent,
        asked.to_dict(),
    )


@dataclass(frozen=True)
class LuckAdvice:
    """Whether Luck spent halving a Sanity loss pays (P-2), exactly: the roll's odds spending
    it, and keeping it; the SAN saved and the Luck spent on average, the SAN a Luck point
    saves. It pays where it saves SAN at all."""

    spending: SanityOdds
    keeping: SanityOdds

    @property
    def saved(self) -> Fraction:
        return self.keeping.mean - self.spending.mean

    @property
    def per_luck(self) -> Fraction | None:
        spent = self.spending.luck_spent
        return None if not spent else self.saved / spent

    @property
    def pays(self) -> bool:
        return self.saved > 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pays": self.pays,
            "saved": fraction_text(self.saved),
            "luck_spent": fraction_text(self.spending.luck_spent),
        }
        if self.per_luck is not None:
            out["per_luck"] = fraction_text(self.per_luck)
        out["spending"], out["keeping"] = self.spending.to_dict(), self.keeping.to_dict()
        return out


def luck_advice(request: SanityRequest | Mapping[str, Any]) -> LuckAdvice:
    """P-2's advice: the roll with its Luck spent halving a loss where that lowers it and the
    Luck covers it, against the same roll spending none."""
    asked = request if isinstance(request, SanityRequest) else SanityRequest.from_dict(request)
    if not asked.pulp:
        raise BadInput(
            "pulp", False, "pulp with luck=N: the Luck a halved loss costs (P-2)", "no Luck spent"
        )
    kept = replace(asked, pulp=False, luck=None, pulp_halve_san_cost_foundry=False)
    return LuckAdvice(odds(asked), odds(kept))
