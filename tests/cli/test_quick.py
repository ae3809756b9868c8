"""``d100 roll``, the quick form, through the real entry point: words as in chat dice bots."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from d100.sheets import load

from .conftest import clean_error, d100


def rolled(*args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    run = d100("roll", *args, "--json", env=env)
    assert run.status == 0, run
    data: dict[str, object] = json.loads(run.out)
    return data


def test_system_from_the_environment() -> None:  # rule: BRP1
    data = rolled("65", env={"D100_SYSTEM": "brp"})
    assert data["system"] == "brp" and data["target"] == 65


def test_brp_hard_with_a_bonus_die() -> None:  # rule: BRP2, BRP4
    data = rolled("brp", "65", "hard", "b1", "@42,7")
    assert data["target"] == 25 and data["dice"] == [42, 7] and data["roll"] == 7
    request = data["request"]
    assert isinstance(request, dict) and request["bonus_dice"] == 1
    assert rolled("brp", "65", "p1", "@42,7")["roll"] == 42  # rule: BRP4 (penalty: higher)


def test_a_percent_sign_after_a_skill_or_a_modifier_is_read_as_players_type_it() -> None:
    from d100 import quick

    data = rolled("brp", "65%", "-20%", "@30")
    assert data["target"] == 45 and data["request"]["modifiers"] == [-20]  # type: ignore[index]
    assert quick.read("rqg 80% +10%") == {"system": "rqg", "skill": 80, "modifiers": [10]}
    assert "'%'" in clean_error(d100("roll", "brp", "%"))  # a sign alone is no skill


def test_openquest_modifier_and_typed_die() -> None:  # rule: OQ1
    data = rolled("openquest", "55", "+20", "@33")
    assert data["target"] == 75 and data["roll"] == 33
    assert rolled("openquest", "55", "-20", "@33")["target"] == 35


def test_double_zero_is_a_hundred() -> None:  # rule: BRP3
    data = rolled("brp", "50", "@00")
    assert data["roll"] == 100 and data["level"] == "fumble"


def test_system_flag_and_chances_words() -> None:  # rule: CH2
    data = rolled("--system", "chances", "40", "tough", "ability=10", "take50")
    assert data["target"] == 80 and data["margin"] == 20


def test_config_file_names_the_system_and_the_sheet(party: Path, tmp_path: Path) -> None:
    home = tmp_path / "config"
    (home / "d100").mkdir(parents=True)
    (home / "d100" / "config.toml").write_text(f'system = "openquest"\nsheet = "{party}"\n')
    env = {"XDG_CONFIG_HOME": str(home)}
    assert rolled("60", "@10", env=env)["target"] == 60  # openquest, from the file
    assert rolled("60", "@10", env={**env, "D100_SYSTEM": "brp"})["system"] == "brp"
    # the default sheet: a skill of two words, then words
    data = rolled("alice", "spot", "hidden", "hard", "@10", env=env)
    assert data["system"] == "brp" and data["target"] == 10
    assert rolled("alice", "spot", "@10", env=env)["target"] == 20  # spot, not spot hidden


def test_luck_words_spend_from_the_sheet_with_typed_dice(party: Path) -> None:  # rule: BRP7
    party.chmod(0o644)
    data = rolled("--sheet", str(party), "bob", "stealth", "reroll", "@80,30")
    assert data["attempts"] == [80, 30] and data["luck_spent"] == 1 and data["success"]
    assert rolled("--sheet", str(party), "bob", "stealth", "luck", "@55")["target"] == 60
    luck = load(party).get("bob").luck
    assert luck is not None and luck.current == 3
    assert stat.S_IMODE(party.stat().st_mode) == 0o644  # the sheet keeps its mode


def test_no_system_names_the_four_ways() -> None:
    line = clean_error(d100("roll", "65"))
    for way in ("first word", "--system", "$D100_SYSTEM", "config.toml"):
        assert way in line, line


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["brp", "65", "nasty"], "word: unknown word 'nasty'; allowed: difficulty routine"),
        (["chances", "40", "hard"], "allowed: risk very-easy, easy, average"),
        (["openquest", "55", "b1"], "word: unknown word 'b1' (a word of brp's bonus_dice"),
        (["openquest", "60", "hard", "easy"], "'hard' and 'easy' both set difficulty"),
        (["brp", "65", "@10", "@20"], "'@10' and '@20' both set dice"),
        (["chances", "40", "tough", "take50", "take100"], "'take50' and 'take100' both set"),
        (["brp", "65", "hard", "difficulty=easy"], "given by a word and by --difficulty"),
        (["brp", "65", "@0"], "not a d100 value: 0"),
        (["brp", "65", "@"], "word: unknown word '@'"),
        (["brp", "65", "=3"], "word: unknown word '=3'"),
        (["brp", "65", "--nope"], "unrecognized arguments: --nope"),
        (["brp"], "SKILL: no skill given"),
        (["dnd", "65"], "--sheet: character names need a sheet: 'dnd 65'"),
    ],
)
def test_quick_errors_name_the_value(args: list[str], needle: str) -> None:
    assert needle in clean_error(d100("roll", *args))


def test_json_errors_are_an_object_on_stdout() -> None:
    run = d100("roll", "brp", "65", "nasty", "--json")
    assert run.status == 2 and clean_error(run)  # the line on stderr stays, for people
    error = json.loads(run.out)["error"]
    assert error["field"] == "word" and error["value"] == "nasty" and "hard" in error["allowed"]
    usage = d100("check", "-s", "brp", "--skil", "65", "--json")
    assert usage.status == 2
    assert "did you mean --skill?" in json.loads(usage.out)["error"]["message"]


def test_the_readme_first_screen_is_a_quick_roll() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    first_screen = "\n".join(readme.splitlines()[:40])
    assert "d100 roll brp 65 hard b1" in first_screen


@pytest.mark.parametrize(
    ("form", "head"),
    [
        ("CCB<=65", "check — skill 65, house rules: fives"),  # rule: C6-1
        ("RES(13-10)", "check — resistance: active 13, passive 10"),  # rule: RQ-2
    ],
)
def test_a_chat_bot_form_s_grouped_inputs_read_as_words(form: str, head: str) -> None:
    run = d100("roll", form, "@18")
    assert run.status == 0, run
    assert head in run.out.splitlines()[0] and "=" not in run.out.splitlines()[0]
