"""``d100 luck`` and ``d100 wound``: Pulp Cthulhu's Luck spends (P-3..P-7) and wounds (P-9)
on a sheet, written back, with clear errors naming the flag or the sheet's entry."""

from __future__ import annotations

import json
from pathlib import Path

from d100.sheets import load

from .conftest import d100

VERA = """\
# the Keeper's notes stay
[vera]
system = "coc7"
rules = ["pulp"]
luck = { current = 45, maximum = 60 }
characteristics = { STR = 60, CON = 55, SIZ = 65, DEX = 70, APP = 50, INT = 80, POW = 60, EDU = 85 }
derived = { HP = 20 }
"""


def sheet(tmp_path: Path, text: str = VERA) -> Path:
    path = tmp_path / "party.toml"
    path.write_text(text)
    return path


def test_p_4_scratch_written_back(tmp_path: Path) -> None:  # rule: P-4
    path = sheet(tmp_path)
    done = d100("luck", "--sheet", str(path), "vera", "scratch", "--dice", "6", "--json")
    assert done.status == 0, done.err
    data = json.loads(done.out)
    assert (data["rule"], data["cost"], data["luck_after"]) == ("P-4", 20, 25)
    assert (data["hp_before"], data["hp_after"]) == (20, 24)  # 26 clamped to (55 + 65) / 5
    assert data["odds"] == {"21": "1/6", "22": "1/6", "23": "1/6", "24": "1/2"}
    c = load(path).get("vera")
    assert c.luck is not None and (c.luck.current, c.luck.maximum) == (25, 60)
    assert c.derived["HP"] == 24
    assert path.read_text().startswith("# the Keeper's notes stay")


def test_p_4_seeded_twice_the_same(tmp_path: Path) -> None:  # rule: P-4
    outs = []
    for n in range(2):
        folder = tmp_path / str(n)
        folder.mkdir()
        path = sheet(folder)
        done = d100("luck", "--sheet", str(path), "vera", "scratch", "--seed", "4", "--json")
        assert done.status == 0, done.err
        outs.append(json.loads(done.out)["dice"])
    assert outs[0] == outs[1]


def test_p_5_avoid_death_spends_all(tmp_path: Path) -> None:  # rule: P-5
    path = sheet(tmp_path, VERA.replace("HP = 20", "HP = 0"))
    done = d100("luck", "--sheet", str(path), "vera", "avoid-death", "--dice", "3", "--json")
    assert done.status == 0, done.err
    data = json.loads(done.out)
    assert (data["cost"], data["luck_after"], data["hp_after"]) == (45, 0, 4)
    c = load(path).get("vera")
    assert c.luck is not None and c.luck.current == 0 and c.derived["HP"] == 4


def test_p_3_stay_conscious_plain_text(tmp_path: Path) -> None:  # rule: P-3
    path = sheet(tmp_path)
    done = d100("luck", "--sheet", str(path), "vera", "stay-conscious", "--used", "3")
    assert done.status == 0, done.err
    assert "45 - 8 -> 37" in done.out and "costs 16 Luck" in done.out
    assert load(path).get("vera").derived["HP"] == 20


def test_p_3_uses_are_kept_on_the_sheet_until_the_keeper_resets(tmp_path: Path) -> None:
    """1, 2, 4 Luck, each use counted on the sheet (luck_uses), then 1 again after a reset."""
    path = sheet(tmp_path)
    costs = []
    for extra in ((), (), (), ("--reset",)):
        done = d100("luck", "--sheet", str(path), "vera", "stay-conscious", *extra, "--json")
        assert done.status == 0, done.err
        costs.append(json.loads(done.out)["cost"])
    assert costs == [1, 2, 4, 1]
    c = load(path).get("vera")
    assert c.luck_uses == {"stay-conscious": 1} and c.luck is not None
    assert c.luck.current == 45 - 8 and "luck_uses" in path.read_text()
    assert path.read_text().startswith("# the Keeper's notes stay")
    bad = sheet(tmp_path, VERA + "luck_uses = { scratch = 2 }\n")
    done = d100("luck", "--sheet", str(bad), "vera", "scratch", "--json")
    assert done.status == 2
    assert json.loads(done.out)["error"]["field"].endswith(": vera.luck_uses.scratch")


def test_p_6_and_p_7(tmp_path: Path) -> None:  # rule: P-6, P-7
    path = sheet(tmp_path)
    done = d100("luck", "--sheet", str(path), "vera", "fumble", "--json")
    assert json.loads(done.out)["luck_after"] == 35
    assert "still fails" in json.loads(done.out)["cancels"]
    d100("luck", "--sheet", str(path), "vera", "second-attack")
    luck = load(path).get("vera").luck
    assert luck is not None and luck.current == 25
    d100("luck", "--sheet", str(path), "vera", "look-out-master")
    luck = load(path).get("vera").luck
    assert luck is not None and luck.current == 0


def test_p_4_refusals(tmp_path: Path) -> None:  # rule: P-4, P-5
    path = sheet(tmp_path, VERA.replace("current = 45", "current = 19"))
    done = d100("luck", "--sheet", str(path), "vera", "scratch")
    assert done.status == 2 and "at least 20 Luck" in done.err
    done = d100("luck", "--sheet", str(path), "vera", "avoid-death")
    assert done.status == 2 and "at least 30 Luck" in done.err
    done = d100("luck", "--sheet", str(path), "vera", "heal")
    assert done.status == 2 and "SPEND" in done.err and "scratch" in done.err
    done = d100("luck", "--sheet", str(path), "vera", "scratch", "--used", "2")
    assert done.status == 2 and "--used" in done.err
    luck = load(path).get("vera").luck
    assert luck is not None and luck.current == 19  # nothing written


def test_p_3_refused_without_pulp(tmp_path: Path) -> None:  # rule: P-3
    path = sheet(tmp_path, VERA.replace('rules = ["pulp"]\n', ""))
    done = d100("luck", "--sheet", str(path), "vera", "stay-conscious", "--json")
    assert done.status == 2
    assert json.loads(done.out)["error"]["field"] == "rules"


def test_p_9_wound_written_back(tmp_path: Path) -> None:  # rule: P-9
    path = sheet(tmp_path)
    done = d100("wound", "--sheet", str(path), "vera", "12", "--json")
    assert done.status == 0, done.err
    data = json.loads(done.out)
    assert (data["hp_after"], data["state"], data["marks"]) == (8, "conscious", [])
    assert data["calls_for"] and data["heals_a_day"] == 2
    assert load(path).get("vera").derived["HP"] == 8
    done = d100("wound", "--sheet", str(path), "vera", "8")
    assert done.status == 0 and "unconscious" in done.out


def test_p_9_plain_coc7_marks_a_major_wound(tmp_path: Path) -> None:  # rule: P-9
    path = sheet(tmp_path, VERA.replace('rules = ["pulp"]\n', "").replace("HP = 20", "HP = 12"))
    done = d100("wound", "--sheet", str(path), "vera", "6", "--json")  # HP max 12: 6 is major
    data = json.loads(done.out)
    assert (data["hp_after"], data["marks"], data["heals_a_day"]) == (6, ["major wound"], 1)
    done = d100("wound", "--sheet", str(path), "vera", "12", "--json")
    assert json.loads(done.out)["state"] == "dead"


def test_p_9_wound_errors(tmp_path: Path) -> None:  # rule: P-9
    path = sheet(tmp_path)
    done = d100("wound", "--sheet", str(path), "vera", "lots")
    assert done.status == 2 and "DAMAGE" in done.err
    done = d100("wound", "--sheet", str(path), "vera", "-3")
    assert done.status == 2 and "DAMAGE" in done.err and "-3" in done.err
    done = d100("wound", "--sheet", str(path), "nobody", "3")
    assert done.status == 2 and "nobody" in done.err


def test_p_4_advice_spends_nothing(tmp_path: Path) -> None:  # rule: P-4
    path = sheet(tmp_path)
    before = path.read_text()
    done = d100("luck", "--sheet", str(path), "vera", "--advise", "--json")
    assert done.status == 0, done.err
    advice = {a["spend"]: a for a in json.loads(done.out)["advice"]}
    assert advice["scratch"]["gained"] == {"1": "1/6", "2": "1/6", "3": "1/6", "4": "1/2"}
    assert advice["scratch"]["mean"] == "3/1" and advice["scratch"]["pays"] is True
    assert path.read_text() == before
    plain = d100("luck", "--sheet", str(path), "vera", "--advise")
    assert "scratch" in plain.out and "pays" in plain.out and "mean +3.00" in plain.out
    none = d100("luck", "--sheet", str(path), "vera")
    assert none.status == 2 and "SPEND" in none.err
