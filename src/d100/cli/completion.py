"""``d100 completion bash|zsh|fish``: a tab-completion script generated from the parser, so it
always knows every command and flag this d100 has."""

from __future__ import annotations

import argparse
from typing import Any

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


def run(ns: argparse.Namespace) -> int:
    import shtab  # only here: no other command needs it

    from . import build_parser  # here, not at the top: the package imports this module

    print(shtab.complete(build_parser(), shell=ns.shell), end="")
    return 0
