"""Human flags for every input of CONTRACT.md, and how they become a contract request.

The flags are built from the registered systems' request fields: each field says its option
strings (``Field.flags``) and its help (its description), so a system brings its own flags and
none is restated here. A field several systems declare is one flag; ``--assist`` sets whatever
field a system declares for its helpers. Values stay text until the system is known, then become
contract values by that system's field; a bad one is a D100Error naming the flag (G5)."""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .. import quick
from ..declarations import Assistance
from ..errors import D100Error
from ..fields import Field, from_text
from ..systems import REGISTRY
from . import config

if TYPE_CHECKING:
    from ..sheets import Character, Sheet

Kind = Literal["value", "list", "bool", "helpers"]
SKILL = "skill"  # the contract's skill field, common to every system
# Namespace attributes the commands use themselves: a field of that name keeps its own.
RESERVED = frozenset(
    [
        "names",
        "system",
        "sheet",
        "json",
        "plain",
        "color",
        "seed",
        "house",
        "vs",
        "table",
        "skills",
        "step",
        "run",
        "command",
        "rolls",
        "luck",
        "helper",
        "output",
        "compare",
        "bands",
        "who",
        "lead",
        "log",
        "cover",
        "words",
        "verb",
        "path",
        "name",
        "quick",
    ]
)


@dataclass(frozen=True)
class Flag:
    dest: str  # the namespace attribute argparse fills
    field: str  # the request field it sets ("" for --assist: each system's declared field)
    names: tuple[str, ...]
    kind: Kind
    help: str
    variant: bool = False  # takes a comma list of alternatives in ``odds --table`` and charts
    contest: bool = False  # a contest's own field, beside its sides (a tie-break's flip)


ASSIST = Flag("assist_text", "", ("--assist",), "helpers", "")


def dest_of(field: str) -> str:
    return f"field_{field}" if field in RESERVED else field


_TABLES: dict[tuple[int, ...], tuple[Flag, ...]] = {}


def flag_table() -> tuple[Flag, ...]:
    """Every flag of the registered systems' fields (built once per set of systems)."""
    key = tuple(id(s) for s in REGISTRY)
    if key not in _TABLES:
        _TABLES[key] = _build()
    return _TABLES[key]


def _build() -> tuple[Flag, ...]:
    seen: dict[str, list[tuple[str, Field]]] = {}
    contest_only: set[str] = set()
    for system in REGISTRY:
        for contest in (False, True):
            for f in quick.word_fields(system, contest):
                if f.option_strings:
                    seen.setdefault(f.name, []).append((system.name, f))
        for f in system.contest_fields:
            if f.kind not in ("object", "object_list") and f.option_strings:
                seen.setdefault(f.name, []).append((system.name, f))
                contest_only.add(f.name)
    out = []
    for name, declared in seen.items():
        names = tuple(dict.fromkeys(o for _, f in declared for o in f.option_strings))
        first = declared[0][1]
        kind: Kind = (
            "bool" if first.kind == "bool" else "list" if first.kind == "int_list" else "value"
        )
        variant = first.kind in ("int", "preset", "choice", "text")
        out.append(
            Flag(dest_of(name), name, names, kind, _help(declared), variant, name in contest_only)
        )
    helpers = [s for s in REGISTRY if s.declares.assistance is not None]
    if helpers:
        text = "; ".join(
            f"{s.name}: {s.declares.assistance.summary}" for s in helpers if s.declares.assistance
        )
        form = "SKILL[+ABILITY][@DIE]" if any(s.declares.ability_field for s in helpers) else ""
        text = f"a helper {form or 'SKILL[@DIE]'}, repeatable ({text}); "
        text += "with a sheet: NAME[/SKILL][@DIE]"
        out.append(Flag(ASSIST.dest, "", ASSIST.names, "helpers", _escape(text)))
    return tuple(out)


def _help(declared: list[tuple[str, Field]]) -> str:
    """The field's description (and its presets or choices), each system's first (a check's
    before a contest side's), named by system unless every system declares it alike."""
    by_text: dict[str, list[str]] = {}
    abilities = {s.declares.ability_field for s in REGISTRY}
    done: set[str] = set()
    for system, f in declared:
        if system in done:
            continue
        done.add(system)
        text = f.description
        if f.kind == "preset":
            text += ": " + " ".join(f.presets) + ", or an integer"
        elif f.kind == "choice":
            text += ": " + " ".join(str(c) for c in f.choices if c is not None)
        if f.name in abilities:
            text += " (with a sheet: its name)"
        by_text.setdefault(text, []).append(system)
    if len(by_text) == 1 and len(done) == len(REGISTRY.names()):
        return _escape(next(iter(by_text)))
    return _escape("; ".join(f"{', '.join(s)}: {t}" for t, s in by_text.items()))


def _escape(text: str) -> str:
    return text.replace("%", "%%")


def field_of(flag: Flag, system: str) -> str | None:
    """The request field a flag sets for a system: ``--assist`` sets the system's declared
    assistance field (None where the system has no assistance)."""
    if flag.kind != "helpers":
        return flag.field
    assistance = REGISTRY.get(system).declares.assistance
    return None if assistance is None else assistance.field


def add_side_flags(
    p: argparse.ArgumentParser, skill: bool = True, dice: bool = True, contest: bool = False
) -> None:
    """The flags of every field a check or a contest side takes (``contest``: the contest's own
    too); a command's own option of the same name wins over a field's (its parser resolves)."""
    for f in flag_table():
        if (f.field == SKILL and not skill) or (f.contest and not contest):
            continue
        if not dice and _is_dice(f):
            continue
        if f.kind == "bool":
            p.add_argument(*f.names, dest=f.dest, action="store_true", default=None, help=f.help)
        else:
            p.add_argument(
                *f.names,
                dest=f.dest,
                action="append" if f.kind in ("list", "helpers") else _Once,
                metavar=f.names[0].lstrip("-").upper().replace("-", "_"),
                help=f.help,
            )


class _Once(argparse.Action):
    """A field's flag given twice is an error naming both values (``--dice 10 --dice 20``):
    the last one silently winning hid a slip of the fingers."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        before = getattr(namespace, self.dest, None)
        if before is not None:
            flag = option_string or self.dest
            raise D100Error(flag, values, f"{flag} once", f"given twice: {before!r} and {values!r}")
        setattr(namespace, self.dest, values)


def _is_dice(flag: Flag) -> bool:
    """A flag for given dice: every system declares that field as dice, never weighed."""
    return any(
        f.kind == "dice" for s in REGISTRY for f in quick.word_fields(s) if f.name == flag.field
    )


def contest_flags() -> tuple[Flag, ...]:
    return tuple(f for f in flag_table() if f.contest)


def check_parser(
    sub: Any, name: str, description: str, dice: bool = True, contest: bool = False
) -> argparse.ArgumentParser:
    """A subcommand about one check: WHO SKILL from a sheet, or a system and its flags;
    without ``dice`` for commands that weigh every roll (no --dice); with ``contest`` the
    contest's own flags too, for a command that may take ``--vs``."""
    p: argparse.ArgumentParser = sub.add_parser(name, description=description)
    p.add_argument("names", nargs="*", metavar="WHO SKILL", help="a character and a skill")
    add_sheet(p)
    add_system(p)
    add_side_flags(p, dice=dice, contest=contest)
    add_check_flags(p)
    return p


def add_check_flags(p: argparse.ArgumentParser) -> None:
    add_house(p)


def add_house(p: argparse.ArgumentParser) -> None:
    rules = [(s.name, [f.name for f in quick.house_fields(s)]) for s in REGISTRY]
    named = "; ".join(f"{name}: {' '.join(r)}" for name, r in rules if r)
    p.add_argument(
        "--house",
        action="append",
        metavar="KEY=VALUE",
        help=_escape(f"a house-rule option, repeatable ({named})"),
    )


def add_system(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--system", "-s", help=", ".join(REGISTRY.names()) + " (not needed with a sheet)"
    )


def add_sheet(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sheet",
        "-f",
        help=f"a character or party sheet (TOML); default ${config.ENV_SHEET}, else the "
        "config file's sheet",
    )


def add_roll(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, help="seed the dice: the same seed, the same rolls")


def add_output(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json", action="store_true", help="print the contract's JSON instead (errors too)"
    )
    add_colour(p)


def add_colour(p: argparse.ArgumentParser) -> None:
    p.add_argument("--plain", action="store_true", help="no colour, the same as --color=never")
    p.add_argument(
        "--color",
        "--colour",
        choices=("auto", "always", "never"),
        help="auto (the default): colour on a terminal unless NO_COLOR is set; FORCE_COLOR "
        "forces it",
    )


# -- text to contract values ----------------------------------------------------------------


def number(flag: str, text: str, allowed: str = "an integer") -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise D100Error(flag, text, allowed, f"not an integer: {text!r}") from None


def numbers(flag: str, text: str, sep: str = ",") -> list[int]:
    return [
        number(flag, part, f"integers separated by {sep!r}")
        for part in text.split(sep)
        if part.strip()
    ]


def dice(flag: str, text: str) -> list[int]:
    """Dice read off the table: ``42,7``, with ``00`` the percentile die's 100."""
    return [
        100 if part.strip() == "00" else number(flag, part, "d100 values 1..100 (00 is 100)")
        for part in text.split(",")
        if part.strip()
    ]


def preset(text: str) -> int | str:
    """An integer if it reads as one, else the preset name for the system to check."""
    try:
        return int(text)
    except ValueError:
        return text


def alternatives(flag: Flag, text: str) -> list[str]:
    """A variant flag's comma list, e.g. ``--difficulty normal,hard``."""
    return [t.strip() for t in text.split(",") if t.strip()] or [text]


def value(flag: Flag, f: Field, text: Any) -> Any:
    """One flag's text as the contract value of the system's field ``f`` (a repeatable flag's
    texts as one list)."""
    name = flag.names[0]
    if flag.kind == "bool":
        return bool(text)
    if flag.kind == "list":
        return [v for t in text for v in from_text(f, t, name)]
    return from_text(f, text, name)


def assister(text: str, system: str) -> dict[str, Any]:
    """``SKILL[+ABILITY][@DIE,...]``: an assister given by numbers."""
    body, _, typed = text.partition("@")
    skill, sign, ability = body.replace("-", "+-").partition("+")
    out: dict[str, Any] = {SKILL: number("--assist", skill, "SKILL[+ABILITY][@DIE]")}
    if sign:
        field = REGISTRY.get(system).declares.ability_field
        if field is None:
            raise D100Error(
                "--assist", text, f"SKILL[@DIE]: {system} has no abilities", "ability given"
            )
        out[field] = number("--assist", ability, "SKILL[+ABILITY][@DIE]")
    if typed:
        out[dice_field(system)] = dice("--assist", typed)
    return out


def dice_field(system: str) -> str:
    """The field of a system's given dice (the contract's, by its kind)."""
    return next(f.name for f in REGISTRY.get(system).check_fields if f.kind == "dice")


def fields_of(system: str, contest: bool) -> frozenset[str]:
    return frozenset(f.name for f in quick.word_fields(REGISTRY.get(system), contest))


def side_request(
    ns: argparse.Namespace,
    system: str,
    base: Mapping[str, Any] | None = None,
    sheet: Sheet | None = None,
    contest: bool = False,
) -> list[dict[str, Any]]:
    """Every alternative request the flags describe (one unless variant flags hold lists).

    ``base`` holds fields from a sheet; flags add to its lists and replace its values. Quick
    words (``ns.quick``, from ``d100 roll`` and the shell) are fields too: a flag for a field a
    word already set is an error naming both."""
    spec = REGISTRY.get(system)
    declared = {f.name: f for f in quick.word_fields(spec, contest)}
    words: Mapping[str, Any] = getattr(ns, "quick", None) or {}
    fixed: dict[str, Any] = dict(base or {})
    options: list[list[tuple[str, Any]]] = []
    for f in flag_table():
        if f.contest:
            continue
        text = getattr(ns, f.dest, None)
        if text is None:
            continue
        field = field_of(f, system)
        if field is None or field not in declared:
            raise D100Error(
                f.names[0],
                text if not isinstance(text, list) else text[0],
                f"the inputs of {system}: " + ", ".join(sorted(set(declared) - {"system"})),
                f"not an input of a {system} contest side"
                if contest
                else f"not an input of {system}",
            )
        if field in words and f.kind != "list":
            raise D100Error(
                f.names[0],
                text if not isinstance(text, list) else text[0],
                f"one value for {field}: the flag or the word",
                f"{field} is given by a word and by {f.names[0]}",
            )
        if f.kind == "helpers":
            fixed.update(
                helpers(text, system, sheet, fixed.get("skill_name"), fixed.get("who_name"))
            )
        elif field == spec.declares.ability_field and sheet is not None and not is_number(text):
            continue  # a named ability was already read from the sheet
        elif f.variant:
            options.append([(field, value(f, declared[field], t)) for t in alternatives(f, text)])
        elif f.kind == "list":
            fixed[field] = [*fixed.get(field, []), *value(f, declared[field], text)]
        else:
            fixed[field] = value(f, declared[field], text)
    fixed.pop("skill_name", None)
    fixed.pop("who_name", None)
    fixed = quick.merged(fixed, words)
    if not contest and getattr(ns, "house", None):
        given = house_rules(ns.house)
        said = words.get(quick.HOUSE, {})
        for name in sorted(given.keys() & said.keys()):
            if given[name] != said[name]:
                raise D100Error(
                    "--house",
                    f"{name}={given[name]}",
                    f"one value for {name}: the words' or --house",
                    f"the words give {name} {said[name]}",
                )
        fixed = quick.merged(fixed, {quick.HOUSE: given})
    # what a command form leaves to the table (SealDice's .ra: rule 0 where none is set),
    # then the table's own settings (the shell's, made by a form such as .setcoc)
    table = (getattr(ns, "table_settings", None) or {}).get(system, {})
    fixed = quick.merged(quick.merged(getattr(ns, "defaults", None) or {}, table), fixed)
    head = {} if contest else {"system": system}
    order = {name: i for i, name in enumerate(declared)}  # the system's own order of fields
    out = []
    for choice in itertools.product(*options):
        request = {**fixed, **dict(choice)}
        ordered = sorted(request, key=lambda k: order.get(k, len(order)))
        out.append({**head, **{k: request[k] for k in ordered}})
    return out


def contest_fields(ns: argparse.Namespace, system: str) -> dict[str, Any]:
    """A contest's own fields (beside its sides) the flags give, as that system reads them."""
    spec = REGISTRY.get(system)
    declared = {f.name: f for f in spec.contest_fields}
    out: dict[str, Any] = {}
    for f in contest_flags():
        text = getattr(ns, f.dest, None)
        if text is None:
            continue
        if f.field not in declared:
            raise D100Error(f.names[0], text, f"the contest inputs of {system}", "not an input")
        out[f.field] = value(f, declared[f.field], text)
    return out


def no_contest_flags(ns: argparse.Namespace) -> None:
    """A check's command given a contest's own flag (``--response``) without ``--vs``: refused,
    never dropped."""
    for f in contest_flags():
        text = getattr(ns, f.dest, None)
        if text is not None:
            raise D100Error(f.names[0], text, "with --vs: a contest's own input", "not a check's")


def asked(ns: argparse.Namespace) -> bool:
    """Whether any flag of a check was given (the system may then come from the config)."""
    return any(getattr(ns, f.dest, None) is not None for f in flag_table())


def one(requests: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if len(requests) != 1:
        raise D100Error(
            "flags",
            f"{len(requests)} alternatives",
            "one value per flag",
            "comma lists of alternatives are for odds --table and chart",
        )
    return requests[0]


def helper(
    text: str,
    system: str,
    sheet: Sheet | None,
    skill: str | None,
    helped: str | None = None,
    flag: str = "--assist",
) -> tuple[str, dict[str, Any]]:
    """One helper's name and check fields: by numbers (``SKILL[+ABILITY][@DIE]``) or, with a
    sheet, ``NAME[/SKILL][@DIE]`` (the same skill as the helped character unless named)."""
    if sheet is not None and not is_number(text.split("@")[0].split("+")[0]):
        body, at, typed = text.partition("@")
        name, _, skill_name = body.partition("/")
        who = sheet.get(name)
        if helped is not None and who.name == helped:
            raise D100Error(
                flag, text, "another character on the sheet", f"{who.name} cannot assist herself"
            )
        fields = assisting(who.side(skill_name or skill or ""), system)
        if at:
            fields[dice_field(system)] = dice(flag, typed)
        return who.name, fields
    return text, assister(text, system)


def assistance(system: str, given: object) -> Assistance:
    found = REGISTRY.get(system).declares.assistance
    if found is None:
        raise D100Error("--assist", given, f"no helpers: {system} has no assistance", None)
    return found


def assisting(fields: Mapping[str, Any], system: str) -> dict[str, Any]:
    """A character's check fields as a helper's: only the fields a helper's request has (so
    not a Taking Chances synergy: see docs/cli.md), and never a take, since helpers roll."""
    declares = REGISTRY.get(system).declares
    name = assistance(system, None).field
    spec = next(f for f in REGISTRY.get(system).check_fields if f.name == name)
    kept = {f.name for f in spec.fields} - ({declares.take.field} if declares.take else set())
    return {k: v for k, v in fields.items() if k in kept}


def helpers(
    texts: Sequence[str],
    system: str,
    sheet: Sheet | None,
    skill: str | None,
    helped: str | None = None,
) -> dict[str, Any]:
    """``--assist`` values as the system's declared field: one nested request or a list."""
    return helpers_request([helper(t, system, sheet, skill, helped)[1] for t in texts], system)


def helpers_request(out: list[dict[str, Any]], system: str) -> dict[str, Any]:
    """Helpers' check fields as the system's declared field: one nested request or a list."""
    declared = assistance(system, len(out))
    if len(out) > declared.most:
        raise D100Error(
            "--assist",
            len(out),
            f"at most {declared.most} helper(s) at a time in {system}",
            f"{len(out)} helpers",
        )
    return declared.as_request(out)


def without_dice(request: Mapping[str, Any]) -> dict[str, Any]:
    """The same request for odds: every field of given dice and a given tie-break flip
    dropped, at any depth (what the system declares them to be)."""
    spec = REGISTRY.get(request.get("system"))
    drop = {f.name for f in spec.check_fields if f.kind == "dice"}
    if spec.declares.tie_break is not None:
        drop.add(spec.declares.tie_break.field)
    return _without(request, frozenset(drop))


def _without(request: Mapping[str, Any], drop: frozenset[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in request.items():
        if key in drop:
            continue
        if isinstance(item, Mapping):
            item = _without(item, drop)
        elif isinstance(item, list) and item and isinstance(item[0], Mapping):
            item = [_without(v, drop) for v in item]
        out[key] = item
    return out


def house_rules(items: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, eq, text = item.partition("=")
        if not eq:
            raise D100Error("--house", item, "KEY=VALUE, a house rule and its value", "no '='")
        out[key.strip()] = preset(text.strip())
    return out


def is_number(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


# -- sheets on the command line -------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    """A character's skill picked by name on a sheet, and the fields it gives a request."""

    character: Character
    skill: str
    side: dict[str, Any]


def sheet_ways() -> str:
    return f'--sheet FILE, ${config.ENV_SHEET}, or sheet = "FILE" in {config.path()}'


def sheet_path(ns: argparse.Namespace) -> str | None:
    """The sheet the command names: ``--sheet``, else the environment, else the config."""
    if not getattr(ns, "sheet", None):
        ns.sheet = config.sheet()
    return ns.sheet  # type: ignore[no-any-return]


def writable(path: Path, flag: str) -> None:
    """Before any work: the file's directory must exist (a sheet or a chart is not written
    into a directory it would have to invent, nor over a directory)."""
    parent = path.parent
    if not parent.is_dir():
        raise D100Error(
            flag, str(path), "a file in an existing directory", f"no directory {str(parent)!r}"
        )
    if path.is_dir():
        raise D100Error(flag, str(path), "a file name, not a directory", "is a directory")


def open_sheet(ns: argparse.Namespace) -> Sheet:
    if not sheet_path(ns):
        names = " ".join(getattr(ns, "names", None) or []) or None
        raise D100Error(
            "--sheet",
            names,
            f"{sheet_ways()}; or roll by numbers: d100 roll SYSTEM SKILL",
            "character names need a sheet",
        )
    from ..sheets import load  # here: a check by numbers never reads a sheet

    return load(ns.sheet)


def pick(sheet: Sheet, who: str, skill: str, ns: argparse.Namespace | None = None) -> Pick:
    """A character's skill, with the ability ``ns`` names (where the system adds one)."""
    character = sheet.get(who)
    name = character.skill(skill)
    ability = named_ability(ns, character.system) if ns is not None else None
    named = ability if ability is not None and not is_number(ability) else None
    side = character.side(name, named)
    return Pick(character, name, {**side, "skill_name": name, "who_name": character.name})


def named_ability(ns: argparse.Namespace, system: str) -> str | None:
    """The text the flag of the system's ability field holds, if any."""
    field = REGISTRY.get(system).declares.ability_field
    return None if field is None else getattr(ns, dest_of(field), None)


def system_ways() -> str:
    return (
        f"one of {', '.join(REGISTRY.names())}, given as the first word (d100 roll), "
        f'--system, ${config.ENV_SYSTEM}, or system = "NAME" in {config.path()}'
    )


def system_of(ns: argparse.Namespace) -> str:
    """The system the flags name, else the environment's, else the config file's."""
    if ns.system is not None:
        return REGISTRY.get(ns.system, "--system").name
    chosen = config.system()
    if chosen is None:
        raise D100Error("--system", None, system_ways(), "no system given")
    return REGISTRY.get(chosen, f"${config.ENV_SYSTEM} or {config.path()}").name
