"""The development phase at a table (``develop`` on ``/declared-rolls``): the GM's action at
the end of a session; each marked skill's exact chance to improve and mean gain logged before
its roll, drawn from the table's provable seeds, written back to the sheet with every mark
cleared, and recomputed by ``d100 verify``. An NPC's phase is the GM's alone."""

from __future__ import annotations

import json
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import d100

from .forging import relinked
from .tablehelp import Api, Table

pytestmark = pytest.mark.sqlite_only(
    "The development phase's rules and who sees them. Its events (marks cleared, values "
    "written back) are stored and exported on both databases by test_event_schemas.py."
)


@pytest.fixture
def api(shared_api: Api) -> Api:
    """One server per database for the module: each test opens a table of its own there."""
    return shared_api


SHEET = """name = "{name}"
system = "coc7"
luck = {{ current = 40, maximum = 99 }}
characteristics = {{ POW = 60, DEX = 50 }}
skills = {{ "spot hidden" = 45, "library use" = 88 }}
marks = ["library use"]
"""


def seated(api: Api) -> tuple[Table, str, str, str]:
    table = api.table("coc7")
    pat = table.join("Pat")
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": SHEET.format(name="Alice")})
    ghoul = table.ok(
        "POST", "/characters", table.gm, 201, json={"sheet": SHEET.format(name="Ghoul")}
    )
    return table, pat, alice["id"], ghoul["id"]


def develop(table: Table, token: str, status: int = 201, **body: Any) -> Any:
    out = table.ok("POST", "/declared-rolls", token, status, json={"words": "develop", **body})
    return out if status == 201 else out["error"]


def improves(value: int) -> Fraction:
    """S7-7 by counting: the d100 faces over the skill or over 95."""
    return Fraction(sum(1 for r in range(1, 101) if r > value or r > 95), 100)


def mine(table: Table, token: str, character_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        c for c in table.ok("GET", "", token)["characters"] if c["id"] == character_id
    )
    return found


def test_s7_7_the_gm_rolls_a_phase_odds_first_written_back_marks_cleared(api: Api) -> None:
    table, pat, alice, _ = seated(api)
    # a success at the table marks Spot Hidden; Library Use is marked on the sheet
    checked = table.roll(pat, alice, "spot", actor={"dice": [10]})
    assert checked["result"]["success"]
    assert mine(table, pat, alice)["marks"] == {"spot hidden": 1}
    refused = develop(table, pat, 403, character_id=alice)
    assert "game master" in json.dumps(refused)
    made = develop(table, table.gm, character_id=alice)
    assert made["roll"] == "development" and made["words"] == "develop"
    lines = {r["name"]: r for r in made["view"]["rolls"]}
    assert set(lines) == {"library use", "spot hidden"}
    for o in made["odds"]["rolls"]:  # logged exact: P(improve) x the mean of 1D10
        assert Fraction(o["mean_gain"]) == improves(o["value"]) * Fraction(11, 2)
    for r in lines.values():  # the exact odds, against counting the faces
        p = improves(r["value"])
        assert Fraction(r["improves"]) == p
        assert Fraction(r["mean_gain"]).limit_denominator(1000) == round(p * Fraction(11, 2), 2)
        assert r["improved"] == (r["d100"] > r["value"] or r["d100"] > 95)
        assert r["after"] == r["value"] + r["gain"] and (r["gain"] > 0) == r["improved"]
    after = mine(table, pat, alice)
    assert after["marks"] == {} and "marks" not in tomllib.loads(after["sheet"])
    assert after["skills"]["library use"] == lines["library use"]["after"]
    assert after["skills"]["spot hidden"] == lines["spot hidden"]["after"]
    # nothing left to roll
    again = develop(table, table.gm, 422, character_id=alice)
    assert again["field"] == "words" and "no marks" in again["message"]


def test_an_npc_s_phase_is_the_gm_s_alone(api: Api, tmp_path: Path) -> None:
    table, pat, alice, ghoul = seated(api)
    public = develop(table, table.gm, 422, character_id=ghoul)
    assert public["field"] == "visibility"
    made = develop(table, table.gm, character_id=ghoul, visibility="gm")
    seen = {e["seq"]: e for e in table.events(pat)}[made["seq"]]
    assert seen["kind"] == "hidden" and set(seen) <= {"seq", "kind", "hidden", "provable", "head"}
    # a player's character's phase the player would not see is refused: it writes the sheet
    hidden = develop(table, table.gm, 422, character_id=alice, visibility="gm")
    assert hidden["field"] == "visibility"
    develop(table, table.gm, character_id=alice, words="develop luck")
    table.ok("POST", "/seeds/rotate", table.gm)
    for token, checked in ((table.gm, 2), (pat, 1)):
        log = tmp_path / "log.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        run = d100("verify", "--json", str(log))
        out = json.loads(run.out)
        reasons = [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
        assert run.status == 0 and out["ok"] and out["verified"] >= checked, reasons
    # a sheet showing another value than the dice give is caught (the links recomputed)
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    phase = next(e for e in entries if e.get("roll") == "development" and "sheet" in e)
    phase["sheet"]["skills"]["library use"] = [88, 99]
    log.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))
    found = json.loads(d100("verify", "--json", str(log)).out)
    assert found["mismatch"] == 1, found


def test_the_phase_s_odds_before_it_is_rolled(api: Api) -> None:  # rule: S7-7, S7-8
    table, pat, alice, ghoul = seated(api)
    body = {"words": "develop", "character_id": alice}
    shown = table.ok("POST", "/declared-odds", table.gm, json=body)
    assert shown["roll"] == "development"
    (line,) = shown["odds"]["rolls"]
    assert (line["name"], line["value"]) == ("library use", 88)
    assert Fraction(line["improves"]) == improves(88) == Fraction(12, 100)
    # reaching 90 from 88: 89..100 then 2..10 on the d10
    assert Fraction(line["rewards"]) == Fraction(12, 100) * Fraction(9, 10)
    assert table.ok("POST", "/declared-odds", pat, 403, json=body)
    npc = table.ok("POST", "/declared-odds", table.gm, 422, json=body | {"character_id": ghoul})
    assert npc["error"]["field"] == "visibility"


def test_a_check_after_the_phase_replays_from_the_sheet_it_wrote(
    api: Api, tmp_path: Path
) -> None:  # rule: S7-7
    """A skill at 0 always improves (S7-7: over the skill); the checks made after the phase
    follow, in verify's replay, from the sheet the phase wrote (its skill and Luck)."""
    table, pat, _, _ = seated(api)
    sheet = SHEET.format(name="Bo").replace('marks = ["library use"]', 'marks = ["read lips"]')
    sheet = sheet.replace('"library use" = 88', '"library use" = 88, "read lips" = 0')
    bo = table.ok("POST", "/characters", pat, 201, json={"sheet": sheet})["id"]
    made = develop(table, table.gm, character_id=bo, words="develop luck")
    (lips,) = [r for r in made["view"]["rolls"] if r["name"] == "read lips"]
    assert lips["improved"] and 1 <= lips["after"] <= 10
    table.roll(pat, bo, "read lips")
    table.roll(pat, bo, "luck")
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in (table.gm, pat):
        log = tmp_path / "log.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        out = json.loads(d100("verify", "--json", str(log)).out)
        reasons = [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
        assert out["ok"] and not reasons, reasons
