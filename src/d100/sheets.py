"""Character sheets: a human-editable TOML file per character or per party.

A party file holds one table per character; a character file holds one character at the top
level, with its ``name``::

    [alice]
    system = "brp"
    luck = { current = 11, maximum = 13 }
    skills = { stealth = 65, "spot hidden" = 50 }

    [bob]
    system = "chances"
    skills = { sneaking = 40, hiding = 30 }
    abilities = { dex = 10, per = 5 }
    uses = { sneaking = "dex" }          # the ability each skill adds (CH1)
    synergy = { sneaking = ["hiding"] }  # skills synergistic with it (CH9)

Names are looked up case-insensitively, by unambiguous prefix, with a did-you-mean on a typo.
Saving is atomic: the file on disk is always either the old or the new sheet. Saving rewrites
only the values that changed: comments and layout stay as the player wrote them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field, fields, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Literal

from .declarations import Declaration
from .errors import MAX_DIGITS, D100Error
from .fields import BIG, is_int
from .investigators import MOST_USED, Investigator, Profile
from .luck import Luck
from .system import System
from .systems import REGISTRY

Layout = Literal["party", "character"]


def _ability(d: Declaration) -> object:
    return d.ability_field


def _investigator(d: Declaration) -> object:
    return d.investigator


def _development(d: Declaration) -> object:
    return d.development


def _learning(d: Declaration) -> object:
    """A system whose experience roll adds a bonus from the sheet (BRP's half INT)."""
    return None if d.development is None else d.development.bonus


# How a sheet key's value is read: (value or None, where, the keys read before it, the
# system) -> the Character field's value.
Reader = Callable[[Any, str, Mapping[str, Any], System], Any]


@dataclass(frozen=True)
class Flag:
    """How the command line sets a sheet key (``d100 sheet new``): its flag, what it takes,
    and how its text reads: ``number`` NAME=N pairs, ``name`` NAME=OTHER, ``names``
    NAME=A,B, ``count`` a single N (Luck's current and maximum), ``integer`` a single N,
    ``list`` a name each time it is given."""

    flag: str
    metavar: str
    shape: Literal["number", "name", "names", "count", "integer", "list"]
    help: str


def _key(
    read: Reader, flag: Flag, feeds: Callable[[Declaration], object] | None = None
) -> dict[str, Any]:
    """A sheet key's metadata: how it is read, its command-line flag, and the declared rule
    it feeds, if any (a system without that rule refuses the key: a BRP sheet has no
    abilities)."""
    out: dict[str, Any] = {"read": read, "flag": flag}
    return out if feeds is None else out | {"feeds": feeds}


def _table(value: Any) -> Any:
    return {} if value is None else value


def _skills(value: Any, where: str, got: Mapping[str, Any], system: System) -> dict[str, int]:
    skill = next(f for f in system.check_fields if f.name == "skill")
    return _numbers(_table(value), where, skill.low, skill.high)


def _abilities(value: Any, where: str, *_: Any) -> dict[str, int]:
    return _numbers(_table(value), where, -BIG, BIG)


def _read_luck(value: Any, where: str, *_: Any) -> Luck | None:
    return _luck(value, where)


def _synergy(value: Any, where: str, got: Mapping[str, Any], _: System) -> dict[str, Any]:
    skills = got["skills"]
    named = _names(_table(value), where, skills, skills, many=True)
    return {k: tuple(v) for k, v in named.items()}


def _uses(value: Any, where: str, got: Mapping[str, Any], _: System) -> dict[str, str]:
    return _names(_table(value), where, got["skills"], got["abilities"], what="abilities")


def _declared(names: Iterable[str], given: str, where: str, what: str) -> str:
    """A declared name as declared, from any letter case."""
    names = list(names)
    found = next((n for n in names if n.casefold() == given.casefold()), None)
    if found is None:
        raise D100Error(where, given, "one of " + ", ".join(names), f"not one of the {what}")
    return found


def _characteristics(value: Any, where: str, _: Mapping[str, Any], system: System) -> Any:
    if value is None:
        return {}
    rules = system.declares.investigator
    assert rules is not None  # a key feeding a rule its system lacks is refused before
    low, high = rules.range
    read = _numbers(value, where, low, high)
    named = rules.characteristics
    return {_declared(named, k, f"{where}.{k}", "characteristics"): v for k, v in read.items()}


def _age(value: Any, where: str, *_: Any) -> int | None:
    if value is None:
        return None
    allowed = "an integer 1..999 (years)"
    _integer(value, where, allowed)
    if not 1 <= value <= 999:
        raise D100Error(where, value, allowed, None)
    return int(value)


def _derived(value: Any, where: str, _: Mapping[str, Any], system: System) -> Any:
    """Derived values the sheet sets instead of the rule's (current SAN, HP after a wound):
    numbers, and a dice expression where the value is one (a damage bonus)."""
    if value is None:
        return {}
    rules = system.declares.investigator
    assert rules is not None
    if not isinstance(value, dict):
        raise D100Error(where, value, "a table of name = value", "not a table")
    out: dict[str, int | str] = {}
    for key, given in value.items():
        name = _declared((d.name for d in rules.derived), key, f"{where}.{key}", "derived values")
        if rules.derived_value(name).dice:
            from .expressions.grammar import parse

            text = str(given) if is_int(given) else given
            parse(text, f"{where}.{key}", bonus=False)  # refuses what is no dice expression
            out[name] = text
        else:
            allowed = f"an integer {-BIG}..{BIG}"
            _integer(given, f"{where}.{key}", allowed)
            if not -BIG <= given <= BIG:
                raise D100Error(f"{where}.{key}", given, allowed, None)
            out[name] = given
    return out


def _counted(d: Declaration) -> object:
    """A system whose investigators have a Luck spend whose cost grows with its uses."""
    rules = d.investigator
    counted = rules is not None and any(s.counted for g in rules.spends.values() for s in g)
    return True if counted else None


def _name_list(value: Any, where: str, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    allowed = f"a list of {what}, each once"
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise D100Error(where, value, allowed, None)
    seen = [v.casefold() for v in value]
    if len(set(seen)) != len(seen):
        raise D100Error(where, value, allowed, "a name given twice")
    return tuple(value)


def _marks(value: Any, where: str, *_: Any) -> tuple[str, ...]:
    return _name_list(value, where, "skill names")


def _experience_bonus(value: Any, where: str, *_: Any) -> int | None:
    if value is None:
        return None
    allowed = "an integer 0..999 (added to each experience roll's d100)"
    _integer(value, where, allowed)
    if not 0 <= value <= 999:
        raise D100Error(where, value, allowed, None)
    return int(value)


def _luck_uses(value: Any, where: str, _: Mapping[str, Any], system: System) -> dict[str, int]:
    """Each doubling Luck spend's uses since the Keeper reset its cost (P-3), by its word."""
    rules = system.declares.investigator
    counted = [s.name for g in (rules.spends if rules else {}).values() for s in g if s.counted]
    read = _numbers(_table(value), where, 0, MOST_USED)
    return {_declared(counted, k, f"{where}.{k}", "doubling spends"): v for k, v in read.items()}


def _rules(value: Any, where: str, _: Mapping[str, Any], system: System) -> tuple[str, ...]:
    named = _name_list(value, where, "optional rules")
    rules = system.declares.investigator
    options = rules.options if rules is not None else {}
    return tuple(_declared(options, n, where, "optional rules") for n in named)


@dataclass(frozen=True)
class Character:
    """One character: trained skills and ability factors by name, Luck if the system has it,
    synergistic skills and the ability each skill adds (``uses``). Each field after ``name``
    is a key of the sheet's TOML table, in this order (a key is read after those it names)."""

    name: str
    system: str
    skills: dict[str, int] = field(
        default_factory=dict,
        metadata=_key(_skills, Flag("--skill", "NAME=N", "number", "a trained skill")),
    )
    abilities: dict[str, int] = field(
        default_factory=dict,
        metadata=_key(_abilities, Flag("--ability", "NAME=N", "number", "an ability"), _ability),
    )
    luck: Luck | None = field(
        default=None,
        metadata=_key(
            _read_luck, Flag("--luck", "N", "count", "maximum (and current) Luck"), lambda d: d.luck
        ),
    )
    synergy: dict[str, tuple[str, ...]] = field(
        default_factory=dict,
        metadata=_key(
            _synergy,
            Flag("--synergy", "SKILL=S1,S2", "names", "skills synergistic with SKILL"),
            lambda d: d.synergy_field,
        ),
    )
    uses: dict[str, str] = field(
        default_factory=dict,
        metadata=_key(
            _uses, Flag("--uses", "SKILL=ABILITY", "name", "the ability a skill adds"), _ability
        ),
    )
    characteristics: dict[str, int] = field(
        default_factory=dict,
        metadata=_key(
            _characteristics,
            Flag("--characteristic", "NAME=N", "number", "a characteristic"),
            _investigator,
        ),
    )
    age: int | None = field(
        default=None,
        metadata=_key(_age, Flag("--age", "N", "integer", "age in years"), _investigator),
    )
    derived: dict[str, int | str] = field(
        default_factory=dict,
        metadata=_key(
            _derived,
            Flag("--derived", "NAME=N", "number", "a derived value set instead of the rule's"),
            _investigator,
        ),
    )
    rules: tuple[str, ...] = field(
        default=(),
        metadata=_key(
            _rules, Flag("--rule", "NAME", "list", "an optional rule played by"), _investigator
        ),
    )
    marks: tuple[str, ...] = field(
        default=(),
        metadata=_key(
            _marks,
            Flag("--mark", "SKILL", "list", "a skill marked for improvement"),
            _development,
        ),
    )
    experience_bonus: int | None = field(
        default=None,
        metadata=_key(
            _experience_bonus,
            Flag(
                "--experience",
                "N",
                "integer",
                "the experience bonus, added to each experience roll",
            ),
            _learning,
        ),
    )
    luck_uses: dict[str, int] = field(
        default_factory=dict,
        metadata=_key(
            _luck_uses,
            Flag("--spent", "SPEND=N", "number", "a doubling Luck spend's uses since reset"),
            _counted,
        ),
    )

    @cached_property
    def rollable(self) -> dict[str, int]:
        """Every value a check may be made against, by name: the trained skills, then the
        characteristics and Luck, then the base skills the sheet does not list (where the
        system declares an investigator); a name once, in any letter case."""
        out = dict(self.skills)
        rules = self.investigator_rules
        if rules is None:
            return out
        more = dict(self.characteristics)
        if self.luck is not None:
            more[rules.luck] = self.luck.current
        more.update(self.base_skills)
        taken = {k.casefold() for k in out}
        for name, value in more.items():
            if name.casefold() not in taken:
                out[name] = value
                taken.add(name.casefold())
        return out

    @property
    def investigator_rules(self) -> Investigator | None:
        return REGISTRY.get(self.system).declares.investigator

    @property
    def profile(self) -> Profile:
        rules = frozenset(self.rules)
        return Profile(self.characteristics, self.skills, self.age, rules, self.derived)

    @cached_property
    def base_skills(self) -> dict[str, int]:
        """The system's base skills this sheet does not list (S7-12 for CoC7)."""
        rules = self.investigator_rules
        if rules is None:
            return {}
        listed = {k.casefold() for k in self.skills}
        base = rules.base(self.characteristics)
        return {k: v for k, v in base.items() if k.casefold() not in listed}

    @cached_property
    def derived_values(self) -> dict[str, tuple[int | str, bool]]:
        """Each derived value the sheet allows, with whether the sheet set it (else the
        system's rule made it)."""
        rules = self.investigator_rules
        if rules is None:
            return {}
        made = rules.derive(self.profile)
        out: dict[str, tuple[int | str, bool]] = {}
        for d in rules.derived:
            if d.name in self.derived:
                out[d.name] = (self.derived[d.name], True)
            elif d.name in made:
                out[d.name] = (made[d.name], False)
        return out

    @property
    def damage_bonus(self) -> str | None:
        """What ``DB`` stands for in this character's dice (S7-11): the derived value its
        system names the damage bonus, the sheet's own or the rule's; None where there is none."""
        rules = self.investigator_rules
        if rules is None or rules.damage_bonus is None:
            return None
        found = self.derived_values.get(rules.damage_bonus)
        return None if found is None else str(found[0])

    def marked(self, mark: str, where: str = "marks") -> str:
        """The skill a mark names: a trained one, or one at its base (never a
        characteristic); errors name ``where``."""
        try:
            return lookup(mark, {**self.skills, **self.base_skills}, f"{self.name}'s skill")
        except D100Error as err:
            raise D100Error(where, mark, err.allowed, err.reason) from None

    def skill(self, query: str) -> str:
        """The skill's name as the sheet spells it, from a prefix or any letter case; with
        an investigator, a characteristic's, Luck's or a base skill's too."""
        names = self.rollable
        if len(names) > len(self.skills):  # base skills and characteristics beside the sheet's
            key = _folded(query)
            own = [n for n in self.skills if _folded(n).startswith(key)] if key else []
            # a prefix of one skill the sheet lists is that skill ("fighting" its Fighting
            # (Brawl), not ambiguous with the base Fighting (Axe)), unless another name is
            # the query itself (DEX, a base skill's full name)
            if len(own) == 1 and not any(_folded(n) == key for n in names):
                return own[0]
        return lookup(query, names, f"{self.name}'s skill")

    def ability(self, query: str) -> str:
        return lookup(query, self.abilities, f"{self.name}'s ability")

    def ability_for(self, skill: str) -> str | None:
        """The ability a skill adds: the sheet's ``uses``, else the one its system's opposed
        tasks pair it with, on either side (``declares.tasks``, CH11)."""
        if skill in self.uses:
            return self.uses[skill]
        paired = _pairs(self.system).get(skill.lower())
        if paired is None:
            return None
        key = paired.rstrip(".").lower()
        return next((a for a in self.abilities if a.lower().startswith(key)), None)

    def side(self, skill: str, ability: str | None = None) -> dict[str, Any]:
        """The check fields (without ``system``) for one of this character's skills.

        ``ability`` names the ability to add (where the system adds one) instead of the sheet's
        choice."""
        name = self.skill(skill)
        out: dict[str, Any] = {"skill": self.rollable[name]}
        declares = REGISTRY.get(self.system).declares
        if declares.ability_field is None:
            return out
        if ability is not None:
            chosen: str | None = self.ability(ability)
        else:
            chosen = self.ability_for(name)
            if chosen is None and self.abilities:
                raise D100Error(
                    declares.ability_field,
                    None,
                    "--ability NAME, one of " + ", ".join(self.abilities),
                    f"the sheet does not say which ability {self.name}'s {name} adds "
                    f"(add it under {self.name}.uses)",
                )
        if chosen is not None:
            out[declares.ability_field] = self.abilities[chosen]
        synergy = [self.skills[s] for s in self.synergy.get(name, ())]
        if synergy and declares.synergy_field is not None:
            out[declares.synergy_field] = synergy
        return out

    def request(self, skill: str, ability: str | None = None) -> dict[str, Any]:
        """A contract check request for one of this character's skills (CONTRACT.md)."""
        return {"system": self.system, **self.side(skill, ability)}


@lru_cache(maxsize=64)
def _pairs(system: str) -> dict[str, str]:
    """Skill -> ability, from both sides of a system's opposed tasks."""
    tasks = REGISTRY.get(system).declares.tasks
    return {
        **{t.skill.lower(): t.ability for t in tasks},
        **{t.opposing_skill.lower(): t.opposing_ability for t in tasks},
    }


KEYS = tuple(f.name for f in fields(Character))[1:]  # a sheet's keys, in its order
_FEEDS = {f.name: f.metadata["feeds"] for f in fields(Character) if "feeds" in f.metadata}
FLAGS: dict[str, Flag] = {f.name: f.metadata["flag"] for f in fields(Character) if f.metadata}


def feeds(key: str, system: str) -> bool:
    """Whether a system's characters may have this sheet key (one feeding a rule it has)."""
    return key not in _FEEDS or _FEEDS[key](REGISTRY.get(system).declares) is not None


@dataclass(frozen=True)
class Sheet:
    """The characters of one file, in file order."""

    characters: tuple[Character, ...]
    layout: Layout = "party"

    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.characters)

    def get(self, query: str) -> Character:
        name = lookup(query, self.names(), "character")
        return next(c for c in self.characters if c.name == name)

    def clash(self, name: str) -> str | None:
        """The character already named ``name`` in any letter case: a second one could never
        be picked, since names are looked up case-insensitively."""
        return next((n for n in self.names() if n.lower() == name.strip().lower()), None)

    def put(self, character: Character) -> Sheet:
        """The sheet with one character replaced (matched by name) or added."""
        if character.name in self.names():
            kept = tuple(character if c.name == character.name else c for c in self.characters)
            return replace(self, characters=kept)
        return Sheet((*self.characters, character), "party")


def _folded(name: str) -> str:
    """A name as ``lookup`` compares it: any letter case, runs of spaces as one."""
    return " ".join(name.split()).lower()


def lookup(query: str, names: Iterable[str], what: str) -> str:
    """A name from ``names``: exact (any case) first, then the one name starting with
    ``query``; otherwise a D100Error naming the candidates or the closest spelling."""
    names = list(names)
    key = _folded(query)
    exact = [n for n in names if _folded(n) == key]
    if exact:
        return exact[0]
    starts = [n for n in names if _folded(n).startswith(key)] if key else []
    if len(starts) == 1:
        return starts[0]
    listed = ", ".join(names) if names else "none on the sheet"
    if starts:
        raise D100Error(what, query, "one of " + listed, "ambiguous: " + " or ".join(starts) + "?")
    import difflib  # only for a name not found

    close = difflib.get_close_matches(key, [n.lower() for n in names], n=1, cutoff=0.5)
    hint = next((n for n in names if close and n.lower() == close[0]), None)
    reason = f"unknown {what} {query!r}" + (f"; did you mean {hint!r}?" if hint else "")
    raise D100Error(what, query, "one of " + listed, reason)


# -- the TOML format ----------------------------------------------------------------------------


def loads(text: str) -> Sheet:
    try:
        import tomllib  # here, not at the top: a check without a sheet never reads one

        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise D100Error("sheet", None, "a TOML file", f"not valid TOML: {err}") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise D100Error("sheet", None, "a TOML file", "nested too deeply") from None
    except ValueError:  # the one tomllib raises besides: a decimal integer Python will not read
        allowed = f"a TOML file whose integers have at most {MAX_DIGITS:,} digits"
        raise D100Error("sheet", None, allowed, "a number too long to read") from None
    if "name" in data:
        return Sheet((from_table(str(data.get("name")), data, ""),), "character")
    sheet = Sheet((), "party")
    for name, value in data.items():
        if not isinstance(value, dict):
            raise D100Error(
                name,
                value,
                "a table [name] per character, or a top-level name",
                "not a character table",
            )
        other = sheet.clash(name)
        if other is not None:
            raise D100Error(
                name, name, "names that differ in more than letter case", f"the same as {other!r}"
            )
        sheet = Sheet((*sheet.characters, from_table(name, value, name)), "party")
    return sheet


def dumps(sheet: Sheet, original: str | None = None) -> str:
    """The sheet as TOML. Given the text it was read from, only the values that changed are
    rewritten, so the player's comments, order and layout stay."""
    import tomlkit  # here, not at the top: rolls only read sheets (tomllib), start-up counts

    if sheet.layout == "character" and len(sheet.characters) == 1:
        (only,) = sheet.characters
        data = {"name": only.name, **to_table(only)}
    else:
        data = {c.name: to_table(c) for c in sheet.characters}
    if original is None:
        return tomlkit.dumps(data)
    document = tomlkit.parse(original)
    _merge(document, data)
    return tomlkit.dumps(document)


def _merge(old: MutableMapping[str, Any], new: Mapping[str, Any]) -> None:
    """Make ``old`` (a TOML document or table) hold ``new``, touching only what differs."""
    for key in [k for k in old if k not in new]:
        del old[key]
    for key, value in new.items():
        if key in old and isinstance(value, dict) and isinstance(old[key], dict):
            _merge(old[key], value)
        elif key not in old or old[key] != value:
            old[key] = value


# A party's sheet is a few kilobytes; more than this is not a sheet (and would be read whole).
MAX_SHEET_BYTES = 1 << 20


def load(path: str | os.PathLike[str]) -> Sheet:
    try:
        with Path(path).open("rb") as file:
            raw = file.read(MAX_SHEET_BYTES + 1)
    except OSError as err:
        raise D100Error("sheet", str(path), "a readable TOML sheet", err.strerror) from None
    if len(raw) > MAX_SHEET_BYTES:
        raise D100Error(
            "sheet", str(path), f"a sheet of at most {MAX_SHEET_BYTES} bytes", "the file is larger"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise D100Error(
            "sheet", str(path), "a TOML sheet in UTF-8 text", f"not UTF-8 text (byte {err.start})"
        ) from None
    try:
        return loads(text)
    except D100Error as err:
        where = f"{path}: {err.field}" if err.field != "sheet" else str(path)
        raise D100Error(where, err.value, err.allowed, err.reason) from None


def save(path: str | os.PathLike[str], sheet: Sheet) -> None:
    """Write atomically: a temporary file in the same directory, flushed to disk, then renamed
    over the old one, so a crash at any moment leaves the old sheet or the new one."""
    import tempfile

    import tomlkit.exceptions

    target = Path(path)
    try:
        text = dumps(sheet, target.read_text(encoding="utf-8")).encode("utf-8")
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.TOMLKitError):
        text = dumps(sheet).encode("utf-8")  # nothing readable to keep: the sheet afresh
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, _mode(target))  # mkstemp makes 0600; the sheet keeps its own mode
        with os.fdopen(fd, "wb") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _sync_directory(target.parent)  # the rename itself reaches the disk


def _mode(target: Path) -> int:
    """The file's permission bits, or for a new file what ``open`` would give it: 0666 less
    the umask, read without setting it (``os.umask`` would race other threads' files)."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        pass
    try:
        status = Path("/proc/self/status").read_text()
        umask = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("Umask")), 8)
    except (OSError, StopIteration, ValueError, IndexError):
        umask = 0o022  # the usual default where the kernel does not say
    return 0o666 & ~umask


def _sync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def values(c: Character) -> dict[str, Any]:
    """Every sheet key of a character with its value as TOML and JSON write it (empty tables,
    and None for a sheet without Luck), in the sheet's order."""
    out: dict[str, Any] = {}
    for key in KEYS:
        value = getattr(c, key)
        if isinstance(value, Luck):
            value = {"current": value.current, "maximum": value.maximum}
        elif isinstance(value, dict):
            value = {k: list(v) if isinstance(v, tuple) else v for k, v in value.items()}
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out


def to_table(c: Character) -> dict[str, Any]:
    """A character as its TOML table (what ``dumps`` writes under its name): the system and
    skills, and each key feeding a rule where the sheet sets it."""
    return {k: v for k, v in values(c).items() if k not in _FEEDS or v}


def keys_of(system: str) -> tuple[str, ...]:
    """The sheet keys a system's characters may have: those feeding a rule it declares."""
    return tuple(k for k in KEYS if feeds(k, system))


def from_table(name: str, data: Mapping[str, Any], where: str | None = None) -> Character:
    """A character from its table (as TOML or JSON gives it), every value checked (G5).

    ``where`` prefixes error fields; by default the character's name."""
    where = name if where is None else where

    def at(key: str) -> str:
        return f"{where}.{key}" if where else key

    if not name.strip():
        raise D100Error(at("name"), name, "a non-empty name", "empty name")
    for key in data:
        if key not in KEYS and (key != "name" or where):
            raise D100Error(at(key), data[key], "keys " + ", ".join(KEYS), "unknown key")
    system = REGISTRY.get(data.get("system"), at("system"))
    used = keys_of(system.name)
    for key in _FEEDS:
        if data.get(key) and key not in used:
            raise D100Error(
                at(key),
                data[key],
                f"the keys of {system.name} characters: " + ", ".join(used),
                f"{system.name} has no {key}",
            )
    read: dict[str, Any] = {}
    for f in fields(Character)[2:]:
        read[f.name] = f.metadata["read"](data.get(f.name), at(f.name), read, system)
    character = Character(name, system.name, **read)
    _check_marks(character, at("marks"))
    return character


def _check_marks(c: Character, where: str) -> None:
    """Every mark names a skill the character has (trained or at its base), once, and none
    the system's development never marks."""
    rules = REGISTRY.get(c.system).declares.development
    never = () if rules is None else rules.never
    seen: set[str] = set()
    for mark in c.marks:
        name = c.marked(mark, where)
        if name.casefold() in never:
            raise D100Error(where, mark, "a skill that may improve", f"{name} never earns a mark")
        if name in seen:
            raise D100Error(where, mark, "each skill marked once", f"{name} is marked twice")
        seen.add(name)


def _numbers(table: Any, where: str, low: int | None, high: int | None) -> dict[str, int]:
    if not isinstance(table, dict):
        raise D100Error(where, table, "a table of name = integer", "not a table")
    seen: dict[str, str] = {}
    for key, value in table.items():
        if key.lower() in seen:
            raise D100Error(
                f"{where}.{key}",
                key,
                "names that differ in more than letter case",
                f"the same as {seen[key.lower()]!r}",
            )
        seen[key.lower()] = key
        _integer(value, f"{where}.{key}", f"an integer {low}..{high}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise D100Error(f"{where}.{key}", value, f"an integer {low}..{high}", None)
    return dict(table)


def _integer(value: Any, where: str, allowed: str) -> None:
    """Refuse a value that is no integer; a TOML float (``nan``, ``inf``, ``5.0``) is named
    as written, since JSON cannot carry NaN or infinity."""
    if isinstance(value, float):
        raise D100Error(where, repr(value), allowed, f"not an integer: {value!r}")
    if not is_int(value):
        raise D100Error(where, value, allowed, None)


def _names(
    table: Any,
    where: str,
    keys: Mapping[str, int],
    values: Mapping[str, int],
    many: bool = False,
    what: str = "skills",
) -> dict[str, Any]:
    """A table from skill names to a name (``uses``) or a list of names (``synergy``), every
    name on the sheet."""
    shape = "a list of names" if many else "a name"
    choices = f"{shape} from: " + ", ".join(values) if values else f"none: no {what} on the sheet"
    if not isinstance(table, dict):
        raise D100Error(where, table, f"a table of skill = {shape}", "not a table")
    for key, value in table.items():
        if key not in keys:
            raise D100Error(
                f"{where}.{key}",
                key,
                "one of the skills: " + ", ".join(keys) if keys else "none: no skills on the sheet",
                f"unknown skill {key!r}",
            )
        if many != isinstance(value, list):
            raise D100Error(f"{where}.{key}", value, shape, None)
        for item in value if many else [value]:
            if not isinstance(item, str) or item not in values:
                raise D100Error(f"{where}.{key}", value, choices, f"not one of the {what}")
    return dict(table)


def _luck(value: Any, where: str) -> Luck | None:
    if value is None:
        return None
    shape = "{ current = N, maximum = N }, integers"
    if not isinstance(value, dict) or set(value) != {"current", "maximum"}:
        raise D100Error(where, value, shape, None)
    for key, number in value.items():
        _integer(number, f"{where}.{key}", shape)
    try:
        return Luck(value["current"], value["maximum"])
    except D100Error as err:
        raise D100Error(
            f"{where}.{err.field.split('.')[-1]}", err.value, err.allowed, err.reason
        ) from None
