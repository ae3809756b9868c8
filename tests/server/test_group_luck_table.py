"""CoC7's group Luck roll at a table: the GM calls Luck for the characters present and only
the one with the lowest Luck is called (``lowest``); the call names nobody else, so a player
left out learns nothing of it, nor of whose Luck was weighed."""

from __future__ import annotations

import json

import pytest

from .tablehelp import Api, Table

pytestmark = pytest.mark.sqlite_only(
    "Group Luck calls by the rules and who learns what: views and refusals."
)

SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = {luck}, maximum = 99 }}
skills = {{ "spot hidden" = 45 }}
"""


def sheet(table: Table, token: str, name: str, luck: int) -> str:
    text = SHEET.format(name=name, luck=luck)
    made = table.ok("POST", "/characters", token, 201, json={"sheet": text})
    cid: str = made["id"]
    return cid


def test_the_lowest_luck_is_called_alone(api: Api) -> None:
    table = api.table("coc7")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = sheet(table, pat, "Alice", 50), sheet(table, sam, "Bob", 35)
    body = {"skill": "lu", "character_ids": [alice, bob], "lowest": True}
    call = table.ok("POST", "/calls", table.gm, 201, json=body | {"visibility": "gm"})
    assert [t["character"]["id"] for t in call["targets"]] == [bob]
    assert call["skill"] == "Luck"
    # a secret call's audience is Bob's player: Pat's log holds nothing of it
    assert "call" not in {e["kind"] for e in table.events(pat)}
    rolled = table.roll(sam, bob, None, target_id=call["targets"][0]["id"])
    assert rolled["result"]["target"] == 35
    # in public everyone sees the call, naming only who rolls
    public = table.ok("POST", "/calls", table.gm, 201, json=body)
    seen = [e for e in table.events(pat) if e["kind"] == "call"]
    assert len(seen) == 1 and alice not in json.dumps(seen)
    assert [t["character"]["id"] for t in public["targets"]] == [bob]


def test_an_npc_is_refused_a_group_luck_call_that_would_tell_its_luck(api: Api) -> None:
    """An NPC with the lowest Luck would be named by the public call: players would learn its
    Luck is under each of theirs. A group's Luck roll is the investigators'."""
    table = api.table("coc7")
    pat = table.join("Pat")
    alice, ghoul = sheet(table, pat, "Alice", 50), sheet(table, table.gm, "Ghoul", 10)
    body = {"skill": "luck", "character_ids": [alice, ghoul], "lowest": True}
    err = table.ok("POST", "/calls", table.gm, 422, json=body)["error"]
    assert (err["field"], err["value"]) == ("character_ids", ghoul)
    assert "NPC" in err["message"] and "10" not in err["message"]


def test_a_group_luck_call_is_luck_alone(api: Api) -> None:
    table = api.table("coc7")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = sheet(table, pat, "Alice", 50), sheet(table, sam, "Bob", 60)
    body = {"skill": "spot", "character_ids": [alice, bob], "lowest": True}
    err = table.ok("POST", "/calls", table.gm, 422, json=body)["error"]
    assert (err["field"], err["value"]) == ("skill", "spot hidden")
    assert "Luck" in err["allowed"]
