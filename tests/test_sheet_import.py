"""``d100 sheet import``: investigators from a Dhole's House JSON export and a Foundry VTT CoC7
actor (sample files in ``tests/imports`` made from their published formats), what was not read
named in notes, and anything else refused naming what was expected."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from d100.errors import D100Error
from d100.sheet_import import read
from d100.sheets import load, to_table

from .cli.conftest import clean_error, d100

SAMPLES = Path(__file__).parent / "imports"


def sample(name: str) -> Any:
    return json.loads((SAMPLES / name).read_text())


def test_dholes_house_characteristics_skills_and_notes() -> None:  # rule: S7-10, S7-11, S7-12
    got = read(sample("dholes_house_vera.json"), "FILE")
    c = got.character
    assert (c.name, c.system, got.source, c.age) == ("Vera Lind", "coc7", "Dhole's House", 42)
    assert c.characteristics == {
        "STR": 45, "CON": 55, "SIZ": 50, "DEX": 60, "APP": 50, "INT": 80, "POW": 65, "EDU": 85
    }  # fmt: skip
    # a speciality joins its family's name; Accounting 5, Listen 20, Fighting (Brawl) 25 and
    # Dodge 30 (DEX 60 / 2) are their base values, left to the base skills (S7-12)
    assert c.skills == {
        "Appraise": 60,
        "Art/Craft (Photography)": 35,
        "Firearms (Handgun)": 30,
        "History": 70,
        "Library Use": 65,
        "Spot Hidden": 55,
        "Language (Latin)": 41,
    }
    assert c.rollable["Dodge"] == 30 and c.rollable["Listen"] == 20
    assert c.luck is not None and (c.luck.current, c.luck.maximum) == (40, 99)
    # SAN 58 is no longer POW 65; HP 10, MP 13, MOV 7 (age 42), Build 0 and DB 0 are the rule's
    assert c.derived == {"SAN": 58}
    assert c.derived_values["MOV"] == (7, False)
    occult, unread = got.notes
    assert "Occult" in occult and "'lots' is no number" in occult
    assert unread.endswith("Weapons, Backstory, Possessions, Cash")


def test_foundry_actor_skills_from_base_and_adjustments_marks_kept() -> None:  # rule: S7-7
    got = read(sample("foundry_coc7_actor.json"), "FILE")
    c = got.character
    assert (c.name, got.source, c.age) == ("Harvey Walters", "Foundry VTT CoC7", 52)
    assert c.characteristics["SIZ"] == 75 and c.characteristics["EDU"] == 90
    # 25 + 10 + 20 + 5; 25 + 15; 0 + 30; 10 + "20" + ""; Dodge (@DEX/2 = 25) and Language
    # (Own) (@EDU = 90) at their base
    assert c.skills == {
        "Spot Hidden": 60, "Fighting (Brawl)": 40, "Credit Rating": 30, "Psychology": 30
    }  # fmt: skip
    # Credit Rating's mark is dropped: it never earns one (S7-7)
    assert c.marks == ("Spot Hidden", "Fighting (Brawl)")
    # HP 9 of 13 after a wound, SAN 62 of POW 70, MOV 6 where the rule says 5 (age 52);
    # Build 1 and DB 1D4 are the rule's for STR + SIZ 130
    assert c.derived == {"SAN": 62, "HP": 9, "MOV": 6}
    assert c.luck is not None and c.luck.current == 55
    assert any("1 item, 1 occupation, 1 weapon" in n for n in got.notes)
    assert any("Credit Rating" in n and "never earns a mark" in n for n in got.notes)


def test_foundry_before_version_10_and_an_npc() -> None:
    actor = sample("foundry_coc7_actor.json")
    actor["data"] = actor.pop("system")
    for item in actor["items"]:
        item["data"] = item.pop("system")
    assert read(actor, "FILE").character.skills["Spot Hidden"] == 60
    npc = copy.deepcopy(sample("foundry_coc7_actor.json"))
    npc["type"] = "npc"
    npc["items"] = [
        {"name": "Spot Hidden", "type": "skill", "system": {"value": 75}},
        {"name": "Listen", "type": "skill", "system": {"value": "20"}},
    ]
    c = read(npc, "FILE", name="Guard").character
    assert (c.name, c.skills) == ("Guard", {"Spot Hidden": 75})


@pytest.mark.parametrize("data", [[1, 2], {"name": "x", "items": []}, {"Investigator": {}}])
def test_anything_else_is_refused_naming_both_formats(data: Any) -> None:
    with pytest.raises(D100Error) as err:
        read(data, "FILE")
    assert err.value.field == "FILE"
    assert "Dhole's House" in err.value.allowed and "Foundry VTT CoC7" in err.value.allowed


def test_a_value_out_of_range_is_named_where_the_sheet_holds_it() -> None:
    vera = sample("dholes_house_vera.json")
    vera["Investigator"]["Characteristics"]["STR"] = "4500"
    with pytest.raises(D100Error) as err:
        read(vera, "FILE")
    assert err.value.field == "Vera Lind.characteristics.STR"


def test_cli_adds_to_a_sheet_and_prints_toml(tmp_path: Path) -> None:
    party = tmp_path / "party.toml"
    done = d100("sheet", "import", str(SAMPLES / "foundry_coc7_actor.json"), str(party))
    assert done.status == 0, done.err
    assert done.out.startswith(f"{party}: added Harvey Walters (coc7) from Foundry VTT CoC7")
    assert "note: not read" in done.out
    added = load(party).get("harvey")
    assert to_table(added) == to_table(read(sample("foundry_coc7_actor.json"), "F").character)
    again = d100("sheet", "import", str(SAMPLES / "foundry_coc7_actor.json"), str(party))
    assert "'Harvey Walters' is already on the sheet" in clean_error(again)
    printed = d100("sheet", "import", str(SAMPLES / "dholes_house_vera.json"), "--name", "Vera")
    assert printed.status == 0, printed.err
    assert printed.out.startswith("# read from Dhole's House")
    assert '[Vera]\nsystem = "coc7"' in printed.out


def test_cli_refuses_what_is_no_json(tmp_path: Path) -> None:
    bad = tmp_path / "sheet.json"
    bad.write_text("{not json")
    first = clean_error(d100("sheet", "import", str(bad)))
    assert "FILE" in first and "not JSON" in first
