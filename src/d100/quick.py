"""The quick form, as chat dice bots take it: ``brp 65 hard b1 @42,7`` as a typed request.

``[SYSTEM] SKILL WORDS...``: what each word means comes from the system's declared request
fields (a preset's names, a choice's strings and each field's own ``words``), so a system's
words are those of its module and no other. ``KEY=VALUE`` sets a field or a house rule by
name. Strict: two words for one field (``hard easy``, ``@10 @20``) are an error naming both.
Text that is not this form is offered to each system's chat-bot command forms
(``Declaration.commands``: ``CC<=65``) and to the percentile form every system takes,
``1d100<=65`` (a check of the chosen system with skill 65). A form may be asked secretly with
BCDice's ``S`` prefix (``SCC<=65``) and be followed by quick words, then a label (``CC<=65
Spot Hidden``), as chat dice bots read a comment. ``d100 roll``, the shell and JSON Lines'
``{"quick": ...}`` all read words here."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from . import expressions
from .contract import CheckRequest
from .declarations import Command, WordRoll
from .engine import parse as parse_request
from .errors import D100Error, integer, read_words
from .fields import Field, from_text, word_shape
from .system import System
from .systems import REGISTRY


@dataclass(frozen=True)
class Meaning:
    """What one word sets: a field (or a house rule) to a value."""

    field: Field
    value: Any
    house: bool = False  # the field is a house rule


def word_fields(system: System, contest: bool = False) -> tuple[Field, ...]:
    """The fields words may set: a check's own, or a contest side's."""
    if not contest:
        return system.check_fields
    side = next(f for f in system.contest_fields if f.kind == "object" and f.required)
    return side.fields


def house_fields(system: System) -> tuple[Field, ...]:
    found = [f for f in system.check_fields if f.kind == "object" and not f.required]
    return next((f.fields for f in found if f.name == HOUSE), ())


HOUSE = "house_rules"  # the contract's object of named options, common to every system


def _plain(f: Field) -> bool:
    """Whether a field takes a value a word can give (not the system, objects, house rules)."""
    return f.kind not in ("object", "object_list") and f.option_strings != ()


def _matches(f: Field, word: str) -> Iterator[Any]:
    """The values ``word`` gives ``f``, by the field's own words, presets and choices."""
    low = word.lower()
    for pattern in f.words:
        shape = word_shape(pattern)
        assert shape is not None  # checked when the field was built
        prefix, tail = shape
        if tail == "":
            if low == prefix:
                yield True if f.kind == "bool" else 1
        elif tail == "+#":
            signed = low.removesuffix("%")  # +20% as +20
            if len(signed) > 1 and signed[0] in "+-" and signed[1:].isdigit():
                yield integer(signed, f.name, f.allowed())
        elif low.startswith(prefix) and len(low) > len(prefix):
            rest = word[len(prefix) :]
            if tail == "*":
                yield from_text(f, rest, f.name)
            elif rest.isdigit():
                number = integer(rest, f.name, f.allowed())
                if f.kind == "choice":
                    if number in f.choices:
                        yield number
                else:
                    yield number
    if f.kind == "text" and f.pattern is not None and re.fullmatch(f.pattern, word):
        yield word
    key = low.replace("_", "-").replace(" ", "-")
    if f.kind == "preset" and key in f.presets:
        yield key
    if f.kind == "choice" and f.choice_words:
        for c in f.choices:
            if isinstance(c, str) and c.lower() == low:
                yield c


def meaning(word: str, system: System, contest: bool = False) -> Meaning:
    """What one quick word (or ``KEY=VALUE``) sets for a check of ``system``."""
    fields = [f for f in word_fields(system, contest) if _plain(f)]
    key, eq, value = word.partition("=")
    if eq and key and key[0].isalpha():
        name = key.strip().lower().replace("-", "_")
        for f in fields:
            flags = {o.lstrip("-").replace("-", "_") for o in f.option_strings}
            if name == f.name or name in flags:
                return Meaning(f, from_text(f, value, f.name))
        for f in house_fields(system):
            if name == f.name:
                return Meaning(f, from_text(f, value, f"{HOUSE}.{f.name}"), house=True)
        known = [f.name for f in fields] + [f.name for f in house_fields(system)]
        raise D100Error("word", word, "KEY=VALUE with KEY one of " + ", ".join(known), None)
    found = [(f, v) for f in fields for v in _matches(f, word)]
    if len({f.name for f, _ in found}) > 1:
        names = " and ".join(sorted({f.name for f, _ in found}))
        raise D100Error("word", word, f"a word of one field; say KEY=VALUE for {names}", None)
    if not found:
        elsewhere = [
            f"{s.name}'s {f.name}"
            for s in REGISTRY
            if s is not system
            for f in word_fields(s, contest)
            if _plain(f) and any(True for _ in _safe(f, word))
        ]
        reason = f"unknown word {word!r}"
        if elsewhere:
            reason += f" (a word of {', '.join(elsewhere[:3])}, not of {system.name})"
        raise D100Error("word", word, allowed(system, contest), reason)
    return Meaning(found[0][0], found[0][1])


def _safe(f: Field, word: str) -> Iterator[Any]:
    """``_matches`` where a bad value is no match: only to say whose word it is."""
    try:
        yield from _matches(f, word)
    except D100Error:
        return


def fields(words: Sequence[str], system: str, contest: bool = False) -> dict[str, Any]:
    """Quick words as the contract fields of a check (or a contest side) of ``system``;
    a field two words set is an error naming both (a list, such as modifiers, adds up)."""
    spec = REGISTRY.get(system)
    out: dict[str, Any] = {}
    house: dict[str, Any] = {}
    said: dict[str, str] = {}  # field -> the word that set it
    for word in words:
        m = meaning(word, spec, contest)
        where = f"{HOUSE}.{m.field.name}" if m.house else m.field.name
        if m.field.kind == "int_list":
            added = m.value if isinstance(m.value, list) else [m.value]
            out[where] = [*out.get(where, []), *added]
            continue
        if where in said:
            raise D100Error(
                where,
                word,
                f"one word for {where}",
                f"{said[where]!r} and {word!r} both set {where}",
            )
        said[where] = word
        (house if m.house else out)[m.field.name] = m.value
    if house:
        out[HOUSE] = house
    return out


def allowed(system: System, contest: bool = False) -> str:
    """The words a check of ``system`` takes, in words: its target's presets first."""
    target = system.declares.target
    parts: list[str] = []
    for f in word_fields(system, contest):
        if not _plain(f):
            continue
        names = list(f.presets) + _choice_words(f)
        shapes = [_shown(f, w) for w in f.words]
        if names or shapes:
            parts.append(f"{f.name} " + ", ".join([*names, *shapes]))
    parts.sort(key=lambda p: not p.startswith(target.field + " "))
    return "; ".join([*parts, "KEY=VALUE (a field or a house rule)"])


def _shown(f: Field, pattern: str) -> str:
    shape = word_shape(pattern)
    assert shape is not None
    prefix, tail = shape
    if tail == "+#":
        return "+N/-N"
    if tail == "#" and f.kind == "choice":
        return ", ".join(f"{prefix}{c}" for c in f.choices if c is not None)
    return prefix + {"#": "N", "*": f.name.upper(), "": ""}[tail]


def _choice_words(f: Field) -> list[str]:
    return [c for c in f.choices if isinstance(c, str)] if f.choice_words else []


def words_of(system: str, contest: bool = False) -> list[str]:
    """Words worth offering after a skill (completion): presets, choices and literal words."""
    out: list[str] = []
    for f in word_fields(REGISTRY.get(system), contest):
        if not _plain(f):
            continue
        out += list(f.presets) + _choice_words(f)
        for pattern in f.words:
            prefix, tail = word_shape(pattern) or ("", "*")
            if tail == "":
                out.append(prefix)
            elif tail == "#" and f.kind == "choice":
                out += [f"{prefix}{c}" for c in f.choices if c is not None]
            elif tail == "#":
                out.append(f"{prefix}1")
    return list(dict.fromkeys(out))


# -- the whole form ------------------------------------------------------------------------


def is_number(text: str) -> bool:
    """A number as players type it: ``65``, ``+20``, ``65%`` (a percentile skill's sign)."""
    digits = text.removesuffix("%").lstrip("+-")
    return (
        digits.isascii() and digits.isdigit()
    )  # ASCII only: ² is a digit to isdigit(), none to int()


def plain_form(tokens: Sequence[str]) -> bool:
    """Whether words are the quick form (a system's name or a skill first)."""
    return bool(tokens) and (tokens[0].lower() in REGISTRY or is_number(tokens[0]))


def read_command(text: str, system: str | None = None) -> Command | None:
    """The first system's reading of ``text`` as one of its chat-bot command forms
    (``Declaration.commands``), else None: only ``system``'s when one is given (a form such
    as ``CC<=65`` means other things in other editions), else every system's in the
    registry's order."""
    line = text.strip()
    for spec in (REGISTRY.get(system),) if system is not None else REGISTRY:
        if spec.declares.commands is not None and line:
            found = read_words(spec.declares.commands, line)
            if found is not None:
                return found if isinstance(found, Command) else Command(found)
    return None


def spoken_roll(tokens: Sequence[str], system: str | None = None) -> tuple[WordRoll, str] | None:
    """The chat-bot word's roll that is no check ``tokens`` ask (``coc7 .sc 1/1d6 60``,
    ``.en 侦查60``) and its system, a system named first taken; None for any other words."""
    found = dot_command(tokens, system)
    if found is None or found.roll is None:
        return None
    return found.roll, str(found.request["system"])


def question(tokens: Sequence[str], system: str | None = None) -> Command | None:
    """The chat-bot word ``tokens`` ask that sets nothing and tells something of the table's
    settings (SealDice's bare ``.setcoc``, ``.setcoc details``), a system named first taken;
    None for any other words. Its door says ``found.tells(settings)``, the settings it keeps
    of ``found.request["system"]``."""
    found = dot_command(tokens, system)
    return found if found is not None and found.tells is not None else None


def dot_command(tokens: Sequence[str], system: str | None = None) -> Command | None:
    """The chat-bot command ``tokens`` start with a dot to ask, a system named first taken."""
    said = list(tokens)
    if said and said[0].lower() in REGISTRY:
        system = REGISTRY.get(said.pop(0)).name
    if not said or not said[0].startswith("."):
        return None
    return read_command(" ".join(said), system)


def word_kind(kind: object) -> bool:
    """Whether a system declares a chat-bot word's roll of that kind (``word_roll``)."""
    return any(kind in spec.declares.word_rolls for spec in REGISTRY)


def word_roll(kind: object, request: object) -> WordRoll | None:
    """A chat-bot word's roll of that kind (``Declaration.word_rolls``: SealDice's ``.sc`` at
    a table) made again from its logged request; None where no system declares the kind."""
    for spec in REGISTRY:
        build = spec.declares.word_rolls.get(kind) if isinstance(kind, str) else None
        if build is not None:
            return build(request)
    return None


def command(text: str, system: str | None = None) -> dict[str, Any] | None:
    """The request of the first system that reads ``text`` as one of its command forms."""
    found = read_command(text, system)
    return None if found is None else dict(found.request)


PERCENTILE = re.compile(r"1?d100<=([0-9]+)", re.IGNORECASE)


@dataclass(frozen=True)
class Form:
    """A command form read from words: its request, the label written after it (kept and
    shown, as chat dice bots keep a comment), and whether it was asked secretly (BCDice's
    ``S`` prefix: ``SCC<=65``)."""

    request: dict[str, Any]
    label: str | None = None
    secret: bool = False
    repeat: int = 1  # rolled this many times (SealDice's ``3#``)
    defaults: Mapping[str, Any] = field(default_factory=dict)  # what the table's settings replace
    settings: Mapping[str, Any] = field(default_factory=dict)  # the table's, made, no roll
    roll: WordRoll | None = None  # a roll that is no check (SealDice's ``.sc``, ``.en``)
    named: str | None = None  # the skill named without a value: a sheet's (``Command.named``)
    who: str | None = None  # the character whose card rolls (``Command.who``, SealDice's @Bob)
    # what a word that sets nothing says of the table's settings (``Command.tells``)
    tells: Callable[[Mapping[str, Any]], str] | None = None


def percentile(word: str, system: str | None) -> dict[str, Any] | None:
    """``1d100<=65`` (or ``1D100<=65``, ``d100<=65``): a check of ``system`` with skill 65,
    whatever the system; None for any other word."""
    found = PERCENTILE.fullmatch(word)
    if found is None:
        return None
    if system is None:
        raise D100Error(
            "system",
            None,
            "one of " + ", ".join(REGISTRY.names()),
            f"{word} is a check of the chosen system, and no system is given",
        )
    return {"system": system, "skill": integer(found[1], "skill", "a skill %")}


def unsecret(word: str) -> str | None:
    """The word without BCDice's secret prefix ``S``, where it has one."""
    return word[1:] if len(word) > 1 and word[0] in "sS" else None


@dataclass(frozen=True)
class DiceWords:
    """A dice expression read from words: its text, the label after it, and whether it was
    asked secretly (BCDice's ``S`` prefix)."""

    text: str
    label: str | None
    secret: bool = False


def dice_words(words: Sequence[str]) -> DiceWords | None:
    """``[SYSTEM] EXPRESSION [LABEL...]``: a dice expression first (a system's name before it
    changes nothing: ``coc7 1d6`` is 1d6), its label after; None when the first word is none
    (a skill's number is a skill, never a constant)."""
    said = list(words)
    if len(said) > 1 and said[0].lower() in REGISTRY:
        said.pop(0)
    if not said or is_number(said[0]):
        return None
    for text, secret in ((said[0], False), (unsecret(said[0]), True)):
        if text is None:
            continue
        try:
            expressions.parse(text)
        except D100Error:
            continue
        return DiceWords(text, " ".join(said[1:]) or None, secret)
    return None


def form(
    tokens: Sequence[str], system: str | None = None, chosen: Callable[[], str] | None = None
) -> Form | None:
    """A command form (``system``'s, else any system's), or the percentile form of the system
    ``system`` or ``chosen()`` gives; quick words after it, then its label. None when the
    first word is no form."""
    if not tokens:
        return None

    def one(word: str) -> Command | None:
        if PERCENTILE.fullmatch(word):
            found = percentile(word, system or (chosen() if chosen is not None else None))
            return None if found is None else Command(found)
        return read_command(word, system)

    # The first word alone first: a form may take the rest of its line as a comment (BCDice
    # does), which would drop the words after it. The whole line for forms with spaces.
    secret, found = False, one(tokens[0])
    bare = unsecret(tokens[0])
    if found is None and bare is not None:
        secret, found = True, one(bare)
        secret = found is not None
    if found is not None and found.tells is not None and len(tokens) > 1:
        found = None  # a word that asks reads its whole line: .setcoc details
    if found is None:
        whole = read_command(" ".join(tokens), system)
        return None if whole is None else _form(whole, dict(whole.request))
    request = dict(found.request)
    words, label = labelled(tokens[1:], request["system"])
    more = fields(words, request["system"])
    for key in more:
        if key in request and key != HOUSE:
            raise D100Error(key, more[key], f"{key} once: {tokens[0]} gives it", "given twice")
    both = " ".join(t for t in (found.label, label) if t) or None
    return _form(found, merged(request, more), both, secret)


def _form(
    found: Command, request: dict[str, Any], label: str | None = None, secret: bool = False
) -> Form:
    """A form read: its request, its label and its secrecy, its own or the words' after it."""
    label, secret = label or found.label, secret or found.secret
    return Form(
        request,
        label,
        secret,
        found.repeat,
        found.defaults,
        found.settings,
        found.roll,
        found.named,
        found.who,
        found.tells,
    )


def no_setting(found: Form, text: str) -> Form:
    """A form that rolls: one that makes a table's setting (``.setcoc``) is refused where
    no table keeps it."""
    if found.settings:
        raise D100Error(
            "quick",
            text,
            "a roll; d100 shell keeps a setting for its session (on one line: --house "
            "NAME=VALUE or the word NAME=VALUE)",
            "a setting, not a roll",
        )
    if found.tells is not None:
        raise D100Error(
            "quick",
            text,
            "a roll; d100 roll, d100 shell, a table and Discord answer this word on its own",
            "a question of the table's settings, not a roll",
        )
    if found.who is not None:
        raise D100Error(
            "character",
            f"@{found.who}",
            "a door with character sheets: d100 roll --sheet, d100 shell --sheet, a table",
            f"@{found.who} rolls that character's card: no sheet here",
        )
    if found.roll is not None:
        raise D100Error(
            "quick",
            text,
            "a check; d100 roll and d100 shell roll this word (d100 roll coc7 .sc 1/1d6 60)",
            f"a roll of its own ({found.roll.word}), not a check",
        )
    if found.named is not None:
        raise D100Error(
            "quick",
            text,
            f"a skill with its value ({found.named}50): no character's sheet gives it here",
            f"no value given for {found.named}",
        )
    return found


Settings = Mapping[str, Mapping[str, Any]]  # a table's settings by system: its house rules


def from_command(
    tokens: Sequence[str], system: str | None = None, table: Settings | None = None
) -> Form | None:
    """A command form that rolls a check: the whole line, else its first word followed by
    quick words (``CC<=65 @42``), whose fields may not repeat the command's, then a label; its
    request with what it leaves to the table filled in, by ``table``'s settings of its system
    where it has them (SealDice's ``.ra``: the table's ``setcoc``), else by its defaults."""
    found = form(tokens, system)
    if found is None:
        return None
    no_setting(found, " ".join(tokens))
    kept = (table or {}).get(str(found.request["system"]), {}) if found.defaults else {}
    request = merged(merged(found.defaults, kept), found.request)
    return replace(found, request=request, defaults={})


def labelled(words: Sequence[str], system: str) -> tuple[list[str], str | None]:
    """Quick words, then the label: the words from the first that is no word of ``system``.
    A quick word after the label is refused, so ``CC<=65 Spot +20`` cannot hide a modifier."""
    spec = REGISTRY.get(system)
    for i, word in enumerate(words):
        if _is_word(word, spec):
            continue
        label = list(words[i:])
        late = next((w for w in label[1:] if _is_word(w, spec)), None)
        if late is not None:
            before = " ".join(label[: label.index(late)])
            raise D100Error(
                "word",
                late,
                "quick words first, then the label",
                f"{late!r} after the label {before!r}",
            )
        return list(words[:i]), " ".join(label)
    return list(words), None


def _is_word(word: str, system: System) -> bool:
    if "=" in word or word.startswith("@"):
        return True  # KEY=VALUE and given dice are never a label: their errors say why
    try:
        meaning(word, system)
    except D100Error:
        return False
    return True


def read(text: str | Sequence[str], system: str | None = None) -> dict[str, Any]:
    """The contract request ``text`` describes: ``[SYSTEM] SKILL WORDS...`` (``system`` is the
    one to use when the text names none), else a chat-bot command form a system declares."""
    return read_form(text, system).request


def read_form(
    text: str | Sequence[str], system: str | None = None, table: Settings | None = None
) -> Form:
    """``read``'s request with what a command form says of its roll beside it: its label,
    whether it was asked hidden (``SCC<=65``, SealDice's ``.rah``) and its repeats (``3#``);
    what a form leaves to the table taken from ``table``'s settings (``from_command``)."""
    tokens = text.split() if isinstance(text, str) else list(text)
    if len(tokens) > 1 and tokens[0].lower() in REGISTRY and not is_number(tokens[1]):
        found = from_command(tokens[1:], tokens[0].lower(), table)  # ``coc6 CC<=65``
        if found is not None:
            return found
    if not plain_form(tokens):
        line = text if isinstance(text, str) else " ".join(tokens)
        found = from_command(tokens, system, table)
        if found is not None:
            return found
        if tokens and expressions.looks_like(tokens[0]):
            expressions.parse(tokens[0])  # a broken expression: refused where it breaks
            raise D100Error(
                "quick",
                line,
                "a check; a dice expression rolls with d100 roll or d100.expressions.roll",
                "a dice expression, not a check",
            )
        forms = [s.name for s in REGISTRY if s.declares.commands is not None]
        allowed = "[SYSTEM] SKILL [WORDS...], e.g. brp 65 hard b1; or 1d100<=SKILL"
        if forms:
            allowed += "; or a command form of " + ", ".join(forms)
        raise D100Error("quick", line, allowed, "not a quick roll" if line.strip() else "empty")
    named = tokens.pop(0).lower() if tokens[0].lower() in REGISTRY else None
    chosen = named or system
    if chosen is None:
        raise D100Error("system", None, "one of " + ", ".join(REGISTRY.names()), "no system given")
    spec = REGISTRY.get(chosen)
    if not tokens or not is_number(tokens[0]):
        raise D100Error(
            "skill", tokens[0] if tokens else None, "a skill %, e.g. brp 65 hard", "no skill given"
        )
    skill_field = next((f for f in spec.check_fields if f.name == "skill"), None)
    allowed = "a skill %" if skill_field is None else skill_field.allowed()
    skill = integer(tokens.pop(0).removesuffix("%"), "skill", allowed)
    return Form({"system": spec.name, "skill": skill, **fields(tokens, spec.name)})


def parse(text: str | Sequence[str], system: str | None = None) -> CheckRequest:
    """The quick form as the system's typed check request (``BrpCheck``...), or the check a
    command form describes; the request is checked as any contract dict is. (``read`` gives
    the contract dict, a contest's too.)"""
    data = read(text, system)
    if "actor" in data or "opponent" in data:
        raise D100Error("quick", text, "a check (quick.read reads a contest)", "a contest")
    return cast(CheckRequest, parse_request(data))  # a check's dict: checked above


def merged(base: Mapping[str, Any], more: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with the fields of ``more``: lists add up, house rules merge by name, any other
    value is replaced."""
    out = dict(base)
    for key, value in more.items():
        old = out.get(key)
        if isinstance(old, list) and isinstance(value, list):
            out[key] = [*old, *value]
        elif isinstance(old, Mapping) and isinstance(value, Mapping):
            out[key] = {**old, **value}
        else:
            out[key] = value
    return out
