"""A system whose every name is new (tests/new_names_system.py: ``omens``, levels ``triumph``
to ``doom``, target ``peril``, fields ``favour``, ``omen``, ``second_sight``, ``stake``, house
rules, quick words, a tie-break ``lots``) works through every surface of the command line:
nothing in d100 knows a name of it but its declaration. Odds are held to brute force."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pexpect
import pytest

import d100
from d100 import REGISTRY, quick
from tests import forked
from tests import new_names_system as omens
from tests.helpers import brute_force, odds_map

ROOT = Path(__file__).resolve().parents[1]
PATH = os.pathsep.join((str(ROOT / "src"), str(ROOT)))  # this tree's d100, then the tests


@pytest.fixture
def registered() -> Iterator[None]:
    REGISTRY.register(omens.SYSTEM)
    yield
    REGISTRY.unregister(omens.NAME)


def env(tmp: Path) -> dict[str, str]:
    ignored = ("D100_SHEET", "D100_SYSTEM", "NO_COLOR", "FORCE_COLOR")
    out = {k: v for k, v in os.environ.items() if k not in ignored}
    out.update(D100_SYSTEMS="tests.new_names_system", PYTHONPATH=PATH, NO_COLOR="1")
    out.update(XDG_CONFIG_HOME=str(tmp / "config"), XDG_STATE_HOME=str(tmp / "state"))
    return out


@pytest.fixture
def run(tmp_path: Path) -> Any:
    def d100_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [forked.SHIM, *args],
            input=stdin,
            capture_output=True,
            text=True,
            env={**env(tmp_path), **forked.environment()},
            cwd=tmp_path,
            timeout=120,
        )

    return d100_cli


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


def as_json(done: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(ok(done))


def fractions(levels: dict[str, str]) -> dict[str, Fraction]:
    return {k: Fraction(v) for k, v in levels.items() if Fraction(v)}


# -- the odds are the rules' (G4) --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.usefixtures("registered")
@pytest.mark.parametrize(
    "request_",
    [
        {"system": "omens", "skill": 60, "peril": "dire", "favour": 2},
        {"system": "omens", "skill": 90, "omen": True, "second_sight": 2},
        {"system": "omens", "skill": 40, "house_rules": {"doom_from": 90, "triumph_share": 5}},
        {"system": "omens", "skill": 40, "stake": 25},
        {"system": "omens", "actor": {"skill": 60}, "opponent": {"skill": 50, "favour": 1}},
    ],
)
def test_g4_its_odds_are_brute_force(request_: dict[str, Any]) -> None:
    assert {k: v for k, v in odds_map(request_).items() if v} == brute_force(request_)


# -- d100.quick, the library's quick form ------------------------------------------------------


@pytest.mark.usefixtures("registered")
def test_quick_parse_reads_its_declared_words() -> None:
    check = quick.parse("omens 60 dire fav2 omen sight2 +5 -3 @99,3 doom_from=90")
    assert isinstance(check, omens.Check)
    assert (check.peril, check.favour, check.omen, check.second_sight) == (-20, 2, True, 2)
    assert check.modifiers == (5, -3) and check.dice == (99, 3) and check.house == (90, 10)
    assert quick.parse("OMEN<=60/dire @33") == quick.parse("omens 60 dire @33")  # a command
    assert quick.parse("60 calm stake75", system="omens").stake == 75


@pytest.mark.usefixtures("registered")
@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("omens 60 calm dire", "'calm' and 'dire' both set peril"),
        ("omens 60 @10 @20", "'@10' and '@20' both set dice"),
        ("omens 60 stake25 stake75", "'stake25' and 'stake75' both set stake"),
        ("omens 60 fav fav2", "'fav' and 'fav2' both set favour"),
        ("omens 60 hard", "unknown word 'hard'"),
        ("OMEN<=60/dire calm", "peril once"),
    ],
)
def test_quick_words_are_strict(text: str, needle: str) -> None:
    with pytest.raises(d100.D100Error) as err:
        quick.parse(text)
    assert needle in err.value.message


def test_quick_parse_of_the_seeds() -> None:  # rule: BRP2, BRP4, CH5, OQ1
    check = quick.parse("brp 65 hard b1 @42,7")
    assert check == d100.BrpCheck(skill=65, difficulty=-40, bonus_dice=1, dice=(42, 7))
    assert quick.parse("chances 40 tough take50 ability=10").take == 50
    for text, needle in (
        ("openquest 60 hard easy", "'hard' and 'easy' both set difficulty"),
        ("brp 65 @10 @20", "'@10' and '@20'"),
        ("chances 40 tough take50 take100", "'take50' and 'take100'"),
        ("ZZ<=65", "not a quick roll"),
        ("brp hard", "no skill given"),
    ):
        with pytest.raises(d100.D100Error) as err:
            quick.parse(text)
        assert needle in err.value.message, text


# -- every surface of the command line ---------------------------------------------------------


def test_roll(run: Any) -> None:
    data = as_json(run("roll", "--json", "omens", "60", "dire", "fav2", "@33"))
    assert (data["system"], data["target"], data["level"]) == ("omens", 50, "scrape")
    data = as_json(run("roll", "omens", "60", "omen", "--json", "sight", "@99,3"))
    assert (data["level"], data["luck_spent"], data["attempts"]) == ("triumph", 2, [99, 3])
    assert as_json(run("roll", "OMEN<=60/dire", "@33", "--json"))["target"] == 40
    line = run("roll", "omens", "60", "calm", "dire").stderr
    assert "'calm' and 'dire' both set peril" in line and "Traceback" not in line
    line = run("roll", "omens", "60", "b1").stderr
    assert "unknown word 'b1'" in line and "peril calm, stormy, dire, cursed" in line


def test_check_flags_are_its_fields(run: Any) -> None:
    shown = ok(run("check", "-s", "omens", "--skill", "60", "-F", "2", "--read-omen", "--plain",
                   "--second-sight", "1", "--dice", "99,3", "--cover", "5"))  # fmt: skip
    assert "TRIUMPH" in shown and "the omens sing" in shown and "then Luck reroll" in shown
    assert "cover    not struck" in shown
    helped = ok(run("check", "--help"))
    assert "favours owed, +5 each" in helped and "--read-omen" in helped and "-F" in helped
    assert "calm stormy dire cursed" in helped  # its presets, from the field
    line = run("check", "-s", "omens", "--skill", "60", "--bonus", "1").stderr
    assert "--bonus: not an input of omens" in line


def test_contest_draws_lots(run: Any) -> None:
    args = ["contest", "-s", "omens", "--skill", "60", "--dice", "30", "--vs", "--skill", "60"]
    data = as_json(run(*args, "--dice", "30", "--lots", "opponent", "--json"))
    assert (data["winner"], data["coin"]) == ("opponent", "opponent")
    assert data["actor"]["level"] == data["opponent"]["level"] == "boon"
    assert "Omens contest" in ok(run(*args, "--dice", "30", "--seed", "1"))


@pytest.mark.usefixtures("registered")
def test_odds_and_odds_table(run: Any) -> None:
    request = {"system": "omens", "skill": 60, "peril": "dire"}
    levels = as_json(run("odds", "-s", "omens", "--skill", "60", "--peril", "dire", "--json"))
    assert fractions(levels["levels"]) == brute_force(request)
    shown = ok(run("odds", "-s", "omens", "--skill", "60", "--vs", "--skill", "50"))
    assert "actor wins" in shown and "tie" in shown
    table = as_json(run("odds", "-s", "omens", "--table", "--peril", "calm,dire", "--skills",
                        "10-30", "--json"))  # fmt: skip
    assert [t["request"]["peril"] for t in table] == ["calm", "dire"]
    row = table[1]["rows"][2]
    assert row["skill"] == 30 and fractions(row["levels"]) == brute_force({**request, "skill": 30})
    header = ok(run("odds", "-s", "omens", "--table", "--skills", "0-20")).splitlines()[1]
    assert header.split() == ["skill", *omens.LEVELS, "any", "success"]


def test_chart_and_its_bands(run: Any, tmp_path: Path) -> None:
    lines = tmp_path / "lines.svg"
    ok(run("chart", "-s", "omens", "--peril", "calm,dire", "--step", "10", "-o", str(lines)))
    assert "peril calm" in lines.read_text()
    bands = tmp_path / "bands.svg"
    ok(run("chart", "-s", "omens", "--bands", "--step", "10", "-o", str(bands)))
    text = bands.read_text()
    assert all(level in text for level in omens.LEVELS)
    assert "#1a9850" in text.lower() and "#d73027" in text.lower()  # best and worst styles


def test_advise(run: Any) -> None:
    options = as_json(run("advise", "-s", "omens", "--skill", "40", "--json"))
    assert [o["name"] for o in options] == ["stake 25", "read the omen", "as asked"]
    assert [o["odds"]["success"] for o in options] == ["1/1", "1/2", "2/5"]  # 25 <= 40 always
    poor = as_json(run("advise", "-s", "omens", "--skill", "40", "--luck", "0", "--json"))
    assert "read the omen" not in {o["name"] for o in poor}


def test_simulate_checks_and_contests(run: Any) -> None:
    data = as_json(run("simulate", "-s", "omens", "--skill", "60", "-n", "3000", "--seed", "1",
                       "--json"))  # fmt: skip
    assert sum(data["counts"].values()) == 3000 and set(data["counts"]) <= set(omens.LEVELS)
    contest = as_json(run("simulate", "-s", "omens", "--skill", "60", "--vs", "--skill", "50",
                          "-n", "4000", "--seed", "2", "--json"))  # fmt: skip
    counts = contest["counts"]
    assert set(counts) == {"actor", "opponent"} and sum(counts.values()) == 4000
    assert abs(counts["actor"] / 4000 - 219 / 400) < 0.05  # the exact 219/400, ~6 sigma


@pytest.mark.usefixtures("registered")
def test_json_lines_with_quick_lines(run: Any) -> None:
    lines = [
        {"system": "omens", "skill": 60, "dice": [33]},
        {"quick": "omens 60 dire fav2 @33"},
        {"quick": "OMEN<=60/dire @33"},
        {"quick": "omens 60 calm dire"},
        {"system": "omens", "skill": 999},
    ]
    done = run("resolve", stdin="".join(json.dumps(x) + "\n" for x in lines))
    answers = [json.loads(x) for x in done.stdout.splitlines()]
    assert done.returncode == 1 and len(answers) == 5  # every line answered
    assert [a.get("target") for a in answers[:3]] == [60, 50, 40]
    assert answers[3]["error"]["field"] == "peril" and answers[3]["error"]["line"] == 4
    assert answers[4]["error"]["field"] == "skill"
    odds = run("odds", stdin='{"quick": "omens 60 dire"}\n')
    assert fractions(json.loads(odds.stdout)["levels"]) == brute_force(
        {"system": "omens", "skill": 60, "peril": "dire"}
    )


def test_a_sheet_character_spends_luck(run: Any, tmp_path: Path) -> None:
    sheet = tmp_path / "party.toml"
    sheet.write_text('[ivy]\nsystem = "omens"\nluck = { current = 3, maximum = 5 }\n'
                     'skills = { climb = 45 }\n')  # fmt: skip
    data = as_json(run("roll", "--sheet", str(sheet), "ivy", "climb", "omen", "@40", "--json"))
    assert data["target"] == 55 and data["luck_spent"] == 1
    assert "current = 2" in sheet.read_text()


def test_shell(tmp_path: Path) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d100", "shell", "--log", str(tmp_path / "log.jsonl")],
        env=env(tmp_path),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )
    child.expect_exact("d100> ")
    child.sendline("omens 60 dire fav2 @33")
    child.expect_exact("target   50")
    child.expect_exact("level    SCRAPE")
    child.expect_exact("d100> ")
    child.send("omens 60 sto\t")  # its presets complete
    child.expect_exact("omens 60 stormy ")
    child.sendline("@5")
    child.expect_exact("TRIUMPH")
    child.expect_exact("d100> ")
    child.sendline("odds omens 60 calm")
    child.expect_exact("triumph")
    child.expect_exact("d100> ")
    child.sendline("OMEN<=60 @5")
    child.expect_exact("TRIUMPH")
    child.expect_exact("d100> ")
    child.sendline("omens 60 calm dire")
    child.expect_exact("both set peril")
    child.expect_exact("d100> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    entries = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [e["result"]["target"] for e in entries] == [50, 60, 60]


def test_a_system_registers_only_with_its_level_records() -> None:
    """The readers take a level's style, mark and meaning from the records alone, so a system
    whose records are not its levels is refused when it registers, not met at a chart."""
    import dataclasses

    class Unrecorded(omens.Omens):
        declares = dataclasses.replace(omens.DECLARATION, levels=omens.RECORDS[:-1])

    class Unknown(omens.Omens):
        declares = dataclasses.replace(omens.DECLARATION, levels=())

    for bad, needle in ((Unrecorded(), "are not its levels"), (Unknown(), "declares no levels")):
        with pytest.raises(ValueError, match=needle):
            REGISTRY.register(bad)
        assert omens.NAME not in REGISTRY
    REGISTRY.register(omens.SYSTEM)
    try:
        assert REGISTRY.register(omens.SYSTEM) is omens.SYSTEM  # the same one again: already in
        with pytest.raises(ValueError, match="already registered"):
            REGISTRY.register(omens.Omens())
    finally:
        REGISTRY.unregister(omens.NAME)


def test_every_module_of_the_systems_package_with_a_system_is_registered() -> None:
    """Discovery: a module of ``d100.systems`` that ends with ``SYSTEM = ...`` needs no line
    anywhere else; helpers (``common``) have none; finding them again adds nothing."""
    import importlib
    import pkgutil

    import d100.systems as package

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"d100.systems.{info.name}")
        if hasattr(module, "SYSTEM"):
            found[module.SYSTEM.name] = module.SYSTEM
    assert {"openquest", "brp", "chances"} <= set(found)
    assert all(REGISTRY.get(name) is system for name, system in found.items())
    assert package.discover() == ()
    assert REGISTRY.names()[:3] == ("openquest", "brp", "chances")  # the seeds first
