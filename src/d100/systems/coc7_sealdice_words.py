"""SealDice's ``.sc`` (SD-W6) and ``.en`` (SD-W7) as rolls every door plays
(``declarations.WordRoll``): read from the words, given a character's values by its sheet,
rolled under the table's ``setcoc`` (``coc7_sealdice_rolls``' machines, exact odds), put in
words, and what they write to the sheet. At a table each is a declared roll of its own kind:
its request logged with the rule it was judged by, made again from it (``KINDS``), drawn from
the table's seeds and its SAN or skills written back as a Sanity roll's and a development
phase's are."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..declarations import Command, WordRoll, WordRolled
from ..development import RollResult, roll_odds, roll_one
from ..dice import RandomSource
from ..errors import BadInput, D100Error, TooMuchWork
from ..expressions.exact import cost
from ..machine import Dice, Given
from ..render.view import pct
from ..sanity_form import sheet_fields, with_sanity
from .coc7_sealdice_rolls import (
    DEFAULT_GAIN,
    DEFAULT_RULE,
    MAX_SKILLS,
    NAME,
    EnSkill,
    ScRequest,
    ScResult,
    rule_of,
    sanity_of,
    sc_odds,
    sc_roll,
)

SC_KIND = "sealdice_sc"  # the rolls' kinds in a table's log
EN_KIND = "sealdice_en"
# a ``.sc``'s odds weigh each loss it can come to at every level, as a Sanity roll's do: its
# cost is the loss expressions' exact steps and this much for each loss
PER_LOSS = 100


def _fields(data: object, allowed: tuple[str, ...], what: str) -> Mapping[str, Any]:
    """A logged request's fields, refused when it is no object or holds others (G5)."""
    if not isinstance(data, Mapping):
        raise BadInput("request", data, f"a JSON object: {what}")
    for key in data:
        if key not in allowed:
            raise BadInput(str(key), data[key], "fields " + ", ".join(allowed), "unknown field")
    return data


def _ratio(text: object) -> Fraction:
    return Fraction(str(text))


# -- .sc ---------------------------------------------------------------------------------------

SC_FIELDS = ("setcoc", "loss", "sanity", "pool", "half", "cap", "dice")


@dataclass(frozen=True)
class ScRoll:
    """A ``.sc`` typed: rolled under the table's rule (``rule``, once ``ruled``), SAN written
    back to a sheet."""

    request: ScRequest
    rule: int | str = DEFAULT_RULE
    word: str = "sc"
    kind: str = SC_KIND
    unlogged: str | None = "losses"  # the chance of every loss, which its request gives again
    develops: bool = False

    @classmethod
    def from_dict(cls, data: object) -> ScRoll:
        """A ``.sc`` as a table logged it (``to_dict``)."""
        got = _fields(data, SC_FIELDS, "loss, sanity and setcoc")
        if not isinstance(got.get("half", False), bool):
            raise BadInput("half", got["half"], "true or false")
        dice = got.get("dice")
        if dice is not None and not isinstance(dice, list):
            raise BadInput("dice", dice, "a list of die values")
        request = ScRequest(
            got.get("loss"),  # type: ignore[arg-type]  # checked when built
            got.get("sanity"),
            got.get("pool", 0),
            got.get("half", False),
            got.get("cap"),
            None if dice is None else tuple(dice),
        )
        return cls(request, rule_of({"setcoc": got.get("setcoc", DEFAULT_RULE)}))

    def to_dict(self) -> dict[str, Any]:
        return {"setcoc": self.rule, **self.request.to_dict()}

    def with_sheet(self, character: Any) -> ScRoll:
        """SAN from a character's sheet, as ``d100 roll --sheet F WHO sc`` reads it."""
        if self.request.sanity is not None:
            raise BadInput(
                "sanity",
                self.request.sanity,
                f"SAN once: {character.name}'s sheet gives it",
                "given twice",
            )
        return replace(
            self, request=replace(self.request, sanity=sheet_fields(character)["sanity"])
        )

    def ruled(self, house_rules: Mapping[str, Any]) -> ScRoll:
        return replace(self, rule=rule_of(house_rules))

    def cost(self) -> int:
        """Its odds' steps; SAN missing (neither typed nor a sheet's) refused here."""
        sanity_of(self.request)
        losses = (self.request.success_loss, self.request.failure_loss)
        return sum(cost(e) + PER_LOSS * (e.high - e.low + 1) for e in losses)

    def resolve(self, rng: RandomSource | None) -> ScResult:
        return sc_roll(self.request, self.rule, rng)

    def odds(self) -> dict[str, Any]:
        return sc_odds(replace(self.request, dice=None), self.rule).to_dict()

    def play(self, house_rules: Mapping[str, Any], rng: RandomSource | None) -> WordRolled:
        return _played(self.ruled(house_rules), rng)

    def told(self, result: ScResult, odds: Mapping[str, Any] | None) -> WordRolled:
        lines = [("roll", result.explanation)]
        if result.permanent:
            lines.append(("notice", "SAN 0: permanent insanity"))
        elif result.temporary:
            lines.append(("notice", f"a loss of {result.loss}: temporary insanity"))
        if odds is not None:
            lines.append(
                (
                    "odds",
                    f"success {pct(_ratio(odds['success']))}, mean loss "
                    f"{float(_ratio(odds['mean'])):.2f}, loss >= 5 "
                    f"{pct(_ratio(odds['big_loss']))}, SAN 0 {pct(_ratio(odds['permanent']))}",
                )
            )
        data = {
            "command": ".sc",
            "setcoc": self.rule,
            "request": self.request.to_dict(),
            **result.to_dict(),
            "odds": None if odds is None else dict(odds),
        }
        after = result.sanity_after

        def write(character: Any) -> tuple[Any, str]:
            return with_sanity(character, after), f"{character.name}'s SAN is now {after}"

        return WordRolled(
            f"SealDice .sc (setcoc {self.rule})",
            tuple(lines),
            data,
            write if after != result.sanity else None,
            {"sanity": [result.sanity, after]},
            f"{result.level}, {result.loss} lost",
        )


def _played(roll: WordRoll, rng: RandomSource | None) -> WordRolled:
    """Rolled, then counted where counting costs little enough (rolling costs little; counting
    every loss may cost more), and put in words."""
    result = roll.resolve(rng)
    try:
        odds: dict[str, Any] | None = roll.odds()
    except TooMuchWork:
        odds = None
    return roll.told(result, odds)


# -- .en ---------------------------------------------------------------------------------------

EN_FIELDS = ("setcoc", "skills", "dice")
SKILL_FIELDS = ("name", "value", "succ", "fail")


@dataclass(frozen=True)
class EnResult:
    """A ``.en`` as rolled: the rule and each skill's development roll."""

    rule: int | str
    skills: tuple[RollResult, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"setcoc": self.rule, "skills": [r.to_dict() for r in self.skills]}


def _plain(s: EnSkill) -> bool:
    return s.value is None and s.succ == DEFAULT_GAIN and s.fail is None


@dataclass(frozen=True)
class EnRoll:
    """A ``.en`` typed: its skills, dice given by hand (every die, in order), the rule."""

    skills: tuple[EnSkill, ...]
    dice: tuple[int, ...] | None = None
    rule: int | str = DEFAULT_RULE
    word: str = "en"
    kind: str = EN_KIND
    unlogged: str | None = None
    develops: bool = True  # a development phase: the GM's at a table

    def __post_init__(self) -> None:
        if not 1 <= len(self.skills) <= MAX_SKILLS:
            raise BadInput("skills", len(self.skills), f"1..{MAX_SKILLS} skills (SD-W7)")

    @classmethod
    def from_dict(cls, data: object) -> EnRoll:
        """A ``.en`` as a table logged it (``to_dict``)."""
        got = _fields(data, EN_FIELDS, "skills and setcoc")
        skills = got.get("skills")
        if not isinstance(skills, list):
            raise BadInput("skills", skills, "a list of skills: name, value, succ, fail")
        made = []
        for s in skills:
            one = _fields(s, SKILL_FIELDS, "name and value")
            if not isinstance(one.get("name"), str):
                raise BadInput("skills.name", one.get("name"), "a skill's name")
            made.append(
                EnSkill(
                    one["name"], one.get("value"), one.get("succ", DEFAULT_GAIN), one.get("fail")
                )
            )
        dice = got.get("dice")
        if dice is not None and not isinstance(dice, list):
            raise BadInput("dice", dice, "a list of die values")
        rule = rule_of({"setcoc": got.get("setcoc", DEFAULT_RULE)})
        return cls(tuple(made), None if dice is None else tuple(dice), rule)

    def to_dict(self) -> dict[str, Any]:
        skills = []
        for s in self.skills:
            one: dict[str, Any] = {"name": s.name, "value": s.value, "succ": s.succ}
            if s.fail is not None:
                one["fail"] = s.fail
            skills.append(one)
        out: dict[str, Any] = {"setcoc": self.rule, "skills": skills}
        if self.dice is not None:
            out["dice"] = list(self.dice)
        return out

    def with_sheet(self, character: Any) -> EnRoll:
        """Each skill's value from the sheet, named as the sheet spells it; words that name
        one skill of the sheet together are that skill (``.en Library Use``), the longest
        first, as SealDice's space between skills would part them. A skill the sheet lacks,
        or a value typed beside the sheet's (``.en Spot95``: it would be written back raised),
        is refused, as ``.sc``'s SAN typed beside a sheet is."""
        out, i = [], 0
        while i < len(self.skills):
            name, j = _named(character, self.skills, i)
            last = self.skills[j - 1]
            if last.value is not None:
                raise BadInput(
                    name,
                    last.value,
                    f"{name} once: {character.name}'s sheet gives it",
                    "given twice",
                )
            out.append(replace(last, name=name, value=character.rollable[name]))
            i = j
        return replace(self, skills=tuple(out))

    def ruled(self, house_rules: Mapping[str, Any]) -> EnRoll:
        return replace(self, rule=rule_of(house_rules))

    def _valued(self) -> tuple[EnSkill, ...]:
        missing = next((s.name for s in self.skills if s.value is None), None)
        if missing is not None:
            raise BadInput(
                missing, None, f"{missing}60, or WHO .en {missing} with a sheet", "no value given"
            )
        return self.skills

    def cost(self) -> int:
        return sum(s.machine(self.rule).cost() for s in self._valued())

    def resolve(self, rng: RandomSource | None) -> EnResult:
        skills = self._valued()
        draws = Dice(rng, {} if self.dice is None else {"dice": Given(self.dice)})
        rolled = tuple(roll_one(s.name, s.machine(self.rule), draws, self.dice) for s in skills)
        draws.finish()
        return EnResult(self.rule, rolled)

    def odds(self) -> dict[str, Any]:
        made = [roll_odds(s.name, s.machine(self.rule)) for s in self._valued()]
        return {"rolls": [o.to_dict() for o in made]}

    def play(self, house_rules: Mapping[str, Any], rng: RandomSource | None) -> WordRolled:
        return _played(self.ruled(house_rules), rng)

    def told(self, result: EnResult, odds: Mapping[str, Any] | None) -> WordRolled:
        chances = [None] * len(result.skills) if odds is None else list(odds["rolls"])
        lines, rolls = [], []
        for done, chance in zip(result.skills, chances, strict=True):
            word = "improves" if done.improved else "no improvement"
            told = (
                ""
                if chance is None
                else f" (improves {pct(_ratio(chance['improves']))}, mean gain "
                f"{float(_ratio(chance['mean_gain'])):.2f})"
            )
            lines.append(
                (
                    done.name,
                    f"{done.before}: rolled {done.roll:02d}, {word}, {done.gain:+d} -> "
                    f"{done.after}{told}",
                )
            )
            rolls.append({**done.to_dict(), "odds": chance})
        data = {"command": ".en", "setcoc": self.rule, "skills": rolls}
        raised = {r.name: r.after for r in result.skills if r.after != r.before}

        def write(character: Any) -> tuple[Any, str]:
            skills = {**character.skills, **raised}
            said = ", ".join(f"{k} {v}" for k, v in raised.items())
            return replace(character, skills=skills), f"{character.name}: {said}"

        outcome = ", ".join(
            f"{r.name} {'improves' if r.improved else 'no improvement'}" for r in result.skills
        )
        return WordRolled(
            f"SealDice .en (setcoc {self.rule})",
            tuple(lines),
            data,
            write if raised else None,
            {"skills": {r.name: [r.before, r.after] for r in result.skills if r.after != r.before}},
            outcome,
        )


def _named(character: Any, skills: tuple[EnSkill, ...], i: int) -> tuple[str, int]:
    """The sheet's skill the words from ``i`` name, the longest run first (only its last word
    may carry a value or gains), and where the run ends; else the sheet's refusal of the one."""
    for j in range(len(skills), i, -1):
        if not all(_plain(s) for s in skills[i : j - 1]):
            continue
        try:
            return character.skill(" ".join(s.name for s in skills[i:j])), j
        except D100Error:
            continue
    return character.skill(skills[i].name), i + 1


# -- reading the words ------------------------------------------------------------------------

_FLAG = re.compile(r"--(half|cap)(?:=(-?\d+))?", re.IGNORECASE)
_POOL = re.compile(r"([bBpP])(\d*)")
_SKILL = re.compile(r"(?P<name>[^\W\d]+)(?P<value>\d+)?(?:\+(?P<gain>\S+))?")
SC_ALLOWED = ".sc [b|p2] SUCC/FAIL [SAN] [--half] [--cap=N] [@DICE], or .sc FAIL [SAN]"
EN_ALLOWED = ".en NAME[VALUE] [+[FAIL/]SUCC] (up to 10, by spaces or |) [@DICE]"


def _dice(token: str) -> tuple[int, ...]:
    try:
        return tuple(100 if v == "00" else int(v) for v in token[1:].split(","))
    except ValueError:
        raise BadInput("dice", token, "die values: @42,3 (00 is 100)") from None


def read_sc(rest: str) -> Command:
    """``.sc`` words (SD-W6) as a roll the doors play."""
    words = rest.split()
    half, cap, dice, pool = False, None, None, 0
    plain: list[str] = []
    for word in words:
        flag = _FLAG.fullmatch(word)
        if flag is not None:
            if flag[1].lower() == "half" and flag[2] is None:
                half = True
            elif flag[1].lower() == "cap" and flag[2] is not None:
                cap = int(flag[2])
            else:
                raise BadInput("sc", word, "--half or --cap=N", "SealDice's keyword flags")
        elif word.startswith("@"):
            dice = _dice(word)
        else:
            plain.append(word)
    if plain and (m := _POOL.fullmatch(plain[0])) is not None:
        count = int(m[2] or 1)
        pool = count if m[1] in "bB" else -count
        plain.pop(0)
    if not plain or len(plain) > 2:
        raise BadInput("sc", rest or None, SC_ALLOWED, "the loss, then SAN at most")
    loss = plain[0] if "/" in plain[0] else f"0/{plain[0]}"
    san = None
    if len(plain) == 2:
        if not (plain[1].isascii() and plain[1].isdigit()):  # "²" is a digit to isdigit
            raise BadInput("sanity", plain[1], "SAN, an integer in digits 0-9 (.sc 1/1d6 60)")
        san = int(plain[1])
    request = ScRequest(loss, san, pool, half, cap, dice)
    return Command({"system": NAME}, roll=ScRoll(request))


def read_en(rest: str) -> Command:
    """``.en`` words (SD-W7) as a roll the doors play."""
    dice = None
    tokens: list[str] = []
    for word in rest.replace("|", " ").split():
        if word.startswith("@"):
            dice = _dice(word)
        elif word.startswith("+") and tokens:
            tokens[-1] += word
        elif word.isdigit() and tokens and not tokens[-1][-1:].isdigit():
            tokens[-1] += word  # "侦查 60" as "侦查60", as a check glues it (SD-W1)
        else:
            tokens.append(word)
    skills = []
    for token in tokens:
        m = _SKILL.fullmatch(token)
        if m is None:
            raise BadInput("en", token, EN_ALLOWED, "not a skill")
        gain = m["gain"]
        succ, fail = DEFAULT_GAIN, None
        if gain is not None:
            fail, _, succ = gain.rpartition("/")
            fail = fail or None
        value = None if m["value"] is None else int(m["value"])
        skills.append(EnSkill(m["name"], value, succ, fail))
    return Command({"system": NAME}, roll=EnRoll(tuple(skills), dice))


READERS = {"sc": read_sc, "en": read_en}
# each kind made again from its logged request (``Declaration.word_rolls``)
KINDS: dict[str, Callable[[object], WordRoll]] = {
    SC_KIND: ScRoll.from_dict,
    EN_KIND: EnRoll.from_dict,
}
