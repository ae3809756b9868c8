"""A reveal shows no secret roll: each roll draws from the seeds of the members who see all
of it, so a player holding every seed revealed to them, every client seed of the log and
every nonce recomputes the rolls they were shown, and none of the others (on SQLite and
PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select

from d100.cli.verify import audit_log
from d100.provable import word
from d100.server import rolls
from d100.server.access import OPEN, Chain
from d100.server.models import Event, SeedSession
from d100.server.store import Store

from .forging import unchained
from .tablehelp import Api, Table

INDEXES = 12  # HMAC words per roll tried: a check uses one or two, a contest a few more


def export(table: Table, token: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in table.req("GET", "/log.jsonl", token).text.splitlines()]


def played(api: Api) -> tuple[Table, dict[str, str]]:
    """Every way a roll is kept from Pat, and Pat's own rolls, over two rotations."""
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    orc = table.character(table.gm, "Orc")
    table.roll(pat, alice, "stealth")  # public: Pat's control
    table.roll(pat, alice, "dodge", visibility="gm")  # Pat's own gm roll: theirs to check
    table.roll(table.gm, orc, "spot hidden", visibility="gm")  # the GM's alone
    table.roll(sam, bob, "stealth", visibility="self")  # Sam's alone
    table.roll(pat, alice, "stealth", visibility="blind")  # Pat rolled it, never shown
    table.roll(sam, bob, "dodge", visibility="blind")
    # A public contest against the GM's Orc: its side is withheld from the players.
    table.roll(table.gm, alice, "dodge", opponent={"character_id": orc, "skill": "stealth"})
    table.roll(table.gm, orc, "spot hidden")  # an NPC's public roll: name and level only
    hidden_call = table.ok(
        "POST", "/calls", table.gm, 201,
        json={"skill": "dodge", "character_ids": [bob], "visibility": "gm",
              "opponent": {"character_id": orc, "skill": "stealth"}},
    )  # fmt: skip
    table.roll(sam, bob, None, target_id=hidden_call["targets"][0]["id"])
    table.ok("POST", "/seeds/rotate", table.gm)
    table.roll(pat, alice, "spot hidden")
    table.roll(table.gm, orc, "dodge", visibility="gm")
    table.roll(sam, bob, "spot hidden", visibility="self")
    table.roll(table.gm, alice, "stealth", opponent={"character_id": orc, "skill": "dodge"})
    table.ok("POST", "/seeds/rotate", table.gm)
    return table, {"gm": table.gm, "pat": pat, "sam": sam}


def revealed(log: list[dict[str, Any]]) -> set[bytes]:
    """Every server seed anywhere in an export."""
    found: set[bytes] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("server_seed"), str):
                found.add(bytes.fromhex(value["server_seed"]))
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(log)
    return found


def client_seeds(log: list[dict[str, Any]]) -> set[str]:
    """Every client seed anywhere in an export (the GM's at the opening, joins, changes, the
    rolls' provable records)."""
    text = json.dumps(log)
    seeds: set[str] = set()
    for entry in log:
        for value in (entry.get("gm"), entry.get("member"), entry, entry.get("provable")):
            if isinstance(value, dict) and isinstance(value.get("client_seed"), str):
                seeds.add(value["client_seed"])
    assert all(s in text for s in seeds)
    return seeds


def true_words(database_url: str, table_id: str) -> dict[int, list[int]]:
    """Each roll's HMAC words as the server drew them, read from its store: what a player
    would have to reproduce to know its dice."""
    store = Store(database_url)
    try:
        with store.read() as session:
            seeds = {s.id: s for s in session.scalars(select(SeedSession))}
            events = session.scalars(select(Event).where(Event.table_id == table_id)).all()
            out = {}
            for event in events:
                p = event.data.get("provable")
                if event.kind in ("roll", "contest") and isinstance(p, dict):
                    seed = bytes.fromhex(seeds[p["seed_id"]].server_seed)
                    out[event.seq] = [
                        word(seed, p["client_seed"], p["nonce"], i) for i in range(INDEXES)
                    ]
            return out
    finally:
        store.dispose()


def test_a_player_s_export_recomputes_only_the_rolls_shown_to_them(
    api: Api, database_url: str
) -> None:
    table, tokens = played(api)
    log = export(table, tokens["pat"])
    rolls = {e["seq"]: e for e in log if isinstance(e.get("provable"), dict)}
    rolls = {seq: e for seq, e in rolls.items() if e["kind"] in ("roll", "contest", "hidden")}
    shown = {
        seq
        for seq, e in rolls.items()
        if e["kind"] != "hidden" and "result" in e and "withheld" not in e
    }
    kept = set(rolls) - shown
    # What Pat was not shown: the GM's gm rolls, Sam's self and blind rolls and the hidden
    # call (stubs), Pat's own blind roll (no result), the NPC's roll and the public contests'
    # withheld sides.
    assert len(shown) == 3 and len(kept) == 10, (shown, kept)
    nonces = max(e["provable"]["nonce"] for e in rolls.values()) + 5
    # Every seed Pat is given: in their export and in the table's state (its seed list).
    seeds, clients = revealed([*log, table.ok("GET", "", tokens["pat"])]), client_seeds(log)
    # Two open seeds and Pat's gm chain's; the GM's, Sam's and Pat's own client seeds.
    assert len(seeds) == 3 and len(clients) == 3, (seeds, clients)
    # The brute force: every revealed seed x every client seed x every nonce x every index.
    tried = {
        word(seed, client, nonce, index)
        for seed in seeds
        for client in clients
        for nonce in range(nonces)
        for index in range(INDEXES)
    }
    truth = true_words(database_url, table.id)
    assert set(truth) == set(rolls)
    recomputed = {seq for seq, words in truth.items() if set(words) & tried}
    # Pat's public and gm rolls are all recomputed (so the search finds what it can), and
    # not one word of any roll kept from them: not a die of it.
    assert recomputed == shown, {"kept but recomputed": recomputed & kept}
    # Every member's honest export still verifies (the blind rolls wait for the GM to show
    # them), each with its own share of the revealed seeds.
    for who, token in tokens.items():
        out = audit_log(json.dumps(e) + "\n" for e in export(table, token)).to_dict()
        assert out["ok"] and out["mismatch"] == 0, (who, out)


def test_a_luck_reroll_draws_from_the_chain_of_the_roll_it_follows(api: Api) -> None:
    """A follow-up of Pat's gm roll is as secret as that roll: the same chain's seed."""
    table = api.table("brp")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    failed = table.roll(pat, alice, "stealth", visibility="gm", actor={"dice": [99]})
    again = table.ok("POST", f"/rolls/{failed['seq']}/reroll", pat, 201)
    assert again["visibility"] == "gm"
    assert again["provable"]["seed_id"] == failed["provable"]["seed_id"]
    assert again["provable"]["nonce"] == failed["provable"]["nonce"] + 1
    opened = table.roll(pat, alice, "stealth")
    assert opened["provable"]["seed_id"] != failed["provable"]["seed_id"]


def test_a_roll_on_a_chain_its_visibility_does_not_allow_fails(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dishonest server drawing every roll from the open seed (as d100 did before chains),
    its log otherwise consistent: each roll whose reveal shows it to a member it is hidden
    from is named, in every member's export; the same log from a table opened before chains
    (its opening announces none) passes, saying it could not check that."""
    monkeypatch.setattr(rolls, "chain_of", lambda *_: Chain(OPEN))
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    orc = table.character(table.gm, "Orc")
    public = table.roll(pat, alice, "stealth")["seq"]
    gm_roll = table.roll(pat, alice, "dodge", visibility="gm")["seq"]
    self_roll = table.roll(sam, bob, "dodge", visibility="self")["seq"]
    npc = table.roll(table.gm, orc, "spot hidden")["seq"]
    table.ok("POST", "/seeds/rotate", table.gm)
    # Seen (a gm or self roll on the open seed, an NPC's roll withheld or whole) or a stub
    # (a roll this viewer may not see, yet on the seed everyone gets): named either way.
    named = {gm_roll, self_roll, npc}
    for who, token in (("gm", table.gm), ("pat", pat), ("sam", sam)):
        log = export(table, token)
        out = audit_log(json.dumps(e) + "\n" for e in log).to_dict()
        bad = {c["seq"]: c["reason"] for c in out["checks"] if c["status"] == "mismatch"}
        assert set(bad) == named and public not in bad, (who, bad)
        assert all("open" in reason for reason in bad.values()), bad
        log = unchained(log)  # an older table's log: from before the hash chain too
        del log[0]["chains"]  # its opening
        older = audit_log(json.dumps(e) + "\n" for e in log).to_dict()
        assert older["ok"] and older["mismatch"] == 0, (who, older)
        assert any("chain of seeds" in note for note in older["unchecked"]), older
