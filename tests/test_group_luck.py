"""CoC7's group Luck roll: the investigator present with the lowest Luck rolls for the group,
from one sheet or several (``d100 group ... luck --lowest``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from d100.errors import D100Error
from d100.group_luck import who_rolls
from d100.sheets import Character, from_table

from .cli.conftest import clean_error, d100


def investigator(name: str, luck: int | None, system: str = "coc7") -> Character:
    table: dict[str, object] = {"system": system}
    if luck is not None:
        table["luck"] = {"current": luck, "maximum": 99}
    return from_table(name, table)


def test_the_lowest_luck_rolls_the_first_named_of_a_tie() -> None:
    present = [investigator(n, v) for n, v in (("vera", 45), ("zora", 30), ("finn", 30))]
    assert who_rolls(present).name == "zora"
    assert who_rolls(present[::-1]).name == "finn"


@pytest.mark.parametrize(
    ("who", "reason"),
    [
        (investigator("alice", 13, "brp"), "brp has no group Luck roll"),
        (investigator("ned", None), "no Luck"),
    ],
)
def test_who_cannot_be_in_a_group_luck_roll(who: Character, reason: str) -> None:
    with pytest.raises(D100Error) as err:
        who_rolls([investigator("vera", 45), who])
    assert err.value.reason == reason


def test_cli_lowest_across_several_sheets(tmp_path: Path) -> None:
    (tmp_path / "vera.toml").write_text(
        'name = "vera"\nsystem = "coc7"\nluck = { current = 45, maximum = 45 }\n'
    )
    (tmp_path / "party.toml").write_text(
        '[zora]\nsystem = "coc7"\nluck = { current = 35, maximum = 50 }\n'
        '[harvey]\nsystem = "coc7"\nluck = { current = 60, maximum = 60 }\n'
    )
    sheets = ["--sheet", str(tmp_path / "vera.toml"), "--sheet", str(tmp_path / "party.toml")]
    done = d100("group", *sheets, "luck", "--lowest", "--seed", "5", "--json")
    assert done.status == 0, done.err
    rolled = json.loads(done.out)
    assert (rolled["rolls_for_group"], rolled["target"]) == ("zora", 35)
    shown = d100("group", *sheets, "luck", "--lowest", "--seed", "5", "--plain")
    assert shown.out.startswith("zora rolls Luck for the group: the lowest of vera 45, zora 35")
    not_luck = clean_error(d100("group", *sheets, "climb", "--lowest"))
    assert "--lowest" in not_luck and "not Luck" in not_luck
