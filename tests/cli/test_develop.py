"""``d100 develop``: the development phase of a sheet from the command line (S7-7, S7-8, S7-9),
its odds shown before the rolls, the sheet written back, and errors naming the flag."""

from __future__ import annotations

import json
from pathlib import Path

from d100.sheets import load

from .conftest import clean_error, d100

VERA = """\
# the Keeper's notes stay
[vera]
system = "coc7"
luck = { current = 45, maximum = 45 }
characteristics = { STR = 60, CON = 55, SIZ = 65, DEX = 70, APP = 50, INT = 80, POW = 60, EDU = 85 }
skills = { "Spot Hidden" = 60, "Library Use" = 88 }
marks = ["Spot Hidden", "Library Use", "Climb"]
"""


def sheet(tmp_path: Path) -> Path:
    path = tmp_path / "vera.toml"
    path.write_text(VERA)
    return path


def test_s7_7_odds_first_and_nothing_written(tmp_path: Path) -> None:  # rule: S7-7, S7-8
    path = sheet(tmp_path)
    done = d100("develop", "--sheet", str(path), "--odds", "--json")
    assert done.status == 0, done.err
    (entry,) = json.loads(done.out)
    # over 60: 40 of 100; mean gain 40% of 5.5; Library Use reaches 90 on 89-100 with 2+ on d10
    assert entry["odds"][0] == {
        "name": "Spot Hidden",
        "value": 60,
        "improves": "2/5",
        "mean_gain": "11/5",
        "rewards": "0/1",
        "mean_reward": "0/1",
    }
    assert entry["odds"][1]["rewards"] == "27/250"  # 12/100 * 9/10
    assert path.read_text() == VERA


def test_s7_7_s7_8_s7_9_rolls_and_writes_the_sheet_back(
    tmp_path: Path,
) -> None:  # rule: S7-7, S7-8, S7-9
    path = sheet(tmp_path)
    # Spot Hidden 61 +4; Library Use 89 +2 (90: 2D6 = 3+4 SAN); Climb 20 (no); Luck 46 +5
    dice = "61,4,89,2,3,4,20,46,5"
    done = d100("develop", "--sheet", str(path), "vera", "--luck", "--dice", dice, "--json")
    assert done.status == 0, done.err
    (entry,) = json.loads(done.out)
    assert [r["after"] for r in entry["skills"]] == [64, 90, 20]
    assert entry["reward"] == {"name": "SAN", "before": 60, "after": 67}
    vera = load(path).get("vera")
    assert vera.skills == {"Spot Hidden": 64, "Library Use": 90}
    assert vera.marks == () and vera.derived == {"SAN": 67}
    assert vera.luck is not None and vera.luck.current == 50
    assert path.read_text().startswith("# the Keeper's notes stay")


def test_s7_7_house_rule_95(tmp_path: Path) -> None:  # rule: S7-7
    path = sheet(tmp_path)
    text = VERA.replace('"Library Use" = 88', '"Library Use" = 97')
    path.write_text(text.replace('"Spot Hidden", ', "").replace(', "Climb"', ""))
    done = d100(
        "develop", "--sheet", str(path), "--house", "development_95_inclusive", "--dice", "95,1"
    )
    assert done.status == 0, done.err
    assert load(path).get("vera").skills["Library Use"] == 98
    path.write_text(text.replace('"Spot Hidden", ', "").replace(', "Climb"', ""))
    assert d100("develop", "--sheet", str(path), "--dice", "95").status == 0
    assert load(path).get("vera").skills["Library Use"] == 97


def test_s7_7_errors_name_the_flag(tmp_path: Path) -> None:  # rule: S7-7
    path = sheet(tmp_path)
    done = d100("develop", "--sheet", str(path), "--house", "grim")
    assert clean_error(done).startswith("d100: error: --house: ")
    assert "development_95_inclusive" in done.err
    done = d100("develop", "--sheet", str(path), "--dice", "61,11")
    assert "dice" in clean_error(done) and "1..10" in done.err
    assert path.read_text() == VERA  # nothing written on an error


def test_s7_10_a_character_file_rolls_a_characteristic_without_a_name(
    tmp_path: Path,
) -> None:  # rule: S7-10
    path = tmp_path / "vera.toml"
    path.write_text('name = "vera"\nsystem = "coc7"\ncharacteristics = { DEX = 70 }\n')
    done = d100("roll", "coc7", "DEX", "hard", "@35", "--json", env={"D100_SHEET": str(path)})
    assert done.status == 0, done.err
    result = json.loads(done.out)
    assert (result["who"], result["skill"], result["target"]) == ("vera", "DEX", 70)
    assert result["level"] == "hard"  # 35 is half of 70: hard (S7-10)
    done = d100("roll", "coc7", "DEX", "hard", "@36", "--json", env={"D100_SHEET": str(path)})
    assert json.loads(done.out)["level"] == "regular"


def test_s7_11_a_new_investigator_and_what_the_sheet_derives(
    tmp_path: Path,
) -> None:  # rule: S7-10, S7-11, S7-12
    path = tmp_path / "new.toml"
    made = d100(
        "sheet",
        "new",
        str(path),
        "wes",
        "-s",
        "coc7",
        "--characteristic",
        "STR=70",
        "--characteristic",
        "siz=80",
        "--characteristic",
        "DEX=45",
        "--age",
        "52",
        "--mark",
        "Climb",
        "--rule",
        "pulp",
    )
    assert made.status == 0, made.err
    done = d100("sheet", "show", str(path), "--json")
    computed = json.loads(done.out)["wes"]["computed"]
    assert computed["characteristics"]["DEX"] == {"half": 22, "fifth": 9}
    # STR+SIZ 150: Build 1, +1D4; DEX and STR against SIZ 80: both below, MOV 7 (no age: pulp)
    assert computed["derived"] == {"SAN max": 99, "MOV": 7, "Build": 1, "DB": "+1d4"}
    assert (
        computed["base_skills"]["Dodge"] == 22 and "Language (Own)" not in computed["base_skills"]
    )
    refused = d100("sheet", "new", str(path), "bo", "-s", "brp", "--characteristic", "STR=50")
    assert "--characteristic" in clean_error(refused)
