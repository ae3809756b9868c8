"""An attack at the table against another character's sheet (C7-7): the defender's Dodge or
Fighting, and their damage bonus where fighting back deals their damage, read from their
sheet, never typed; kept from every member who may not read that sheet (the attacker's
player too) in every answer: the roll's own, the log's views, the odds and the refusals; and
replayed from the sheets by ``d100 verify``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import d100

from .forging import relinked
from .tablehelp import Api, Table

SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

ALICE = """name = "Alice"
system = "coc7"
characteristics = { STR = 80, SIZ = 70 }
skills = { brawl = 60, dodge = 30 }
"""
BOB = """name = "Bob"
system = "coc7"
characteristics = { STR = 90, SIZ = 80 }
skills = { dodge = 47, "fighting (brawl)" = 43 }
"""
GHOUL = """name = "Ghoul"
system = "coc7"
characteristics = { STR = 60, SIZ = 60 }
skills = { claw = 55, dodge = 25 }
"""
BOBS = ("47", "43", "+1d6")  # Bob's Dodge, Fighting and DB (STR 90 + SIZ 80)


def made(table: Table, token: str, sheet: str) -> str:
    out: dict[str, Any] = table.ok("POST", "/characters", token, 201, json={"sheet": sheet})
    return str(out["id"])


def seated(api: Api) -> tuple[Table, dict[str, str], dict[str, str]]:
    """Pat plays Alice, Sam plays Bob, Quinn plays no one; the GM has a Ghoul."""
    table = api.table("coc7")
    who = {name: table.join(name) for name in ("Pat", "Sam", "Quinn")}
    ids = {
        "alice": made(table, who["Pat"], ALICE),
        "bob": made(table, who["Sam"], BOB),
        "ghoul": made(table, table.gm, GHOUL),
    }
    return table, who, ids


def attack(
    table: Table,
    token: str,
    words: str,
    attacker: str,
    defender: dict[str, Any],
    status: int = 201,
    **extra: Any,
) -> Any:
    body = {"words": words, "character_id": attacker, "defender": defender, **extra}
    out = table.ok("POST", "/declared-rolls", token, status, json=body)
    return out if status == 201 else out["error"]


def seen(table: Table, token: str, seq: int) -> dict[str, Any]:
    return {e["seq"]: e for e in table.events(token)}[seq]


def texts(view: Any, skip: frozenset[str] = frozenset()) -> list[str]:
    """Every text and number of a view, leaving out the keys named (the provable record's
    seeds and hashes, the attacker's own dice), as text."""
    if isinstance(view, dict):
        return [t for k, v in view.items() if k not in skip for t in texts(v, skip)]
    if isinstance(view, list):
        return [t for v in view for t in texts(v, skip)]
    return [str(view)]


def tells_bob(view: dict[str, Any], attack_row: str) -> list[str]:
    """What of Bob's sheet a view tells: his values in any text, number or key, but for the
    attacker's own row and dice and the roll's provable record (its numbers are hashes)."""
    skip = frozenset(
        {"provable", "dice", "roll", "seq", "at", "id", "actor_id", "member_id", "head", "chain"}
    )
    found = [t for t in texts(view, skip) if t != attack_row]
    keys = json.dumps(view)
    return (
        [v for v in BOBS if any(re.search(rf"(?<![\d.]){re.escape(v)}(?!\d)", t) for t in found)]
        + (["request"] if '"request"' in keys else [])
        + (["odds"] if '"odds"' in keys or '"mean' in keys else [])
    )


@SQLITE
def test_c7_7_an_attack_on_a_player_s_character_reads_their_sheet_kept_from_others(
    api: Api,
) -> None:
    """Pat's Alice attacks Sam's Bob, who dodges: Bob's Dodge is read from his sheet. Sam and
    the GM see it whole; Pat (the roller) and Quinn see Bob by his level only, in the roll's
    answer, the log's views and the live stream alike, and may not preview its odds."""
    table, who, ids = seated(api)
    bob = {"character_id": ids["bob"]}
    rolled = attack(table, who["Pat"], "brawl dmg=1d3+DB Punch", ids["alice"], bob)
    gm = seen(table, table.gm, rolled["seq"])
    assert gm["request"]["defender"] == 47 and gm["request"]["response"] == "dodge"
    assert gm["defender"] == {
        "character": {
            "id": ids["bob"],
            "name": "Bob",
            "member_id": gm["defender"]["character"]["member_id"],
        },
        "skill": "dodge",
    }
    assert gm["view"]["title"].endswith("against 47 (dodge); damage 1d3+DB with DB +1d4")
    assert seen(table, who["Sam"], rolled["seq"])["request"] == gm["request"]
    attack_row = gm["view"]["rows"][0]["text"]
    for view in (
        rolled,
        seen(table, who["Pat"], rolled["seq"]),
        seen(table, who["Quinn"], rolled["seq"]),
    ):
        assert view["withheld"] == ["opponent"], view
        assert tells_bob(view, attack_row) == [], view
        assert view["result"]["defender"] == {"level": gm["result"]["defender"]["level"]}
        assert view["result"]["outcome"] == gm["result"]["outcome"]
        assert view["view"]["rows"][0] == gm["view"]["rows"][0]  # Pat's own roll, whole
        assert "odds" not in view["view"] and view["words"] == "brawl dmg=1d3+DB Punch"
        assert "request" not in view["provable"]
    assert tells_bob(gm, attack_row)  # the test can fail: the GM's view tells them
    body = {"words": "brawl dmg=1d3+DB", "character_id": ids["alice"], "defender": bob}
    refused = table.req("POST", "/declared-odds", who["Pat"], json=body)
    assert refused.status_code == 403 and not any(v in refused.text for v in BOBS)
    assert table.req("POST", "/declared-odds", table.gm, json=body).status_code == 200


@SQLITE
def test_c7_7_fighting_back_reads_the_defender_s_fighting_and_db_and_deals_their_damage(
    api: Api,
) -> None:
    """Bob fights back with his Fighting (Brawl), his DB in his damage: rolled where he wins,
    shown to Pat as the damage dealt to Alice, not the dice nor the DB that made it."""
    table, who, ids = seated(api)
    bob = {"character_id": ids["bob"], "skill": "fighting"}
    outcomes = set()
    for _ in range(40):
        rolled = attack(table, table.gm, "brawl dmg=1d3+DB fight fb=1d3+DB", ids["alice"], bob)
        gm = seen(table, table.gm, rolled["seq"])
        assert gm["request"]["defender"] == 43 and gm["defender"]["skill"] == "fighting (brawl)"
        assert gm["request"]["defender_damage_bonus"] == "+1d6"
        assert set(gm["odds"]) >= {"outcomes", "mean_defender_damage"}
        assert "defender_damage" not in gm["odds"]  # the chance of every damage: not logged
        pat = seen(table, who["Pat"], rolled["seq"])
        assert tells_bob(pat, gm["view"]["rows"][0]["text"]) == [], json.dumps(pat, indent=1)
        outcomes.add(gm["result"]["outcome"])
        if gm["result"]["outcome"] == "fought_back":
            dealt = gm["result"]["defender_damage"]
            assert 2 <= dealt <= 9 and dealt == sum(gm["result"]["defender_damage_dice"])
            assert pat["result"]["defender_damage"] == dealt
            assert "defender_damage_dice" not in pat["result"]
            assert pat["view"]["outcome"] == f"fought back; {dealt} damage to the attacker"
            break
    assert "fought_back" in outcomes


@SQLITE
def test_an_npc_attacking_a_player_s_character_shows_each_player_what_they_may_see(
    api: Api,
) -> None:
    """The GM's Ghoul attacks Alice: Pat (Alice's player) and Quinn see the Ghoul's attack by
    its outcome only (an NPC's numbers); the GM sees both sides whole."""
    table, who, ids = seated(api)
    rolled = attack(
        table,
        table.gm,
        "claw dmg=1d6+DB fight fb=1d3+DB",
        ids["ghoul"],
        {"character_id": ids["alice"], "skill": "brawl"},
    )
    assert (
        rolled["request"]["defender"] == 60 and rolled["request"]["defender_damage_bonus"] == "+1d4"
    )
    for player in ("Pat", "Quinn"):
        view = seen(table, who[player], rolled["seq"])
        assert "actor" in view["withheld"] and "request" not in view and "odds" not in view
        assert set(view["view"]) == {"title", "outcome"}


@SQLITE
def test_an_attack_on_a_character_is_refused_where_it_would_tell_or_type_their_sheet(
    api: Api,
) -> None:
    table, who, ids = seated(api)
    bob = {"character_id": ids["bob"]}
    typed = attack(table, who["Pat"], "brawl dmg=1d3 vs40", ids["alice"], bob, 422)
    assert typed["field"] == "words.defender" and "sheet gives it" in typed["message"]
    db = attack(
        table, who["Pat"], "brawl dmg=1d3 fight fb=1d3+DB fbdb=+1d4", ids["alice"], bob, 422
    )
    assert db["field"] == "words.defender_damage_bonus"
    unseen = attack(table, who["Pat"], "brawl dmg=1d3", ids["alice"], bob, 422, visibility="self")
    assert unseen["field"] == "visibility" and "Bob's player and the GM" in unseen["message"]
    missing = attack(
        table, who["Pat"], "brawl dmg=1d3 fight", ids["alice"], {**bob, "skill": "axe"}, 422
    )
    assert missing["field"] == "defender.skill" and "fighting" not in json.dumps(missing).lower()
    gm_missing = attack(
        table, table.gm, "brawl dmg=1d3 fight", ids["alice"], {**bob, "skill": "axe"}, 422
    )
    assert gm_missing["field"] == "defender.skill"
    shots = attack(table, who["Pat"], "FAR(30,62,98)", ids["alice"], bob, 422)
    assert shots["field"] == "words" and "faces a defender" in shots["message"]
    oneself = attack(
        table, who["Pat"], "brawl dmg=1d3", ids["alice"], {"character_id": ids["alice"]}, 422
    )
    assert oneself["field"] == "defender.character_id"
    theirs = attack(table, who["Quinn"], "brawl dmg=1d3", ids["alice"], bob, 403)
    assert theirs["field"] == "token"


@pytest.mark.parametrize(
    "database_url",
    ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)],
    indirect=True,
)
def test_c7_7_verify_replays_the_defender_s_value_from_their_sheet(
    api: Api, tmp_path: Path
) -> None:
    """Every member's export verifies: the GM's proves both attacks; Pat's and Quinn's hold
    Bob's side withheld (checked by seed and nonce); both drew from the GM's chain (the members
    who see them whole), so Sam's checks them by seed and nonce too; a GM's log whose Bob has
    another Dodge than the attack's request read fails naming the defender's value and Bob's
    sheet, though its dice recompute alike."""
    table, who, ids = seated(api)
    bob = {"character_id": ids["bob"]}
    attack(table, who["Pat"], "brawl dmg=1d3+DB", ids["alice"], bob)
    attack(
        table, table.gm, "claw dmg=1d6 fight fb=1d3+DB", ids["ghoul"], {**bob, "skill": "fighting"}
    )
    table.ok("POST", "/seeds/rotate", table.gm)
    for token, proven in ((table.gm, 2), (who["Sam"], 0), (who["Pat"], 0), (who["Quinn"], 0)):
        log = tmp_path / "log.jsonl"
        log.write_text(table.req("GET", "/log.jsonl", token).text)
        run = d100("verify", "--json", str(log))
        out = json.loads(run.out)
        assert run.status == 0 and out["ok"] and out["verified"] == proven, json.dumps(
            out["checks"], indent=1
        )
    log.write_text(table.req("GET", "/log.jsonl", table.gm).text)
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    made = next(e for e in entries if e.get("character", {}).get("name") == "Bob" and "sheet" in e)
    made["sheet"]["skills"]["dodge"] = 48  # the log's Bob as the attack did not read him
    log.write_text("".join(json.dumps(e) + "\n" for e in relinked(entries)))
    run = d100("verify", "--json", str(log))
    found = json.loads(run.out)
    assert run.status == 1 and found["mismatch"] == 1, found
    reasons = [c["reason"] for c in found["checks"] if c["status"] == "mismatch"]
    assert any("defender's" in r and "Bob's sheet" in r for r in reasons), reasons
