"""Sanity rolls on the command line (S7-1..S7-5): ``d100 roll coc7 sc 1/1d6 60``, with dice
given in the order drawn, a sheet's SAN read and written back, ``--json`` with the view, and
``d100 odds`` of one; bad words refused naming the field, the value and what is allowed."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

from d100 import sanity

from .conftest import clean_error, d100


def as_json(*args: str) -> dict[str, object]:
    run = d100(*args, "--json")
    assert run.status == 0, run
    data: dict[str, object] = json.loads(run.out)
    return data


# rule: S7-1, S7-2, S7-3
def test_a_sanity_roll_by_hand_shows_the_level_the_loss_san_and_the_int_roll() -> None:
    run = d100("roll", "coc7", "sc", "1/1d6+1", "60", "int=70", "@75,6,20")
    assert run.status == 0, run
    rows = {line.split()[0]: line.split()[1:] for line in run.out.splitlines()[1:]}
    assert rows["dice"] == ["75"]
    assert rows["level"] == ["FAILURE", "a", "failure"]
    assert rows["loss"][0] == "7"
    assert rows["SAN"] == ["60", "->", "53"]
    assert rows["INT"] == ["roll", "20", "vs", "70:", "hard"]
    assert rows["insanity"][:2] == ["temporary", "insanity:"]


def test_the_json_is_the_librarys_result_with_its_odds_and_view() -> None:
    data = as_json("roll", "coc7", "san", "1d4/1d10", "45", "int=60", "--seed", "9")
    asked = {"system": "coc7", "sanity": 45, "loss": "1d4/1d10", "intelligence": 60}
    alone = sanity.roll(asked, random.Random(9)).to_dict()
    assert {k: data[k] for k in alone} == alone
    odds = data["odds"]
    assert isinstance(odds, dict) and odds["success"] == "9/20"
    view = data["view"]
    assert isinstance(view, dict) and view["sanity_after"] == data["sanity_after"]
    assert view["success_odds"] == "9/20"


# rule: S7-2
def test_a_fumble_loses_the_maximum_and_draws_no_loss_dice() -> None:
    data = as_json("roll", "sanity", "1/2d6", "40", "@97")
    assert (data["level"], data["loss"], data["loss_dice"]) == ("fumble", 12, [])
    assert data["sanity_after"] == 28


# rule: S7-4, S7-5
def test_the_days_losses_and_the_mythos_go_in_by_words() -> None:
    data = as_json("roll", "coc7", "sc", "1/1d10", "50", "today=6", "mythos=30", "@80,5")
    assert (data["loss"], data["indefinite"], data["most"]) == (5, True, 69)
    assert data["int_roll"] is None  # the loss that reaches the day's limit: no INT roll (S2)
    too_high = clean_error(d100("roll", "coc7", "sc", "1/1d6", "80", "mythos=30"))
    assert "sanity" in too_high and "0..69" in too_high


def test_a_sheets_san_is_read_and_the_san_left_written_back(tmp_path: Path) -> None:
    sheet = tmp_path / "party.toml"
    sheet.write_text(
        '[vera]\nsystem = "coc7"\nskills = { "spot hidden" = 60, sanity = 55, int = 70 }  # kept\n'
    )
    run = d100("roll", "--sheet", str(sheet), "vera", "sc", "1/1d6+1", "@80,6,30")
    assert run.status == 0, run
    assert "vera's SAN is now 48" in run.out
    assert "sanity = 48" in sheet.read_text() and "# kept" in sheet.read_text()
    again = as_json("roll", "--sheet", str(sheet), "vera", "sc", "1/1d6", "@10")
    assert (again["sanity"], again["sanity_after"], again["who"]) == (48, 47, "vera")
    twice = clean_error(d100("roll", "--sheet", str(sheet), "vera", "sc", "1/1d6", "40"))
    assert "sanity: given twice" in twice
    check = d100("roll", "--sheet", str(sheet), "vera", "sanity", "@20")
    assert check.status == 0 and "skill 47" in check.out  # no loss: a check of the skill


def test_odds_of_a_sanity_roll_every_loss_exactly() -> None:
    data = as_json("odds", "coc7", "sc", "1d4/1d10", "45", "int=70")
    expected = sanity.odds(
        {"system": "coc7", "sanity": 45, "loss": "1d4/1d10", "intelligence": 70}
    ).to_dict()
    assert data == expected
    # 45 succeeds on 01-45: 45 rolls of 1d4, 50 failures of 1d10 and 5 fumbles losing 10
    ten = Fraction(50, 100) * Fraction(1, 10) + Fraction(5, 100)
    assert {"loss": 10, "chance": f"{ten.numerator}/{ten.denominator}"} in data["losses"]
    run = d100("odds", "coc7", "sc", "1d4/1d10", "45")
    assert run.status == 0 and "an INT roll may be called for" in run.out
    assert "dice" in clean_error(d100("odds", "coc7", "sc", "1/1d6", "45", "@10"))


def test_bad_words_are_refused_naming_the_field() -> None:
    assert "loss: not A/B" in clean_error(d100("roll", "coc7", "sc", "1d6", "60"))
    broken = clean_error(d100("roll", "coc7", "sc", "1/1d6x", "60"))
    assert "loss" in broken and "position 4" in broken
    assert "no Sanity" in clean_error(d100("roll", "brp", "sc", "1/1d6", "60"))
    assert "SAN: no SAN given" in clean_error(d100("roll", "coc7", "sc", "1/1d6"))
    assert "unknown word 'foo'" in clean_error(d100("roll", "coc7", "sc", "1/1d6", "6", "foo"))
    left = clean_error(d100("roll", "coc7", "sc", "1/1d6", "60", "@10,3"))
    assert "loss_dice" in left or "int_dice" in left


# rule: P-2
def test_pulp_luck_from_the_sheet_is_spent_and_written_back(tmp_path: Path) -> None:
    sheet = tmp_path / "party.toml"
    sheet.write_text(
        '[vera]\nsystem = "coc7"\nluck = { current = 50, maximum = 50 }\n'
        "skills = { sanity = 55, int = 70 }\n"
    )
    data = as_json("roll", "--sheet", str(sheet), "vera", "sc", "1/1d10", "pulp", "@80,8")
    assert (data["loss_rolled"], data["loss"], data["luck_spent"]) == (8, 4, 16)
    text = sheet.read_text()
    assert "current = 34" in text and "sanity = 51" in text
    by_numbers = as_json("roll", "coc7", "sc", "1/1d10", "50", "pulp", "luck=15", "@80,8")
    assert (by_numbers["loss"], by_numbers["luck_spent"]) == (8, 0)  # 16 Luck is more than 15
    refused = clean_error(d100("roll", "coc7", "sc", "1/1d10", "50", "luck=30"))
    assert "no Luck on a Sanity roll (S7-1)" in refused


# rule: S7-1
def test_a_pool_only_under_the_house_rule_its_dice_first_in_order() -> None:
    data = as_json("roll", "coc7", "sc", "1/1d6", "40", "sanity_pool", "pool=-1", "@42,02,4")
    assert (data["roll"], data["dice"], data["loss"]) == (42, [42, 2], 4)
    refused = clean_error(d100("roll", "coc7", "sc", "1/1d6", "40", "pool=1"))
    assert "no bonus or penalty dice on a Sanity roll (S7-1)" in refused


# rule: S7-5 (SAN starts at POW), S7-3
def test_an_investigator_s_san_is_read_from_pow_and_written_back_as_a_derived_value(
    tmp_path: Path,
) -> None:
    """A sheet with characteristics and no SAN of its own: the roll reads SAN from POW (the
    derived value), INT from the characteristic, and the SAN left is set on the sheet."""
    sheet = tmp_path / "vera.toml"
    sheet.write_text(
        '[vera]\nsystem = "coc7"\n'
        "characteristics = { STR = 50, CON = 60, SIZ = 55, DEX = 70, APP = 50, INT = 75, "
        "POW = 65, EDU = 80 }\n"
    )
    run = d100("roll", "--sheet", str(sheet), "vera", "sc", "1/1d6", "@80,6,90")
    assert run.status == 0, run
    rows = {line.split()[0]: line.split()[1:] for line in run.out.splitlines()[1:]}
    assert rows["SAN"] == ["65", "->", "59"]  # a failure: 1d6 lost, 6
    assert rows["INT"][:4] == ["roll", "90", "vs", "75:"]  # INT from the characteristic
    shown = d100("sheet", "show", str(sheet), "vera", "--json")
    assert shown.status == 0, shown
    assert "SAN = 59" in sheet.read_text()
    again = d100("roll", "--sheet", str(sheet), "vera", "sc", "0/1", "@10")
    assert "59 -> 59" in again.out, again
