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
    # The server's own words that a test system also uses as a name of its own (a folder's
    # entry holds for every file in it):
    ("server/", "percent"): "the server's answer key: each level's odds in percent",
    ("server/", "active"): "a seed event's key (the opening, a rotation): the seed now drawn from",
    ("verify/seeds.py", "active"): "the log's key for a seed announced (the opening, a rotation)",
    ("server/gametables.py", "master"): "a word of the GM's role ('game master') no name claims",
    ("result_view.py", "failure"): "a result's badge: the word for a result that is no success",
}
# Whole files of examples: the tour of ``d100 demo`` is example requests of the seeds.
EXAMPLES = {"cli/demo.py": "d100 demo: a few example requests of the seeds, as in the README"}


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


def findings() -> list[str]:
    known = names()
    out = []
    for path in sorted(SRC.rglob("*")):
        rel = path.relative_to(SRC).as_posix()
        if path.suffix not in (".py", ".js", ".html") or rel.startswith(OWN):
            continue
        if rel in EXAMPLES:
            continue
        for line, text in _literals(path):
            if text in known and not _allowed(rel, text):
                out.append(f"src/d100/{rel}:{line}: {text!r} ({known[text]})")
    return out


def _allowed(rel: str, name: str) -> bool:
    return any(rel.startswith(where) and name == allowed for where, allowed in ALLOWED)


def test_no_reader_names_a_system_level_or_field() -> None:
    """The CLI, renderers, the server, the page and the Discord door alike."""
    found = findings()
    assert not found, "names that belong in a declaration:\n" + "\n".join(found)


def test_it_can_fail(tmp_path: Path) -> None:
    """The scan sees a literal that names a level, and one that names a field."""
    probe = tmp_path / "reader.py"
    probe.write_text('if level == "fumble":\n    x = request["luck_rerolls"]\n')
    known = names()
    assert [t for _, t in _literals(probe) if t in known] == ["fumble", "luck_rerolls"]


def test_the_allowed_list_is_small_and_still_needed() -> None:
    assert len(ALLOWED) <= 9  # one per word the log itself and a system share
    for (rel, name), why in ALLOWED.items():
        files = sorted((SRC / rel).rglob("*")) if rel.endswith("/") else [SRC / rel]
        sources = [f for f in files if f.is_file() and f.suffix in (".py", ".js", ".html")]
        used = any(t == name for f in sources for _, t in _literals(f))
        assert why and used, (rel, name)
