"""Characters, rolls with odds, visibility, provable dice, Luck, aim, marks, contests."""

from __future__ import annotations

from typing import Any

import pytest

from d100.engine import odds, resolve
from d100.provable import ProvableSource
from d100.server.work import Writes

from .tablehelp import SHEETS, Api, Table

pytestmark = pytest.mark.sqlite_only(
    "Characters, rolls, visibility, Luck, aim, marks and contests by the rules, and who "
    "sees what. A roll's own store work is on both databases elsewhere: its transaction "
    "and statements in test_lock.py, its nonces in test_store.py, every kind of event it "
    "logs in test_event_schemas.py."
)


@pytest.fixture
def api(shared_api: Api) -> Api:
    """One server per database for the module: each test opens a table of its own there."""
    return shared_api


def setup(api: Api, system: str = "brp", **extra: Any) -> tuple[Table, str, str, str]:
    table = api.table(system, **extra)
    pat = table.join("Pat")
    return table, pat, table.character(pat, "Alice"), table.character(table.gm, "Orc")


def test_character_import_export_and_who_sees_what(api: Api) -> None:
    table, pat, alice, orc = setup(api)
    sheet = table.req("GET", f"/characters/{alice}/sheet", pat)
    assert sheet.status_code == 200 and 'name = "Alice"' in sheet.text
    assert table.req("GET", f"/characters/{orc}/sheet", pat).status_code == 403
    assert table.req("GET", f"/characters/{alice}/sheet", table.gm).status_code == 200
    mine = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}
    assert mine[alice]["skills"]["stealth"] == 65 and "skills" not in mine[orc]
    gm_view = {c["id"]: c for c in table.ok("GET", "", table.gm)["characters"]}
    assert "skills" in gm_view[orc] and "skills" in gm_view[alice]
    edited = sheet.text.replace("stealth = 65", "stealth = 70")
    assert (
        table.ok("PUT", f"/characters/{alice}", pat, json={"sheet": edited})["skills"]["stealth"]
        == 70
    )
    assert table.req("PUT", f"/characters/{orc}", pat, json={"sheet": edited}).status_code == 403


COMMENTED = """# Alice, the scout: her player's notes stay with the sheet.
name = "Alice"
system = "brp"
luck = { current = 3, maximum = 5 }  # rests to 5
skills = { stealth = 65, dodge = 30 }  # dodge bought last session
"""


def test_a_sheet_keeps_its_comments_through_edits_and_luck(api: Api) -> None:  # rule: BRP7
    table = api.table("brp")
    pat = table.join("Pat")
    alice = table.ok("POST", "/characters", pat, 201, json={"sheet": COMMENTED})["id"]
    assert table.req("GET", f"/characters/{alice}/sheet", pat).text == COMMENTED
    table.roll(pat, alice, "stealth", actor={"fields": {"luck_boost": True}})
    spent = table.req("GET", f"/characters/{alice}/sheet", pat).text
    assert spent == COMMENTED.replace("current = 3,", "current = 2,")
    edited = spent.replace("dodge = 30", "dodge = 35")
    assert table.ok("PUT", f"/characters/{alice}", pat, json={"sheet": edited})["skills"] == {
        "stealth": 65,
        "dodge": 35,
    }
    assert table.req("GET", f"/characters/{alice}/sheet", pat).text == edited


def test_character_errors(api: Api) -> None:
    table, pat, _alice, _ = setup(api)
    bad = table.req("POST", "/characters", pat, json={"sheet": "name = "})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "sheet"
    other = SHEETS["openquest"].format(name="Bo")
    r = table.req("POST", "/characters", pat, json={"sheet": other})
    assert r.status_code == 422 and r.json()["error"]["field"] == "sheet.system"
    r = table.req(
        "POST",
        "/characters",
        pat,
        json={"sheet": SHEETS["brp"].format(name="X"), "member_id": "someone"},
    )
    assert r.status_code == 403
    assert table.req("PUT", "/characters/nope", pat, json={"sheet": other}).status_code == 404


def test_roll_keeps_odds_and_is_provable(api: Api) -> None:
    table, pat, alice, _ = setup(api)
    preview = table.ok(
        "POST", "/odds", pat, json={"actor": {"character_id": alice, "skill": "spot"}}
    )
    assert preview["odds"] == odds({"system": "brp", "skill": 50}).to_dict()
    assert any(o["name"] == "Luck boost" and o["gain"] != "0/1" for o in preview["advice"])
    event = table.roll(pat, alice, "spot")
    assert event["kind"] == "roll" and event["skill"] == "spot hidden"
    assert event["odds"] == preview["odds"] and event["manual"] is False
    seeds = table.ok("GET", "", pat)["seeds"]
    table.ok("POST", "/seeds/rotate", table.gm)
    seed = next(s for s in table.ok("GET", "", pat)["seeds"] if s["id"] == seeds[0]["id"])
    p = event["provable"]
    source = ProvableSource(bytes.fromhex(seed["server_seed"]), p["client_seed"], p["nonce"])
    again = resolve(event["request"], source).to_dict()
    assert again == event["result"]
    second = table.roll(pat, alice, "spot")
    assert second["provable"]["nonce"] == 0 and second["provable"]["seed_id"] != p["seed_id"]


def test_manual_dice_marked_and_switchable(api: Api) -> None:
    table, pat, alice, _ = setup(api)
    event = table.roll(pat, alice, "stealth", actor={"dice": [7]})
    assert event["manual"] is True and event["result"]["roll"] == 7
    assert event["result"]["level"] == "special"
    r = table.req(
        "POST",
        "/rolls",
        pat,
        json={"actor": {"character_id": alice, "skill": "stealth", "dice": [7, 8]}},
    )
    assert r.status_code == 422 and "dice" in r.json()["error"]["field"]
    strict, pat2, bob, _ = setup(api, settings={"manual_dice": False})
    r = strict.req(
        "POST",
        "/rolls",
        pat2,
        json={"actor": {"character_id": bob, "skill": "stealth", "dice": [7]}},
    )
    assert r.status_code == 422 and r.json()["error"]["field"] == "actor.dice"


def test_roll_errors(api: Api) -> None:
    table, pat, alice, orc = setup(api)
    cases = [
        ({"actor": {"character_id": alice, "skill": "flying"}}, 422, "actor.skill"),
        ({"actor": {"character_id": alice}}, 422, "actor.skill"),
        (
            {
                "actor": {
                    "character_id": alice,
                    "skill": "stealth",
                    "fields": {"difficulty": "impossible"},
                }
            },
            422,
            "difficulty",
        ),
        (
            {"actor": {"character_id": alice, "skill": "stealth", "fields": {"skill": 99}}},
            422,
            "actor.fields.skill",
        ),
        (
            {"actor": {"character_id": alice, "skill": "stealth"}, "visibility": "loud"},
            422,
            "visibility",
        ),
        ({"actor": {"character_id": "nope", "skill": "stealth"}}, 404, "actor.character_id"),
        ({"actor": {"character_id": orc, "skill": "stealth"}}, 403, "token"),
        (
            {"actor": {"character_id": alice, "skill": "stealth", "dice": ["7"]}},
            422,
            "actor.dice.0",
        ),
    ]
    for body, status, field in cases:
        r = table.req("POST", "/rolls", pat, json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]["field"] == field, (body, r.text)


def test_visibility_modes(api: Api) -> None:
    table, pat, alice, _orc = setup(api)
    sam = table.join("Sam")
    expect = {  # mode: (roller sees result, gm sees, other player sees)
        "public": (True, True, True),
        "gm": (True, True, False),
        "blind": (False, True, False),
        "self": (True, False, False),
    }
    for mode, (roller, gm, other) in expect.items():
        event = table.roll(pat, alice, "stealth", visibility=mode)
        seq = event["seq"]
        assert ("result" in event) is roller, mode
        views = {
            who: next((e for e in table.events(tok, seq - 1) if e["seq"] == seq), None)
            for who, tok in (("gm", table.gm), ("other", sam), ("roller", pat))
        }
        assert (views["gm"] is not None and "result" in views["gm"]) is gm, mode
        # One who may not see a roll at all gets its stub: the number, seed and nonce only
        # (and the log's head after it).
        stub = {"seq", "kind", "hidden", "provable", "head"}
        assert other or set(views["other"]) == stub, mode
        assert views["gm"]["kind"] == ("roll" if gm else "hidden"), mode
        assert views["roller"] is not None and ("result" in views["roller"]) is roller
        if mode == "blind":
            assert views["roller"]["hidden"] is True and "odds" in views["roller"]
    r = table.req(
        "POST",
        "/rolls",
        pat,
        json={
            "actor": {"character_id": alice, "skill": "stealth", "fields": {"luck_rerolls": 1}},
            "visibility": "blind",
        },
    )
    assert r.status_code == 422


def test_luck_boost_spends_and_rest_restores(api: Api) -> None:
    table, pat, alice, _ = setup(api)
    event = table.roll(pat, alice, "stealth", actor={"fields": {"luck_boost": True}})
    assert event["result"]["luck_spent"] == 1 and event["result"]["target"] == 85
    luck = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}[alice]["luck"]
    assert luck == {"current": 2, "maximum": 5}
    table.roll(pat, alice, "stealth", actor={"fields": {"luck_boost": True}})
    table.roll(pat, alice, "stealth", actor={"fields": {"luck_boost": True}})
    r = table.req(
        "POST",
        "/rolls",
        pat,
        json={"actor": {"character_id": alice, "skill": "stealth", "fields": {"luck_boost": True}}},
    )
    assert r.status_code == 422 and "luck" in r.json()["error"]["field"]
    assert table.req("POST", "/rest", pat).status_code == 403
    table.ok("POST", "/rest", table.gm)
    luck = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}[alice]["luck"]
    assert luck == {"current": 5, "maximum": 5}


def test_luck_reroll_spends_only_on_failure(api: Api) -> None:
    table, pat, alice, _ = setup(api)
    event = table.roll(
        pat, alice, "stealth", actor={"dice": [90, 12], "fields": {"luck_rerolls": 2}}
    )
    assert event["result"]["luck_spent"] == 1 and event["result"]["roll"] == 12
    event = table.roll(pat, alice, "stealth", actor={"dice": [12], "fields": {"luck_rerolls": 2}})
    assert event["result"]["luck_spent"] == 0
    luck = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}[alice]["luck"]
    assert luck["current"] == 2


def test_aim_builds_ends_and_is_spent_by_firing(api: Api) -> None:
    table, pat, alice, _ = setup(api)
    for _ in range(4):
        state = table.ok("POST", f"/characters/{alice}/aim", pat, json={"action": "aim"})
    assert state["aim"] == {"rounds": 3, "bonus": 60}  # +60 is the cap (BRP5)
    assert table.ok("POST", f"/characters/{alice}/aim", pat, json={"action": "move"})["aim"] == {
        "rounds": 0,
        "bonus": 0,
    }
    table.ok("POST", f"/characters/{alice}/aim", pat, json={"action": "aim"})
    event = table.roll(pat, alice, "rifle", actor={"aimed": True, "dice": [55]})
    assert event["request"]["aim_rounds"] == 1 and event["result"]["target"] == 60
    assert event["aim"] == {"rounds": 1, "bonus": 20}  # what the card says it added
    chars = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}
    assert chars[alice]["aim"]["rounds"] == 0
    assert (
        table.req("POST", f"/characters/{alice}/aim", pat, json={"action": "dance"}).status_code
        == 422
    )
    oq, pat2, bo, _ = setup(api, "openquest")
    assert oq.req("POST", f"/characters/{bo}/aim", pat2, json={"action": "aim"}).status_code == 422


def test_improvement_marks_follow_the_table_setting(api: Api) -> None:
    table, pat, sneak, _ = setup(api, "chances")  # CH12: failures are marked
    table.roll(pat, sneak, "sneaking", actor={"fields": {"risk": 200}, "dice": [1]})
    table.roll(pat, sneak, "sneaking", actor={"fields": {"risk": 0}, "dice": [1]})
    chars = {c["id"]: c for c in table.ok("GET", "", pat)["characters"]}
    assert chars[sneak]["marks"] == {"sneaking": 1}
    assert table.req("DELETE", f"/characters/{sneak}/marks", pat).status_code == 403
    assert table.ok("DELETE", f"/characters/{sneak}/marks", table.gm)["marks"] == {}
    off, pat2, al, _ = setup(api, settings={"improvement": "off"})
    off.roll(pat2, al, "stealth", actor={"dice": [99]})
    assert {c["id"]: c for c in off.ok("GET", "", pat2)["characters"]}[al]["marks"] == {}


def test_contest_between_two_characters(api: Api) -> None:
    table, pat, alice, orc = setup(api, "openquest")
    body = {
        "actor": {"character_id": alice, "skill": "stealth"},
        "opponent": {"character_id": orc, "skill": "perception", "dice": [44]},
    }
    r = table.req("POST", "/rolls", pat, json=body)
    assert r.status_code == 403  # the player may not type in the GM's dice for the orc
    body = {
        "actor": {"character_id": alice, "skill": "stealth"},
        "opponent": {"character_id": orc, "skill": "perception"},
    }
    assert table.req("POST", "/rolls", pat, json=body).status_code == 403  # the GM calls it
    event = table.ok("POST", "/rolls", table.gm, 201, json=body)
    assert event["kind"] == "contest" and event["result"]["winner"] in ("actor", "opponent", "none")
    assert set(event["odds"]["winner"]) == {"actor", "opponent", "tie", "none"}
    assert event["opponent"]["id"] == orc and event["opponent_skill"] == "perception"
    # The contest's odds tell the orc's skill: the GM may preview them, not the player.
    assert table.req("POST", "/odds", pat, json=body).status_code == 403
    preview = table.ok("POST", "/odds", table.gm, json=body)
    assert preview["odds"] == event["odds"] and "advice" not in preview


def test_a_player_opposes_another_players_character_only_through_the_gms_call(
    api: Api,
) -> None:
    """A contest's odds and result tell the other side's skill: a player contests only a
    sheet they read (their own characters); another player's, as an NPC, the GM calls."""
    table, pat, alice, _ = setup(api)
    quinn = table.join("Quinn")
    bob = table.character(quinn, "Bob")
    body = {
        "actor": {"character_id": alice, "skill": "stealth"},
        "opponent": {"character_id": bob, "skill": "stealth"},
    }
    r = table.req("POST", "/rolls", pat, json=body)
    assert r.status_code == 403 and "ask the GM" in r.json()["error"]["message"], r.text
    assert table.req("POST", "/odds", pat, json=body).status_code == 403  # odds tell a skill
    own = table.character(pat, "Ann")
    body["opponent"]["character_id"] = own
    assert table.ok("POST", "/rolls", pat, 201, json=body)["kind"] == "contest"


def test_percentages_are_exact_and_never_round_to_nothing() -> None:
    from fractions import Fraction

    from d100.render.view import pct

    assert pct(Fraction(1, 125000)) == "< 0.01%"  # not "0.00%"
    assert pct(Fraction(124999, 125000)) == "> 99.99%"  # not "100.00%"
    assert (pct(Fraction(0)), pct(Fraction(1))) == ("0.00%", "100.00%")
    # A fraction with hundreds of digits has a percentage too (a float of it would overflow).
    huge = 10**400
    assert pct(Fraction(huge // 3, huge)) == "33.33%"
    assert pct(Fraction(-1, 8)) == "-12.50%"


def test_the_odds_answer_carries_its_percentages(api: Api) -> None:
    answer = api.client.post("/api/odds", json={"system": "brp", "skill": 65}).json()
    assert answer["percent"]["success"] == "65.00%"
    assert answer["percent"]["levels"]["critical"] == "3.00%"  # BRP3: a twentieth of 65, rounded
    assert all(o["percent"]["gain"][0] in "+-<>" for o in answer["advice"])


def test_a_roll_and_its_preview_carry_their_percentages(api: Api) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")  # stealth 65
    body = {"actor": {"character_id": alice, "skill": "stealth", "fields": {"difficulty": 20}}}
    preview = table.ok("POST", "/odds", pat, json=body)
    assert preview["percent"]["success"] == "85.00%"  # 65 + 20 (BRP1)
    event = table.roll(pat, alice, "stealth")
    assert event["percent"]["success"] == "65.00%"
    assert event["percent"]["levels"].keys() == event["odds"]["levels"].keys()


def luck_of(table: Table, token: str, character_id: str) -> int:
    chars = {c["id"]: c for c in table.ok("GET", "", token)["characters"]}
    current: int = chars[character_id]["luck"]["current"]
    return current


def test_brp7_a_failed_check_rerolled_for_1_luck_is_its_own_provable_roll(api: Api) -> None:
    table, pat, alice, _ = setup(api)
    first = table.roll(pat, alice, "stealth", actor={"dice": [90], "fields": {"luck_boost": True}})
    assert not first["result"]["success"] and luck_of(table, pat, alice) == 2
    again = table.ok("POST", f"/rolls/{first['seq']}/reroll", pat, 201, json={"dice": [30]})
    # Same target (the boost is not paid again), the typed die, 1 Luck from the sheet.
    assert again["rerolls"] == first["seq"] and again["reroll_of"] == first["seq"]
    assert again["result"]["target"] == first["result"]["target"] == 85
    assert again["result"]["roll"] == 30 and again["result"]["success"]
    assert again["luck_spent"] == 1 and again["manual"] is True
    assert luck_of(table, pat, alice) == 1
    missed = table.roll(pat, alice, "rifle", actor={"dice": [99]})
    drawn = table.ok("POST", f"/rolls/{missed['seq']}/reroll", pat, 201)
    p = drawn["provable"]
    assert p["nonce"] == missed["provable"]["nonce"] + 1  # the next nonce on the roller's seed
    table.ok("POST", "/seeds/rotate", table.gm)
    seed = next(s for s in table.ok("GET", "", pat)["seeds"] if s["id"] == p["seed_id"])
    source = ProvableSource(bytes.fromhex(seed["server_seed"]), p["client_seed"], p["nonce"])
    assert resolve(p["request"], source).to_dict() == drawn["result"]
    # The reroll's odds are the first roll's, without rerolls: the exact gain the card shows.
    assert "luck_rerolls" not in drawn["request"]
    assert drawn["odds"] == odds(missed["request"]).to_dict() == missed["odds"]


def test_brp7_a_reroll_is_made_in_its_table_s_write_turn(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Luck reroll writes as a roll does: in its table's turn (one at a time per table, no
    thread held while it waits), not beside it (a table ran six at once, each thread waiting
    for the write lock)."""
    turns: list[str] = []
    run = Writes.run

    async def counted(self: Writes, key: str, fn: Any, *args: Any) -> Any:
        turns.append(key)
        return await run(self, key, fn, *args)

    monkeypatch.setattr(Writes, "run", counted)
    table, pat, alice, _ = setup(api)
    first = table.roll(pat, alice, "stealth", actor={"dice": [90]})
    turns.clear()
    table.ok("POST", f"/rolls/{first['seq']}/reroll", pat, 201, json={"dice": [30]})
    assert turns == [f"table:{table.id}"], turns


def test_brp7_reroll_refusals(api: Api) -> None:
    table, pat, alice, orc = setup(api, house_rules={"max_luck_rerolls": 1})
    won = table.roll(pat, alice, "stealth", actor={"dice": [10]})
    r = table.req("POST", f"/rolls/{won['seq']}/reroll", pat)
    assert r.status_code == 422 and "succeeded" in r.json()["error"]["message"]
    lost = table.roll(pat, alice, "stealth", actor={"dice": [90]})
    assert table.req("POST", f"/rolls/{lost['seq']}/reroll", table.gm).status_code == 403
    again = table.ok("POST", f"/rolls/{lost['seq']}/reroll", pat, 201, json={"dice": [95]})
    r = table.req("POST", f"/rolls/{lost['seq']}/reroll", pat, json={"dice": [5]})
    assert r.status_code == 409
    said = r.json()["error"]["message"]  # the numbers the cards show, not "event 29"
    first, then = lost["seq"], again["seq"]
    assert said == f"seq: roll #{first} was already followed up: Luck reroll (#{then})"
    r = table.req("POST", f"/rolls/{again['seq']}/reroll", pat, json={"dice": [5]})
    assert r.status_code == 409 and "max_luck_rerolls" in r.json()["error"]["allowed"]
    hidden = table.roll(pat, alice, "stealth", actor={}, visibility="blind")
    r = table.req("POST", f"/rolls/{hidden['seq']}/reroll", pat)
    assert r.status_code == 422 and "hidden" in r.json()["error"]["message"]
    spot = {"character_id": orc, "skill": "spot"}
    contest = table.roll(table.gm, alice, "stealth", opponent=spot)
    assert table.req("POST", f"/rolls/{contest['seq']}/reroll", table.gm).status_code == 404
    assert table.req("POST", "/rolls/9999/reroll", pat).status_code == 404
    for _ in range(2):  # Luck 3: two spent above and below, then none left
        table.roll(pat, alice, "stealth", actor={"fields": {"luck_boost": True}})
    assert luck_of(table, pat, alice) == 0
    broke = table.roll(pat, alice, "stealth", actor={"dice": [90]})
    r = table.req("POST", f"/rolls/{broke['seq']}/reroll", pat, json={"dice": [5]})
    assert r.status_code == 422 and "0 Luck" in r.json()["error"]["message"]


def test_each_system_s_table_filled_fields_are_reserved(api: Api) -> None:
    """From each system's declaration: the fields the table fills in from the sheet, the
    aiming state and a called test's helpers are no player's to set."""
    from d100.table_fields import TABLE_FIELDS, reserved

    assert reserved("brp") == TABLE_FIELDS | {"aim_rounds"}
    assert reserved("openquest") == TABLE_FIELDS | {"assist"}
    assert reserved("chances") == TABLE_FIELDS | {"ability", "synergy", "assisters"}
    table, pat, alice, _ = setup(api)
    aimed = {"character_id": alice, "skill": "stealth", "fields": {"aim_rounds": 3}}
    r = table.req("POST", "/rolls", pat, json={"actor": aimed})
    assert r.status_code == 422 and r.json()["error"]["field"] == "actor.fields.aim_rounds"
