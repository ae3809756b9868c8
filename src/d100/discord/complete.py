"""Autocomplete of the quick form's words: the systems' names first, then each system's own
words (presets, choices, literal words: ``d100.quick.words_of``), never more than Discord's
25 choices of at most 100 characters."""

from __future__ import annotations

from .. import quick
from ..systems import REGISTRY
from .limits import CHOICE_MAX, NAME_MAX


def suggest(typed: str, system: str | None = None) -> list[tuple[str, str]]:
    """Choices (name, value) for the words typed so far: each the whole line with its last
    word completed, so picking one keeps what came before."""
    tokens = typed.split()
    done = typed.endswith(" ") or not typed
    partial = "" if done else tokens.pop()
    head = " ".join(tokens)
    named = tokens[0].lower() if tokens and tokens[0].lower() in REGISTRY else None
    chosen = named or (system if system in REGISTRY else None)
    if not tokens:
        candidates = [] if chosen else list(REGISTRY.names())
    elif chosen is None:
        candidates = []
    elif named and len(tokens) == 1:
        candidates = []  # the skill comes next: a number nobody can guess
    else:
        used = {t.lower() for t in tokens}
        candidates = [w for w in quick.words_of(chosen) if w.lower() not in used]
    found = [c for c in dict.fromkeys(candidates) if c.lower().startswith(partial.lower())]
    out = []
    for word in found:
        line = f"{head} {word}".strip()
        if len(line) <= NAME_MAX:
            out.append((line, line))
        if len(out) == CHOICE_MAX:
            break
    return out
