"""An NPC's blind Sanity roll when the GM has revealed the NPC's sheet to the players: a
table writes a sheet only where every reader of it saw the roll, so the blind roll leaves
the sheet as it was, and every member's export, replayed against the sheets as they were,
passes, before the roll is shown and after: the GM's proves both rolls whole against the sheet
as the blind roll left it; a player, shown an NPC's outcome only, checks its seed and nonce
(issue 34: a replay that missed the blind roll's write would report the next SAN a mismatch)."""

from __future__ import annotations

import pytest

from .tablehelp import Api
from .test_verify_declared import _rolled
from .test_verify_forgeries import audit, export
from .test_verify_replay import WHOLE, _check

pytestmark = pytest.mark.sqlite_only(
    "what an export shows and verify replays: the store's part is the other verify tests'"
)

ORC = """name = "Orc"
system = "coc7"
characteristics = { STR = 80, SIZ = 70, INT = 50 }
skills = { sanity = 45, brawl = 50 }
"""


def test_an_npc_s_blind_sanity_roll_on_a_revealed_sheet_verifies_for_everyone(api: Api) -> None:
    table = api.table("coc7")
    pat = table.join("Pat")
    orc = table.ok("POST", "/characters", table.gm, 201, json={"sheet": ORC})
    table.ok("POST", f"/characters/{orc['id']}/reveal", table.gm, 201)
    blind = _rolled(table, table.gm, "sc 1d6/1d10", orc["id"], visibility="blind")
    after = _rolled(table, table.gm, "sc 1/1d4", orc["id"])
    assert after["request"]["sanity"] < 45  # the blind roll wrote the sheet: its readers saw it
    for stage in ("before showing", "shown"):
        if stage == "shown":
            table.ok("POST", f"/rolls/{blind['seq']}/unblind", table.gm, 201)
            table.ok("POST", "/seeds/rotate", table.gm)
        for who, token in (("gm", table.gm), ("pat", pat)):
            out = audit(export(table, token))
            bad = [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
            assert out["ok"] and not bad, (stage, who, bad)
    gm = export(table, table.gm)
    for seq in (blind["seq"], after["seq"]):
        assert _check(gm, seq)["proven"] == WHOLE, _check(gm, seq)
    assert _check(export(table, pat), after["seq"])["status"] == "hidden"
