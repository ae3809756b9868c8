"""``d100 verify`` replays a helper's value (OpenQuest's assistance, OQ11): the helper's part of
a called test's request is what the helper's sheet then gives the skill its help event names.
A helper's skill raised (the result recomputed from the revealed seed, the chain relinked)
fails naming the helper and the sheet; an export that does not hold the helper's sheet names
that value as taken on trust."""

from __future__ import annotations

from .tablehelp import Api
from .test_verify_forgeries import audit, copy, export, failed, recomputed, revealed_seeds
from .test_verify_replay import WHOLE, _check


def test_oq11_a_helper_s_value_is_replayed_from_their_sheet(api: Api) -> None:
    table = api.table("openquest")
    ann, bea = table.join("Ann"), table.join("Bea")
    alice, bob = table.character(ann, "Alice"), table.character(bea, "Bob")
    call = {"skill": "perception", "character_ids": [alice], "hazard": "missed"}
    target = table.ok("POST", "/calls", table.gm, 201, json=call)["targets"][0]["id"]
    table.ok(
        "POST",
        f"/targets/{target}/assists",
        bea,
        201,
        json={"character_id": bob, "skill": "stealth"},
    )
    rolled = table.roll(ann, alice, None, target_id=target)
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, bea, ann):
        log = export(table, token)
        out = audit(log)
        assert out["ok"], [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
        check = _check(log, rolled["seq"])
        if token == ann:  # Bob's sheet is Bea's and the GM's to read
            assert "helper Bob's value: their sheet is kept" in " ".join(check["trusted"])
            continue
        assert not any("helper" in t for t in check["trusted"]), check
        assert token == bea or check["proven"] == WHOLE, check  # Alice's sheet is Ann's
        forged = copy(log)
        entry = next(e for e in forged if e["seq"] == rolled["seq"])
        for request in (entry["request"], entry["provable"]["request"]):
            request["assist"]["skill"] = 95
        entry["result"] = recomputed(entry, revealed_seeds(forged)[entry["provable"]["seed_id"]])
        entry.pop("view", None)
        said = failed(forged)[rolled["seq"]]
        assert "its helper Bob's request has skill 95" in said and "Bob's sheet then" in said
