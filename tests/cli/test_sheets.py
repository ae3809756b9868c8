"""The sheet model and its TOML file: lookups, validation, atomic saves, and the commands."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from d100.errors import D100Error
from d100.luck import Luck
from d100.sheets import Character, Sheet, dumps, load, loads, lookup, save

from .conftest import PARTY, clean_error, d100


def test_round_trip_keeps_every_field() -> None:
    sheet = loads(PARTY)
    assert loads(dumps(sheet)) == sheet
    carol = sheet.get("CAR")
    assert carol.synergy == {"sneaking": ("hiding",)} and carol.abilities["dex"] == 10


def test_character_file_layout() -> None:
    text = 'name = "zed"\nsystem = "openquest"\nskills = { climb = 40 }\n'
    sheet = loads(text)
    assert sheet.layout == "character" and sheet.get("z").skills == {"climb": 40}
    assert dumps(sheet).startswith('name = "zed"')


def test_lookup_exact_prefix_and_suggestion() -> None:
    names = ["spot hidden", "spot", "stealth"]
    assert lookup("SPOT", names, "skill") == "spot"  # an exact name beats longer prefixes
    assert lookup("ste", names, "skill") == "stealth"
    with pytest.raises(D100Error, match="ambiguous"):
        lookup("sp", names, "skill")
    with pytest.raises(D100Error, match="did you mean 'stealth'"):
        lookup("stelth", names, "skill")


def test_request_for_a_chances_skill() -> None:  # rule: CH9, CH11
    carol = loads(PARTY).get("carol")
    assert carol.request("sneak") == {
        "system": "chances",
        "skill": 40,
        "ability": 10,
        "synergy": [30],
    }
    assert carol.request("hearing", ability="per")["ability"] == 5
    # no "uses" entry and no seed pairing: the sheet must say which ability
    with pytest.raises(D100Error, match="which ability"):
        Character("x", "chances", {"juggling": 30}, {"dex": 5}).request("jug")


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('[a]\nsystem = "brp"\nskills = { x = -1 }\n', "a.skills.x"),
        ('[a]\nsystem = "openquest"\nskills = { x = 101 }\n', "a.skills.x"),
        ('[a]\nsystem = "gurps"\n', "a.system"),
        ('[a]\nsystem = "brp"\nluck = { current = 9, maximum = 5 }\n', "a.luck.current"),
        ('[a]\nsystem = "brp"\ncolour = "red"\n', "a.colour"),
        ('[a]\nsystem = "chances"\nskills = { x = 1 }\nsynergy = { x = ["y"] }\n', "a.synergy.x"),
        ('[a]\nsystem = "chances"\nskills = { x = 1 }\nsynergy = { x = "x" }\n', "a.synergy.x"),
        ("[a\n", "sheet"),
        ('[a]\nsystem = "brp"\n[A]\nsystem = "brp"\n', "A"),  # unreachable by name
        ('[a]\nsystem = "brp"\nskills = { Spot = 1, spot = 2 }\n', "a.skills.spot"),
        ('[a]\nsystem = "openquest"\nluck = { current = 1, maximum = 1 }\n', "a.luck"),
        ('[a]\nsystem = "brp"\nabilities = { dex = 1 }\n', "a.abilities"),
        ('[a]\nsystem = "chances"\nskills = { x = 1 }\nuses = { x = "dex" }\n', "a.uses.x"),
    ],
)
def test_bad_sheets_name_the_field(text: str, field: str) -> None:
    with pytest.raises(D100Error) as caught:
        loads(text)
    assert caught.value.field == field


def test_save_is_atomic_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    sheet = loads(PARTY)
    save(path, sheet)
    assert load(path) == sheet and [p.name for p in tmp_path.iterdir()] == ["p.toml"]


COMMENTED = """\
# The Tuesday group: Luck is spent at the table.
[alice]  # the thief
system = "brp"
luck = { current = 2, maximum = 13 }  # rests to 13
skills = { stealth = 65, dodge = 40 }

[erin]
system = "openquest"
skills = { perception = 55 }  # no stealth yet
"""


def test_save_rewrites_only_what_changed(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(COMMENTED)
    sheet = load(path)
    alice = sheet.get("alice")
    assert alice.luck is not None
    save(path, sheet.put(replace(alice, luck=alice.luck.rest())))
    assert path.read_text() == COMMENTED.replace("current = 2,", "current = 13,")


def test_save_adds_and_removes_beside_the_comments(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(COMMENTED)
    sheet = load(path)
    alice = sheet.get("alice")
    changed = sheet.put(replace(alice, skills={"stealth": 66})).put(
        Character("zoe", "chances", {"hiding": 30})
    )
    save(path, changed)
    text = path.read_text()
    assert load(path) == changed
    assert "# the thief" in text and "# no stealth yet" in text and "dodge" not in text
    assert text.index("[erin]") < text.index("zoe")  # new characters go at the end


def test_save_over_an_unreadable_file_writes_afresh(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    sheet = loads(COMMENTED)
    path.write_bytes(b"\xff\xfe not toml [")
    save(path, sheet)
    assert load(path) == sheet


WRITER = """
import sys
from d100.luck import Luck
from d100.sheets import Character, Sheet, save
path, size = sys.argv[1], int(sys.argv[2])
i = 0
print("ready", flush=True)
while True:  # rewrite the sheet forever, each version different, until killed
    i = (i + 1) % 1000
    people = tuple(Character(f"c{n}", "brp", {f"skill{k}": (i + k) % 100 for k in range(40)},
                             luck=Luck(i % 10, 10)) for n in range(size))
    save(path, Sheet(people))
"""


@pytest.mark.slow
def test_sigkill_during_writes_leaves_a_valid_sheet(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    save(path, Sheet((Character("c0", "brp", {"a": 1}, luck=Luck(1, 10)),)))
    for delay in (0.05, 0.11, 0.17, 0.23, 0.31):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), "30"], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        sheet = load(path)  # a whole sheet, old or new: never a torn one
        assert sheet.characters and all(c.luck is not None for c in sheet.characters)


# -- the commands ----------------------------------------------------------------------------


def test_sheet_new_show_validate(tmp_path: Path) -> None:
    path = tmp_path / "new.toml"
    made = d100(
        "sheet",
        "new",
        str(path),
        "alice",
        "-s",
        "brp",
        "--luck",
        "13",
        "--skill",
        "stealth=65",
        "--skill",
        "spot hidden=50",
    )
    assert made.out == f"{path}: added alice (brp), 1 character(s)\n"
    d100(
        "sheet",
        "new",
        str(path),
        "carol",
        "-s",
        "chances",
        "--skill",
        "sneak=40",
        "--ability",
        "dex=10",
        "--uses",
        "sneak=dex",
    )
    assert d100("sheet", "validate", str(path)).out == f"{path}: ok, 2 character(s): alice, carol\n"
    shown = d100("sheet", "show", str(path), "car").out.splitlines()
    assert shown[0] == "carol (Taking Chances)"
    assert shown[2].split() == ["sneak", "40", "+", "dex", "+10"]
    assert "already on the sheet" in clean_error(
        d100("sheet", "new", str(path), "alice", "-s", "brp")
    )
    assert "zed.skills.x: got 1000000" in clean_error(
        d100("sheet", "new", str(path), "zed", "-s", "brp", "--skill", "x=1000000")
    )


def test_validate_reports_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[a]\nsystem = "brp"\nskills = { x = "lots" }\n')
    assert clean_error(d100("sheet", "validate", str(path))).startswith(
        f"d100: error: {path}: a.skills.x: got 'lots'"
    )
    assert "No such file" in clean_error(d100("sheet", "validate", str(tmp_path / "none.toml")))


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["Alice", "-s", "brp"], "name: 'alice' is already on the sheet: 'Alice'"),
        (["zed", "-s", "openquest", "--luck", "3"], "--luck: openquest has no luck: 3"),
        (["zed", "-s", "brp", "--ability", "dex=3"], "--ability: brp has no abilities: 'dex=3'"),
        (["zed", "-s", "brp", "--synergy", "a=b"], "allowed: the flags for brp characters"),
        (["zed", "-s", "chances", "--uses", "x=dex"], "allowed: none: no skills on the sheet"),
    ],
)
def test_sheet_new_refuses_what_could_never_be_used(
    party: Path, args: list[str], needle: str
) -> None:  # rule: BRP7, CH1, CH9
    before = party.read_text()
    assert needle in clean_error(d100("sheet", "new", str(party), *args))
    assert party.read_text() == before


def test_saving_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(COMMENTED)
    for mode in (0o644, 0o640):
        path.chmod(mode)
        sheet = load(path)
        save(path, sheet.put(replace(sheet.get("erin"), skills={"perception": 56})))
        assert stat.S_IMODE(path.stat().st_mode) == mode


def test_a_new_sheet_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        save(tmp_path / "new.toml", loads(PARTY))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.toml").stat().st_mode) == 0o640


def test_a_sheet_number_that_is_no_integer_is_a_clean_json_error(tmp_path: Path) -> None:
    """TOML's nan and inf are floats: the CLI's --json error carried them as NaN and
    Infinity, which no JSON parser in strict mode reads."""
    path = tmp_path / "p.toml"
    path.write_text(
        '[a]\nsystem = "brp"\nskills = { x = 5 }\nluck = { current = inf, maximum = 5 }\n'
    )
    run = d100("check", "--sheet", str(path), "a", "x", "--json")
    assert "inf" in clean_error(run)
    error = json.loads(run.out, parse_constant=lambda name: pytest.fail(f"{name} in {run.out}"))
    assert (error["error"]["field"], error["error"]["value"]) == (f"{path}: a.luck.current", "inf")


def test_dg_5_a_san_test_on_the_command_line_writes_the_sheet(tmp_path: Path) -> None:
    sheet = tmp_path / "agent.toml"
    sheet.write_text('name = "Agent"\nsystem = "delta-green"\nskills = { SAN = 50 }\n')
    asked = ("Agent", "SAN", "sanity", "1d4/1d6+1", "@80", "loss@3")
    out = d100("roll", "--sheet", str(sheet), *asked)
    assert out.status == 0, out.err
    assert "Agent's SAN is now 46" in out.out, out.out
    assert "SAN = 46" in sheet.read_text()
    again = d100("roll", "--sheet", str(sheet), "Agent", "SAN", "sanity", "0/1", "@10", "--json")
    assert json.loads(again.out)["skill_after"] == 46 and "SAN = 46" in sheet.read_text()
