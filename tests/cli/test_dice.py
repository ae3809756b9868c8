"""Dice expressions on the command line (issue 35, items 1 and 7): ``d100 roll 1d6+1d4``,
``d100 odds 3d6``, the percentile form ``1d100<=65``, BCDice's secret prefix and labels, and
words refused by what they look like."""

from __future__ import annotations

import json
from pathlib import Path

from d100 import expressions

from .conftest import clean_error, d100


def as_json(*args: str) -> dict[str, object]:
    run = d100(*args, "--json")
    assert run.status == 0, run
    data: dict[str, object] = json.loads(run.out)
    return data


def test_a_dice_expression_rolls_with_its_mean_and_the_chance_of_its_total() -> None:
    run = d100("roll", "1d6+1d4", "--seed", "7")
    assert run.status == 0, run
    lines = run.out.splitlines()
    assert lines[0] == "1d6+1d4"
    assert lines[1].split() == ["dice", "1d6", "3", "·", "1d4", "2"]
    assert lines[2].split() == ["total", "5"]
    assert "5 or more 75.00% (3/4) · mean 6" in lines[3]
    data = as_json("roll", "1d6+1d4", "--seed", "7")
    assert (data["total"], data["dice"]) == (5, [3, 2])
    assert data["odds"] == {"mean": "6/1", "at_least": "3/4"}
    assert data == {**data, **expressions.roll("1d6+1d4", __import__("random").Random(7)).to_dict()}


def test_a_system_before_an_expression_changes_nothing() -> None:
    data = as_json("roll", "coc7", "1d6", "--seed", "3")
    assert data["expression"] == "1d6" and data["total"] in range(1, 7)
    again = as_json("roll", "1d6", "--seed", "3")
    assert again["dice"] == data["dice"]


def test_keep_highest_a_label_and_the_damage_bonus() -> None:  # rule: S7-6
    data = as_json("roll", "4d6kh3", "strength", "--seed", "7")
    assert data["request"] == {"expression": "4d6kh3", "label": "strength"}
    terms = data["terms"]
    assert isinstance(terms, list) and len(terms[0]["kept"]) == 3
    data = as_json("roll", "1d8+DB", "--db", "+1d4", "club", "--seed", "7")
    assert data["expression"] == "1d8+1d4"
    assert data["request"] == {"expression": "1d8+DB", "damage_bonus": "+1d4", "label": "club"}
    data = as_json("roll", "1d6+half(DB)", "--db", "-1", "--seed", "2")  # a negative bonus
    assert data["expression"] == "1d6-1"


def test_odds_print_every_total_as_a_fraction() -> None:
    run = d100("odds", "3d6")
    assert run.status == 0, run
    lines = run.out.splitlines()
    assert lines[0] == "3d6: every total, exactly — mean 10.50 (21/2)"
    assert lines[2].split() == ["3", "0.46%", "1/216", "100.00%"]
    assert lines[9].split() == ["10", "12.50%", "1/8", "62.50%"]
    assert len(lines) == 2 + 16
    data = as_json("odds", "2d20kl1")
    assert data["mean"] == "287/40"
    assert data["distribution"][0] == {"total": 1, "chance": "39/400", "at_least": "1/1"}  # type: ignore[index]


def test_a_broken_expression_is_refused_where_it_breaks() -> None:
    first = clean_error(d100("roll", "1d6x"))
    assert "not a dice expression: unexpected 'x' at position 4" in first
    assert "character names need a sheet" not in first
    first = clean_error(d100("roll", "coc7", "2d"))
    assert "the number of faces missing (the end) at position 3" in first
    first = clean_error(d100("odds", "4d6kh5"))
    assert "5 dice kept at position 1: '4d6kh5'; allowed: 1..4 dice kept" in first
    first = clean_error(d100("roll", "brp", "65", "--db", "+1d4"))
    assert first.startswith("d100: error: --db: a damage bonus given to a check")
    first = clean_error(d100("roll", "1d8+DB"))
    assert "damage_bonus: 1d8+DB names DB, and no damage bonus is given" in first


def test_a_name_on_the_sheet_is_a_name_even_when_it_looks_like_dice(tmp_path: Path) -> None:
    sheet = tmp_path / "odd.toml"
    sheet.write_text('[2d]\nsystem = "brp"\nskills = { stealth = 40 }\n')
    data = as_json("roll", "--sheet", str(sheet), "2d", "stealth", "@30")
    assert data["target"] == 40
    first = clean_error(d100("roll", "--sheet", str(sheet), "3x", "stealth"))
    assert "not a dice expression: unexpected 'x' at position 2" in first


def test_the_percentile_form_is_a_check_of_the_chosen_system() -> None:
    for word in ("1d100<=65", "1D100<=65"):
        data = as_json("roll", "coc7", word, "--seed", "7")
        assert data["system"] == "coc7" and data["target"] == 65
    data = as_json("roll", "-s", "brp", "1d100<=40", "hard", "@20")
    assert data["system"] == "brp" and data["request"]["skill"] == 40  # type: ignore[index]
    first = clean_error(d100("roll", "1d100<=65"))
    assert "no system given" in first


def test_a_label_after_a_command_is_kept_and_shown() -> None:
    run = d100("roll", "coc7", "CC<=65", "Spot", "Hidden", "--seed", "7")
    assert run.status == 0, run
    assert run.out.splitlines()[0].startswith("Spot Hidden — skill 65")
    data = as_json("roll", "coc7", "CC<=65", "hard", "Spot", "Hidden", "--seed", "7")
    assert data["label"] == "Spot Hidden" and data["request"]["difficulty"] == "hard"  # type: ignore[index]
    first = clean_error(d100("roll", "coc7", "CC<=65", "Spot", "+20"))
    assert "'+20' after the label 'Spot'" in first


def test_the_secret_prefix_is_taken_and_said_to_hide_nothing() -> None:
    run = d100("roll", "coc7", "SCC<=65", "--seed", "7")
    assert run.status == 0, run
    assert "nothing is hidden" in run.out.splitlines()[-1]
    assert as_json("roll", "coc7", "S1d100<=65", "--seed", "7")["target"] == 65
    data = as_json("roll", "S1d6", "--seed", "7")
    assert data["expression"] == "1d6" and "nothing is hidden" in str(data["secret"])
