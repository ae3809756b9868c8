"""Skills of several words on a sheet (``spot hidden``): which words name the skill, which
follow it, and their completion. What the words after a skill mean is ``d100.quick``'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import D100Error

if TYPE_CHECKING:
    from ..sheets import Character


def split_skill(character: Character, words: Sequence[str]) -> tuple[str, list[str]]:
    """A skill of several words (``spot hidden``) and the words after it.

    The longest run of words naming a skill exactly, or as the prefix of exactly one skill,
    wins, so ``spot`` stays Spot when the sheet has Spot Hidden too; one word falls back to
    the sheet's lookup (prefixes, did-you-mean)."""
    if not words:
        raise D100Error("SKILL", None, "one of " + ", ".join(character.rollable), "no skill named")
    skills = list(character.rollable)
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
    for skill in character.rollable:
        parts = skill.split()
        if len(parts) <= len(typed) or " ".join(parts[: len(typed)]).lower() != before:
            continue
        word = parts[len(typed)]
        if word.lower().startswith(text.lower()):
            out.append(word + " ")
    return sorted(set(out))
