"""``d100 ledger`` on logs a played table exported: the GM's and a player's, the player's
counting none of the rolls hidden from them; its lines and its errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from d100.ledger import ledger
from tests.cli.conftest import d100

from .tablehelp import Api, Table

pytestmark = pytest.mark.sqlite_only(
    "The ledger command reads an export file: the export on both databases is "
    "test_verify.py's, test_chain.py's and test_event_schemas.py's."
)


def played(api: Api) -> tuple[Table, str]:
    """Twenty rolls of two characters: Pat's Alice in the open and blind, the GM's Orc in the
    open and for the GM's eyes only."""
    table = api.table("brp")
    pat = table.join("Pat")
    alice, orc = table.character(pat, "Alice"), table.character(table.gm, "Orc")
    for i in range(10):
        table.roll(pat, alice, "stealth", **({"visibility": "blind"} if i % 4 == 3 else {}))
        table.roll(table.gm, orc, "spot hidden", **({"visibility": "gm"} if i % 3 == 2 else {}))
    return table, pat


def export(table: Table, token: str, path: Path) -> list[dict[str, Any]]:
    text = table.req("GET", "/log.jsonl", token).text
    path.write_text(text)
    return [json.loads(line) for line in text.splitlines()]


def test_a_players_ledger_counts_none_of_the_rolls_hidden_from_them(
    api: Api, tmp_path: Path
) -> None:
    table, pat = played(api)
    gms = export(table, table.gm, tmp_path / "gm.jsonl")
    pats = export(table, pat, tmp_path / "pat.jsonl")
    whole, seen = ledger(gms), ledger(pats)
    assert whole.rolls == 20 and whole.left_out == ()
    # hidden from Pat: the GM's own rolls, Pat's blind ones, and the NPC's numbers
    kept = {e["seq"] for e in gms if e.get("visibility") in ("gm", "blind")}
    npc = {e["seq"] for e in gms if e["kind"] == "roll" and e["character"]["name"] == "Orc"}
    assert len(kept) == 3 + 2 and len(npc - kept) == 7
    assert set(seen.seqs) == set(whole.seqs) - kept - npc
    told = {seq for left in seen.left_out for seq in left.seqs}
    assert told == kept | npc
    # the expected counts are the recorded odds summed, and observed what the results say
    rolled = [e for e in gms if e["kind"] == "roll"]
    assert sum(t.observed for t in whole.levels) == 20
    assert whole.successes.observed == sum(e["result"]["success"] for e in rolled)
    alice = ledger(gms, character="Alice")
    assert alice.rolls == 10 and all(t.system == "brp" for t in alice.levels)
    assert ledger(pats, member="Pat").rolls == ledger(pats, character="Alice").rolls == 8


def test_the_command_prints_the_ledger_and_its_json(api: Api, tmp_path: Path) -> None:
    table, pat = played(api)
    log = tmp_path / "pat.jsonl"
    export(table, pat, log)
    run = d100("ledger", "--plain", str(log))
    assert run.status == 0, run.err
    lines = run.out.splitlines()
    assert lines[0].startswith("Luck ledger of the table: 8 rolls, events ")
    assert any(line.split()[:1] == ["level"] for line in lines)
    assert any("P(as many successes or more)" in line for line in lines)
    assert "  left out: 2 blind: its result is not shown to this viewer" in lines
    assert any(line.startswith("  left out: 3 hidden from this viewer") for line in lines)
    assert any(line.startswith("  left out: 7 its odds are not shown") for line in lines)
    asked = d100("ledger", "--json", "--character", "Alice", "--last", "4", str(log))
    out = json.loads(asked.out)
    assert asked.status == 0 and out["rolls"] == 4 and out["character"] == "Alice"
    assert (
        out["seqs"]
        == ledger(json.loads(x) for x in log.read_text().splitlines()).to_dict()["seqs"][-4:]
    )
    assert set(out["successes"]) >= {"at_least", "at_most", "expected", "verdict"}
    assert "/" in out["successes"]["at_least"]


def test_an_unreadable_log_or_an_unknown_character_is_one_line_and_status_2(
    api: Api, tmp_path: Path
) -> None:
    table, pat = played(api)
    log = tmp_path / "pat.jsonl"
    export(table, pat, log)
    missing = d100("ledger", str(tmp_path / "nowhere.jsonl"))
    assert missing.status == 2 and missing.err.count("\n") == 1
    assert missing.err.startswith("d100: error: log: ")
    unknown = d100("ledger", "--character", "Bob", str(log))
    assert unknown.status == 2
    assert unknown.err == (
        "d100: error: character: no character 'Bob' in this log; "
        "allowed: a character this log shows: Alice, Orc\n"
    )
