"""Human flags for every input of CONTRACT.md, and how they become a contract request.

One table, ``SIDE_FLAGS``, says which flag sets which field; argparse options, the shell's
words and the contest's ``--vs`` side are all built from it. Values stay text until the system
is known, then become contract values; a bad one is a D100Error naming the flag (G5)."""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..declarations import Assistance
from ..errors import D100Error
from ..systems import REGISTRY
from . import config

if TYPE_CHECKING:
    from ..sheets import Character, Sheet

Kind = Literal["int", "preset", "list", "bool", "dice", "assist"]


@dataclass(frozen=True)
class Flag:
    field: str  # the contract field it sets ("assist" means assist or assisters, by system)
    names: tuple[str, ...]
    kind: Kind
    help: str
    variant: bool = False  # takes a comma list of alternatives in ``odds --table`` and charts


SKILL = Flag("skill", ("--skill",), "int", "trained skill %%", variant=True)
SIDE_FLAGS: tuple[Flag, ...] = (
    Flag(
        "difficulty",
        ("--difficulty", "-d"),
        "preset",
        "openquest: very-easy easy normal hard very-hard; brp: routine standard difficult hard "
        "extreme near-impossible; or an integer",
        variant=True,
    ),
    Flag("modifiers", ("--mod", "-m"), "list", "modifiers, e.g. --mod 10 --mod -5 or 10,-5"),
    Flag("bonus_dice", ("--bonus", "-b"), "int", "brp: bonus dice 0..2", variant=True),
    Flag("penalty_dice", ("--penalty", "-p"), "int", "brp: penalty dice 0..2", variant=True),
    Flag(
        "aim_rounds",
        ("--aim",),
        "int",
        "brp: full rounds aimed (+20 each, at most +60)",
        variant=True,
    ),
    Flag("luck_boost", ("--luck-boost", "--boost"), "bool", "brp: spend 1 Luck for +20"),
    Flag("ability", ("--ability", "-a"), "int", "chances: ability factor (with a sheet: its name)"),
    Flag(
        "risk",
        ("--risk", "-r"),
        "preset",
        "chances: very-easy easy average tough challenging formidable heroic superheroic "
        "impossible, or an integer",
        variant=True,
    ),
    Flag("risk_modifiers", ("--risk-mod",), "list", "chances: risk modifiers, +10 harder"),
    Flag("take", ("--take",), "int", "chances: take 50 or 100 instead of rolling", variant=True),
    Flag("synergy", ("--synergy",), "list", "chances: trained %% of synergistic skills"),
    Flag(
        "assist",
        ("--assist",),
        "assist",
        "openquest: an assister SKILL[@DIE]; chances: an assister SKILL[+ABILITY][@DIE], "
        "repeatable; with a sheet: NAME[/SKILL][@DIE]",
    ),
    Flag("dice", ("--dice",), "dice", "dice rolled by hand, e.g. 42,7 (consumed in order)"),
)
CHECK_FLAGS: tuple[Flag, ...] = (
    Flag(
        "luck_rerolls",
        ("--luck-rerolls", "--reroll"),
        "int",
        "brp: reroll a failed check, 1 Luck each, at most this many",
        variant=True,
    ),
)


def field_of(flag: Flag, system: str) -> str | None:
    """The request field a flag sets for a system: ``--assist`` sets the system's declared
    assistance field (None where the system has no assistance)."""
    if flag.kind != "assist":
        return flag.field
    assistance = REGISTRY.get(system).declares.assistance
    return None if assistance is None else assistance.field


def add_side_flags(p: argparse.ArgumentParser, skill: bool = True, dice: bool = True) -> None:
    if skill:
        p.add_argument(*SKILL.names, dest=SKILL.field, metavar="N", help=SKILL.help)
    for f in SIDE_FLAGS:
        if f.kind == "dice" and not dice:
            continue
        if f.kind == "bool":
            p.add_argument(*f.names, dest=f.field, action="store_true", default=None, help=f.help)
        else:
            repeat = f.kind in ("list", "assist")
            p.add_argument(
                *f.names,
                dest=f.field,
                action="append" if repeat else "store",
                metavar=f.names[0].lstrip("-").upper().replace("-", "_"),
                help=f.help,
            )


def check_parser(
    sub: Any, name: str, description: str, dice: bool = True
) -> argparse.ArgumentParser:
    """A subcommand about one check: WHO SKILL from a sheet, or a system and its flags;
    without ``dice`` for commands that weigh every roll (no --dice)."""
    p: argparse.ArgumentParser = sub.add_parser(name, description=description)
    p.add_argument("names", nargs="*", metavar="WHO SKILL", help="a character and a skill")
    add_sheet(p)
    add_system(p)
    add_side_flags(p, dice=dice)
    add_check_flags(p)
    return p


def add_check_flags(p: argparse.ArgumentParser) -> None:
    for f in CHECK_FLAGS:
        p.add_argument(*f.names, dest=f.field, metavar="N", help=f.help)
    add_house(p)


def add_house(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--house",
        action="append",
        metavar="KEY=VALUE",
        help="a house-rule option, e.g. threshold_rounding=nearest",
    )


def add_system(p: argparse.ArgumentParser) -> None:
    p.add_argument("--system", "-s", help="openquest, brp or chances (not needed with a sheet)")


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


def value(flag: Flag, text: Any) -> Any:
    """One flag's text as a contract value (lists of texts for repeatable flags)."""
    name = flag.names[0]
    if flag.kind == "bool":
        return bool(text)
    if flag.kind == "int":
        return number(name, text)
    if flag.kind == "preset":
        return preset(text)
    if flag.kind == "list":
        return [n for t in text for n in numbers(name, t)]
    if flag.kind == "dice":
        return dice(name, text)
    raise AssertionError(flag.kind)


def assister(text: str, system: str) -> dict[str, Any]:
    """``SKILL[+ABILITY][@DIE,...]``: an assister given by numbers."""
    body, _, typed = text.partition("@")
    skill, sign, ability = body.replace("-", "+-").partition("+")
    out: dict[str, Any] = {"skill": number("--assist", skill, "SKILL[+ABILITY][@DIE]")}
    if sign:
        if REGISTRY.get(system).declares.ability_field is None:
            raise D100Error(
                "--assist", text, f"SKILL[@DIE]: {system} has no abilities", "ability given"
            )
        out["ability"] = number("--assist", ability, "SKILL[+ABILITY][@DIE]")
    if typed:
        out["dice"] = dice("--assist", typed)
    return out


def fields_of(system: str, contest: bool) -> frozenset[str]:
    spec = REGISTRY.get(system)
    if not contest:
        return frozenset(f.name for f in spec.check_fields)
    actor = next(f for f in spec.contest_fields if f.name == "actor")
    return frozenset(f.name for f in actor.fields)


def side_request(
    ns: argparse.Namespace,
    system: str,
    base: Mapping[str, Any] | None = None,
    sheet: Sheet | None = None,
    contest: bool = False,
) -> list[dict[str, Any]]:
    """Every alternative request the flags describe (one unless variant flags hold lists).

    ``base`` holds fields from a sheet; flags add to its lists and replace its values."""
    allowed = fields_of(system, contest)
    fixed: dict[str, Any] = dict(base or {})
    options: list[list[tuple[str, Any]]] = []
    flags = (SKILL, *SIDE_FLAGS, *(() if contest else CHECK_FLAGS))
    for f in flags:
        text = getattr(ns, f.field, None)
        if text is None:
            continue
        field = field_of(f, system)
        if field is None or field not in allowed:
            raise D100Error(
                f.names[0],
                text if not isinstance(text, list) else text[0],
                f"the inputs of {system}: " + ", ".join(sorted(allowed - {"system"})),
                f"not an input of a {system} contest side"
                if contest
                else f"not an input of {system}",
            )
        if f.kind == "assist":
            fixed.update(
                helpers(text, system, sheet, fixed.get("skill_name"), fixed.get("who_name"))
            )
        elif f.field == "ability" and sheet is not None and not is_number(text):
            continue  # a named ability was already read from the sheet
        elif f.variant:
            options.append([(field, value(f, t)) for t in alternatives(f, text)])
        elif f.kind == "list":
            fixed[field] = [*fixed.get(field, []), *value(f, text)]
        else:
            fixed[field] = value(f, text)
    fixed.pop("skill_name", None)
    fixed.pop("who_name", None)
    if not contest and getattr(ns, "house", None):
        fixed["house_rules"] = house_rules(ns.house)
    head = {} if contest else {"system": system}
    return [{**head, **fixed, **dict(choice)} for choice in itertools.product(*options)]


def asked(ns: argparse.Namespace) -> bool:
    """Whether any flag of a check was given (the system may then come from the config)."""
    return any(getattr(ns, f.field, None) is not None for f in (SKILL, *SIDE_FLAGS, *CHECK_FLAGS))


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
            fields["dice"] = dice(flag, typed)
        return who.name, fields
    return text, assister(text, system)


def assistance(system: str, given: object) -> Assistance:
    found = REGISTRY.get(system).declares.assistance
    if found is None:
        raise D100Error("--assist", given, f"no helpers: {system} has no assistance", None)
    return found


def assisting(fields: Mapping[str, Any], system: str) -> dict[str, Any]:
    """A character's check fields as a helper's: only the fields a helper's request has (so
    not a Taking Chances synergy: see the README), and never a take, since helpers roll."""
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
    """The same request for odds: every ``dice`` and the coin dropped, at any depth."""
    out: dict[str, Any] = {}
    for key, item in request.items():
        if key in ("dice", "coin"):
            continue
        if isinstance(item, Mapping):
            item = without_dice(item)
        elif isinstance(item, list) and item and isinstance(item[0], Mapping):
            item = [without_dice(v) for v in item]
        out[key] = item
    return out


def house_rules(items: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, eq, text = item.partition("=")
        if not eq:
            raise D100Error("--house", item, "KEY=VALUE, e.g. threshold_rounding=nearest", "no '='")
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


def pick(sheet: Sheet, who: str, skill: str, ability: str | None = None) -> Pick:
    character = sheet.get(who)
    name = character.skill(skill)
    named = ability if ability is not None and not is_number(ability) else None
    side = character.side(name, named)
    return Pick(character, name, {**side, "skill_name": name, "who_name": character.name})


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
