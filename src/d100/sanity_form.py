"""The quick form of a Sanity roll, and what a character sheet gives one.

``[SYSTEM] WORD LOSS [SAN] [WORDS...]``: ``coc7 sc 1/1d6 60 int=70 @42,3``, where WORD is one
of the system's declared Sanity words (``sanity``, ``san``, ``sc``); with a sheet the character's
name stands for the system and the SAN (``alice sc 1/1d6``). The words are the request's own
fields as ``KEY=VALUE`` (``int=`` for ``intelligence=``, ``today=`` for ``lost_today=``,
``start=`` for ``day_start=``, ``source=`` for ``source_lost=``, ``luck=``, ``pool=``), the
flags ``insane``, ``halve``, ``pulp``, ``pulp_halve_san_cost_foundry`` and ``sanity_pool``, and
``@DICE``: every die in the order drawn (the d100's, the loss's, the INT roll). Pure: the
command line, the shell and a chat door read words here and do their own I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import sanity
from .errors import BadInput, D100Error, integer
from .sanity import SanityRequest
from .sheets import Character
from .systems import REGISTRY

SHORT = {
    "int": "intelligence",
    "today": "lost_today",
    "start": "day_start",
    "source": "source_lost",
}
FLAGS = ("insane", "halve", "pulp", "pulp_halve_san_cost_foundry", "sanity_pool")
NUMBERS = ("intelligence", "mythos", "lost_today", "day_start", "source_lost", "luck", "pool")
ALLOWED = (
    "[SYSTEM] WORD LOSS [SAN] then int=N, mythos=N, today=N, start=N, source=N, insane, halve, "
    "pulp with luck=N (pulp_halve_san_cost_foundry), sanity_pool with pool=N (+bonus, -penalty), "
    "@DICE (the d100, the loss's dice, the INT roll, in order)"
)


def words() -> dict[str, str]:
    """Every system's Sanity words, each with its system (the registry's order first)."""
    out: dict[str, str] = {}
    for spec in REGISTRY:
        if spec.declares.sanity is not None:
            for word in spec.declares.sanity.words:
                out.setdefault(word, spec.name)
    return out


@dataclass(frozen=True)
class Asked:
    """A Sanity roll read from words: its request's fields (without SAN where the sheet gives
    it), the character it is for (None: by numbers), and dice given in the order drawn."""

    fields: dict[str, Any]
    who: str | None = None
    dice: tuple[int, ...] | None = None


def read(tokens: Sequence[str], system: str | None = None, named: bool = False) -> Asked | None:
    """The Sanity roll ``tokens`` ask for, or None where they ask for none: the first word (a
    system's name, else a character's when ``named``) then a Sanity word. ``system``: the
    system to use where the words name none."""
    said = list(tokens)
    who = None
    if len(said) > 1 and said[0].lower() in REGISTRY:
        system = REGISTRY.get(said.pop(0)).name
    elif named and len(said) > 1 and said[1].lower() in words() and "/" in "".join(said[2:3]):
        who = said.pop(0)  # without a loss, ``alice sanity`` is a check of the skill
    if not said or said[0].lower() not in words():
        return None
    word = said.pop(0).lower()
    if system is None and who is None:
        system = words()[word]
    out: dict[str, Any] = {} if system is None else {"system": system}
    if system is not None:
        sanity.rules_of(system)  # a system without Sanity rolls is refused here
    if not said or "/" not in said[0]:
        given = said[0] if said else None
        why = "no loss given" if given is None else "not A/B: the loss on a success, / on a failure"
        raise BadInput("loss", given, sanity.LOSS_ALLOWED, why)
    out["loss"] = said.pop(0)
    if said and said[0].lstrip("+").isdigit():
        out["sanity"] = integer(said.pop(0), "sanity", "the current SAN, an integer")
    dice = None
    for token in said:
        if token.startswith("@"):
            if dice is not None:
                raise BadInput("dice", token, "one @DICE", "dice given twice")
            dice = tuple(_die(v, token) for v in token[1:].split(","))
            continue
        _word(token, out)
    return Asked(out, who, dice)


def _die(text: str, token: str) -> int:
    return 100 if text == "00" else integer(text, "dice", "die values: @42,3,55 (00 is 100)")


def _word(token: str, out: dict[str, Any]) -> None:
    key, eq, value = token.partition("=")
    name = SHORT.get(key.lower(), key.lower())
    if not eq and name in FLAGS:
        return _once(out, name, True, token)
    if eq and name in NUMBERS:
        return _once(out, name, integer(value, name, "an integer"), token)
    raise BadInput("word", token, ALLOWED, f"unknown word {token!r}")


def _once(out: dict[str, Any], name: str, value: Any, token: str) -> None:
    if name in out:
        raise BadInput(name, token, f"{name} once", "given twice")
    out[name] = value


def request(asked: Asked, sheet: Mapping[str, Any] | None = None) -> SanityRequest:
    """The request the words ask for, with what the sheet gives (``sheet_fields``) where the
    words do not say it: SAN once, the sheet's Luck only with pulp (P-2) and no other Luck
    typed, the dice given split into their streams."""
    fields = dict(asked.fields)
    for key, value in (sheet or {}).items():
        if key == "sanity" and "sanity" in fields:
            raise BadInput(
                "sanity",
                fields["sanity"],
                f"SAN once: {asked.who or 'the character'}'s sheet gives {value}",
                "given twice",
            )
        if key == "luck" and fields.get("luck", value) != value:  # P-2: the sheet's Luck
            raise BadInput(
                "luck",
                fields["luck"],
                f"pulp alone (or luck={value}): {asked.who or 'the character'}'s Luck is its "
                f"sheet's, {value}",
                "not the sheet's Luck",
            )
        if key != "luck" or fields.get("pulp"):
            fields.setdefault(key, value)
    if "sanity" not in fields:
        raise BadInput(
            "SAN",
            None,
            "the current SAN after the loss (coc7 sc 1/1d6 60), or WHO sc LOSS with a sheet",
            "no SAN given",
        )
    made = SanityRequest.from_dict(fields)
    return made if asked.dice is None else in_order(made, asked.dice)


def in_order(request: SanityRequest, dice: Sequence[int]) -> SanityRequest:
    """Dice given in the order drawn, split into the roll's streams: the d100 (one value a
    die of its pool), then as many as the loss its level picks has (none for a maximum), then
    the INT roll."""
    rules = request.rules
    size = abs(request.pool) + 1
    if len(dice) < size:
        raise BadInput("dice", list(dice), f"the d100 first, {size} values for its pool: @42")
    first, rest = tuple(dice[:size]), list(dice[size:])
    die = rules.die(request.pool, sanity.STREAMS[0])
    kept = die.advance(die.start(), die.encode(first, sanity.STREAMS[0]).draws[0])
    level = rules.level(kept, request.sanity)
    won = level in REGISTRY.get(request.system).declares.success_names
    loss = request.success_loss if won else request.failure_loss
    count = 0 if level in rules.maximised else loss.dice
    return replace(
        request,
        dice=first,
        loss_dice=tuple(rest[:count]) or None,
        int_dice=tuple(rest[count:]) or None,
    )


def sheet_fields(character: Character) -> dict[str, Any]:
    """What a character's sheet gives a Sanity roll: each request field a value of the names
    the system declares holds (SAN, INT, the Cthulhu Mythos: a skill, a characteristic or a
    derived value such as an investigator's SAN), and the Luck the sheet holds."""
    rules = sanity.rules_of(character.system)
    values = _values(character)
    out: dict[str, Any] = {"system": character.system}
    for field, names in rules.sheet.items():
        name = _named(values, names)
        if name is not None:
            out[field] = values[name]
    if character.luck is not None:
        out["luck"] = character.luck.current  # spent only with pulp (P-2)
    if "sanity" not in out:
        held = ", ".join(rules.sheet["sanity"])
        raise D100Error(
            "sanity", None, f"a skill or value named {held} on {character.name}'s sheet", "no SAN"
        )
    return out


def _values(character: Character) -> dict[str, int]:
    """The sheet's numbers by name: its skills, characteristics and base skills, then the
    derived values (the rule's or the sheet's own)."""
    out = dict(character.rollable)
    taken = {k.casefold() for k in out}
    for name, (value, _) in character.derived_values.items():
        if isinstance(value, int) and name.casefold() not in taken:
            out[name] = value
    return out


def _named(values: Mapping[str, Any], names: Sequence[str]) -> str | None:
    return next((s for s in values if s.casefold().strip() in names), None)


def with_sanity(character: Character, value: int) -> Character:
    """The character with the SAN the roll left, where the sheet holds it: the skill of that
    name, or else the derived value (set on the sheet from now on)."""
    names = sanity.rules_of(character.system).sheet["sanity"]
    skill = _named(character.skills, names)
    if skill is not None:
        return replace(character, skills={**character.skills, skill: value})
    derived = _named(character.derived_values, names)
    assert derived is not None  # read from this sheet before the roll
    return replace(character, derived={**character.derived, derived: value})
