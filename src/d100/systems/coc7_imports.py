"""Investigators from other tools' exports into a CoC7 sheet: Dhole's House's Investigator
JSON export (``Investigator.Characteristics`` as text, ``Investigator.Skills.Skill`` as a list
of name, value and speciality) and a Foundry VTT CoC7 actor (``system.characteristics.str.
value`` and items of type ``skill``; ``data`` before Foundry 10). A skill at its base value
is left to the sheet's base skills; a derived value is written only where it differs from
the rule's (SAN lost, HP after a wound); what the sheet has no place for is a note."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import D100Error
from ..expressions.grammar import parse
from ..investigators import Imported, Profile, SheetFormat
from .coc7_investigator import CHARACTERISTICS, NO_MARKS, base_skills, derive

# an export's words for a derived value -> the sheet's
DHOLE_DERIVED = {"Sanity": "SAN", "HitPts": "HP", "MagicPts": "MP", "Move": "MOV"}
DHOLE_MORE = {"Build": "Build", "DamageBonus": "DB"}
FOUNDRY_DERIVED = {"san": "SAN", "hp": "HP", "mp": "MP", "mov": "MOV", "build": "Build", "db": "DB"}
# the parts of a Dhole's House export the sheet has no place for
DHOLE_UNREAD = ("Weapons", "Talents", "Backstory", "Possessions", "Cash", "Assets")


def _number(value: Any) -> int | None:
    """An integer from a number or its text ("50", " 50 ", 50.0); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value.strip())
    return None


def _table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _bonus(value: Any) -> str | None:
    """A damage bonus as the sheet writes it ("+1d4", "-1", "0"); None if it is none."""
    text = str(value).strip().replace(" ", "") if _number(value) is not None else _text(value)
    if not text:
        return None
    try:
        parse(text, "DB", bonus=False)
    except D100Error:
        return None
    return text if text[0] in "+-" or text == "0" else "+" + text


def _same(rule: int | str | None, given: int | str) -> bool:
    if isinstance(rule, str) and isinstance(given, str):
        return rule.lower().lstrip("+") == given.lower().lstrip("+")
    return rule == given


class _Reading:
    """What one export gives so far, with its notes."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.characteristics: dict[str, int] = {}
        self.skills: dict[str, int] = {}
        self.marks: list[str] = []
        self.age: int | None = None
        self.luck: tuple[int, int] | None = None
        self.derived: dict[str, int | str] = {}

    def note(self, text: str) -> None:
        self.notes.append(text)

    def characteristic(self, name: str, where: str, value: Any) -> None:
        n = _number(value)
        if n is None:
            self.note(f"{where}: {value!r} is no number; {name} left off the sheet")
        else:
            self.characteristics[name] = n

    def skill(self, name: str, where: str, value: Any) -> None:
        n = _number(value)
        if n is None:
            self.note(f"{where} ({name}): {value!r} is no number; the skill left off the sheet")
        elif name.casefold() in {k.casefold() for k in self.skills}:
            self.note(f"{where} ({name}): given twice; the first value kept")
        else:
            self.skills[name] = n

    def set_age(self, where: str, value: Any) -> None:
        n = _number(value)
        if n is not None and 1 <= n <= 999:
            self.age = n
        elif value not in (None, ""):
            self.note(f"{where}: {value!r} is no age in years; no age on the sheet")

    def given(self, name: str, where: str, value: Any) -> None:
        """A derived value as the export states it, kept where it differs from the rule's."""
        if value in (None, ""):
            return
        dice = name == "DB"
        got: int | str | None = _bonus(value) if dice else _number(value)
        if got is None:
            self.note(
                f"{where}: {value!r} is no {'damage bonus' if dice else 'number'}; "
                f"{name} left to the rule"
            )
        else:
            self.derived[name] = got

    def imported(self, name: str) -> Imported:
        """The sheet's table: skills at their base and derived values as the rule makes
        them left out; marks only on skills that may earn one."""
        base = {k.casefold(): v for k, v in base_skills(self.characteristics).items()}
        skills = {k: v for k, v in self.skills.items() if base.get(k.casefold()) != v}
        profile = Profile(self.characteristics, self.skills, self.age)
        rule = derive(profile)
        derived = {k: v for k, v in self.derived.items() if not _same(rule.get(k), v)}
        marks = []
        for m in self.marks:
            if m.casefold() in NO_MARKS:
                self.note(f"{m}: marked for improvement, but it never earns a mark; unmarked")
            elif m.casefold() in {k.casefold() for k in skills} | base.keys():
                marks.append(m)
        table: dict[str, Any] = {"characteristics": self.characteristics, "skills": skills}
        if self.age is not None:
            table["age"] = self.age
        if self.luck is not None:
            table["luck"] = {"current": self.luck[0], "maximum": self.luck[1]}
        if derived:
            table["derived"] = derived
        if marks:
            table["marks"] = marks
        return Imported(name, table, tuple(self.notes))


# -- Dhole's House ------------------------------------------------------------------------------


def _is_dhole(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(
        _table(data.get("Investigator")).get("Characteristics"), dict
    )


def _dhole(data: Any) -> Imported:
    inv = data["Investigator"]
    r = _Reading()
    details = _table(inv.get("PersonalDetails"))
    chars = inv["Characteristics"]
    for c in CHARACTERISTICS:
        r.characteristic(c, f"Investigator.Characteristics.{c}", chars.get(c))
    r.set_age("Investigator.PersonalDetails.Age", details.get("Age"))
    luck, most = _number(chars.get("Luck")), _number(chars.get("LuckMax"))
    if luck is not None and luck >= 0:
        r.luck = (luck, max(luck, most or 0))
    elif "Luck" in chars:
        r.note(f"Investigator.Characteristics.Luck: {chars['Luck']!r} is no Luck; no Luck")
    for key, name in (DHOLE_DERIVED | DHOLE_MORE).items():
        r.given(name, f"Investigator.Characteristics.{key}", chars.get(key))
    listed = _table(inv.get("Skills")).get("Skill")
    for i, s in enumerate(listed if isinstance(listed, list) else []):
        s = _table(s)
        name, speciality = _text(s.get("name")), _text(s.get("subskill"))
        if speciality and speciality.casefold() != "none":
            name = f"{name} ({speciality})"
        if not name:
            r.note(f"Investigator.Skills.Skill[{i}]: no name; left off the sheet")
            continue
        r.skill(name, f"Investigator.Skills.Skill[{i}]", s.get("value"))
    dodge = _table(_table(inv.get("Combat")).get("Dodge")).get("value")
    if dodge not in (None, "") and "dodge" not in {k.casefold() for k in r.skills}:
        r.skill("Dodge", "Investigator.Combat.Dodge.value", dodge)
    unread = [k for k in DHOLE_UNREAD if inv.get(k) not in (None, "", {}, [])]
    if unread:
        r.note("not read (a sheet holds skills, not these): " + ", ".join(unread))
    name = _text(details.get("Name"))
    if not name:
        r.note("Investigator.PersonalDetails.Name: none; named 'investigator'")
    return r.imported(name or "investigator")


# -- Foundry VTT CoC7 ---------------------------------------------------------------------------


def _body(data: Any) -> Mapping[str, Any]:
    """An actor's system data: ``system`` from Foundry 10, ``data`` before."""
    return _table(data.get("system") if "system" in data else data.get("data"))


def _is_foundry(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(_body(data).get("characteristics"), dict)
        and isinstance(data.get("items", []), list)
    )


ADJUSTMENTS = ("personal", "occupation", "experience")  # added on a character's skill


def _foundry_value(
    item: Mapping[str, Any], body: Mapping[str, Any], character: bool, r: _Reading
) -> Any:
    """A skill's value: a character's is its base plus its adjustments (a base written as a
    formula, as Dodge's, is the rule's), an NPC's its value."""
    if not character:
        return body.get("value")
    base = _number(body.get("base"))
    if base is None:
        base = base_skills(r.characteristics).get(str(item.get("name")))
    if base is None:
        return body.get("value")
    adjustments = _table(body.get("adjustments"))
    if _number(adjustments.get("archetype")):
        r.note(f"{item.get('name')}: its Pulp archetype points not added")
    return base + sum(_number(adjustments.get(a)) or 0 for a in ADJUSTMENTS)


def _foundry(data: Any) -> Imported:
    body = _body(data)
    where = "system" if "system" in data else "data"
    r = _Reading()
    chars = body["characteristics"]
    for c in CHARACTERISTICS:
        r.characteristic(
            c,
            f"{where}.characteristics.{c.lower()}.value",
            _table(chars.get(c.lower())).get("value"),
        )
    attribs = _table(body.get("attribs"))
    r.set_age(f"{where}.infos.age", _table(body.get("infos")).get("age"))
    luck = _number(_table(attribs.get("lck")).get("value"))
    if luck is not None and luck >= 0:
        r.luck = (luck, luck)
    for key, name in FOUNDRY_DERIVED.items():
        r.given(name, f"{where}.attribs.{key}.value", _table(attribs.get(key)).get("value"))
    character = data.get("type", "character") == "character"
    others: dict[str, int] = {}
    for i, item in enumerate(data.get("items", [])):
        item = _table(item)
        kind = str(item.get("type"))
        if kind != "skill":
            others[kind] = others.get(kind, 0) + 1
            continue
        inner = _table(item.get("system") if "system" in item else item.get("data"))
        name = _text(item.get("name"))
        if not name:
            r.note(f"items[{i}]: a skill with no name; left off the sheet")
            continue
        r.skill(name, f"items[{i}]", _foundry_value(item, inner, character, r))
        if _table(inner.get("flags")).get("developement") is True:  # Foundry's spelling
            r.marks.append(name)
    if others:
        said = ", ".join(f"{n} {k}" for k, n in sorted(others.items()))
        r.note(f"not read (a sheet holds skills, not these): items: {said}")
    name = _text(data.get("name"))
    if not name:
        r.note("name: none; named 'investigator'")
    return r.imported(name or "investigator")


FORMATS = (
    SheetFormat(
        "Dhole's House",
        "a Dhole's House investigator export (JSON with Investigator.Characteristics)",
        _is_dhole,
        _dhole,
    ),
    SheetFormat(
        "Foundry VTT CoC7",
        "a Foundry VTT CoC7 actor (JSON with system.characteristics and items)",
        _is_foundry,
        _foundry,
    ),
)
