"""The library type-checks as it is used: the library page's examples pass ``mypy --strict``
(resolve, odds and parse are overloaded, so ``result.level`` and ``odds.success`` need no
narrowing), they run, and the contract dicts' types name exactly the fields the systems declare."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
import typing
from fractions import Fraction
from pathlib import Path

import pytest

import d100
from d100.contract import CheckData, ContestData
from d100.fields import Field
from d100.schema import contract_source
from d100.systems import REGISTRY, brp, chances, openquest

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = (openquest.OpenQuest(), brp.Brp(), chances.Chances())


def library_examples() -> str:
    """The python blocks of docs/library.md, as one module."""
    text = (ROOT / "docs" / "library.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "docs/library.md has no python examples"
    return "\n".join(blocks)


@pytest.mark.slow
def test_g6_readme_library_examples_pass_mypy_strict(tmp_path: Path) -> None:
    done = _mypy(tmp_path, library_examples())
    assert done.returncode == 0, done.stdout + done.stderr


def checked(source: str) -> tuple[str, int]:
    """The examples with each ``expression  # value`` line, where the value is a whole Python
    literal, turned into an assert: the page's comments say what the code gives."""
    out, n = [], 0
    for line in source.splitlines():
        found = re.match(r"^(\s*)(\S.*?)\s{2,}# (.+)$", line)
        if found and "..." not in found[3]:
            indent, expr, value = found.groups()
            try:
                ast.parse(expr, mode="eval"), ast.parse(value, mode="eval")
            except SyntaxError:
                out.append(line)
                continue
            out.append(f"{indent}assert ({expr}) == ({value}), {expr!r}")
            n += 1
            continue
        out.append(line)
    return "\n".join(out), n


def test_g6_readme_library_examples_run_and_give_what_they_say() -> None:
    source, asserted = checked(library_examples())
    assert asserted >= 5, source
    exec(compile(source, "docs/library.md", "exec"), {"Fraction": Fraction})


def _names(fields: tuple[Field, ...]) -> set[str]:
    return {f.name for f in fields}


def test_contract_dict_types_name_the_declared_fields() -> None:
    check_keys = set(typing.get_type_hints(CheckData))
    contest_keys = set(typing.get_type_hints(ContestData))
    built_in = list(REGISTRY)  # every system the package registers, editions included
    assert {s.name for s in BUILT_IN} <= {s.name for s in built_in}
    assert check_keys == set().union(*(_names(s.check_fields) for s in built_in))
    assert contest_keys == set().union(*(_names(s.contest_fields) for s in built_in))
    # what every system requires: rqg, coc6 and the BRP editions take a characteristic or a
    # resistance instead of a skill
    assert _required(CheckData) == {"system"}
    assert _required(ContestData) == {"system", "actor", "opponent"}


def _required(data: type) -> set[str]:
    hints = typing.get_type_hints(data, include_extras=True)
    return {k for k, v in hints.items() if typing.get_origin(v) is typing.Required}


def test_contract_py_is_what_its_generator_writes() -> None:
    text = (ROOT / "src" / "d100" / "contract.py").read_text()
    assert text == contract_source(), "run: make schemas (python -m d100.schema --write)"


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        ({"system": "brp", "skill": 50}, d100.CheckResult),
        (
            {"system": "openquest", "actor": {"skill": 5}, "opponent": {"skill": 9}},
            d100.ContestResult,
        ),
    ],
)
def test_g6_resolve_answers_the_type_its_overload_names(
    data: dict[str, object], kind: type
) -> None:
    assert isinstance(d100.resolve(data, __import__("random").Random(1)), kind)


# one cache for this process's runs: d100's own modules are checked once, not once a snippet
MYPY_CACHE = Path(tempfile.mkdtemp(prefix="d100-mypy-"))


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "snippet.py"
    path.write_text(source)
    cache = str(MYPY_CACHE)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


@pytest.mark.slow
def test_g6_a_level_is_a_string_held_to_the_declared_levels(tmp_path: Path) -> None:
    """A level is ``str`` to type checkers, so that a new system needs no edit of a union of
    every system's names; at run time a system registers only if its declared level records
    are the levels it resolves to, and every level resolved is one of them."""
    # rule: BRP3 (the levels a BRP check can reach)
    good = (
        'import d100\nr = d100.resolve({"system": "brp", "skill": 5})\n'
        'ok: bool = r.level == "special"\n'
    )
    assert _mypy(tmp_path, good).returncode == 0
    for system in d100.REGISTRY:
        declared = system.declares.level_names
        for skill in (0, 5, 50, 95):
            request = {"system": system.name, "skill": skill}
            if system.declares.target.field in {f.name for f in system.check_fields if f.required}:
                request[system.declares.target.field] = system.declares.target.default
            assert set(d100.odds(request).levels) == set(declared)
            assert d100.resolve(request, __import__("random").Random(skill)).level in declared


@pytest.mark.slow
def test_g6_the_odds_of_a_results_request_type_check_as_its_kind(tmp_path: Path) -> None:
    """A result's request is typed as the contract dict it is (``CheckData``, ``ContestData``),
    so its odds need no narrowing; and they run, its dice weighing nothing (G4)."""
    source = (
        "import d100\n"
        'r = d100.resolve({"system": "brp", "skill": 50, "dice": [3]})\n'
        "p: float = float(d100.odds(r.request).success)\n"
        'c = d100.resolve({"system": "openquest", "actor": {"skill": 5, "dice": [3]},'
        ' "opponent": {"skill": 9, "dice": [4]}})\n'
        'w = d100.odds(c.request).winner["actor"]\n'
        "a: float = float(d100.odds(c.actor.request).success)\n"
    )
    done = _mypy(tmp_path, source)
    assert done.returncode == 0, done.stdout + done.stderr
    exec(compile(source, "snippet.py", "exec"), {})


PROBE = """
import functools, sys
import d100
for name in sys.argv[1:]:
    functools.reduce(getattr, name.split(".")[1:], d100)
"""


def test_everything_the_readme_names_is_reachable_after_import_d100() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    text = "\n".join(page.read_text() for page in pages)
    names = sorted(set(re.findall(r"\bd100(?:\.[A-Za-z_]\w*)+", text)))
    assert "d100.BrpCheck" in names and "d100.machine.run" in names
    done = subprocess.run([sys.executable, "-c", PROBE, *names], capture_output=True, text=True)
    assert done.returncode == 0, (names, done.stderr)
