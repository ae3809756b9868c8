"""The short words a GM types after a skill, as in chat dice bots (``hard b1 +20 @33``), turned
into the flags of ``d100 check``: one translation for ``d100 roll`` and the shell alike.

What a word may mean comes from the system's declared request fields: the target's presets
(difficulty or risk) are those of its preset field, and a word for a field the system has not
got is refused by the same check as its flag."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import D100Error
from ..systems import REGISTRY
from .flags import SIDE_FLAGS

if TYPE_CHECKING:
    from ..sheets import Character

COUNTED = re.compile(r"^(bonus|b|penalty|p|aim|reroll)(\d*)$")
FLAG_OF = {
    "bonus": "--bonus",
    "b": "--bonus",
    "penalty": "--penalty",
    "p": "--penalty",
    "aim": "--aim",
    "reroll": "--reroll",
}
FIXED = {
    "boost": ["--luck-boost"],
    "luck": ["--luck-boost"],
    "take50": ["--take", "50"],
    "take100": ["--take", "100"],
}
SHAPES = (
    "+N/-N, bN/bonusN, pN/penaltyN, aimN, boost or luck, rerollN, take50, take100, @DICE, KEY=VALUE"
)
VALUELESS = frozenset(("--luck-boost", "--boost", "--json", "--plain"))


@dataclass(frozen=True)
class Target:
    """The field a system's checks are set against (difficulty or risk), its presets and the
    flag that sets it."""

    field: str
    presets: tuple[str, ...]
    flag: str


def target(system: str) -> Target:
    """The system's declared target and the flag that sets it."""
    declared = REGISTRY.get(system).declares.target
    flag = next(f.names[0] for f in SIDE_FLAGS if f.field == declared.field)
    return Target(declared.field, tuple(declared.presets), flag)


def allowed(system: str) -> str:
    return f"{target(system).field} {', '.join(target(system).presets)}; {SHAPES}"


def translate(words: Iterable[str], system: str) -> list[str]:
    """Quick-roll words as command-line flags for a check of ``system``."""
    out: list[str] = []
    aim = target(system)
    for word in words:
        low = word.lower()
        counted = COUNTED.match(low)
        if (word.startswith("-") and not re.fullmatch(r"-\d+", word)) or (
            out and _waits_for_value(out[-1])
        ):
            out.append(word)
        elif low in FIXED:
            out += FIXED[low]
        elif counted:
            out += [FLAG_OF[counted[1]], counted[2] or "1"]
        elif re.fullmatch(r"[+-]\d+", word):
            out.append(f"--mod={word}")
        elif word.startswith("@") and len(word) > 1:
            out += ["--dice", word[1:]]
        elif re.match(r"[A-Za-z][\w-]*=", word):
            key, _, value = word.partition("=")
            out += [f"--{key.replace('_', '-')}", value]
        elif low.replace("_", "-") in aim.presets:
            out += [aim.flag, low]
        else:
            raise D100Error("word", word, allowed(system), f"unknown word {word!r}")
    return out


def _waits_for_value(last: str) -> bool:
    """Whether the last passed-through ``--flag`` still waits for its value."""
    return last.startswith("-") and "=" not in last and last not in VALUELESS


def split_skill(character: Character, words: Sequence[str]) -> tuple[str, list[str]]:
    """A skill of several words (``spot hidden``) and the words after it.

    The longest run of words naming a skill exactly, or as the prefix of exactly one skill,
    wins, so ``spot`` stays Spot when the sheet has Spot Hidden too; one word falls back to
    the sheet's lookup (prefixes, did-you-mean)."""
    if not words:
        raise D100Error("SKILL", None, "one of " + ", ".join(character.skills), "no skill named")
    skills = list(character.skills)
    for n in range(len(words), 1, -1):
        asked = " ".join(words[:n]).lower()
        exact = [s for s in skills if s.lower() == asked]
        starts = [s for s in skills if s.lower().startswith(asked)]
        if exact or len(starts) == 1:
            return (exact or starts)[0], list(words[n:])
    from ..sheets import lookup

    return lookup(words[0], skills, f"{character.name}'s skill"), list(words[1:])


def completions(character: Character, typed: Sequence[str], text: str) -> list[str]:
    """The rest of each skill name that continues the words typed after the character, so a
    multi-word skill completes one word at a time (each with a space after it)."""
    before = " ".join(typed).lower()
    out = []
    for skill in character.skills:
        parts = skill.split()
        if len(parts) <= len(typed) or " ".join(parts[: len(typed)]).lower() != before:
            continue
        word = parts[len(typed)]
        if word.lower().startswith(text.lower()):
            out.append(word + " ")
    return sorted(set(out))
