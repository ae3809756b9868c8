"""``d100 completion bash|zsh|fish``: a tab-completion script generated from the parser, so it
always knows every command and flag this d100 has."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from .. import quick
from ..systems import REGISTRY
from . import flags

SHELLS = ("bash", "zsh", "fish")
HELP = """\
Print a tab-completion script for your shell, generated from d100's own parser.

install:
  bash:  d100 completion bash > ~/.local/share/bash-completion/completions/d100
  zsh:   d100 completion zsh > "${fpath[1]}/_d100"
  fish:  d100 completion fish > ~/.config/fish/completions/d100.fish

examples:
  d100 completion bash
  eval "$(d100 completion bash)"
"""


def register(sub: Any) -> None:
    p = sub.add_parser("completion", description=HELP)
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    p.set_defaults(run=run)


# Arguments that name a file, by their namespace attribute.
FILES = frozenset({"sheet", "log", "output", "path"})


def run(ns: argparse.Namespace) -> int:
    import shtab  # only here: no other command needs it

    from . import build_parser  # here, not at the top: the package imports this module

    parser = build_parser()
    offer(parser, shtab.FILE)
    print(shtab.complete(parser, shell=ns.shell), end="")
    return 0


def offer(parser: argparse.ArgumentParser, files: object) -> None:
    """What to complete for each argument of a parser built for completion only (so choices
    given here refuse nothing): files for files, the registry's systems, each field's words
    (its presets and choices, in every system) and, for the quick form, systems and words."""
    words = _field_words()
    quick_words = list(REGISTRY.names())
    for system in REGISTRY.names():
        quick_words += [w for w in quick.words_of(system) if w not in quick_words]
    for action in _actions(parser):
        if action.dest in FILES:
            action.complete = files  # type: ignore[attr-defined]
        elif action.dest == "system":
            action.choices = list(REGISTRY.names())
        elif action.dest == "words":
            action.choices = quick_words
        elif action.option_strings and words.get(action.dest) and action.choices is None:
            action.choices = words[action.dest]


def _field_words() -> dict[str, list[str]]:
    """Each field flag's words: the presets and choices its field has in any system."""
    out: dict[str, list[str]] = {}
    for system in REGISTRY:
        for f in quick.word_fields(system):
            named = list(f.presets) + [c for c in f.choices if isinstance(c, str)]
            have = out.setdefault(flags.dest_of(f.name), [])
            have += [w for w in named if w not in have]
    return out


def _actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _actions(sub)
