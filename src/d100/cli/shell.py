"""``d100 shell``: a prompt for a session at the table, one short line per roll.

A line is translated into the flags of ``d100 check`` / ``contest`` / ``group`` / ``odds`` and
run by the same code, so the shell can do nothing the commands cannot; every roll is appended
to a JSON Lines session log, and the lines typed are kept for the next session."""

from __future__ import annotations

import argparse
import cmd
import contextlib
import json
import os
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import quick as quick_words
from ..errors import D100Error
from ..result_view import inputs_text
from ..sheets import Character, Sheet, load
from ..systems import REGISTRY
from . import config, flags, quick, word_rolls, words
from .follow import Followable, offers_view, take
from .odds import run as run_odds
from .output import show
from .parser import describe
from .roll import contest, group, opposed_skill, rng_of, rolled_check
from .sheet import run_rest, run_show

HELP = """\
An interactive prompt for a session: characters and skills from the sheet, tab completion,
history kept between sessions, Luck written back, every roll appended to the session log.
Without a sheet it rolls by numbers: `brp 65 hard b1`, or `65 hard` with $D100_SYSTEM set.

lines:
  alice stealth hard            a check: WHO SKILL and words
  alice spot hidden +10 b1 boost reroll @42,7
  brp 65 hard b1                a quick roll by numbers: [SYSTEM] SKILL and words
  .ra spot hidden+20 @alice     a chat-bot word (SealDice's), @WHO the sheet's character
  .setcoc 2 | .setcoc           a setting for the session; alone: the one in use
  bob vs alice sneaking/hearing  a contest: ACTOR vs OPPONENT SKILL[/OPPOSING SKILL]
  bob vs alice sneaking @42 vs @17 hard   the actor's words, then the opponent's after vs
  group stealth hard            everyone with the skill tests it (OQ10, CH8)
  odds alice stealth hard       the exact odds, no roll (also: odds bob vs alice stealth)
  reroll | push | luck ...      what may follow the last check, as its `then` line offers
                                (the key, then @DICE if rolled by hand)
  rest [WHO]                    a full night's rest: Luck back to maximum (BRP7)
  show [WHO]                    the sheet
  history | help | quit

words: as d100 roll takes them, each system's own (a wrong one lists them): its target's
presets (hard, tough), +N/-N (modifier), its field words (brp: b1, boost, reroll; chances:
take50), @DICE (dice rolled by hand, @00 is 100), KEY=VALUE (a flag, a field or a house rule,
e.g. risk=80 ability=dex assist=bob@20), or --flags.

examples:
  d100 shell --sheet party.toml
  d100 shell --sheet party.toml --log tonight.jsonl --seed 7
  d100 shell
"""
COMMANDS = ("odds", "group", "roll", "rest", "show", "history", "help", "quit", "exit")
HISTORY_LINES = 1000


def register(sub: Any) -> None:
    p = sub.add_parser("shell", description=HELP)
    flags.add_sheet(p)
    p.add_argument("--log", default="d100-session.jsonl", help="the session log (JSON Lines)")
    flags.add_roll(p)
    flags.add_colour(p)
    p.set_defaults(run=run)


class Shell(cmd.Cmd):
    intro = "d100 shell: `help` for the lines, tab completes names, `quit` or Ctrl-D to leave."
    prompt = "d100> "

    def __init__(self, ns: argparse.Namespace) -> None:
        super().__init__()
        self.ns = ns
        self.sheet_path: str | None = ns.sheet
        self.log = Path(ns.log)
        self.lines: list[str] = []
        self.count = 0
        self.last: Followable | None = None  # the last check, for what may follow it
        self.keys: set[str] = set()  # every follow-up offered: one typed later is refused
        # the session's settings by system, made by a form such as SealDice's .setcoc
        self.table: dict[str, dict[str, Any]] = {}

    # -- lines ---------------------------------------------------------------------------

    @property
    def sheet(self) -> Sheet:
        """The sheet, read afresh: Luck and hand edits between rolls."""
        if self.sheet_path is None:
            raise D100Error(
                "sheet", None, flags.sheet_ways(), "this shell has no sheet: roll by numbers"
            )
        return load(self.sheet_path)

    def onecmd(self, line: str) -> bool:
        if line.strip() and line != "EOF":
            self.lines.append(line)
        try:
            return super().onecmd(line)
        except D100Error as err:
            print(f"error: {describe(err)}")
        except SystemExit:  # argparse already printed its one line
            pass
        return False

    def emptyline(self) -> bool:
        return False

    def default(self, line: str) -> None:
        typed = shlex.split(line)
        if typed and self._follows(typed[0]):
            self.follow(typed)
        elif len(typed) >= 3 and typed[1].lower() == "vs":
            self.contest(typed)
        else:
            self.roll(typed)

    def _follows(self, word: str) -> bool:
        """Whether a line's first word takes a follow-up of the last check: a key it offers,
        and no character's name (a name is a roll, as ever)."""
        if word.lower() in (n.lower() for n in self._names()):
            return False
        return word.lower() in self.keys

    def _offered(self, last: Followable) -> None:
        self.keys.update(f.key for f in last.offers())

    def follow(self, typed: list[str]) -> None:
        if self.last is None:
            raise D100Error(typed[0], typed[0], "a check first", "no check to follow up")
        rng = rng_of(argparse.Namespace(seed=self._seed()))
        view, data, self.last = take(self.last, typed[0].lower(), typed[1:], self.sheet_path, rng)
        self._offered(self.last)
        show(self.ns, view + offers_view(self.last), data)
        self._log("follow_up", self.last.who or str(data["system"]), typed[0], data)

    def roll(self, typed: list[str], command: str = "check") -> None:
        """WHO SKILL [words] from the sheet, or [SYSTEM] SKILL [words] by numbers."""
        if not typed:
            raise D100Error(
                "line", None, "WHO SKILL [words], [SYSTEM] SKILL [words], or `help`", "empty"
            )
        asks = quick_words.question(typed)
        if asks is not None:  # SealDice's .setcoc alone: the session's rule, else the default
            quick.tell(self.ns, asks, self.table.get(str(asks.request["system"]), {}))
            return
        setting = quick_words.form(typed)
        if setting is not None and setting.settings:
            system = setting.request["system"]
            self.table[system] = quick_words.merged(self.table.get(system, {}), setting.settings)
            print(f"{system} from now on: {inputs_text({'system': system, **self.table[system]})}")
            return
        special = (
            None if command == "odds" else word_rolls.read(typed, quick.command_parser(command))
        )
        if special is not None:  # SealDice's .sc, .en under the session's setcoc
            roll, system, who, flag_tokens = special
            ns = self._parse([command, *flag_tokens])
            ns.sheet = ns.sheet or self.sheet_path
            table = self.table.get(system, {}).get("house_rules", {})
            data = word_rolls.run(ns, roll, who, table)
            self._log("roll", who or system, roll.word, data)
            return
        ns = quick.prepare(typed, self.sheet_path, command, self._extra(command))
        ns.table_settings = self.table
        if command == "odds":
            run_odds(ns)
            return
        repeat = getattr(ns, "repeat", 1)
        if repeat > 1:  # SealDice's 3#: the line's rolls from one source
            ns.rng = rng_of(ns)
        for _ in range(repeat):
            view, data, rolled = rolled_check(ns)
            self.last = Followable(data.get("who"), rolled)
            self._offered(self.last)
            show(ns, view + offers_view(self.last), data)
            who, skill = (ns.names[0], ns.names[1]) if ns.names else ("", str(ns.skill))
            self._log("check", who or data["system"], skill, data)

    def contest(self, typed: list[str], command: str = "contest") -> None:
        if len(typed) < 4:
            raise D100Error(
                "line",
                " ".join(typed),
                "ACTOR vs OPPONENT SKILL[/OPPOSING] [words]",
                "a skill is needed",
            )
        sheet = self.sheet
        actor, opponent = sheet.get(typed[0]), sheet.get(typed[2])
        skill, after = _contest_skills(actor, opponent, typed[3:])
        skill_name, _, opposing = skill.partition("/")
        # The opponent's own words after a second ``vs``: ``... sneaking @42 vs @17 hard``.
        at = next((i for i, w in enumerate(after) if w.lower() == "vs"), len(after))
        loose, said = quick.split(after[:at], quick.command_parser(command))
        theirs, they_said = quick.split(after[at + 1 :], quick.command_parser(command))
        argv = [command, "--sheet", str(self.sheet_path), actor.name, skill_name, *loose]
        opposing = opposing or opposed_skill(skill_name)
        argv += ["--vs", opponent.name, opposing, *theirs]
        ns = self._parse(argv)
        ns.quick = quick_words.fields(said, actor.system, contest=True)
        ns.vs_quick = quick_words.fields(they_said, opponent.system, contest=True)
        if command == "odds":
            run_odds(ns)
            return
        self.last = None
        view, data = contest(ns)
        show(ns, view, data)
        skills = f"{actor.skill(skill_name)}/{opponent.skill(opposing)}"
        self._log("contest", f"{actor.name} vs {opponent.name}", skills, data)

    def _extra(self, command: str) -> list[str]:
        """The shell's own flags for every line: its colour, and its seed moved on a step."""
        extra = [f"--color={'never' if self.ns.plain else self.ns.color or 'auto'}"]
        seed = self._seed()
        if seed is not None and command != "odds":
            extra += ["--seed", str(seed)]
        return extra

    def _seed(self) -> int | None:
        """The shell's seed moved on a step per line: repeatable, yet never the same twice."""
        seed = None if self.ns.seed is None else self.ns.seed + self.count
        self.count += 1
        return seed

    def _parse(self, argv: list[str]) -> argparse.Namespace:
        from . import build_parser, parse  # here, not at the top: the package imports this

        extra = self._extra(argv[0])
        if "--vs" in argv:
            i = argv.index("--vs")
            argv = [*argv[:i], *extra, *argv[i:]]
        else:
            argv = [*argv, *extra]
        return parse(build_parser(argv[0]), argv)

    def _log(self, kind: str, who: str, skill: str, result: Any) -> None:
        entry = {
            "time": datetime.now(UTC).isoformat(timespec="seconds"),
            "line": self.lines[-1],
            "kind": kind,
            "who": who,
            "skill": skill,
            "result": result,
        }
        try:
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")
        except OSError as err:  # the log went away or filled its disk mid-session
            why = str(err)
            raise D100Error("--log", str(self.log), "a file this shell may write", why) from None

    # -- commands ------------------------------------------------------------------------

    def do_odds(self, arg: str) -> None:
        """odds WHO SKILL [words] | odds ACTOR vs OPPONENT SKILL: the exact odds, no roll"""
        typed = shlex.split(arg)
        if len(typed) >= 3 and typed[1].lower() == "vs":
            self.contest(typed, "odds")
        else:
            self.roll(typed, "odds")

    def do_roll(self, arg: str) -> None:
        """roll [SYSTEM] SKILL [words]: as d100 roll (the same as the line without `roll`)"""
        self.roll(shlex.split(arg))

    def do_group(self, arg: str) -> None:
        """group SKILL [words]: everyone with the skill tests it, each result alone"""
        typed = shlex.split(arg)
        sheet = self.sheet
        members = [c for c in sheet.characters if _has_skill(c, typed)]
        if not typed or not members:
            raise D100Error(
                "SKILL",
                " ".join(typed) or None,
                "a skill someone on the sheet has",
                "nobody on the sheet has it",
            )
        skill, after = words.split_skill(members[0], typed)
        loose, said = quick.split(after, quick.command_parser("group"))
        dice, said = quick.dice_as_flags(said, members[0].system)  # split by / per member
        ns = self._parse(["group", "--sheet", str(self.sheet_path), skill, *loose, *dice])
        ns.quick = quick_words.fields(said, members[0].system)
        self.last = None
        view, data = group(ns)
        show(ns, view, data)
        self._log("group", ",".join(c.name for c in members), skill, data)

    def do_rest(self, arg: str) -> None:
        """rest [WHO...]: Luck back to maximum (BRP7)"""
        run_rest(argparse.Namespace(sheet=self.sheet_path, names=shlex.split(arg)))

    def do_show(self, arg: str) -> None:
        """show [WHO]: the sheet"""
        self.sheet  # noqa: B018 (a clean error when the shell has no sheet)
        run_show(
            argparse.Namespace(
                path=self.sheet_path,
                name=arg.strip() or None,
                json=False,
                plain=self.ns.plain,
                color=self.ns.color,
            )
        )

    def do_history(self, arg: str) -> None:
        """history: the lines typed this session"""
        for i, text in enumerate(self.lines[:-1], 1):
            print(f"{i:4d}  {text}")

    def do_quit(self, arg: str) -> bool:
        """quit: leave (Ctrl-D too)"""
        return True

    do_exit = do_quit

    def do_EOF(self, arg: str) -> bool:
        print()
        return True

    def do_help(self, arg: str) -> None:
        """help: the lines the shell understands"""
        print(HELP.split("examples:")[0].rstrip())

    # -- completion: every match ends in a space, so the next word can follow ---------------

    def _names(self) -> list[str]:
        try:
            return list(self.sheet.names())
        except D100Error:
            return []

    def completenames(self, text: str, *ignored: Any) -> list[str]:
        names = [*self._names(), *COMMANDS, *REGISTRY.names()]
        return [n + " " for n in names if n.lower().startswith(text.lower())]

    def completedefault(self, text: str, line: str, begidx: int, endidx: int) -> list[str]:
        try:
            sheet = self.sheet if self.sheet_path is not None else None
            return _complete(sheet, shlex.split(line[:begidx]), text)
        except (D100Error, ValueError):
            return []

    complete_odds = completedefault

    def complete_group(self, text: str, line: str, begidx: int, endidx: int) -> list[str]:
        typed = shlex.split(line[:begidx])[1:]
        try:
            characters = self.sheet.characters
        except D100Error:
            return []
        return sorted({w for c in characters for w in words.completions(c, typed, text)})


def _complete(sheet: Sheet | None, typed: list[str], text: str) -> list[str]:
    """Candidates for the word being typed after ``typed`` (without ``odds``)."""
    if typed and typed[0] == "odds":
        typed = typed[1:]
    if not typed:
        return []
    if typed[0].lower() in REGISTRY:  # by numbers: the system's words once a skill is typed
        options = _words(typed[0].lower()) if len(typed) >= 2 else []
        return [o for o in options if o.lower().startswith(text.lower())]
    if flags.is_number(typed[0]) or sheet is None:
        return []  # the system comes from the environment: nothing sure to offer
    first = sheet.get(typed[0])
    if len(typed) >= 2 and typed[1].lower() == "vs":
        if len(typed) == 2:
            options = [n + " " for n in sheet.names()]
        else:
            options = words.completions(first, typed[3:], text)
        return [o for o in options if o.lower().startswith(text.lower())]
    options = words.completions(first, typed[1:], text)
    if len(typed) == 1:
        options.append("vs ")
    elif _has_skill(first, typed[1:]):
        options += _words(first.system)
    return sorted({o for o in options if o.lower().startswith(text.lower())})


def _words(system: str) -> list[str]:
    """The words worth completing after a skill: the system's presets, choices and field words."""
    return [f"{w} " for w in quick_words.words_of(system)]


def _has_skill(character: Character, typed: list[str]) -> bool:
    try:
        words.split_skill(character, typed)
    except D100Error:
        return False
    return True


def _contest_skills(
    actor: Character, opponent: Character, typed: list[str]
) -> tuple[str, list[str]]:
    """``SKILL[/OPPOSING]`` (either may be several words) and the words after it."""
    text = " ".join(typed)
    if "/" in text:
        before, _, after = text.partition("/")
        mine, _ = words.split_skill(actor, before.split())
        theirs, rest = words.split_skill(opponent, after.split())
        return f"{mine}/{theirs}", rest
    mine, rest = words.split_skill(actor, typed)
    return mine, rest


def history_file() -> str:
    return config.state_path("history")


def ready_log(path: Path) -> None:
    """Before the prompt: the session log is a file this shell may append to (in an existing
    directory, not a directory, not read-only), or a clean error, never a roll that cannot
    be logged. A log that did not exist is not left behind empty."""
    flags.writable(path, "--log")
    created = not path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as err:
        why = err.strerror or type(err).__name__
        raise D100Error("--log", str(path), "a file this shell may append to", why) from None
    if created:
        path.unlink(missing_ok=True)


def run(ns: argparse.Namespace) -> int:
    if flags.sheet_path(ns):
        flags.open_sheet(ns)  # a missing or broken sheet is a clean error before the prompt
    ready_log(Path(ns.log))
    try:
        import readline
    except ImportError:  # no line editing on this platform; the shell still works
        readline = None  # type: ignore[assignment]
    history = history_file()
    if readline is not None:
        readline.set_completer_delims(" \t\n")
        with contextlib.suppress(OSError):  # the first session: no history yet
            readline.read_history_file(history)
    shell = Shell(ns)
    try:
        intro = None
        while True:
            try:
                shell.cmdloop(intro)
                break
            except KeyboardInterrupt:  # as bash: Ctrl-C drops the line (or a roll), Ctrl-D quits
                print("^C")
                intro = ""
    finally:
        if readline is not None:
            os.makedirs(os.path.dirname(history), exist_ok=True)
            readline.set_history_length(HISTORY_LINES)
            readline.write_history_file(history)
    return 0
