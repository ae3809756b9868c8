"""SealDice's CoC7 words as aliases over coc7's own requests (SD-W1..SD-W8):
``.ra``/``.rc`` with difficulty prefixes glued to the name, ``b``/``p`` dice, ``3#`` repeats,
``.rah``/``.rch`` hidden; ``.rc`` judged by rule 0, ``.ra`` by the table's ``setcoc``, else rule
0 (decision S9); ``@Bob`` names the character whose card rolls (SD-W5); ``.sc`` and ``.en``
as SealDice plays them (``coc7_sealdice_words``); ``.setcoc N`` sets the table's rule and
``.setcoc`` alone (``details``, ``help``, any other word) tells of it, setting nothing
(``Command.tells``, SD-W8). Other dot-commands are refused, naming those taken."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from ..declarations import Command
from ..errors import D100Error
from . import coc7_sealdice_words, coc7_setcoc

NAME = "coc7"
# command word -> (hidden, forced rule): .rc/.rch force rule 0 (SD-W1), .rah/.rch are hidden
CHECKS: dict[str, tuple[bool, int | None]] = {
    "ra": (False, None),
    "rah": (True, None),
    "rc": (False, 0),
    "rch": (True, 0),
}
# SealDice's commands d100 reads elsewhere, or not at all, with what to say instead
ELSEWHERE = {
    "rav": "an opposed check: not available as a SealDice word (d100 contest)",
    "rcv": "an opposed check: not available as a SealDice word (d100 contest)",
}
SETCOC = "setcoc"  # SD-W8: sets the table's rule
OWN_RULES = {SETCOC: 0}  # the rule .rc asks, and .ra where the table sets none (SD-W1)
# what a check in these words may ask beside the table's rules (``Declaration``)
WORD_HOUSE_RULES = {SETCOC: frozenset(OWN_RULES.values())}
ROLLS = coc7_sealdice_words.READERS  # .sc, .en: rolls that are no check (SD-W6, SD-W7)
TAKEN = ", ".join(f".{c}" for c in (*CHECKS, *ROLLS, SETCOC))
# the longest first, so that .rah is not read as .ra and a name starting with h
_WORDS = sorted([*CHECKS, *ROLLS, *ELSEWHERE, SETCOC], key=len, reverse=True)
_COMMAND = re.compile(
    r"\.(" + "|".join(_WORDS) + r")(.*)",
    re.IGNORECASE | re.DOTALL,
)
_DOT = re.compile(r"\.[A-Za-z]+")
# SD-W2: difficulty words are prefixes glued to a name that is not all digits
WORDS = {
    "困难": "hard",
    "困難": "hard",
    "极难": "extreme",
    "極難": "extreme",
    "大成功": "critical",
    "常规": "regular",
    "常規": "regular",
    "失败": "regular",  # stripped, and read as regular (SD-W2)
    "失敗": "regular",
}
_REPEAT = re.compile(r"(\d+)#\s*")
_DICE = re.compile(r"([bBpP])(\d*)\s*")
_GLUE = re.compile(r"([^\d\s]+)\s+(\d+)")  # SD-W1 step 1: "侦查 50" is "侦查50"
_ATTRIBUTE = re.compile(
    r"(?P<word>" + "|".join(WORDS) + r")?"
    r"(?P<name>[^\d\s+\-@#]+)?(?P<value>\d+)?(?P<mods>(?:[+-]\d+)*)"
)
_NAME_WORD = re.compile(r"[^\d\s+\-@#]+")  # a word of a skill's name
_NAME_MODS = re.compile(r"(?P<name>[^\d\s+\-@#]+)(?P<mods>(?:[+-]\d+)+)")
_GIVEN = re.compile(r"@(\d+(?:,\d+)*)")
MAX_REPEAT = 10  # d100's own bound on one line's work
# the words a table's roll box offers as examples: a check, a hidden one, .sc and .en
EXAMPLES = (".ra Spot Hidden", ".rah 困难Spot Hidden", ".sc 1/1d6", ".en Library Use")


def _refuse(text: str, allowed: str, reason: str) -> D100Error:
    return D100Error("quick", text, allowed, reason)


def _setcoc(value: str) -> Command:
    """SD-W8: ``.setcoc N`` sets the table's rule, 0-5 or dg, as the house rule ``setcoc``;
    ``details`` tells every rule, ``help`` what the word takes, and anything else (nothing
    too) the table's rule, setting nothing. It takes one argument, its first word, as
    SealDice reads ``GetArgN(1)``."""
    said = next(iter(value.split()), "")
    found = next((v for v in coc7_setcoc.VALUES if str(v) == said.lower()), None)
    if found is None:
        tells = {"details": _details, "help": _help}.get(said.lower())
        return Command({"system": NAME}, tells=tells or functools.partial(_current, said))
    rule = int(found) if str(found).isdigit() else found
    told = f"SealDice rule {rule}: {coc7_setcoc.rule_of(rule).summary}"
    return Command({"system": NAME}, settings={"house_rules": {"setcoc": rule}}, told=told)


SETCOC_TAKES = "0, 1, 2, 3, 4, 5 or dg"


def _current(asked: str, settings: Mapping[str, Any]) -> str:
    """The table's rule in SealDice's words: the one it set, else SealDice's default (rule
    0, ``DefaultCocRuleIndex``); a word ``.setcoc`` does not take is named after it, as
    SealDice answers it with the rule and sets nothing."""
    kept = settings.get("house_rules", {}).get(SETCOC)
    if kept is None:
        default = coc7_setcoc.RULES["0"].summary
        said = f"SealDice rule 0 (SealDice's default: no rule set): {default}"
    elif str(kept) in coc7_setcoc.RULES:
        said = f"SealDice rule {kept}: {coc7_setcoc.rule_of(kept).summary}"
    else:  # a house rule typed by hand (--house setcoc=9): a check refuses it, with why
        said = f"setcoc {kept}: not one of SealDice's rules ({SETCOC_TAKES})"
    if asked:
        said += f" ({asked!r} sets nothing: .setcoc takes {SETCOC_TAKES}, details or help)"
    return said


def _details(settings: Mapping[str, Any]) -> str:
    """SD-W8 ``details``: every rule's text, one a line."""
    return "\n".join(f"SealDice rule {k}: {r.summary}" for k, r in coc7_setcoc.RULES.items())


def _help(settings: Mapping[str, Any]) -> str:
    """SD-W8 ``help``: what ``.setcoc`` takes."""
    return (
        f".setcoc N sets the table's rule for criticals and fumbles ({SETCOC_TAKES}; the "
        "GM's at a table); .setcoc details lists them; .setcoc alone says the rule in use "
        "(rule 0 where none is set). .ra, .sc and .en are judged by it, .rc always by rule 0."
    )


def read(text: str) -> Command | None:
    """A SealDice check as coc7's request, its label (the name and the reason), hidden or
    not, and its repeats; None for text that is no dot-command, or a bare command word (its
    words follow). An unknown dot-command, or one d100 reads elsewhere, is refused."""
    line = text.strip()
    found = _COMMAND.match(line)
    if found is None:
        if _DOT.match(line):
            typed = line.split()[0]
            raise _refuse(typed, f"one of {TAKEN}", f"unknown SealDice command {typed}")
        return None
    command, rest = found[1].lower(), found[2].strip()
    if command in ELSEWHERE:
        raise _refuse(line, f"one of {TAKEN}", f".{command} {ELSEWHERE[command]}")
    if command == SETCOC:  # alone too: it says the table's rule (SD-W8)
        return _setcoc(rest)
    if not rest:
        return None
    if command in ROLLS:
        return ROLLS[command](rest)
    hidden, rule = CHECKS[command]
    fields: dict[str, Any] = {}
    repeat = 1
    if m := _REPEAT.match(rest):
        repeat, rest = int(m[1]), rest[m.end() :]
        if not 1 <= repeat <= MAX_REPEAT:
            raise D100Error("repeat", repeat, f"1..{MAX_REPEAT}", "SealDice's N# repeats")
    if rest[:1] in ("b", "B", "p", "P"):  # SD-W4, step 2 of SD-W1: the dice, then the rest
        m = _DICE.match(rest)
        assert m is not None
        count = int(m[2] or 1)
        fields["bonus_dice" if m[1] in "bB" else "penalty_dice"] = count
        rest = rest[m.end() :]
    elif rest[:1] == "(":
        raise _refuse(line, "a skill: 侦查50, 50, 侦查50+10", "dice expressions are not taken")
    else:
        rest = _GLUE.sub(r"\1\2", rest)
    if not rest.strip():  # .raB2 alone: its skill is in the words that follow
        return None
    head, _, reason = rest.strip().partition(" ")
    m = _ATTRIBUTE.fullmatch(head)
    if m is None or not (m["value"] or m["name"] or m["word"]):
        raise _refuse(
            line,
            "a skill: 侦查 (a character card's), 侦查50, 困难侦查50, 50, 侦查50+10",
            "no skill given",
        )
    word, name = m["word"], m["name"]
    if name is None:  # 困难50: a name 困难, regular (SD-W2)
        name = word
    elif word is not None and WORDS[word] != "regular":
        fields["difficulty"] = WORDS[word]
    parts, glued = reason.split(), m["mods"]
    if m["value"] is None and not glued and m["name"]:  # spot hidden+20: one name, +20
        name, glued, parts = _glued(name, parts)
    mods = [int(x) for x in re.findall(r"[+-]\d+", glued)]
    if mods:
        fields["modifiers"] = mods
    label = [name] if name else []
    who = None  # SD-W5: @someone, whose card the check rolls
    for part in parts:
        given = _GIVEN.fullmatch(part)
        if given is not None:
            fields["dice"] = [int(v) for v in given[1].split(",")]
        elif part.startswith("@"):
            if who is not None or len(part) == 1:
                allowed = "@NAME once, the character whose card rolls; or @DICE, dice by hand"
                raise _refuse(part, allowed, "a second @someone, or no name after @")
            who = part[1:]
        else:
            label.append(part)
    request: dict[str, Any] = {"system": NAME, **fields}
    named = None  # 侦查 alone: its value is a character card's (SD-W1)
    if m["value"] is None:
        named = name
    else:
        request["skill"] = int(m["value"])
    said = " ".join(label) or None
    house = {"house_rules": OWN_RULES}  # .rc's own, .ra's where the table sets none
    if rule is not None:
        return Command({**request, **house}, said, hidden, repeat, named=named, who=who)
    return Command(request, said, hidden, repeat, house, named=named, who=who)


def _glued(name: str, parts: list[str]) -> tuple[str, str, list[str]]:
    """A name of several words whose last carries the modifier (``.ra spot hidden+20``):
    the whole name, its modifier and the words after it; else the name alone, no modifier
    and the words as they were (``.ra spot hidden``: the sheet reads a prefix)."""
    for i, part in enumerate(parts):
        found = _NAME_MODS.fullmatch(part)
        if found is not None:
            return " ".join([name, *parts[:i], found["name"]]), found["mods"], parts[i + 1 :]
        if not _NAME_WORD.fullmatch(part):
            break
    return name, "", parts
