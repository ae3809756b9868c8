"""SealDice's words, Delta Green and Pulp at a table, attacked as a player who may not see a
roll or a sheet would: each test is a finding of a hostile pass, failing before its fix."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .tablehelp import SHEETS, Api, Table

SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 50, maximum = 99 }}
skills = {{ "spot hidden" = 45, "library use" = 60, sanity = 60, int = 70, "secret lore" = 77 }}
"""


@pytest.fixture(autouse=True)
def sheets() -> Iterator[None]:
    SHEETS["coc7"] = SHEET
    yield
    del SHEETS["coc7"]


def said(table: Table, token: str, words: str, **extra: Any) -> Any:
    return table.req("POST", "/declared-rolls", token, json={"words": words, **extra})


# rule: SD-W5 (a check's word rolls a character's sheet only where the roller may roll it)
def test_sd_w5_a_check_word_for_another_s_character_is_refused_before_its_sheet_is_read(
    api: Api,
) -> None:
    table = api.table("coc7")
    pat, sam = table.join("Pat"), table.join("Sam")
    table.character(pat, "Alice")
    bob = table.character(sam, "Bob")
    ghoul = table.character(table.gm, "Ghoul")
    for whose in (bob, ghoul):
        answers = [
            said(table, pat, words, character_id=whose)
            for words in (".ra nosuch", ".ra secret", ".ra secret lore", ".rah 困难secret lore")
        ]
        # the same refusal whatever skill is named: a did-you-mean would list the sheet's
        # skills, and a refusal only for a skill it lacks would tell which it has
        assert {r.status_code for r in answers} == {403}, [r.text for r in answers]
        assert len({r.text for r in answers}) == 1
        assert "secret lore" not in answers[0].text and "library" not in answers[0].text
    assert [e for e in table.events(table.gm) if e["kind"] == "roll"] == []


# rule: SD-W8 (.setcoc N sets the table's rule: the GM's, sent as a roll's words)
def test_sd_w8_setcoc_n_asked_for_odds_says_it_is_set_not_rolled(api: Api) -> None:
    table = api.table("coc7")
    for token in (table.gm, table.join("Pat")):
        r = table.req("POST", "/declared-odds", token, json={"words": ".setcoc 2"})
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["field"] == "words" and error["value"] == ".setcoc 2"
        # it has no odds, nor is it rolled: the GM sets it where the rolls are made
        assert "rolls it" not in error["message"], error
        assert "the GM sets it" in error["message"] and "declared-rolls" in error["message"]
    assert [e for e in table.events(table.gm) if e["kind"] == "house_rules"] == []
