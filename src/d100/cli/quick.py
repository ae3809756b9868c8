"""``d100 roll``: the quick form for people who type fast, as in chat dice bots.

``d100 roll brp 65 hard b1`` is ``d100 check -s brp --skill 65 --difficulty hard --bonus 1``:
the words become the flags of ``d100 check`` and the same code rolls, so the quick form can do
nothing the full one cannot. With a sheet, ``d100 roll alice spot hidden hard``."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import D100Error
from ..systems import REGISTRY
from . import flags, words
from .roll import run_check

HELP = """\
A check in a few words: [SYSTEM] SKILL [WORDS...], or WHO SKILL [WORDS...] with a sheet.

words: a difficulty or risk name (hard, tough), +N/-N (a modifier), bN or bonusN, pN or
penaltyN (brp's bonus and penalty dice), aimN, boost or luck (a Luck boost), rerollN (Luck
rerolls), take50/take100, @DICE (dice rolled by hand: @42,7; @00 is 100), KEY=VALUE (any flag
of d100 check: ability=10 assist=40@33), or --flags of d100 check (--seed 7, --json).

The system is the first word, else --system, else $D100_SYSTEM, else system = "NAME" in
$XDG_CONFIG_HOME/d100/config.toml (which may also name the default sheet: sheet = "FILE").

examples:
  d100 roll brp 65 hard b1
  d100 roll openquest 55 +20 @33
  d100 roll brp 50 @00
  d100 roll chances 40 tough ability=10
  D100_SYSTEM=brp d100 roll 65
  d100 roll --sheet party.toml alice spot hidden hard
  d100 roll --sheet party.toml erin perception assist=finn@20 @44
"""


def register(sub: Any) -> None:
    p = sub.add_parser("roll", description=HELP)
    flags.add_system(p)
    flags.add_sheet(p)
    p.add_argument(
        "words",
        nargs=argparse.REMAINDER,
        metavar="[SYSTEM] SKILL WORDS",
        help="a skill %% (or WHO SKILL with a sheet) and quick words",
    )
    p.set_defaults(run=run)


def check_argv(typed: list[str], ns: argparse.Namespace) -> list[str]:
    """The ``d100 check`` command line that quick words describe.

    ``ns`` holds ``system`` and ``sheet`` (either may be None: then the environment's, then
    the config file's)."""
    rest = list(typed)
    named = rest.pop(0).lower() if rest and rest[0].lower() in REGISTRY else None
    if not rest:
        raise D100Error(
            "SKILL",
            " ".join(typed) or None,
            "a skill %, e.g. d100 roll brp 65 hard, or WHO SKILL with a sheet",
            "no skill given",
        )
    if flags.is_number(rest[0]):
        system = named or flags.system_of(ns)
        return ["check", "--system", system, "--skill", rest[0], *words.translate(rest[1:], system)]
    ns.names = rest
    sheet = flags.open_sheet(ns)
    who = sheet.get(rest[0])
    if named is not None and named != who.system:
        raise D100Error(
            "SYSTEM", named, f"{who.name}'s system, {who.system}", f"{who.name} plays {who.system}"
        )
    skill, after = words.split_skill(who, rest[1:])
    return ["check", "--sheet", ns.sheet, who.name, skill, *words.translate(after, who.system)]


def parse_check(argv: list[str]) -> argparse.Namespace:
    from . import build_parser, parse  # here, not at the top: the package imports this module

    return parse(build_parser("check"), argv)


def run(ns: argparse.Namespace) -> int:
    return run_check(parse_check(check_argv(ns.words, ns)))
