"""Chat-bot words that roll something other than a check (``Command.roll``: SealDice's
``.sc`` and ``.en``) on the command line and in the shell: ``d100 roll coc7 .sc 1/1d6 60``,
``d100 roll --sheet party.toml vera .en 侦查``. A system's reader says what the words ask;
here they are played under the table's house rules (``--house``, the shell's settings) and
what they change is written to the sheet."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from .. import quick
from ..declarations import WordRoll, WordRolled
from ..render.view import View, seg
from ..systems import REGISTRY
from . import flags
from .output import show


def read(
    typed: Sequence[str], parser: argparse.ArgumentParser, system: str | None = None
) -> tuple[WordRoll, str, str | None, list[str]] | None:
    """The word roll the line asks for, its system, who it is for (a character's name before
    the word), and the flags left for the command; None where the line is no such roll. Tokens a
    system's words take (SealDice's ``--half``) are left to them where the command has no
    such flag."""
    options = parser._option_string_actions
    own = [t for t in typed if not t.startswith("--") or t.partition("=")[0] in options]
    theirs = [t for t in typed if t not in own]
    from .quick import split  # here: that module imports this one

    flag_tokens, said = split(own, parser)
    if said and said[0].lower() in REGISTRY:
        system = REGISTRY.get(said.pop(0)).name
    who = None
    if len(said) > 1 and said[1].startswith(".") and not said[0].startswith("."):
        who = said.pop(0)
    found = quick.spoken_roll([*said, *theirs], system)
    if found is None:
        return None
    return found[0], found[1], who, flag_tokens


def run(
    ns: argparse.Namespace,
    roll: WordRoll,
    who: str | None,
    table: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Play the roll (a character's values from the sheet first), show it, write the sheet;
    the data shown as JSON."""
    from .roll import rng_of

    character = None
    if who is not None:
        ns.names = [who]
        character = flags.open_sheet(ns).get(who)
        roll = roll.with_sheet(character)
    house = dict(table or {})
    house.update(flags.house_rules(getattr(ns, "house", None) or ()))
    done = roll.play(house, rng_of(ns))
    lines = [(seg(f"  {label:<10} ", "label"), seg(text)) for label, text in done.lines]
    data: dict[str, Any] = dict(done.data)
    if character is not None:
        data["who"] = character.name
        if done.write is not None:
            lines.append((seg("  sheet      ", "label"), seg(write(ns.sheet, who, done), "warn")))
    view = View(((seg(done.title, "bold"),), *lines))
    data["view"] = viewed(done)
    show(ns, view, data)
    return data


def as_json(done: WordRolled) -> dict[str, Any]:
    """A word's roll as JSON gives it: its data and its view (title and lines)."""
    return {**done.data, "view": viewed(done)}


def viewed(done: WordRolled) -> dict[str, Any]:
    return {"title": done.title, "lines": [list(pair) for pair in done.lines]}


def write(path: str, who: str | None, done: Any) -> str:
    """What the roll changed, written to the sheet read afresh; atomic."""
    from ..sheets import load, save

    assert who is not None and done.write is not None
    sheet = load(path)
    character, said = done.write(sheet.get(who))
    save(path, sheet.put(character))
    return str(said)
