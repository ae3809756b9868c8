"""No reader knows a system by its names: outside ``src/d100/systems/`` (and the generated
schemas) no string literal names a registered system, one of its levels or one of its request
fields (house rules and nested fields too). A reader that knows ``"fumble"`` or
``"luck_rerolls"`` breaks on a system that calls them something else; what it needs to know
belongs in the system's declaration. The names every system shares by the contract
(CONTRACT.md) are no system's own, and a short list below says where else a name may stand
and why."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from d100 import REGISTRY
from d100.fields import Field
from tests import fourth_system, new_names_system

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "d100"
# where the names live: the systems and their generated schemas; and the migrations, which are
# history (a column named as the table was when it was made)
OWN = ("systems/", "schemas/", "server/migrations/")

# The contract's own names, common to every system: request fields (CONTRACT.md "Check
# request", the sides of a contest), result keys and a contest's winners.
CONTRACT = frozenset(
    {
        *("system", "skill", "modifiers", "dice", "house_rules", "actor", "opponent"),
        *("level", "success", "roll", "target", "margin", "total", "explanation", "request"),
        *("winner", "degree", "tie", "none"),
        # a character's Luck: a sheet key and a result's spend, whichever system has Luck
        *("luck", "luck_spent"),
    }
)
# (file, name): why that literal may name what a system also calls a field.
ALLOWED = {
    ("declarations.py", "take"): "a key of Declaration.to_dict (/api/systems): the Take rule",
    ("declarations.py", "synergy"): "a key of Declaration.to_dict: synergy_field",
    ("declarations.py", "ability"): "a key of Declaration.to_dict: ability_field",
    ("declarations.py", "failure"): "Declaration.improvement: a skill marked on a failed check",
}
# Whole files of examples: the tour of ``d100 demo`` is example requests of the seeds.
EXAMPLES = {"cli/demo.py": "d100 demo: a few example requests of the seeds, as in the README"}
# The server's last few: words of its own that a system also uses ("percent" of odds, which
# the fourth test system is called; a table's "active" calls; the page's "failure" filter;
# "master"), to be renamed or declared.
PENDING = ("server/",)


def _fields(fields: tuple[Field, ...]) -> Iterator[str]:
    for f in fields:
        yield f.name
        yield from _fields(f.fields)


def names() -> dict[str, str]:
    """Every system's names (its own, its levels', its fields'), each with whose it is."""
    systems = [*REGISTRY, fourth_system.SYSTEM, new_names_system.SYSTEM]
    out: dict[str, str] = {}
    for s in systems:
        own = [s.name, *s.declares.level_names, *_fields((*s.check_fields, *s.contest_fields))]
        for name in own:
            if name not in CONTRACT:
                out.setdefault(name, s.name)
    return out


def _literals(path: Path) -> Iterator[tuple[int, str]]:
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield node.lineno, node.value
        return
    for i, text in enumerate(path.read_text().splitlines(), 1):
        for found in re.finditer(r"""(["'`])([\w-]+)\1""", text):
            yield i, found[2]


def findings(pending: bool) -> list[str]:
    known = names()
    out = []
    for path in sorted(SRC.rglob("*")):
        rel = path.relative_to(SRC).as_posix()
        if path.suffix not in (".py", ".js", ".html") or rel.startswith(OWN):
            continue
        if rel.startswith(PENDING) != pending or rel in EXAMPLES:
            continue
        for line, text in _literals(path):
            if text in known and (rel, text) not in ALLOWED:
                out.append(f"src/d100/{rel}:{line}: {text!r} ({known[text]})")
    return out


def test_no_reader_names_a_system_level_or_field() -> None:
    found = findings(pending=False)
    assert not found, "names that belong in a declaration:\n" + "\n".join(found)


@pytest.mark.xfail(reason="the server's own words that a system also uses (see PENDING)")
def test_the_server_names_none_either() -> None:
    found = findings(pending=True)
    assert not found, "\n".join(found)


def test_it_can_fail(tmp_path: Path) -> None:
    """The scan sees a literal that names a level, and one that names a field."""
    probe = tmp_path / "reader.py"
    probe.write_text('if level == "fumble":\n    x = request["luck_rerolls"]\n')
    known = names()
    assert [t for _, t in _literals(probe) if t in known] == ["fumble", "luck_rerolls"]


def test_the_allowed_list_is_small_and_still_needed() -> None:
    assert len(ALLOWED) <= 8
    for (rel, name), why in ALLOWED.items():
        assert why and any(t == name for _, t in _literals(SRC / rel)), (rel, name)
