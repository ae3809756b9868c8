"""SealDice's ``.sc`` (SD-W6) and ``.en`` (SD-W7) as SealDice plays them, with exact odds.

``.sc``: d100 (with SealDice's ``b``/``p`` dice, C7-3's tens method) judged by the table's
``setcoc`` rule at ``difficultyRequired`` 0 (SD-core), the success loss on a rank above 0, the
failure loss otherwise and at its maximum on a fumble (rank -2: a failed double under ``dg``,
96-00 under rule 3); then SealDice's own options in its order, ``--half`` then ``--cap=N``
(not the S7 options' order, decision S7); SAN' = max(0, SAN - loss); notices only: permanent
insanity at 0, else temporary at a loss of 5 or more, with no INT roll. The d100's machine is
the Sanity roll's (``Sanity.die``), the loss is read and rolled as a Sanity loss is, and the
odds weigh every kept roll through the same ``resolve`` the roll calls.

``.en``: each skill's improvement roll, improving where SealDice's rank at difficulty 0 is not
a success or the roll is over 95; the gain ``1d10`` or the given expressions; each roll is
``development``'s machine, rolled and counted by it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import expressions, sanity
from ..development import ImprovementRoll, Pool
from ..dice import RandomSource
from ..errors import BadInput, D100Error
from ..expressions import Expression
from ..expressions.rolls import rolled
from ..machine import Dice, Given, distribution, run
from ..results import fraction_text
from . import coc7_setcoc

NAME = "coc7"
MOST = 999  # a SAN or skill beyond this is a typing mistake (SealDice has no bound)
MAX_SKILLS = 10  # SD-W7: up to 10 skills in one .en
DEFAULT_RULE = 0  # SealDice's own default where the table sets none (decision S9)


@dataclass(frozen=True)
class SealSanity:
    """The declared variant of a Sanity roll SealDice's ``.sc`` plays (SD-W6): which ranks
    lose the failure loss at its maximum, the order of its options, the loss whose notice is
    temporary insanity, and the SAN whose notice is permanent insanity. No INT roll, no day's
    limit, no highest SAN."""

    maximised: frozenset[int] = frozenset({-2})
    order: tuple[str, ...] = ("half", "cap")  # ext_coc7.go 1223-1233: halve, then cap
    temporary_from: int = 5
    permanent_at: int = 0


SC = SealSanity()


def rule_of(house_rules: Mapping[str, Any] | None) -> int | str:
    """The table's (or command's) ``setcoc`` rule, else SealDice's default, rule 0."""
    value: int | str = (house_rules or {}).get("setcoc", DEFAULT_RULE)
    if value not in coc7_setcoc.VALUES:
        raise D100Error("setcoc", value, "0, 1, 2, 3, 4, 5 or dg", "not one of SealDice's rules")
    return value


def _number(name: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadInput(name, value, f"an integer {low}..{high}")
    return value


# -- .sc ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScLoss:
    """What one rank and one rolled loss come to (SD-W6): the loss after ``--half`` then
    ``--cap``, SAN after it, and the two notices."""

    loss: int
    after: int
    temporary: bool
    permanent: bool


def expression_of(rank: int, success: Expression, failure: Expression) -> tuple[Expression, bool]:
    """The loss a rank picks, and whether it is lost at its maximum (SD-W6)."""
    return (success if rank > 0 else failure), rank in SC.maximised


def resolve(sanity_now: int, rolled_loss: int, half: bool, cap: int | None) -> ScLoss:
    """SD-W6 after the roll, in SealDice's order: halve (Go's division), then cap where N > 0,
    then SAN' = max(0, SAN - loss); permanent at 0, else temporary at a loss of 5 or more."""
    loss = rolled_loss
    for step in SC.order:
        if step == "half" and half:
            loss = coc7_setcoc.quot(loss, 2)
        elif step == "cap" and cap is not None and cap > 0:
            loss = min(loss, cap)
    after = max(0, sanity_now - loss)
    permanent = after == SC.permanent_at
    return ScLoss(loss, after, not permanent and loss >= SC.temporary_from, permanent)


@dataclass(frozen=True)
class ScRequest:
    """A ``.sc``: the loss ``A/B`` (a lone ``B`` is ``0/B``), SAN (None: the sheet's), the net
    bonus (+) or penalty (-) dice, ``--half``, ``--cap=N``, dice given by hand in the order
    drawn (the d100's, then the loss's), and the label. Checked when built."""

    loss: str
    sanity: int | None = None
    pool: int = 0
    half: bool = False
    cap: int | None = None
    dice: tuple[int, ...] | None = None
    success_loss: Expression = field(init=False, repr=False, compare=False)
    failure_loss: Expression = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        a, b = sanity.parse_loss(self.loss)
        object.__setattr__(self, "success_loss", a)
        object.__setattr__(self, "failure_loss", b)
        if self.sanity is not None:
            _number("sanity", self.sanity, 0, MOST)
        most = sanity.rules_of(NAME).most_pool
        _number("pool", self.pool, -most, most)
        if self.cap is not None:
            _number("cap", self.cap, -MOST, MOST)
        if self.dice is not None:
            for v in self.dice:
                _number("dice", v, 1, 100)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"loss": self.loss, "sanity": self.sanity}
        if self.pool:
            out["pool"] = self.pool
        if self.half:
            out["half"] = True
        if self.cap is not None:
            out["cap"] = self.cap
        if self.dice is not None:
            out["dice"] = list(self.dice)
        return out


@dataclass(frozen=True)
class ScResult:
    """A ``.sc`` as rolled: the rule, the d100 kept and every d100, SealDice's rank and
    coc7's level, the loss expression (at its maximum or not), its dice and total, the loss
    lost, SAN before and after, and the notices."""

    rule: int | str
    roll: int
    dice: tuple[int, ...]
    rank: int
    level: str
    success: bool
    loss_expression: str
    maximised: bool
    loss_dice: tuple[int, ...]
    loss_rolled: int
    loss: int
    sanity: int
    sanity_after: int
    temporary: bool
    permanent: bool
    explanation: str

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ScResult.__dataclass_fields__}
        out["dice"], out["loss_dice"] = list(self.dice), list(self.loss_dice)
        return out


@dataclass(frozen=True)
class ScOdds:
    """A ``.sc``'s exact odds: each level, success, every loss lost with its chance, the mean,
    P(loss >= 5), the notices' chances."""

    levels: Mapping[str, Fraction]
    success: Fraction
    losses: Mapping[int, Fraction]
    mean: Fraction
    big_loss: Fraction
    temporary: Fraction
    permanent: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "levels": {k: fraction_text(p) for k, p in self.levels.items()},
            "success": fraction_text(self.success),
            "losses": [{"loss": x, "chance": fraction_text(p)} for x, p in self.losses.items()],
            "mean": fraction_text(self.mean),
            "big_loss": fraction_text(self.big_loss),
            "temporary": fraction_text(self.temporary),
            "permanent": fraction_text(self.permanent),
        }


def sanity_of(request: ScRequest) -> int:
    if request.sanity is None:
        raise BadInput(
            "sanity", None, "SAN after the loss (.sc 1/1d6 60), or WHO .sc LOSS with a sheet"
        )
    return request.sanity


def sc_roll(
    request: ScRequest, rule: int | str = DEFAULT_RULE, rng: RandomSource | None = None
) -> ScResult:
    """Roll a ``.sc`` under ``rule``: the d100 and the loss's dice through ``machine.Dice``
    (streams ``dice``, ``loss_dice``), given dice first."""
    now, seal = sanity_of(request), coc7_setcoc.rule_of(rule)
    streams = sanity.STREAMS
    die = sanity.rules_of(NAME).die(request.pool, streams[0])
    given: dict[str, Given] = {}
    if request.dice is not None:
        size = abs(request.pool) + 1
        if len(request.dice) < size:
            raise BadInput("dice", list(request.dice), f"the d100 first: {size} value(s)")
        given[streams[0]] = die.encode(request.dice[:size], streams[0])
        if request.dice[size:]:
            given[streams[1]] = Given(request.dice[size:])
    draws = Dice(rng, given)
    kept = run(die, draws, strict=False)
    rank = coc7_setcoc.rank(seal, now, 0, kept)
    expression, maximised = expression_of(rank, request.success_loss, request.failure_loss)
    loss_dice: tuple[int, ...]
    if maximised:
        loss_dice, total, said = (), expression.high, f"{expression} at its maximum"
    else:
        found = rolled(expression, draws, streams[1], {"expression": str(expression)})
        loss_dice, total = found.dice, found.total
        said = found.explanation if found.dice else str(found.total)
    draws.finish()
    then = resolve(now, total, request.half, request.cap)
    shown = tuple(v for d in draws.record[streams[0]] for v in die.values(d))
    level = coc7_setcoc.LEVEL_OF_RANK[rank]
    rolled_text = (
        f"{kept:02d}" if len(shown) == 1 else f"{kept:02d} (of {', '.join(map(str, shown))})"
    )
    why = (
        f"rolled {rolled_text} vs SAN {now} (setcoc {rule}): {level}; loss {said}"
        + ("" if then.loss == total else f", {then.loss} lost")
        + f"; SAN {now} -> {then.after}"
    )
    return ScResult(
        rule,
        kept,
        shown,
        rank,
        level,
        rank > 0,
        str(expression),
        maximised,
        tuple(loss_dice),
        total,
        then.loss,
        now,
        then.after,
        then.temporary,
        then.permanent,
        why,
    )


def sc_odds(request: ScRequest, rule: int | str = DEFAULT_RULE) -> ScOdds:
    """Every kept d100 of the roll's own machine, ranked by the same rule, every total of the
    loss its rank picks (its maximum on a fumble), through the same ``resolve``."""
    now, seal = sanity_of(request), coc7_setcoc.rule_of(rule)
    die = sanity.rules_of(NAME).die(request.pool, sanity.STREAMS[0])
    counts = {}
    for e in (request.success_loss, request.failure_loss):
        found = expressions.distribution(e, "loss")
        counts[str(e)] = {t: Fraction(w, found.denominator) for t, w in found.ways().items()}
    levels: dict[str, Fraction] = {}
    losses: dict[int, Fraction] = {}
    success = temporary = permanent = Fraction(0)
    ranked: dict[int, Fraction] = {}  # the chance of each rank: a loss follows from it alone
    for kept, p in distribution(die).items():
        rank = coc7_setcoc.rank(seal, now, 0, kept)
        level = coc7_setcoc.LEVEL_OF_RANK[rank]
        levels[level] = levels.get(level, Fraction(0)) + p
        success += p if rank > 0 else 0
        ranked[rank] = ranked.get(rank, Fraction(0)) + p
    # each rank's losses weighed once, not each face's: a face at a time, 4d1000 took seconds
    for rank, p in ranked.items():
        expression, maximised = expression_of(rank, request.success_loss, request.failure_loss)
        totals = {expression.high: Fraction(1)} if maximised else counts[str(expression)]
        for total, q in totals.items():
            then = resolve(now, total, request.half, request.cap)
            losses[then.loss] = losses.get(then.loss, Fraction(0)) + p * q
            temporary += p * q if then.temporary else 0
            permanent += p * q if then.permanent else 0
    order = [v for v in coc7_setcoc.LEVEL_OF_RANK.values() if v in levels]
    return ScOdds(
        {k: levels[k] for k in order},
        success,
        dict(sorted(losses.items())),
        sum((x * p for x, p in losses.items()), Fraction(0)),
        sum((p for x, p in losses.items() if x >= SC.temporary_from), Fraction(0)),
        temporary,
        permanent,
    )


# -- .en ---------------------------------------------------------------------------------------


def improves(rule: int | str, skill: int, roll: int) -> bool:
    """SD-W7: SealDice's rank at difficulty 0, made a failure over 95; it improves on no
    success."""
    rank = coc7_setcoc.rank(coc7_setcoc.rule_of(rule), skill, 0, roll)
    return roll > 95 or rank <= 0


DEFAULT_GAIN = "1d10"


def _gain(text: str, name: str) -> Pool:
    found = expressions.parse(text, f"{name}.gain", bonus=False)
    if any(getattr(t, "keep", None) is not None for t in found.rolled()):
        raise BadInput(f"{name}.gain", text, "dice added whole: 1d10, 1d5+1", "keeps some dice")
    return Pool.of(text)


@dataclass(frozen=True)
class EnSkill:
    """One skill of a ``.en``: its name, value (None: the sheet's), and the gain on an
    improvement and on none (SealDice's ``+[fail/]succ``)."""

    name: str
    value: int | None = None
    succ: str = DEFAULT_GAIN
    fail: str | None = None

    def __post_init__(self) -> None:
        if self.value is not None:
            _number(self.name, self.value, 0, MOST)
        _gain(self.succ, self.name)
        if self.fail is not None:
            _gain(self.fail, self.name)

    def machine(self, rule: int | str) -> ImprovementRoll:
        assert self.value is not None
        otherwise = None if self.fail is None else _gain(self.fail, self.name)
        value = self.value
        return ImprovementRoll(
            value, lambda r: improves(rule, value, r), _gain(self.succ, self.name), otherwise
        )
