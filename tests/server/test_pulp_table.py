"""A Pulp hero's Luck at a table is the character's sheet's: ``pulp`` alone in several shots
or full auto takes it (P-6), a typed ``pulpN`` or a Sanity roll's ``luck=N`` other than the
sheet's is refused naming the sheet's, the Luck spent is written to the sheet where every
reader sees the roll, and ``d100 verify`` replays it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import d100

from .tablehelp import SHEETS, Api, Table

SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 50, maximum = 99 }}
skills = {{ handgun = 45, sanity = 60, int = 70 }}
"""
NO_LUCK = 'name = "Bob"\nsystem = "coc7"\nskills = { handgun = 45, sanity = 60 }\n'


@pytest.fixture(autouse=True)
def sheets() -> Iterator[None]:
    SHEETS["coc7"] = SHEET
    yield
    del SHEETS["coc7"]


def words(table: Table, token: str, said: str, status: int = 201, **extra: Any) -> Any:
    out = table.ok("POST", "/declared-rolls", token, status, json={"words": said, **extra})
    return out if status == 201 else out["error"]


def luck_of(table: Table, token: str, character_id: str) -> int:
    mine = {c["id"]: c for c in table.ok("GET", "", token)["characters"]}
    value: int = mine[character_id]["luck"]["current"]
    return value


def test_p_6_pulp_at_a_table_takes_the_sheet_s_luck_and_spends_it_there(
    api: Api, tmp_path: Path
) -> None:
    table = api.table("coc7")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    # mal1: every roll malfunctions, and 10 of the hero's Luck cancels it (P-6)
    made = words(table, pat, "handgun shots2 dmg=1d10 mal1 pulp", character_id=alice)
    assert made["request"]["pulp_luck"] == 50  # the sheet's, not typed
    assert made["result"]["luck_spent"] == 10 and made["result"]["jammed"] is False
    assert made["sheet"] == {"luck": [50, 40], "written": True}
    assert luck_of(table, pat, alice) == 40
    # a Luck typed other than the sheet's is refused, naming the sheet's
    typed = words(table, pat, "45 shots2 dmg=1d10 mal1 pulp50", 422, character_id=alice)
    assert typed["field"] == "words.pulp_luck" and typed["value"] == 50
    assert "40" in typed["allowed"] and "sheet" in typed["allowed"]
    same = words(table, pat, "45 auto6 dmg=1d10 mal1 pulp40", character_id=alice)
    assert same["request"]["pulp_luck"] == 40 and luck_of(table, pat, alice) == 30
    # P-2: a Sanity roll's typed Luck other than the sheet's, refused the same way
    halved = words(table, pat, "sc 10/10 pulp luck=99", 422, character_id=alice)
    assert halved["field"] == "words.luck" and "30" in halved["allowed"]
    # kept from a reader of the sheet (the GM's own secret roll), no Luck may be spent
    secret = words(
        table, table.gm, "handgun shots2 mal1 pulp", 422, character_id=alice, visibility="gm"
    )
    assert secret["field"] == "visibility" and "Luck" in secret["message"]
    assert luck_of(table, pat, alice) == 30
    # without a character the Luck typed is the roll's own: no sheet, nothing written
    bare = words(table, table.gm, "45 shots2 dmg=1d10 mal1 pulp70")
    assert bare["request"]["pulp_luck"] == 70 and "sheet" not in bare
    # a sheet without Luck has none to spend
    bob = table.ok("POST", "/characters", table.gm, 201, json={"sheet": NO_LUCK})["id"]
    none = words(table, table.gm, "handgun shots2 pulp", 422, character_id=bob)
    assert none["field"] == "words.pulp_luck" and "no Luck" in none["message"]
    # the export verifies, its replay spending the Luck each roll wrote
    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    log.write_text(table.req("GET", "/log.jsonl", table.gm).text)
    run = d100("verify", "--json", str(log))
    out = json.loads(run.out)
    assert run.status == 0 and out["ok"] and out["mismatch"] == 0, out
