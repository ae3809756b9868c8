"""``d100 resolve`` and ``d100 odds``: JSON Lines in, JSON Lines out (CONTRACT.md)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from .. import quick
from ..actions import Found, find
from ..declarations import WordRoll
from ..engine import odds, resolve
from ..errors import D100Error, json_int, shown
from . import word_rolls

HELP_RESOLVE = """\
Read one JSON request per line on standard input, write one JSON result per line.
A line may also be {"quick": "TEXT"}: the quick form of d100 roll (brp 65 hard b1 @42,7) or a
system's chat-bot command. A chat-bot word that sets nothing and tells something (SealDice's
.setcoc alone: the rule in use, with no table SealDice's default) is answered {"told": TEXT}; one
that sets a table's rule (.setcoc 2) is refused, as no table keeps it here. A bad line is
answered with {"error": {...}} on its own line; the other lines are still answered and the exit
status is 1 at the end.

examples:
  echo '{"system":"brp","skill":65,"dice":[42]}' | d100 resolve
  echo '{"quick":"brp 65 hard b1 @42,7"}' | d100 resolve
  echo '{"quick":".sc 1/1d6 60"}' | d100 resolve --seed 7
  echo '{"quick":".setcoc details"}' | d100 resolve
  echo '{"system":"openquest","actor":{"skill":60},"opponent":{"skill":45}}' | d100 resolve --seed 7
"""
HELP_ODDS = """\
Read one JSON request per line (without dice), write its exact odds as reduced fractions;
{"quick": "TEXT"} is the quick form, as d100 roll reads it ({"told": TEXT} for a chat-bot word
that tells, as d100 resolve answers it).

examples:
  echo '{"system":"brp","skill":65}' | d100 odds
  echo '{"system":"chances","skill":40,"ability":10,"risk":"tough"}' | d100 odds
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "resolve",
        description=HELP_RESOLVE,
    )
    p.add_argument("--seed", type=int, help="seed the random source: the same seed, the same rolls")
    p.set_defaults(run=run_resolve)


def answer_lines(lines: TextIO, out: TextIO, answer: Callable[[Any], dict[str, Any]]) -> int:
    """Answer each non-blank line; errors go on their own line and make the status 1."""
    status = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = parse_line(line, "request", f"line {number} ")
            try:
                reply = answer(quick_line(data))
            except RecursionError:  # nesting the parser took but a reader cannot walk
                raise D100Error(
                    "request", None, "one JSON object per line", f"line {number} nests too deeply"
                ) from None
        except D100Error as err:
            reply = {"error": {**error_body(err), "line": number}}
            status = 1
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return status


def error_body(err: D100Error) -> dict[str, Any]:
    """The error's JSON; a value nested too deeply to echo is left out rather than end the
    stream (the message already names the field and what is allowed)."""
    try:
        return err.to_dict()
    except RecursionError:
        return {
            "kind": err.kind,
            "field": err.field,
            "value": None,
            "allowed": err.allowed,
            "message": err.message,
        }


def parse_line(line: str, field: str, where: str = "") -> Any:
    """One line's JSON, or a D100Error saying why not: not JSON, nested deeper than the parser
    recurses, or a number longer than Python converts (its int digit limit)."""
    allowed = "one JSON object per line"
    try:
        return json.loads(line, parse_int=json_int, object_pairs_hook=_once_each)
    except json.JSONDecodeError as err:
        raise D100Error(
            field, line.strip()[:80], allowed, f"{where}is not JSON: {err.msg}"
        ) from None
    except RecursionError:
        raise D100Error(field, None, allowed, f"{where}nests too deeply") from None
    except D100Error:  # a key given twice
        raise
    except ValueError as err:  # e.g. an integer of more digits than int() converts
        raise D100Error(field, None, allowed, f"{where}is not JSON d100 reads: {err}") from None


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each given once: ``{"skill":65,"skill":70}`` is refused
    naming the key, never read as its last value."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise D100Error(
                key, value, f"{key} once", f"given twice: {shown(out[key])} and {shown(value)}"
            )
        out[key] = value
    return out


@dataclass(frozen=True)
class Spoken:
    """A line's chat-bot word that rolls no check (SealDice's ``.sc``, ``.en``), played as
    ``d100 roll`` plays it without a sheet or house rules."""

    roll: WordRoll


@dataclass(frozen=True)
class Told:
    """A line's chat-bot word that sets nothing (SealDice's ``.setcoc`` alone): what it says
    with no table's settings, answered ``{"told": ...}`` by resolve and odds alike."""

    told: str

    def to_dict(self) -> dict[str, Any]:
        return {"told": self.told}


def quick_line(data: Any) -> Any:
    """``{"quick": "brp 65 hard"}`` as the request it describes; any other line as it is."""
    if isinstance(data, dict) and "quick" in data:
        if set(data) != {"quick"} or not isinstance(data["quick"], str):
            raise D100Error(
                "quick", data.get("quick"), 'a line {"quick": "TEXT"} and nothing else', None
            )
        found = find(data["quick"].split(), None)  # a system's own request: full auto...
        if found is not None:
            return found
        said = quick.dot_command(data["quick"].split())
        if said is not None and said.tells is not None:  # SealDice's .setcoc alone: no table
            return Told(said.tells({}))
        if said is not None and said.roll is not None:  # SealDice's .sc, .en: no check
            return Spoken(said.roll)
        form = quick.read_form(data["quick"])
        if form.repeat > 1:  # one answer a line: never fewer rolls than asked, unsaid
            raise D100Error(
                "quick",
                data["quick"],
                f"one roll a line: the line {form.repeat} times (d100 roll rolls N# itself)",
                f"{form.repeat} rolls asked (SealDice's N#)",
            )
        return form.request
    return data


def hint(command: str, example: str) -> None:
    """On a terminal, say what is awaited rather than wait silently (stderr: not the answer)."""
    if sys.stdin.isatty():
        print(
            f"d100 {command}: reading JSON Lines requests, one per line, Ctrl-D to end; "
            f"e.g. {example} (or see d100 {command} --help)",
            file=sys.stderr,
        )


def run_resolve(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    hint("resolve", '{"system":"brp","skill":65}')

    def rolled(data: Any) -> Any:
        if isinstance(data, Found):
            action = data.action
            return action.to_dict(action.roll(data.request, rng), action.odds(data.request))
        if isinstance(data, Spoken):
            return word_rolls.as_json(data.roll.play({}, rng))
        if isinstance(data, Told):
            return data.to_dict()
        return resolve(data, rng).to_dict()

    return answer_lines(sys.stdin, sys.stdout, rolled)


def run_odds(args: argparse.Namespace) -> int:
    hint("odds", '{"system":"brp","skill":65}  (flags also work: d100 odds -s brp --skill 65)')

    def counted(data: Any) -> Any:
        if isinstance(data, Found):
            return data.action.odds(data.request)
        if isinstance(data, Spoken):
            return data.roll.ruled({}).odds()
        if isinstance(data, Told):
            return data.to_dict()
        return odds(data).to_dict()

    return answer_lines(sys.stdin, sys.stdout, counted)
