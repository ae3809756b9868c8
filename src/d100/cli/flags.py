"""Human flags for every input of CONTRACT.md, and how they become a contract request.

One table, ``SIDE_FLAGS``, says which flag sets which field; argparse options, the shell's
words and the contest's ``--vs`` side are all built from it. Values stay text until the system
is known, then become contract values; a bad one is a D100Error naming the flag (G5)."""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import D100Error
from ..sheets import Character, Sheet
from ..sheets import load as load_sheet
from ..systems import REGISTRY

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
        "repeatable; with a sheet: NAME[/SKILL]",
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
ASSIST_FIELD = {"openquest": "assist", "chances": "assisters"}
ENV_SHEET = "D100_SHEET"


def add_side_flags(p: argparse.ArgumentParser, skill: bool = True) -> None:
    if skill:
        p.add_argument(*SKILL.names, dest=SKILL.field, metavar="N", help=SKILL.help)
    for f in SIDE_FLAGS:
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


def check_parser(sub: Any, name: str, help_: str, description: str) -> argparse.ArgumentParser:
    """A subcommand about one check: WHO SKILL from a sheet, or a system and its flags."""
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_,
        description=description,
    )
    p.add_argument("names", nargs="*", metavar="WHO SKILL", help="a character and a skill")
    add_sheet(p)
    add_system(p)
    add_side_flags(p)
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
        default=os.environ.get(ENV_SHEET),
        help=f"a character or party sheet (TOML); default ${ENV_SHEET}",
    )


def add_roll(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, help="seed the dice: the same seed, the same rolls")


def add_output(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the contract's JSON instead")
    p.add_argument("--plain", action="store_true", help="no colour (also: NO_COLOR, pipes)")


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
        return numbers(name, text)
    raise AssertionError(flag.kind)


def assister(text: str, system: str) -> dict[str, Any]:
    """``SKILL[+ABILITY][@DIE,...]``: an assister given by numbers."""
    body, _, dice = text.partition("@")
    skill, sign, ability = body.replace("-", "+-").partition("+")
    out: dict[str, Any] = {"skill": number("--assist", skill, "SKILL[+ABILITY][@DIE]")}
    if sign:
        if system != "chances":
            raise D100Error("--assist", text, "SKILL[@DIE] for openquest", "ability given")
        out["ability"] = number("--assist", ability, "SKILL[+ABILITY][@DIE]")
    if dice:
        out["dice"] = numbers("--assist", dice)
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
        field = ASSIST_FIELD.get(system, f.field) if f.kind == "assist" else f.field
        if field not in allowed or (f.kind == "assist" and system not in ASSIST_FIELD):
            raise D100Error(
                f.names[0],
                text if not isinstance(text, list) else text[0],
                f"the {system} inputs: " + ", ".join(sorted(allowed - {"system"})),
                f"{f.names[0]} is not a {system} input",
            )
        if f.kind == "assist":
            fixed.update(helpers(text, system, sheet, fixed.get("skill_name")))
        elif f.field == "ability" and sheet is not None and not _is_number(text):
            continue  # a named ability was already read from the sheet
        elif f.variant:
            options.append([(field, value(f, t)) for t in alternatives(f, text)])
        elif f.kind == "list":
            fixed[field] = [*fixed.get(field, []), *value(f, text)]
        else:
            fixed[field] = value(f, text)
    fixed.pop("skill_name", None)
    if not contest and getattr(ns, "house", None):
        fixed["house_rules"] = house_rules(ns.house)
    head = {} if contest else {"system": system}
    return [{**head, **fixed, **dict(choice)} for choice in itertools.product(*options)]


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
    text: str, system: str, sheet: Sheet | None, skill: str | None
) -> tuple[str, dict[str, Any]]:
    """One helper's name and check fields: by numbers (``SKILL[+ABILITY][@DIE]``) or, with a
    sheet, ``NAME[/SKILL]`` (the same skill as the helped character unless named)."""
    if sheet is not None and not _is_number(text.split("@")[0].split("+")[0]):
        name, _, skill_name = text.partition("/")
        who = sheet.get(name)
        return who.name, assisting(who.side(skill_name or skill or ""), system)
    return text, assister(text, system)


def assisting(fields: Mapping[str, Any], system: str) -> dict[str, Any]:
    """A character's check fields as a helper's (OQ11's assist, CH8's assisters): only the
    fields a helper's request has, and never a take, since helpers roll (CH5)."""
    spec = next(f for f in REGISTRY.get(system).check_fields if f.name == ASSIST_FIELD[system])
    kept = {f.name for f in spec.fields} - {"take"}
    return {k: v for k, v in fields.items() if k in kept}


def helpers(
    texts: Sequence[str], system: str, sheet: Sheet | None, skill: str | None
) -> dict[str, Any]:
    """``--assist`` values as the system's field: a nested check (openquest, one at a time,
    OQ11) or a list of assisters (chances, CH8)."""
    out = [helper(text, system, sheet, skill)[1] for text in texts]
    if system == "openquest":
        if len(out) > 1:
            raise D100Error(
                "--assist", list(texts), "one assister at a time (OQ11)", "more than one assister"
            )
        return {"assist": out[0]}
    return {"assisters": out}


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


def _is_number(text: str) -> bool:
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


def open_sheet(ns: argparse.Namespace) -> Sheet:
    if not ns.sheet:
        raise D100Error(
            "--sheet", None, "a sheet file (or set $D100_SHEET)", "character names need a sheet"
        )
    return load_sheet(ns.sheet)


def pick(sheet: Sheet, who: str, skill: str, ability: str | None = None) -> Pick:
    character = sheet.get(who)
    name = character.skill(skill)
    named = ability if ability is not None and not _is_number(ability) else None
    return Pick(character, name, {**character.side(name, named), "skill_name": name})


def system_of(ns: argparse.Namespace) -> str:
    if ns.system is None:
        raise D100Error(
            "--system", None, "one of " + ", ".join(REGISTRY.names()), "required without a sheet"
        )
    return REGISTRY.get(ns.system, "--system").name
