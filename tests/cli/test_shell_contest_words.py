"""``d100 shell``: a contest takes the opponent's words (dice rolled by hand, difficulty, bonus
dice) after a second ``vs``, as the actor's come before it."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import PARTY, d100


def contest(tmp_path: Path, line: str) -> tuple[str, dict[str, object]]:
    sheet = tmp_path / "party.toml"
    sheet.write_text(PARTY)
    log = tmp_path / "session.jsonl"
    run = d100(
        "shell", "--sheet", str(sheet), "--log", str(log), "--plain", stdin=line + "\n"
    )  # fmt: skip
    assert run.status == 0 and "Traceback" not in run.out + run.err, run
    entries = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    return run.out, (entries[0] if entries else {})


def test_brp6_the_opponent_s_dice_and_difficulty_follow_a_second_vs(tmp_path: Path) -> None:
    _, entry = contest(tmp_path, "alice vs bob stealth @42 vs @17 hard")
    result = entry["result"]
    assert isinstance(result, dict)
    assert result["actor"]["dice"] == [42] and result["opponent"]["dice"] == [17]
    assert result["opponent"]["request"]["difficulty"] == -40  # hard, for bob only
    assert result["actor"]["request"]["difficulty"] == 0
    assert entry["skill"] == "stealth/stealth"


def test_the_opponent_s_flags_and_bonus_dice_after_vs(tmp_path: Path) -> None:
    _, entry = contest(tmp_path, "alice vs bob stealth vs --dice 5,60 b1")
    result = entry["result"]
    assert isinstance(result, dict)
    assert result["opponent"]["dice"] == [5, 60] and result["opponent"]["roll"] == 5
    assert result["opponent"]["request"]["bonus_dice"] == 1


def test_ch6_a_chances_contest_takes_both_luck_dice(tmp_path: Path) -> None:
    _, entry = contest(tmp_path, "carol vs dara sneaking @10 vs @90")
    result = entry["result"]
    assert isinstance(result, dict) and result["winner"] == "opponent"
    assert result["actor"]["dice"] == [10] and result["opponent"]["dice"] == [90]


def test_a_word_the_opponent_s_system_lacks_is_an_error(tmp_path: Path) -> None:
    out, entry = contest(tmp_path, "alice vs bob stealth vs take50")
    assert not entry and "error:" in out and "take50" in out
