"""BRP's and RQG's experience rolls at a table (XP-1..XP-3), run by the GM as a CoC7 Keeper
runs a development phase (``develop``), and the whole party's phase in one action
(``/party-development``): each player's character's phase its own event, odds first,
bounded before it runs, the GM's alone, and replayed by ``d100 verify``."""

from __future__ import annotations

import json
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from d100.server.party import MOST_ROLLS
from tests.cli.conftest import d100

from .forging import relinked
from .tablehelp import Api, Table

ROLLS = range(1, 101)


@pytest.fixture
def api(shared_api: Api) -> Api:
    """One server per database for the module: each test opens a table of its own there."""
    return shared_api


def sheet(name: str, system: str, skills: dict[str, int], marks: list[str], more: str = "") -> str:
    listed = ", ".join(f'"{k}" = {v}' for k, v in skills.items())
    return (
        f'name = "{name}"\nsystem = "{system}"\nskills = {{ {listed} }}\n'
        f"marks = {json.dumps(marks)}\n{more}"
    )


def made(table: Table, token: str, text: str) -> str:
    out: str = table.ok("POST", "/characters", token, 201, json={"sheet": text})["id"]
    return out


def mine(table: Table, token: str, character_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        c for c in table.ok("GET", "", token)["characters"] if c["id"] == character_id
    )
    return found


# independent readings of each edition's text, for one d100 and counted over its faces
def uge_hit(r: int, skill: int, bonus: int) -> bool:  # XP-1: "Making an Experience Roll"
    return r + bonus > skill or (skill >= 100 and r + bonus >= 100)


def foundry_hit(r: int, skill: int, bonus: int) -> bool:  # XP-2: xpRoll, > min(target, 100)
    return r + bonus > min(skill, 100)


def brp_uge(skill: int, bonus: int) -> Fraction:
    return Fraction(sum(uge_hit(r, skill, bonus) for r in ROLLS), 100)


def rqg(skill: int) -> Fraction:  # XP-3: the gate over min(skill, 99), so 100 always
    return Fraction(sum(1 for r in ROLLS if r > skill or r == 100), 100)


D6_MEAN = Fraction(7, 2)


def verified(table: Table, tokens: list[str], tmp_path: Path) -> Path:
    """Every member's export verified clean after a rotation; the GM's export's path."""
    table.ok("POST", "/seeds/rotate", table.gm)
    for token in tokens:
        log = tmp_path / f"log-{token[:6]}.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        run = d100("verify", "--json", str(log))
        out = json.loads(run.out)
        reasons = [c["reason"] for c in out["checks"] if c["status"] == "mismatch"]
        assert run.status == 0 and out["ok"], reasons
    return tmp_path / f"log-{tokens[0][:6]}.jsonl"


@pytest.mark.parametrize(
    ("system", "hit"), [("brp", uge_hit), ("brp-uge", uge_hit), ("brp-foundry", foundry_hit)]
)
def test_xp_1_xp_2_a_brp_table_s_gm_rolls_experience_with_the_sheet_s_bonus(
    api: Api, system: str, hit: Any, tmp_path: Path
) -> None:  # rule: XP-1, XP-2
    table = api.table(system)
    pat = table.join("Pat")
    skills = {"spot": 60, "climb": 100, "swim": 93, "ride": 0}
    text = sheet("Ann", system, skills, list(skills), "experience_bonus = 7\n")
    ann = made(table, pat, text)
    body = {"words": "develop", "character_id": ann}
    assert table.ok("POST", "/declared-odds", pat, 403, json=body)
    shown = table.ok("POST", "/declared-odds", table.gm, json=body)
    assert shown["request"]["bonus"] == 7
    for line in shown["odds"]["rolls"]:  # exact, against counting the faces
        p = Fraction(sum(hit(r, line["value"], 7) for r in ROLLS), 100)
        assert Fraction(line["improves"]) == p
        assert Fraction(line["mean_gain"]) == p * D6_MEAN
    rolled = table.ok("POST", "/declared-rolls", table.gm, 201, json=body)
    assert rolled["view"]["rule"].endswith("+1D6; experience bonus (half INT, rounded up): +7")
    for r in rolled["view"]["rolls"]:
        assert r["improved"] == hit(r["d100"], r["value"], 7)
        assert r["after"] == r["value"] + r["gain"] and (1 <= r["gain"] <= 6) == r["improved"]
    after = mine(table, pat, ann)
    assert after["marks"] == {} and "marks" not in tomllib.loads(after["sheet"])
    assert after["skills"] == {r["name"]: r["after"] for r in rolled["view"]["rolls"]}
    verified(table, [table.gm, pat], tmp_path)


def test_xp_3_an_rqg_table_s_gm_rolls_experience_and_a_success_marks(
    api: Api,
) -> None:  # rule: XP-3
    table = api.table("rqg")
    pat = table.join("Pat")
    ann = made(table, pat, sheet("Ann", "rqg", {"scan": 45, "sword": 120}, ["sword"]))
    checked = table.roll(pat, ann, "scan", actor={"dice": [10]})
    assert checked["result"]["success"]
    assert mine(table, pat, ann)["marks"] == {"scan": 1}  # RQG's experience check
    body = {"words": "develop", "character_id": ann}
    shown = table.ok("POST", "/declared-odds", table.gm, json=body)
    assert "bonus" not in shown["request"]
    for line in shown["odds"]["rolls"]:
        assert Fraction(line["improves"]) == rqg(line["value"])
        assert Fraction(line["mean_gain"]) == rqg(line["value"]) * D6_MEAN
    refused = table.ok(
        "POST",
        "/characters",
        pat,
        422,
        json={"sheet": sheet("Bo", "rqg", {}, [], "experience_bonus = 3\n")},
    )
    assert refused["error"]["field"].endswith("experience_bonus")


def party_table(api: Api) -> tuple[Table, str, str, dict[str, str]]:
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    ids = {
        "Ann": made(
            table,
            pat,
            sheet(
                "Ann",
                "brp",
                {"spot": 60, "dodge": 30, "ride": 0},
                ["spot", "dodge", "ride"],
                "experience_bonus = 6\n",
            ),
        ),
        "Ben": made(
            table, sam, sheet("Ben", "brp", {"climb": 45}, ["climb"], "experience_bonus = 5\n")
        ),
        "Cat": made(table, sam, sheet("Cat", "brp", {"ride": 50}, [])),
        "Orc": made(table, table.gm, sheet("Orc", "brp", {"axe": 50}, ["axe"])),
    }
    return table, pat, sam, ids


def test_xp_1_the_whole_party_s_phase_odds_first_each_its_own_event(
    api: Api, tmp_path: Path
) -> None:  # rule: XP-1
    table, pat, sam, ids = party_table(api)
    for token in (pat, sam):  # the GM's alone
        assert table.ok("POST", "/party-development/odds", token, 403, json={})
        assert table.ok("POST", "/party-development", token, 403, json={})
    shown = table.ok("POST", "/party-development/odds", table.gm, json={})
    assert [p["character"]["name"] for p in shown["phases"]] == ["Ann", "Ben"]  # no NPC
    assert [s["name"] for s in shown["skipped"]] == ["Cat"]  # nothing marked
    assert (shown["rolls"], shown["most"]) == (4, MOST_ROLLS)
    for phase in shown["phases"]:
        bonus = phase["request"]["bonus"]
        for line in phase["odds"]["rolls"]:
            assert Fraction(line["improves"]) == brp_uge(line["value"], bonus)
    before = len(table.events(table.gm))
    rolled = table.ok("POST", "/party-development", table.gm, 201, json={})
    events = rolled["events"]
    assert [e["character"]["name"] for e in events] == ["Ann", "Ben"]
    assert all(e["roll"] == "development" and e["words"] == "develop" for e in events)
    assert len(table.events(table.gm)) == before + 2  # one event per character's phase
    for e, phase in zip(events, shown["phases"], strict=True):
        assert e["odds"] == phase["odds"]  # the odds shown first are the odds logged
        whose = mine(table, pat if e["character"]["name"] == "Ann" else sam, e["character"]["id"])
        assert whose["marks"] == {}
        assert whose["skills"] == {r["name"]: r["after"] for r in e["view"]["rolls"]}
    orc = mine(table, table.gm, ids["Orc"])  # the GM's NPC: not the party's
    assert tomllib.loads(orc["sheet"])["marks"] == ["axe"] and orc["skills"] == {"axe": 50}
    nothing = table.ok("POST", "/party-development/odds", table.gm, 422, json={})
    assert nothing["error"]["field"] == "party"
    log = verified(table, [table.gm, pat, sam], tmp_path)
    # a phase's sheet forged to another value than its dice give is caught
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    phase = next(e for e in entries if e.get("roll") == "development" and "sheet" in e)
    assert phase["character"]["name"] == "Ann"  # ride, at 0, always improves (XP-1)
    phase["sheet"]["skills"]["ride"] = [0, 50]
    log.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))
    found = json.loads(d100("verify", "--json", str(log)).out)
    assert found["mismatch"] == 1, found


def test_the_party_s_work_is_counted_before_it_runs_and_refused_past_the_bound(
    api: Api,
) -> None:  # rule: XP-1
    table = api.table("brp")
    pat = table.join("Pat")
    names = ("Ann", "Ben", "Cid", "Dee", "Eve")
    many = MOST_ROLLS // len(names) + 1  # each within a sheet's and one phase's bounds
    for name in names:
        skills = {f"skill {i}": 50 for i in range(many)}
        made(table, pat, sheet(name, "brp", skills, list(skills)))
    for path in ("/party-development/odds", "/party-development"):
        refused = table.ok("POST", path, table.gm, 422, json={})["error"]
        assert refused["field"] == "party" and str(MOST_ROLLS) in refused["allowed"]
        assert refused["value"] == f"{len(names) * many} rolls"
    assert all(e["kind"] != "declared" for e in table.events(table.gm))  # nothing rolled
