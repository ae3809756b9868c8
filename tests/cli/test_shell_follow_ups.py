"""``d100 shell``: what may follow the last check (a BRP Luck reroll, CoC7's Luck after the
roll and its push) is offered under it and taken by typing its key, as a table's card offers
it; the Luck it costs is written back to the sheet."""

from __future__ import annotations

import json
from pathlib import Path

from d100.sheets import load

from .conftest import d100

PARTY = """\
[alice]
system = "brp"
luck = { current = 2, maximum = 13 }
skills = { stealth = 65 }

[ada]
system = "coc7"
luck = { current = 20, maximum = 99 }
skills = { "library use" = 45 }
"""


def shell(tmp_path: Path, *lines: str) -> tuple[str, list[dict[str, object]], Path]:
    sheet = tmp_path / "party.toml"
    if not sheet.exists():
        sheet.write_text(PARTY)
    log = tmp_path / "session.jsonl"
    run = d100(
        "shell", "--sheet", str(sheet), "--log", str(log), "--seed", "1", "--plain",
        stdin="\n".join(lines) + "\n",
    )  # fmt: skip
    assert run.status == 0 and "Traceback" not in run.out + run.err, run
    entries = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    return run.out, entries, sheet


def luck(sheet: Path, who: str) -> int:
    left = load(str(sheet)).get(who).luck
    assert left is not None
    return left.current


def test_brp7_a_failed_check_is_rerolled_for_a_luck_point_in_the_shell(tmp_path: Path) -> None:
    out, entries, sheet = shell(tmp_path, "alice stealth @80", "reroll @10", "reroll")
    first, rerolled, refused = out.split("d100> ")[1:4]
    assert "level    FAILURE" in first
    assert "then     reroll: Spend 1 Luck to reroll" in first
    assert "Luck reroll: alice" in rerolled and "level    SPECIAL" in rerolled
    assert "alice spent 1 Luck: 1/13 left" in rerolled
    assert "then" not in rerolled  # a success: nothing follows it
    assert refused.startswith("error: reroll: it succeeded")
    assert luck(sheet, "alice") == 1
    assert [e["kind"] for e in entries] == ["check", "follow_up"]
    assert entries[1]["result"]["follow_up"] == {"key": "reroll", "done": "Luck reroll"}  # type: ignore[index]


def test_brp7_no_reroll_past_the_luck_the_sheet_has(tmp_path: Path) -> None:
    out, _, sheet = shell(tmp_path, "alice stealth @80", "reroll @90", "reroll @95", "reroll")
    assert out.count("alice spent 1 Luck") == 2
    assert "error: reroll: alice has less" in out and "a character with 1 Luck" in out
    assert out.split("d100> ")[3].count("then") == 0  # not offered at 0 Luck
    assert luck(sheet, "alice") == 0


def test_c7_4_luck_after_the_roll_buys_the_difficulty_in_the_shell(tmp_path: Path) -> None:
    out, entries, sheet = shell(tmp_path, "ada library use @50", "luck @20", "luck")
    first, typed, bought = out.split("d100> ")[1:4]
    assert typed.startswith("error: dice: luck rolls none: it reads the roll made")
    assert "luck: Spend 5 Luck: regular" in first and "push: Push the roll" in first
    assert "level    REGULAR" in bought and "ada spent 5 Luck: 15/99 left" in bought
    assert luck(sheet, "ada") == 15
    assert entries[1]["result"]["dice"] == [50]  # type: ignore[index]  # the roll already made


def test_c7_5_a_push_by_numbers_is_its_own_roll_and_nothing_follows_it(tmp_path: Path) -> None:
    out, _, _ = shell(tmp_path, "coc7 45 @60", "push @50", "push", "push @20 @30")
    first, pushed, again, twice = out.split("d100> ")[1:5]
    assert "then     push: Push the roll" in first
    assert "Pushed roll: Call of Cthulhu 7th edition" in pushed and "dice     50" in pushed
    assert "then" not in pushed
    assert again.startswith("error: push: nothing may follow it")
    assert twice.startswith("error: push:")


def test_a_follow_up_key_before_any_check_or_with_other_words_is_refused(
    tmp_path: Path,
) -> None:
    out, _, _ = shell(tmp_path, "reroll", "alice stealth @80", "reroll hard", "reroll @00")
    assert out.split("d100> ")[1].startswith("error: character: unknown character 'reroll'")
    assert "error: reroll: words a follow-up lacks: 'hard'" in out
    assert "dice     100" in out  # @00 is the percentile die's 100
