"""``d100 sheet new|show|validate`` and ``d100 rest``: character sheets on the command line."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import D100Error
from ..render.view import View, line, seg, table
from ..sheets import FLAGS, Character, Flag, Sheet, feeds, from_table, keys_of, load, save, to_table
from ..systems import REGISTRY
from . import flags
from .output import show

HELP = """\
Character sheets are TOML files, one per character or per party; edit them by hand freely.

examples:
  d100 sheet new party.toml alice --system brp --luck 13 --skill stealth=65 --skill "spot hidden=50"
  d100 sheet new party.toml carol -s chances --skill sneak=40 --ability dex=10 --uses sneak=dex
  d100 sheet show party.toml
  d100 sheet show party.toml alice
  d100 sheet validate party.toml
"""
IMPORT_HELP = """\
Read an investigator exported by another tool: Dhole's House's JSON export (Advanced Options,
Export as JSON) or a Foundry VTT CoC7 actor (Export Data). Characteristics, skills (a skill at
its base value is left to the base skills), age, Luck, marks for improvement and derived values
that differ from the rule's (SAN lost, HP after a wound) are read; what a sheet holds no place
for (weapons, possessions, backstory) is named in a note. With a sheet, the character is added
to it (made if missing); without, the TOML is printed.

examples:
  d100 sheet import vera.json party.toml
  d100 sheet import fvtt-Actor-vera.json --name Vera
"""
MOST_BYTES = 16 * 1024 * 1024  # an export: an actor with embedded images is a few MB
REST_HELP = """\
A full night's rest: Luck back to its maximum, for everyone or the characters named, where
their system has a rest rule (BRP7); a system without one keeps its Luck as its own rules say.

examples:
  d100 rest --sheet party.toml
  d100 rest --sheet party.toml alice
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "sheet",
        description=HELP,
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=type(p))
    new = verbs.add_parser(
        "new",
        help="add a character to a sheet (made if missing)",
        description=HELP,
    )
    new.add_argument("path")
    new.add_argument("name")
    new.add_argument("--system", "-s", required=True, help=", ".join(REGISTRY.names()))
    for key, f in FLAGS.items():  # one flag per sheet key, its help naming who has it
        who = [name for name in REGISTRY.names() if feeds(key, name)]
        only = "" if len(who) == len(REGISTRY.names()) else ", ".join(who) + ": "
        if f.shape in ("count", "integer"):
            new.add_argument(f.flag, type=int, metavar=f.metavar, help=only + f.help)
        else:
            new.add_argument(
                f.flag, action="append", default=[], metavar=f.metavar, help=only + f.help
            )
    new.set_defaults(run=run_new)
    for verb, helptext, fn in (
        ("show", "print a sheet as tables", run_show),
        ("validate", "check a sheet; exit 2 with the first problem", run_validate),
    ):
        v = verbs.add_parser(
            verb,
            help=helptext,
            description=HELP,
        )
        v.add_argument("path")
        if verb == "show":
            v.add_argument("name", nargs="?", help="one character (prefix)")
            flags.add_output(v)
        v.set_defaults(run=fn)
    imp = verbs.add_parser(
        "import", help="read a Dhole's House or Foundry VTT CoC7 export", description=IMPORT_HELP
    )
    imp.add_argument("file", metavar="FILE", help="the exported JSON")
    imp.add_argument("path", nargs="?", metavar="SHEET", help="the sheet to add it to")
    imp.add_argument("--name", help="the character's name on the sheet (default: the export's)")
    imp.set_defaults(run=run_import)

    p = sub.add_parser(
        "rest",
        description=REST_HELP,
    )
    p.add_argument("names", nargs="*", metavar="WHO", help="default: everyone")
    flags.add_sheet(p)
    p.set_defaults(run=run_rest)


def pairs(items: list[str], flag: str, numeric: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, eq, text = item.rpartition("=")
        if not eq or not key.strip():
            raise D100Error(flag, item, "NAME=VALUE", "no '='")
        out[key.strip()] = flags.number(flag, text) if numeric else text.strip()
    return out


def flag_value(ns: argparse.Namespace, f: Flag) -> Any:
    """What a sheet key's flag gave, as the sheet's TOML table holds it (None: not given)."""
    given = getattr(ns, f.flag.lstrip("-"))
    if given in (None, []):
        return None
    if f.shape == "count":
        return {"current": given, "maximum": given}
    if f.shape in ("integer", "list"):
        return given
    if f.shape == "names":
        return {k: v.split(",") for k, v in pairs(given, f.flag, False).items()}
    return pairs(given, f.flag, f.shape == "number")


def run_new(ns: argparse.Namespace) -> int:
    path = Path(ns.path)
    flags.writable(path, "PATH")
    sheet = load(path) if path.exists() else Sheet((), "party")
    taken = sheet.clash(ns.name)
    if taken is not None:
        raise D100Error(
            "name",
            ns.name,
            "a name not yet on the sheet, in any letter case",
            f"{taken!r} is already on the sheet",
        )
    system = REGISTRY.get(ns.system, "--system").name
    used = keys_of(system)
    draft: dict[str, Any] = {"system": ns.system}
    for key, f in FLAGS.items():
        value = flag_value(ns, f)
        if value is not None and key not in used:
            given = getattr(ns, f.flag.lstrip("-"))
            raise D100Error(
                f.flag,
                given if not isinstance(given, list) else given[0],
                f"the flags for {system} characters: "
                + ", ".join(FLAGS[k].flag for k in used if k in FLAGS),
                f"{system} has no {key}",
            )
        if value is not None:
            draft[key] = value
    character = from_table(ns.name, draft)
    saved(path, sheet.put(character))
    print(
        f"{path}: added {character.name} ({character.system}), "
        f"{len(sheet.characters) + 1} character(s)"
    )
    return 0


def run_show(ns: argparse.Namespace) -> int:
    sheet = load(ns.path)
    chosen = [sheet.get(ns.name)] if ns.name else list(sheet.characters)
    view = View(())
    for c in chosen:
        view = view + character_view(c)
    show(ns, view, {c.name: sheet_data(c) for c in chosen})
    return 0


def character_view(c: Character) -> View:
    system = REGISTRY.get(c.system)
    head = f"{c.name} ({system.title})"
    if c.luck is not None:
        head += f" — Luck {c.luck.current}/{c.luck.maximum}"
    rows = []
    for skill, value in c.skills.items():
        extra = []  # abilities and synergy are only on sheets of systems that have them
        ability = c.ability_for(skill)
        if ability:
            extra.append(f"+ {ability} {c.abilities[ability]:+d}")
        if c.synergy.get(skill):
            extra.append("synergy: " + ", ".join(c.synergy[skill]))
        rows.append([seg(skill), seg(str(value), "bold"), seg("; ".join(extra), "dim")])
    for skill, value in c.base_skills.items():
        rows.append([seg(skill, "dim"), seg(str(value)), seg("base", "dim")])
    view = View((line(seg(head, "title")),)) + table(["skill", "%", ""], rows)
    if c.abilities:
        view = view + table(
            ["abilities", "factor"], [[seg(k), seg(f"{v:+d}")] for k, v in c.abilities.items()]
        )
    return view + investigator_view(c) + View(((("", ""),),))


def investigator_view(c: Character) -> View:
    """Characteristics with the fractions checks read, and derived values, each marked where
    the sheet sets it rather than the rule; nothing for a system without an investigator."""
    rules = c.investigator_rules
    if rules is None or not (c.characteristics or c.derived_values):
        return View(())
    view = View(())
    if c.characteristics:
        heads = [name for name, _ in rules.parts(0)]
        rows = [
            [seg(k), seg(str(v), "bold"), *(seg(str(n)) for _, n in rules.parts(v))]
            for k, v in c.characteristics.items()
        ]
        view = view + table(["characteristics", "value", *heads], rows)
    rows = [
        [seg(k), seg(str(v), "bold"), seg("sheet" if own else "", "dim")]
        for k, (v, own) in c.derived_values.items()
    ]
    return view + table(["derived", "value", ""], rows)


def sheet_data(c: Character) -> dict[str, Any]:
    """A character as JSON: its table, and what its system derives from it."""
    out = to_table(c)
    rules = c.investigator_rules
    if rules is not None:
        out["computed"] = {
            "characteristics": {k: dict(rules.parts(v)) for k, v in c.characteristics.items()},
            "derived": {k: v for k, (v, _) in c.derived_values.items()},
            "base_skills": c.base_skills,
        }
    return out


def _export(path: Path) -> Any:
    """The export's JSON, or one line naming why it could not be read."""
    import json

    try:
        with path.open("rb") as f:
            raw = f.read(MOST_BYTES + 1)
    except OSError as err:
        raise D100Error("FILE", str(path), "a readable file", err.strerror) from None
    if len(raw) > MOST_BYTES:
        raise D100Error("FILE", str(path), f"at most {MOST_BYTES} bytes", "too large")
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        why = (
            f"not JSON: {err.msg}, line {err.lineno} column {err.colno}"
            if isinstance(err, json.JSONDecodeError)
            else "not UTF-8 text"
        )
        raise D100Error("FILE", str(path), "an exported JSON file", why) from None


def run_import(ns: argparse.Namespace) -> int:
    from ..sheet_import import read

    target = None if ns.path is None else Path(ns.path)
    if target is not None:
        flags.writable(target, "SHEET")
    got = read(_export(Path(ns.file)), "FILE", ns.name)
    c = got.character
    notes = [f"note: {n}" for n in got.notes]
    if target is None:
        from ..sheets import dumps

        print("\n".join(f"# {n}" for n in [f"read from {got.source}: {ns.file}", *notes]))
        print(dumps(Sheet((c,), "party")), end="")
        return 0
    sheet = load(target) if target.exists() else Sheet((), "party")
    taken = sheet.clash(c.name)
    if taken is not None:
        raise D100Error(
            "--name",
            c.name,
            "a name not yet on the sheet, in any letter case",
            f"{taken!r} is already on the sheet",
        )
    saved(target, sheet.put(c))
    print(f"{target}: added {c.name} ({c.system}) from {got.source}")
    for n in notes:
        print(f"  {n}")
    return 0


def run_validate(ns: argparse.Namespace) -> int:
    sheet = load(ns.path)
    print(f"{ns.path}: ok, {len(sheet.characters)} character(s): " + ", ".join(sheet.names()))
    return 0


def run_rest(ns: argparse.Namespace) -> int:
    """Luck back to its maximum for the characters whose system declares a rest rule (BRP7);
    a character named whose system has none is refused, naming the systems that have one,
    and with no names such a character is passed over, saying so."""
    sheet = flags.open_sheet(ns)
    chosen = [sheet.get(n) for n in ns.names] if ns.names else list(sheet.characters)
    rested = 0
    for c in chosen:
        rule = _rest_rule(c.system)
        if c.luck is None or rule is None:
            why = f"{c.name} has no Luck" if c.luck is None else _no_rest(c.system)
            if ns.names:
                allowed = "a character with Luck on the sheet"
                if c.luck is not None:
                    allowed = f"a character of a system with a rest rule: {_resting()}"
                raise D100Error("WHO", c.name, allowed, why)
            if c.luck is not None:
                print(f"{c.name}: Luck {c.luck.current}, unchanged: {_no_rest(c.system)}")
            continue
        sheet = sheet.put(replace(c, luck=c.luck.rest()))
        print(f"{c.name}: Luck {c.luck.current} -> {c.luck.maximum}")
        rested += 1
    if rested:
        saved(Path(ns.sheet), sheet)
    return 0


def _rest_rule(system: str) -> str | None:
    luck = REGISTRY.get(system).declares.luck
    return None if luck is None else luck.rest


def _no_rest(system: str) -> str:
    return f"{REGISTRY.get(system).title} has no rest rule: Luck comes back only by its rules"


def _resting() -> str:
    return ", ".join(s.name for s in REGISTRY if _rest_rule(s.name) is not None) or "none"


def saved(path: Path, sheet: Sheet) -> None:
    """Save, or say in one line why the file could not be written (permissions, a full disk)."""
    try:
        save(path, sheet)
    except OSError as err:
        raise D100Error("sheet", str(path), "a file d100 may write", err.strerror) from None
