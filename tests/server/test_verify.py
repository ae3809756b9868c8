"""``d100 verify`` on logs the server exported: every kind of roll verifies once its seed is
revealed; a changed die, seed or client seed is caught; unrevealed and blind rolls are
named; unreadable input is exit status 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.engine import resolve
from d100.provable import ProvableSource
from d100.server.app import create_app
from tests.cli.conftest import d100

from .forging import relinked
from .services import DATABASES, database_for
from .tablehelp import Api, Table


def played(api: Api) -> tuple[Table, str]:
    """A BRP table with one of every kind of roll, then a rotation; the player's token."""
    table = api.table("brp")
    pat = table.join("Pat")
    alice, orc = table.character(pat, "Alice"), table.character(table.gm, "Orc")
    table.roll(pat, alice, "stealth")
    table.roll(pat, alice, "stealth", actor={"fields": {"bonus_dice": 1, "luck_rerolls": 2}})
    table.roll(pat, alice, "stealth", actor={"dice": [42]})  # typed in by hand
    table.ok("PUT", "/me/client-seed", pat, json={"client_seed": "pat's own"})
    table.roll(table.gm, alice, "dodge", opponent={"character_id": orc, "skill": "stealth"})
    table.roll(table.gm, orc, "spot")
    table.ok("POST", "/seeds/rotate", table.gm)
    return table, pat


@pytest.fixture(scope="module", params=DATABASES)
def gm_log(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The GM's export of the table ``played`` once per database for the tests that read it
    or edit copies of it."""
    url = database_for(request, tmp_path_factory.mktemp("verify"))
    with TestClient(create_app(url)) as client:
        table, _ = played(Api(client))
        text: str = table.req("GET", "/log.jsonl", table.gm).text
    return text


# A forgery edits a copy of the GM's export and asks verify alone, which no database answers:
# on SQLite's (the export itself is read on both).
FORGERY = pytest.mark.parametrize("gm_log", ["sqlite"], indirect=True)


def exported(gm_log: str, path: Path) -> list[dict[str, Any]]:
    path.write_text(gm_log)
    return [json.loads(line) for line in gm_log.splitlines()]


def export(table: Table, token: str, path: Path) -> list[dict[str, Any]]:
    text = table.req("GET", "/log.jsonl", token).text
    path.write_text(text)
    return [json.loads(line) for line in text.splitlines()]


def write(path: Path, entries: list[dict[str, Any]]) -> None:
    """A forged log, its links recomputed as a forger would (``forging.relinked``): what the
    checks of the rolls and seeds catch on their own (tests/server/test_chain.py: the chain)."""
    path.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))


def report(path: Path) -> tuple[int, dict[str, Any]]:
    run = d100("verify", "--json", str(path))
    return run.status, json.loads(run.out)


def test_every_kind_of_roll_verifies_after_the_reveal(gm_log: str, tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    exported(gm_log, log)
    status, out = report(log)
    # The open and blind seeds, and the GM's (the Orc's rolls: an NPC's, the GM's alone).
    assert status == 0 and out["ok"] and out["seeds_revealed"] == 3
    # The roll whose dice were typed by hand is told apart: no seed drew its dice.
    assert out["verified"] == 4 and out["typed"] == 1
    assert out["mismatch"] == out["unverifiable"] == 0 and out["unchecked"] == []
    human = d100("verify", str(log))
    assert human.status == 0
    assert human.out.startswith("5 rolls: 4 verified, 0 mismatched, 1 typed by hand")


@FORGERY
def test_a_changed_die_seed_or_client_seed_is_a_mismatch(gm_log: str, tmp_path: Path) -> None:
    entries = exported(gm_log, tmp_path / "log.jsonl")
    rolls = [i for i, e in enumerate(entries) if e["kind"] in ("roll", "contest")]
    seed_line = next(i for i, e in enumerate(entries) if e["kind"] == "seed")

    def tampered(change: Any) -> dict[str, Any]:
        copy = json.loads(json.dumps(entries))
        change(copy)
        path = tmp_path / "tampered.jsonl"
        write(path, copy)
        status, out = report(path)
        assert status == 1 and not out["ok"], out
        return out

    def die(log: list[dict[str, Any]]) -> None:
        result = log[rolls[0]]["result"]
        result["roll"] = result["dice"][0] = result["dice"][0] % 100 + 1

    out = tampered(die)
    bad = [c for c in out["checks"] if c["status"] == "mismatch"]
    assert [c["line"] for c in bad] == [rolls[0] + 1] and "recomputed" in bad[0]["reason"]

    def seed(log: list[dict[str, Any]]) -> None:
        log[seed_line]["revealed"]["server_seed"] = "00" * 32

    assert any("commitment" in c["reason"] for c in tampered(seed)["checks"])

    def client_seed(log: list[dict[str, Any]]) -> None:
        log[rolls[-2]]["provable"]["client_seed"] = "someone else's"  # the contest, Pat's

    assert any("not the roller's" in c["reason"] for c in tampered(client_seed)["checks"])

    def reused_nonce(log: list[dict[str, Any]]) -> None:  # one nonce, two different results
        log[rolls[1]]["provable"] = log[rolls[0]]["provable"]

    assert any("was due" in c["reason"] for c in tampered(reused_nonce)["checks"])


def test_unrevealed_rolls_are_named_not_failed(api: Api, tmp_path: Path) -> None:
    table, pat = played(api)
    alice = table.ok("GET", "", pat)["characters"][0]["id"]
    later = table.roll(pat, alice, "stealth")
    log = tmp_path / "log.jsonl"
    export(table, pat, log)
    status, out = report(log)
    # The GM's rolls of the Orc (the Orc's spot, Alice against it) are withheld from Pat.
    assert status == 0 and out["unverifiable"] == 1 and out["verified"] == 2 and out["typed"] == 1
    assert out["hidden"] == 2
    waiting = next(c for c in out["checks"] if c["status"] == "unverifiable")
    assert waiting["seq"] == later["seq"] and "not revealed" in waiting["reason"]
    human = d100("verify", str(log)).out
    assert f"#{later['seq']} roll" in human and "not revealed" in human


def test_unreadable_logs_are_status_2(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"seq": 1, "kind": "table"}\nnot json\n')
    run = d100("verify", str(log))
    assert run.status == 2 and "line 2" in run.err
    log.write_text('{"seq": 1, "kind": "roll", "provable": {"nonce": "x"}}\n')
    assert d100("verify", str(log)).status == 2
    assert d100("verify", str(tmp_path / "missing.jsonl")).status == 2
    # What is not a d100 log is not "0 rolls, all verified".
    for text in ('{"a":1}\n', "", "\n\n", '{"seq": 1, "kind": "roll"}\n'):
        log.write_text(text)
        assert d100("verify", str(log)).status == 2, text
    assert d100("verify", "-", stdin="").status == 2


def forged(entries: list[dict[str, Any]], line: int, **provable: Any) -> list[dict[str, Any]]:
    """The log with one roll redone as a dishonest server could: another nonce or client
    seed, the result recomputed from the revealed seed so that the roll itself still checks."""
    copy = json.loads(json.dumps(entries))
    roll = copy[line]
    roll["provable"] |= provable
    seeds = {
        s["id"]: s["server_seed"]
        for e in copy
        if e["kind"] in ("seed", "reveal")  # a private chain's seed: in a reveal of its own
        for s in (e["revealed"], *([e["blind"]["revealed"]] if "blind" in e else []))
    }
    record = roll["provable"]
    source = ProvableSource(
        bytes.fromhex(seeds[record["seed_id"]]), record["client_seed"], record["nonce"]
    )
    roll["result"] = json.loads(json.dumps(resolve(record["request"], source).to_dict()))
    return copy


@FORGERY
def test_a_roll_moved_to_another_nonce_or_client_seed_fails(gm_log: str, tmp_path: Path) -> None:
    entries = exported(gm_log, tmp_path / "log.jsonl")
    rolls = [i for i, e in enumerate(entries) if e["kind"] in ("roll", "contest")]
    rotation = next(e for e in entries if e["kind"] == "seed")
    count = rotation["revealed"]["rolls"]
    gm_roll = next(i for i in rolls if entries[i]["actor_id"] == entries[0]["gm"]["id"])
    cases = {
        "another nonce": (rolls[0], {"nonce": 3}),
        "past the seed's rolls": (rolls[-1], {"nonce": count}),
        "a GM roll with any client seed": (gm_roll, {"client_seed": "the server's choice"}),
    }
    for what, (line, change) in cases.items():
        path = tmp_path / "forged.jsonl"
        write(path, forged(entries, line, **change))
        status, out = report(path)
        named = [c for c in out["checks"] if c["status"] == "mismatch"]
        assert status == 1 and named, what
        assert entries[line]["seq"] in [c["seq"] for c in named], (what, named)


def test_a_blind_roll_shown_after_a_client_seed_change_verifies(api: Api, tmp_path: Path) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    blind = table.roll(pat, alice, "stealth", visibility="blind")
    table.ok("PUT", "/me/client-seed", pat, json={"client_seed": "a new one"})
    table.roll(pat, alice, "stealth")
    table.ok("POST", f"/rolls/{blind['seq']}/unblind", table.gm, 201)
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        log = tmp_path / "log.jsonl"
        export(table, token, log)
        status, out = report(log)
        assert status == 0 and out["mismatch"] == 0, out
        # The GM checks the blind roll itself, its showing and the open roll; Pat the last two.
        assert out["verified"] == (3 if token == table.gm else 2), out


def test_every_viewer_sees_each_hidden_roll_s_seed_and_nonce(api: Api, tmp_path: Path) -> None:
    """Another's gm and self rolls are stubs in a player's log: that they happened, their seed
    and nonce, nothing else; the nonces still check in order."""
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, orc = table.character(pat, "Alice"), table.character(table.gm, "Orc")
    hidden = [
        table.roll(table.gm, orc, "stealth", visibility="gm")["seq"],
        table.roll(pat, alice, "stealth", visibility="self")["seq"],
        table.roll(pat, alice, "stealth", visibility="blind")["seq"],
    ]
    table.roll(pat, alice, "stealth")
    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    entries = {e["seq"]: e for e in export(table, sam, log)}
    for seq in hidden:
        assert set(entries[seq]) == {"seq", "kind", "hidden", "provable", "chain"}, entries[seq]
        assert set(entries[seq]["provable"]) == {"seed_id", "nonce"}
        # the chain: its link and its content's digest alone, no part of it opened
        assert set(entries[seq]["chain"]) == {"link", "proof"}
        assert set(entries[seq]["chain"]["proof"]) == {"digest"}
    status, out = report(log)
    assert status == 0 and out["hidden"] == 3 and out["verified"] == 1, out
    # A hidden roll dropped from the log leaves a gap a sceptic sees (each was the only roll
    # of its chain's seed, so in the numbers).
    for dropped in hidden:
        write(log, [e for seq, e in entries.items() if seq != dropped])
        status, out = report(log)
        assert status == 1 and any("missing" in c["reason"] for c in out["checks"]), out


def test_brp7_a_luck_reroll_verifies_as_its_own_roll(api: Api, tmp_path: Path) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    failed = table.roll(pat, alice, "stealth", actor={"dice": [99]})
    again = table.ok("POST", f"/rolls/{failed['seq']}/reroll", pat, 201)
    assert again["provable"]["nonce"] == failed["provable"]["nonce"] + 1
    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    entries = export(table, pat, log)
    status, out = report(log)
    assert status == 0 and out["typed"] == 1 and out["verified"] == 1 and out["mismatch"] == 0
    (shown,) = [e for e in entries if e.get("reroll_of") == failed["seq"]]
    shown["result"]["roll"] = 101 - shown["result"]["roll"]  # a changed die is caught
    write(log, entries)
    status, out = report(log)
    assert status != 0 and out["mismatch"] == 1


def test_a_called_contest_verifies_from_the_gm_s_export_and_is_named_in_a_player_s(
    api: Api, tmp_path: Path
) -> None:
    """A player's export has their side of a contest the GM's call set against the Orc, not
    the Orc's: verify says so and checks its seed and nonce; the GM's export verifies it."""
    table = api.table("brp")
    pat = table.join("Pat")
    alice, orc = table.character(pat, "Alice"), table.character(table.gm, "Orc")
    for visibility in ("public", "gm"):
        call = table.ok(
            "POST",
            "/calls",
            table.gm,
            201,
            json={
                "skill": "spot",
                "character_ids": [alice],
                "visibility": visibility,
                "opponent": {"character_id": orc, "skill": "stealth"},
            },
        )
        table.roll(pat, alice, None, target_id=call["targets"][0]["id"])
    table.ok("POST", "/seeds/rotate", table.gm)
    log = tmp_path / "log.jsonl"
    export(table, table.gm, log)
    status, out = report(log)
    assert status == 0 and out["verified"] == 2 and out["hidden"] == 0, out
    export(table, pat, log)
    status, out = report(log)
    assert status == 0 and out["hidden"] == 2 and out["verified"] == 0, out
    assert all("opponent's side is not shown" in c["reason"] for c in out["checks"])
