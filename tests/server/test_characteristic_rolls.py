"""Characteristic rolls at a table (S7-10): ``DEX``, ``POW hard`` from the sheet's
characteristics, on the API the page uses and on Discord's ``/r``; the page offers them
beside the skills (every value a check may be made against: ``rollable``)."""

from __future__ import annotations

import pytest

from .tablehelp import Api

pytestmark = pytest.mark.sqlite_only(
    "A characteristic roll at a difficulty: a rule; its event is stored on both databases "
    "by test_event_schemas.py."
)

SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 45, maximum = 99 }}
characteristics = {{ STR = 60, DEX = 50, POW = 70 }}
skills = {{ "spot hidden" = 45 }}
"""


def test_s7_10_a_characteristic_is_rolled_at_a_difficulty(api: Api) -> None:
    table = api.table("coc7")
    pat = table.join("Pat")
    made = table.ok("POST", "/characters", pat, 201, json={"sheet": SHEET.format(name="Ada")})
    rollable = made["rollable"]
    assert rollable["DEX"] == 50 and rollable["Luck"] == 45 and rollable["Listen"] == 20
    # DEX 50, hard: 25 or under (its half); 26 fails
    hard = table.roll(
        pat, made["id"], "dex", actor={"dice": [25], "fields": {"difficulty": "hard"}}
    )
    assert (hard["skill"], hard["result"]["target"]) == ("DEX", 50)
    assert hard["result"]["success"]
    missed = table.roll(
        pat, made["id"], "POW", actor={"dice": [36], "fields": {"difficulty": "extreme"}}
    )
    assert not missed["result"]["success"]  # POW 70's fifth is 14
