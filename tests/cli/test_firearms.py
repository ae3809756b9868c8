"""CoC7 firearms on the command line: BCDice's ``FAR(...)`` (S7-14) and several shots in quick
words (S7-13), with the exact odds beside the roll and errors that name the field."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from d100.systems import coc7_far as fa
from d100.systems import coc7_full_auto as au
from d100.systems import coc7_shots as cs

from .conftest import clean_error, d100


def as_json(*args: str) -> dict[str, object]:
    run = d100(*args, "--json")
    assert run.status == 0, run
    data: dict[str, object] = json.loads(run.out)
    return data


def test_s7_14_far_rolls_in_any_case_with_its_odds() -> None:
    run = d100("roll", "coc7", "far(30,62,98)", "@52,11,81,2,2,2,98,88,78")
    assert run.status == 0, run
    lines = run.out.splitlines()
    assert "full auto (BCDice FAR)" in lines[0] and "volleys of 6" in lines[0]
    assert lines[4].endswith("98 FUMBLE · JAM")
    assert lines[5].endswith("6 normal, 3 impaling; 12 bullets left (jammed)")
    data = as_json("roll", "FAR(30,62,98)", "@52,11,81,2,2,2,98,88,78", "MP5")
    assert (data["normal"], data["impaling"], data["bullets_left"]) == (6, 3, 12)
    assert data["label"] == "MP5"
    odds = data["odds"]
    assert isinstance(odds, dict)
    hits = {int(h): Fraction(p) for h, p in odds["hits"].items()}
    assert sum(hits.values()) == 1
    assert hits == fa.odds(fa.Far(30, 62, 98)).hits


def test_s7_14_far_says_what_it_changed_and_refuses_what_bcdice_refuses() -> None:
    data = as_json("roll", "FAR(150,62,-98)", "--seed", "1")
    far = {"bullets": 100, "skill": 62, "malfunction": 98, "bonus": 0, "notes": data["notes"]}
    assert data["far"] == far and len(data["notes"]) == 2  # type: ignore[arg-type]
    assert clean_error(d100("roll", "coc7", "FAR(0,62,98)")).startswith("d100: error: bullets:")
    assert "bonus" in clean_error(d100("roll", "FAR(30,62,98,3)"))
    assert "dice" in clean_error(d100("roll", "FAR(30,62,98)", "@52,11"))
    err = clean_error(d100("roll", "coc7", "FAR(30,62,98)", "--bonus", "1"))
    assert err.startswith("d100: error: --bonus: a flag of a check, not of far")


def test_s7_13_several_shots_in_quick_words() -> None:
    data = as_json("roll", "coc7", "55", "shots2", "b1", "aim", "long", "@31,21,40", "Colt")
    fired = data["fired"]
    assert isinstance(fired, list)
    assert [s["net_dice"] for s in fired] == [1, 0]  # aim on the first, a penalty die on each
    assert [s["difficulty"] for s in fired] == ["hard", "hard"]
    assert (data["hits"], data["label"]) == (1, "Colt")
    odds = data["odds"]
    assert isinstance(odds, dict)
    want = cs.odds(cs.Shots(55, 2, bonus_dice=1, aimed=True, ranges=("long",)))
    assert {int(h): Fraction(p) for h, p in odds["hits"].items()} == want.hits
    run = d100("roll", "55", "shots3", "mal98", "--seed", "4", env={"D100_SYSTEM": "coc7"})
    assert run.status == 0 and run.out.splitlines()[-1].lstrip().startswith("odds"), run


def test_s7_13_shot_words_refused_by_name() -> None:
    assert "shots: got 11" in clean_error(d100("roll", "coc7", "55", "shots11"))
    err = clean_error(d100("roll", "coc7", "55", "shots2", "hard"))
    assert "word: not a word of several shots: 'hard'" in err and "range" in err
    err = clean_error(d100("roll", "coc7", "55", "shots2", "shots3"))
    assert err.startswith("d100: error: shots:")


def test_s7_14_d100_s_own_full_auto_in_quick_words() -> None:
    data = as_json("roll", "coc7", "62", "auto30", "volleys2", "long", "mal98", "@52,40,50")
    assert data["full_auto"] == {
        "skill": 62,
        "bullets": 30,
        "volleys": 2,
        "malfunction": 98,
        "ranges": ["long"],
        "dice": [52, 40, 50],
    }
    volleys = data["volleys"]
    assert isinstance(volleys, list)
    assert [(v["difficulty"], v["net_dice"]) for v in volleys] == [("hard", 0), ("hard", -1)]
    assert (data["hits"], data["bullets_left"]) == (0, 18)
    odds = data["odds"]
    assert isinstance(odds, dict)
    want = au.odds(au.FullAuto(62, 30, volleys=2, ranges=("long",), malfunction=98))
    assert {int(h): Fraction(p) for h, p in odds["hits"].items()} == want.hits
    assert "not a word of full auto" in clean_error(d100("roll", "coc7", "62", "auto30", "hard"))


def test_s7_6_several_shots_roll_damage_for_each_hit() -> None:
    data = as_json("roll", "coc7", "80", "shots2", "dmg=1d8+2", "@3,3,45,45", "--seed", "1")
    fired = data["fired"]
    assert isinstance(fired, list)
    assert [s["damage"] - s["damage_dice"][0] for s in fired] == [12, 2]
    assert data["damage"] == sum(s["damage"] for s in fired)
    odds = data["odds"]
    assert isinstance(odds, dict) and sum(Fraction(p) for p in odds["damage"].values()) == 1


def test_s7_14_far_in_json_lines() -> None:
    lines = [
        '{"quick": "coc7 FAR(30,62,98) @52,11,81,2,2,2,98,88,78"}',
        '{"quick": "coc7 55 shots2 @31,31,70,90"}',
    ]
    run = d100("resolve", stdin="\n".join(lines) + "\n")
    assert run.status == 0, run
    far, shots = (json.loads(line) for line in run.out.splitlines())
    assert (far["normal"], far["impaling"], far["bullets_left"]) == (6, 3, 12)
    assert [s["roll"] for s in shots["fired"]] == [31, 90]
    run = d100("odds", stdin=lines[0] + "\n")
    assert (
        run.status == 0
        and json.loads(run.out)["jam"] == fa.odds(fa.Far(30, 62, 98)).to_dict()["jam"]
    ), run


def test_s7_6_full_auto_rolls_each_bullet_s_damage() -> None:
    data = as_json("roll", "coc7", "60", "auto6", "dmg=1d4+1", "@10", "--seed", "3")
    (volley,) = data["volleys"]  # type: ignore[misc]
    assert len(volley["damage"]) == 6 and data["damage"] == sum(volley["damage"])
    odds = data["odds"]
    assert isinstance(odds, dict) and sum(Fraction(p) for p in odds["damage"].values()) == 1


def test_s7_6_a_skill_roll_with_damage_rolls_it_when_it_hits() -> None:
    """``SKILL dmg=EXPR``: an extreme success with an impaling weapon deals the most 1d4+DB
    comes to and the weapon again; ``db=`` says what DB stands for, as ``--db`` does."""
    data = as_json("roll", "coc7", "60", "dmg=1d4+DB", "db=+1d4", "impale", "@05", "--seed", "2")
    assert data["outcome"] == "extreme" and data["attack"]["damage_bonus"] == "+1d4"  # type: ignore[index]
    assert data["damage"] == 8 + data["damage_dice"][0]  # type: ignore[index,operator]
    assert data["odds"]["hit"] == "3/5"  # type: ignore[index]
    run = d100("roll", "coc7", "60", "dmg=1d8+DB", "--db", "+1d4", "vs40", "@80,90", "club")
    assert run.status == 0, run
    assert run.out.splitlines()[0].startswith("club — Call of Cthulhu 7th edition attack")
    assert "a hit" in run.out and "miss" in run.out
    assert clean_error(d100("roll", "coc7", "60", "dmg=1d8+DB")).startswith(
        "d100: error: damage_bonus:"
    )


def test_s7_6_a_character_s_attack_reads_its_skill_and_db_from_the_sheet(tmp_path: Path) -> None:
    """``WHO SKILL dmg=EXPR``: the skill is the sheet's, DB its damage bonus (S7-11: STR 80 +
    SIZ 70 is +1D4) unless ``--db`` says otherwise."""  # rule: S7-11
    sheet = tmp_path / "party.toml"
    sheet.write_text(
        '[vera]\nsystem = "coc7"\ncharacteristics = { STR = 80, SIZ = 70 }\n'
        "skills = { brawl = 65 }\n"
    )
    data = as_json("roll", "--sheet", str(sheet), "vera", "brawl", "dmg=1d3+DB", "@40")
    want = {"skill": 65, "damage": "1d3+DB", "damage_bonus": "+1d4", "dice": [40]}
    assert data["attack"] == want and data["outcome"] == "hit"
    told = as_json("roll", "--sheet", str(sheet), "vera", "bra", "dmg=1d3+DB", "--db", "-1")
    assert told["attack"]["damage_bonus"] == "-1"  # type: ignore[index]
    check = d100("roll", "--sheet", str(sheet), "vera", "brawl", "@20")
    assert check.status == 0 and "skill 65" in check.out  # no damage: a check of the skill
