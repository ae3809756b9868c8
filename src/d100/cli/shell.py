"""``d100 shell``: a prompt for a session at the table, one short line per roll.

A line is translated into the flags of ``d100 check`` / ``contest`` / ``odds`` and run by the
same code, so the shell can do nothing the commands cannot; every roll is appended to a JSON
Lines session log."""

from __future__ import annotations

import argparse
import cmd
import json
import re
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..catalogue import OPPOSED_TASKS
from ..errors import D100Error
from ..sheets import Sheet, load
from ..systems import brp, chances, openquest
from . import flags
from .odds import run as run_odds
from .output import show
from .roll import check, contest
from .sheet import run_rest, run_show

HELP = """\
An interactive prompt for a session: characters and skills from the sheet, tab completion,
history (up arrow, `history`), Luck written back, every roll appended to the session log.

lines:
  alice stealth hard            a check: WHO SKILL and words
  alice stealth hard +10 bonus boost reroll @42,7
  bob vs alice sneaking/hearing  a contest: ACTOR vs OPPONENT SKILL[/OPPOSING SKILL]
  odds alice stealth hard       the exact odds, no roll
  rest [WHO]                    a full night's rest: Luck back to maximum (BRP7)
  show [WHO]                    the sheet
  history | help | quit

words: a difficulty or risk name (hard, tough), +N/-N (modifier), bonus[N], penalty[N],
aimN, boost (Luck), reroll[N], take50/take100, @DICE (dice rolled by hand), KEY=VALUE
(any flag, e.g. risk=80 ability=dex assist=bob), or --flags as on the command line.

examples:
  d100 shell --sheet party.toml
  d100 shell --sheet party.toml --log tonight.jsonl --seed 7
"""
COUNTED = re.compile(r"^(bonus|penalty|aim|reroll)(\d*)$")
WORDS = {"boost": ["--luck-boost"], "take50": ["--take", "50"], "take100": ["--take", "100"]}
FLAG_OF = {"bonus": "--bonus", "penalty": "--penalty", "aim": "--aim", "reroll": "--reroll"}
PRESETS = {
    "openquest": ("--difficulty", openquest.DIFFICULTIES),
    "brp": ("--difficulty", brp.DIFFICULTIES),
    "chances": ("--risk", chances.RISKS),
}
COMMANDS = ("odds", "rest", "show", "history", "help", "quit", "exit")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "shell",
        help="an interactive prompt for a session at the table",
        description=HELP,
    )
    flags.add_sheet(p)
    p.add_argument("--log", default="d100-session.jsonl", help="the session log (JSON Lines)")
    flags.add_roll(p)
    p.add_argument("--plain", action="store_true", help="no colour")
    p.set_defaults(run=run)


def translate(words: list[str], system: str) -> list[str]:
    """Shell words as command-line flags for a character of ``system``."""
    out: list[str] = []
    flag, presets = PRESETS[system]
    for word in words:
        low = word.lower()
        counted = COUNTED.match(low)
        if word.startswith("--") or (out and out[-1].startswith("--") and _takes_value(out)):
            out.append(word)
        elif low in WORDS:
            out += WORDS[low]
        elif counted:
            out += [FLAG_OF[counted[1]], counted[2] or "1"]
        elif re.fullmatch(r"[+-]\d+", word):
            out.append(f"--mod={word}")
        elif word.startswith("@"):
            out += ["--dice", word[1:]]
        elif "=" in word:
            key, _, value = word.partition("=")
            out += [f"--{key.replace('_', '-')}", value]
        elif low.replace("_", "-") in presets:
            out += [flag, low]
        else:
            raise D100Error(
                "word",
                word,
                "a difficulty or risk name, +N, bonus, penalty, aimN, "
                "boost, reroll, take50, take100, @DICE, KEY=VALUE",
                "unknown word",
            )
    return out


def _takes_value(out: list[str]) -> bool:
    """Whether the last passed-through flag still waits for its value."""
    last = out[-1]
    return "=" not in last and last not in ("--luck-boost", "--boost", "--json", "--plain")


class Shell(cmd.Cmd):
    intro = "d100 shell: `help` for the lines, tab completes names, `quit` or Ctrl-D to leave."
    prompt = "d100> "

    def __init__(self, ns: argparse.Namespace) -> None:
        super().__init__()
        self.ns = ns
        self.sheet_path: str = ns.sheet
        self.log = Path(ns.log)
        self.lines: list[str] = []
        self.count = 0

    # -- lines ---------------------------------------------------------------------------

    @property
    def sheet(self) -> Sheet:
        return load(self.sheet_path)  # read afresh: Luck and hand edits between rolls

    def onecmd(self, line: str) -> bool:
        if line.strip() and line != "EOF":
            self.lines.append(line)
        try:
            return super().onecmd(line)
        except D100Error as err:
            print(f"error: {err.message}")
        except SystemExit:  # argparse already printed its one line
            pass
        return False

    def emptyline(self) -> bool:
        return False

    def default(self, line: str) -> None:
        words = shlex.split(line)
        if len(words) >= 3 and words[1].lower() == "vs":
            self.contest(words)
        else:
            self.roll(words)

    def roll(self, words: list[str], command: str = "check") -> None:
        if len(words) < 2:
            raise D100Error(
                "line",
                " ".join(words),
                "WHO SKILL [words], or `help`",
                "a character and a skill are needed",
            )
        who = self.sheet.get(words[0])
        argv = [
            command,
            "--sheet",
            self.sheet_path,
            who.name,
            words[1],
            *translate(words[2:], who.system),
        ]
        ns = self._parse(argv)
        if command == "odds":
            run_odds(ns)
            return
        view, data = check(ns)
        show(ns, view, data)
        self._log("check", who.name, who.skill(words[1]), data)

    def contest(self, words: list[str]) -> None:
        if len(words) < 4:
            raise D100Error(
                "line", " ".join(words), "ACTOR vs OPPONENT SKILL[/OPPOSING]", "a skill is needed"
            )
        actor, opponent = self.sheet.get(words[0]), self.sheet.get(words[2])
        skill, _, opposing = words[3].partition("/")
        opposing = opposing or opposed_skill(skill)
        argv = [
            "contest",
            "--sheet",
            self.sheet_path,
            actor.name,
            skill,
            *translate(words[4:], actor.system),
            "--vs",
            opponent.name,
            opposing,
        ]
        ns = self._parse(argv)
        view, data = contest(ns)
        show(ns, view, data)
        skills = f"{actor.skill(skill)}/{opponent.skill(opposing)}"
        self._log("contest", f"{actor.name} vs {opponent.name}", skills, data)

    def _parse(self, argv: list[str]) -> argparse.Namespace:
        from . import build_parser  # here, not at the top: the package imports this module

        extra = ["--plain"] if self.ns.plain else []
        if self.ns.seed is not None and argv[0] != "odds":
            extra += ["--seed", str(self.ns.seed + self.count)]  # repeatable, yet not equal
        self.count += 1
        if argv[0] == "contest":
            i = argv.index("--vs")
            argv = [*argv[:i], *extra, *argv[i:]]
        else:
            argv = [*argv, *extra]
        return build_parser().parse_args(argv)

    def _log(self, kind: str, who: str, skill: str, result: dict[str, Any]) -> None:
        entry = {
            "time": datetime.now(UTC).isoformat(timespec="seconds"),
            "line": self.lines[-1],
            "kind": kind,
            "who": who,
            "skill": skill,
            "result": result,
        }
        with self.log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")

    # -- commands ------------------------------------------------------------------------

    def do_odds(self, arg: str) -> None:
        """odds WHO SKILL [words]: the exact odds, no roll"""
        self.roll(shlex.split(arg), "odds")

    def do_rest(self, arg: str) -> None:
        """rest [WHO...]: Luck back to maximum (BRP7)"""
        run_rest(argparse.Namespace(sheet=self.sheet_path, names=shlex.split(arg)))

    def do_show(self, arg: str) -> None:
        """show [WHO]: the sheet"""
        run_show(
            argparse.Namespace(
                path=self.sheet_path, name=arg.strip() or None, json=False, plain=self.ns.plain
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

    # -- completion ------------------------------------------------------------------------

    def completenames(self, text: str, *ignored: Any) -> list[str]:
        names = [*self.sheet.names(), *COMMANDS]
        return [n + " " for n in names if n.lower().startswith(text.lower())]

    def completedefault(self, text: str, line: str, begidx: int, endidx: int) -> list[str]:
        words = shlex.split(line[:begidx])
        if words and words[0] == "odds":
            words = words[1:]
        sheet = self.sheet
        try:
            first = sheet.get(words[0]) if words else None
        except D100Error:
            return []
        if len(words) == 1 and first is not None:
            options = [*first.skills, "vs"]
        elif len(words) == 2 and words[1].lower() == "vs":
            options = list(sheet.names())
        elif len(words) == 3 and words[1].lower() == "vs":
            options = list(first.skills) if first is not None else []
        elif first is not None:
            options = [*PRESETS[first.system][1], "bonus", "penalty", "boost", "reroll"]
        else:
            options = []
        return [o for o in options if o.lower().startswith(text.lower())]


def opposed_skill(skill: str) -> str:
    """The skill that resists ``skill`` in the seed's examples (CH11), else the same skill."""
    key = skill.lower()
    for task in OPPOSED_TASKS:
        if task.skill.lower().startswith(key):
            return task.opposing_skill.lower()
    return skill


def run(ns: argparse.Namespace) -> int:
    flags.open_sheet(ns)  # a missing or broken sheet is a clean error before the prompt
    try:
        import readline

        readline.set_completer_delims(" \t\n")
    except ImportError:  # no line editing on this platform; the shell still works
        pass
    Shell(ns).cmdloop()
    return 0
