"""``d100 roll``: the quick form for people who type fast, as in chat dice bots.

``d100 roll brp 65 hard b1`` is ``d100 check -s brp --skill 65 --difficulty hard --bonus 1``:
the words are read by ``d100.quick`` (each system's declared words) into the fields of the same
request ``d100 check`` rolls, so the quick form can do nothing the full one cannot. Flags of
``d100 check`` may come anywhere among the words. With a sheet,
``d100 roll alice spot hidden hard``; text in a system's chat-bot command form (``CC<=65``)
is that system's request."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import quick
from ..declarations import Command
from ..errors import D100Error
from ..render.view import View, line
from ..systems import REGISTRY
from . import actions, dice, flags, sanity, word_rolls, words
from .output import show
from .roll import add_cover, rng_of, run_check

if TYPE_CHECKING:
    from ..sheets import Character, Sheet

HELP = """\
A check in a few words: [SYSTEM] SKILL [WORDS...], or WHO SKILL [WORDS...] with a sheet;
or dice: d100 roll EXPRESSION [LABEL...], with the mean and the chance of the total or more.

words (each system declares its own; a wrong one lists them): a difficulty or risk name (hard,
tough), +N/-N (a modifier), the system's field words (brp: bN or bonusN, pN, aimN, boost or
luck, rerollN; chances: take50), @DICE (dice rolled by hand: @42,7; @00 is 100), KEY=VALUE (a
flag of d100 check, a field or a house rule: ability=10 assist=40@33), and any --flag of
d100 check (--seed 7, --json), anywhere. Two words for one field are an error. A system's
chat-bot command form is read as that system's check, and 1d100<=SKILL as a check of the
chosen system; words after a form that are none of its words are its label. BCDice's secret
prefix S is taken (SCC<=65), though nothing is hidden here. A system's own requests read
their own words: CoC7's full auto FAR(bullets,skill,malfunction[,bonus,stop,volley]) and
several shots, SKILL shotsN [dmg=EXPR] [bN|pN] [aim] [malN] [normal|long|extreme...], its full
auto, SKILL autoN [volleyN] [volleysN] and the same words, and an attack that rolls its damage
when it hits, SKILL dmg=EXPR [db=EXPR] [impale] [hard|extreme] [bN|pN] [vsN dodge|fight]
(S7-6: extreme damage on an extreme success, an impale for an impaling weapon).

a Sanity roll: [SYSTEM] sc LOSS SAN [int=N mythos=N today=N ...], or WHO sc LOSS with a sheet
(coc7 sc 1/1d6 60; docs/cli.md, Sanity rolls). SealDice's .sc and .en as SealDice plays them,
under --house setcoc=N (docs/editions.md).

dice expressions: NdM, + and -, whole numbers, keep highest or lowest (4d6kh3, 2d20kl1),
DB with --db (d100 roll 1d8+DB --db +1d4) and half(DB) for a thrown weapon (S7-6).

The system is the first word, else --system, else $D100_SYSTEM, else system = "NAME" in
$XDG_CONFIG_HOME/d100/config.toml (which may also name the default sheet: sheet = "FILE").

examples:
  d100 roll brp 65 hard b1
  d100 roll openquest 55 +20 @33
  d100 roll --json brp 50 @00
  d100 roll chances 40 tough ability=10
  D100_SYSTEM=brp d100 roll 65
  d100 roll --sheet party.toml alice spot hidden hard
  d100 roll --sheet party.toml erin perception assist=finn@20 @44
  d100 roll 1d6+1d4 --seed 7
  d100 roll 4d6kh3 strength --seed 7
  d100 roll 1d8+DB --db +1d4 club --seed 7
  d100 roll coc7 '1D100<=65' --seed 7
  d100 roll coc7 'CC<=65' Spot Hidden --seed 7
  d100 roll coc7 sc 1/1d6 60 int=70 --seed 7
  d100 roll coc7 .sc 1/1d6 60 --seed 7
  d100 roll .en 侦查60 +1d5 --seed 7
  d100 roll coc7 'FAR(30,62,98)' --seed 7
  d100 roll coc7 55 shots3 long mal98 --seed 7
  d100 roll coc7 60 dmg=1d4+DB db=+1d4 impale vs40 knife --seed 7
"""


def register(sub: Any) -> None:
    p = sub.add_parser("roll", description=HELP)
    flags.add_sheet(p)
    flags.add_system(p)
    flags.add_side_flags(p)
    flags.add_check_flags(p)
    flags.add_roll(p)
    flags.add_output(p)
    add_cover(p)
    dice.add_db(p)
    p.add_argument(
        "words",
        nargs=argparse.REMAINDER,
        metavar="[SYSTEM] SKILL WORDS",
        help="a skill %% (or WHO SKILL with a sheet), quick words and flags, in any order",
    )
    p.set_defaults(run=run, parser=p, repeat=1)


def command_parser(command: str) -> argparse.ArgumentParser:
    from . import build_parser  # here, not at the top: the package imports this module

    top = build_parser(command)
    action = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    chosen: argparse.ArgumentParser = action.choices[command]
    return chosen


def split(tokens: Sequence[str], parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """Flags (with their values) and words, wherever the flags are; ``KEY=VALUE`` is a flag
    where the command has ``--KEY``."""
    options = parser._option_string_actions
    flag_tokens: list[str] = []
    said: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        key, eq, value = token.partition("=")
        as_flag = "--" + key.replace("_", "-").lower()
        if token.startswith("-") and not quick.is_number(token):
            flag_tokens.append(token)
            action = options.get(key)
            if action is not None and action.nargs != 0 and not eq and i + 1 < len(tokens):
                value = tokens[i + 1]
                if value.startswith("-"):  # --db -1: a value argparse would take for a flag
                    flag_tokens[-1] = f"{token}={value}"
                else:
                    flag_tokens.append(value)
                i += 1
        elif eq and key[:1].isalpha() and as_flag in options:
            flag_tokens += [as_flag, value]
        else:
            said.append(token)
        i += 1
    return flag_tokens, said


def dice_as_flags(said: Sequence[str], system: str) -> tuple[list[str], list[str]]:
    """The words for given dice as their flag, for a group's dice split by ``/`` per member;
    the other words as they are."""
    loose: list[str] = []
    rest: list[str] = []
    for f in quick.word_fields(REGISTRY.get(system)):
        if f.kind != "dice" or not f.option_strings:
            continue
        prefixes = [p[:-1] for p in f.words if p.endswith("*")]
        for word in said:
            hit = next((p for p in prefixes if word.startswith(p) and len(word) > len(p)), None)
            if hit is None:
                rest.append(word)
            else:
                loose += [f.option_strings[0], word[len(hit) :]]
        return loose, rest
    return [], list(said)


def prepare(
    tokens: Sequence[str],
    sheet: str | None = None,
    command: str = "check",
    extra: Sequence[str] = (),
) -> argparse.Namespace:
    """The namespace of ``command`` (check, odds...) that a line of quick words and flags
    describes (the shell's lines; ``extra``: its own flags)."""
    from . import build_parser, parse  # here, not at the top: the package imports this module

    flag_tokens, said = split(tokens, command_parser(command))
    ns = parse(build_parser(command), [command, *flag_tokens, *extra])
    ns.sheet = ns.sheet or sheet
    return fill(ns, said, tokens)


def fill(ns: argparse.Namespace, said: list[str], typed: Sequence[str]) -> argparse.Namespace:
    """The words given to a check's namespace: by numbers, by a sheet's names, or a command
    form (a system's, or ``1d100<=SKILL`` of the chosen system) with its label."""
    dice.no_db(ns)
    if said and not quick.plain_form(said):
        found = quick.form(said, chosen=lambda: flags.system_of(ns))
        if found is not None:
            return _given(ns, found)
    named = said.pop(0).lower() if said and said[0].lower() in REGISTRY else None
    if named is not None and said and not quick.is_number(said[0]):
        found = quick.form(said, named)  # ``coc6 CC<=65``: that system's form
        if found is not None:
            return _given(ns, found)
    if not said:
        raise D100Error(
            "SKILL",
            " ".join(typed) or None,
            "a skill %, e.g. d100 roll brp 65 hard, or WHO SKILL with a sheet",
            "no skill given",
        )
    if quick.is_number(said[0]):
        ns.system = named or flags.system_of(ns)
        return _given(ns, quick.Form(quick.read(said, ns.system)))
    dice.refuse_lookalike(ns, said)
    ns.names = said
    book = flags.open_sheet(ns)
    who, said = _who(book, said)
    if named is not None and named != who.system:
        raise D100Error(
            "SYSTEM", named, f"{who.name}'s system, {who.system}", f"{who.name} plays {who.system}"
        )
    skill, after = words.split_skill(who, said[1:])
    ns.names = [who.name, skill]
    ns.quick = quick.fields(after, who.system)
    return ns


def _who(book: Sheet, said: list[str]) -> tuple[Character, list[str]]:
    """The character the first word names, and the words from that name on; a sheet of one
    character (a character file) needs no name, so ``d100 roll coc7 DEX hard`` rolls its
    DEX."""
    try:
        return book.get(said[0]), said
    except D100Error:
        if book.layout != "character":
            raise
    (only,) = book.characters
    return only, [only.name, *said]


def _given(ns: argparse.Namespace, found: quick.Form) -> argparse.Namespace:
    """A request read from words, given to the namespace: its system, its skill (never also a
    flag's), the rest as words, and the form's label and secrecy; a character named after it
    (SealDice's ``@Bob``) rolls the skill named on that character's card."""
    if found.who is not None:
        return _carded(ns, found, found.who)
    request = dict(quick.no_setting(found, " ".join(getattr(ns, "words", None) or ())).request)
    ns.system = request.pop("system")
    skill = request.pop(flags.SKILL, None)
    if skill is not None:
        if getattr(ns, flags.SKILL, None) is not None:
            raise D100Error("--skill", ns.skill, "a skill once: the word or --skill", "both given")
        ns.skill = str(skill)
    ns.names = []
    return _asked(ns, found, request)


def _carded(ns: argparse.Namespace, found: quick.Form, who: str) -> argparse.Namespace:
    """SD-W5 ``.ra 侦查 @Bob``: the check of the skill named, as the sheet's character Bob
    has it, with the word's own fields (difficulty, dice, modifiers), label and repeats."""
    if not flags.sheet_path(ns):
        why = f"@{who} names a character: no sheet"
        raise D100Error("--sheet", f"@{who}", flags.sheet_ways(), why)
    if found.named is None:
        allowed = f"the skill named alone, its value the card's: .ra 侦查 @{who}"
        raise D100Error("skill", found.label, allowed, f"@{who}'s card gives the value")
    request = dict(found.request)
    system = request.pop("system")
    character = flags.open_sheet(ns).get(who)
    if character.system != system:
        why = f"{character.name} plays {character.system}"
        raise D100Error("character", f"@{who}", f"a character who plays {system}", why)
    ns.names = [character.name, character.skill(found.named)]
    return _asked(ns, found, request)


def _asked(
    ns: argparse.Namespace, found: quick.Form, request: dict[str, Any]
) -> argparse.Namespace:
    """``ns`` asking the form's check: its request (its system and skill taken out), label,
    secrecy, repeats and what the table's settings replace."""
    ns.quick = request
    ns.label = found.label
    ns.secret = found.secret
    ns.repeat = found.repeat
    ns.defaults = found.defaults
    return ns


def tell(ns: argparse.Namespace, asks: Command, kept: Mapping[str, Any]) -> None:
    """What a word that sets nothing says (``Command.tells``) of the settings ``kept``: its
    lines, or ``{"told": ...}`` with --json."""
    assert asks.tells is not None
    said = asks.tells(kept)
    show(ns, View(tuple(line(text) for text in said.splitlines())), {"told": said})


def run(ns: argparse.Namespace) -> int:
    typed = list(ns.words)
    special = word_rolls.read(typed, ns.parser, ns.system)
    if special is not None:  # SealDice's .sc, .en: a roll that is no check
        roll, _, who, flag_tokens = special
        ns = ns.parser.parse_args(flag_tokens, namespace=ns)
        word_rolls.run(ns, roll, who)
        return 0
    flag_tokens, said = split(typed, ns.parser)
    ns = ns.parser.parse_args(flag_tokens, namespace=ns)  # flags among the words, too
    asks = quick.question(said, ns.system)
    if asks is not None:  # SealDice's .setcoc alone: the rule --house sets, else the default
        kept = {quick.HOUSE: flags.house_rules(getattr(ns, "house", None) or [])}
        tell(ns, asks, kept)
        return 0
    losing = sanity.read(ns, said)
    if losing is not None:
        return sanity.run_roll(ns, losing)
    asked = quick.dice_words(said)
    if asked is not None:
        return dice.run_roll(ns, asked)
    action = actions.read(said, ns)
    if action is not None:
        return actions.run(ns, action)
    ns = fill(ns, said, typed)
    if ns.repeat > 1:  # SealDice's 3#: one source for every roll, so a seed repeats them all
        ns.rng = rng_of(ns)
    for _ in range(ns.repeat):
        run_check(ns)
    return 0
