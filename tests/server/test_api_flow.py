"""The flow the GM drives: called tests (single and group), declines, assistance, log export."""

from __future__ import annotations

import json

import pytest

from .tablehelp import Api, Table

pytestmark = pytest.mark.sqlite_only(
    "The rules of calls (groups, declines, assists, cancels) and the export's filter per "
    "viewer. Every kind of event a call logs is stored, read and exported on both "
    "databases by test_event_schemas.py."
)


def call(table: Table, skill: str, characters: list[str], **extra: object) -> dict[str, object]:
    body = {"skill": skill, "character_ids": characters, "hazard": "the guard hears you", **extra}
    out: dict[str, object] = table.ok("POST", "/calls", table.gm, 201, json=body)
    return out


def targets(call_view: dict[str, object]) -> dict[str, str]:
    return {t["character"]["id"]: t["id"] for t in call_view["targets"]}  # type: ignore[attr-defined,index]


def test_group_test_each_rolls_or_declines_alone(api: Api) -> None:  # rule: OQ10, CH8
    table = api.table("openquest")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    view = call(table, "stealth", [alice, bob], fields={"difficulty": "hard"})
    assert view["hazard"] == "the guard hears you"
    ids = targets(view)
    assert (
        table.req(
            "POST", "/calls", pat, json={"skill": "stealth", "character_ids": [alice]}
        ).status_code
        == 403
    )
    event = table.roll(pat, alice, None, target_id=ids[alice])
    assert event["request"]["difficulty"] == "hard" and event["call"]["hazard"]
    assert event["result"]["target"] == 40
    again = table.req(
        "POST", "/rolls", pat, json={"actor": {"character_id": alice}, "target_id": ids[alice]}
    )
    assert again.status_code == 409
    assert table.req("POST", f"/targets/{ids[bob]}/decline", pat).status_code == 403
    assert table.ok("POST", f"/targets/{ids[bob]}/decline", sam)["status"] == "declined"
    state = table.ok("GET", "", table.gm)["calls"][0]
    assert {t["status"] for t in state["targets"]} == {"rolled", "declined"}
    wrong = table.req(
        "POST", "/rolls", sam, json={"actor": {"character_id": bob}, "target_id": ids[alice]}
    )
    assert wrong.status_code in (409, 422)


def test_call_errors(api: Api) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    for body, field in (
        ({"skill": "flying", "character_ids": [alice]}, "actor.skill"),
        ({"skill": "stealth", "character_ids": []}, "character_ids"),
        ({"skill": "stealth", "character_ids": [alice, alice]}, "character_ids"),
        ({"skill": "stealth", "character_ids": ["nope"]}, "actor.character_id"),
        (
            {"skill": "stealth", "character_ids": [alice], "fields": {"difficulty": "silly"}},
            "difficulty",
        ),
        ({"skill": "stealth", "character_ids": [alice], "visibility": "loud"}, "visibility"),
    ):
        r = table.req("POST", "/calls", table.gm, json=body)
        assert r.status_code in (404, 422), r.text
        assert r.json()["error"]["field"] == field, r.text


def test_openquest_assist_one_at_a_time(api: Api) -> None:  # rule: OQ11
    table = api.table("openquest")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    carl = table.character(table.gm, "Carl")
    ids = targets(call(table, "perception", [alice]))
    assert (
        table.req(
            "POST",
            f"/targets/{ids[alice]}/assists",
            pat,
            json={"character_id": bob, "skill": "perception"},
        ).status_code
        == 403
    )
    assert (
        table.req(
            "POST",
            f"/targets/{ids[alice]}/assists",
            pat,
            json={"character_id": alice, "skill": "perception"},
        ).status_code
        == 422
    )
    table.ok(
        "POST",
        f"/targets/{ids[alice]}/assists",
        sam,
        201,
        json={"character_id": bob, "skill": "stealth"},
    )
    r = table.req(
        "POST",
        f"/targets/{ids[alice]}/assists",
        table.gm,
        json={"character_id": carl, "skill": "stealth"},
    )
    assert r.status_code == 409
    preview = table.ok(
        "POST", "/odds", pat, json={"actor": {"character_id": alice}, "target_id": ids[alice]}
    )
    assert preview["request"]["assist"] == {"skill": 60}
    event = table.roll(pat, alice, None, target_id=ids[alice], actor={"dice": [50]})
    assert event["result"]["assist"]["success"] in (True, False)
    assert event["result"]["target"] == 45 + (20 if event["result"]["assist"]["success"] else 0)


def test_chances_assisters_and_cap(api: Api) -> None:  # rule: CH8
    table = api.table("chances", house_rules={"max_assisters": 1})
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    carl = table.character(table.gm, "Carl")
    ids = targets(call(table, "sneaking", [alice], fields={"risk": "tough"}))
    table.ok(
        "POST",
        f"/targets/{ids[alice]}/assists",
        sam,
        201,
        json={"character_id": bob, "skill": "hear"},
    )
    assert (
        table.req(
            "POST",
            f"/targets/{ids[alice]}/assists",
            table.gm,
            json={"character_id": carl, "skill": "hearing"},
        ).status_code
        == 409
    )
    event = table.roll(pat, alice, None, target_id=ids[alice])
    assert event["request"]["assisters"] == [{"skill": 30, "ability": 5}]
    assert len(event["result"]["assisters"]) == 1


def test_brp_has_no_assistance(api: Api) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    alice, orc = table.character(pat, "Alice"), table.character(table.gm, "Orc")
    ids = targets(call(table, "stealth", [alice]))
    r = table.req(
        "POST",
        f"/targets/{ids[alice]}/assists",
        table.gm,
        json={"character_id": orc, "skill": "stealth"},
    )
    assert r.status_code == 422


def test_log_export_is_json_lines_filtered_per_viewer(api: Api) -> None:
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    table.roll(pat, alice, "stealth", visibility="gm")
    table.roll(pat, alice, "stealth")
    gm_log = table.req("GET", "/log.jsonl", table.gm)
    assert gm_log.headers["content-type"].startswith("application/jsonl")
    gm_lines = [json.loads(line) for line in gm_log.text.splitlines()]
    sam_lines = [json.loads(line) for line in table.req("GET", "/log.jsonl", sam).text.splitlines()]
    assert [e["seq"] for e in gm_lines] == sorted(e["seq"] for e in gm_lines)
    assert sum(e["kind"] == "roll" for e in gm_lines) == 2
    assert sum(e["kind"] == "roll" for e in sam_lines) == 1
    assert table.req("GET", "/log.jsonl", None).status_code == 401


def test_the_gm_cancels_a_call_and_rolls_already_made_stand(api: Api) -> None:
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    view = call(table, "stealth", [alice, bob])
    ids = targets(view)
    table.roll(pat, alice, None, target_id=ids[alice])
    call_id = view["id"]
    assert table.req("POST", f"/calls/{call_id}/cancel", pat).status_code == 403
    cancelled = table.ok("POST", f"/calls/{call_id}/cancel", table.gm)
    assert {t["character"]["name"]: t["status"] for t in cancelled["targets"]} == {  # type: ignore[index]
        "Alice": "rolled",
        "Bob": "cancelled",
    }
    assert table.events(sam)[-1]["kind"] == "cancel"
    again = table.req("POST", f"/calls/{call_id}/cancel", table.gm)
    assert again.status_code == 409 and "nobody is waiting" in again.json()["error"]["message"]
    late = table.req(
        "POST", "/rolls", sam, json={"actor": {"character_id": bob}, "target_id": ids[bob]}
    )
    assert late.status_code == 409
    assert table.req("POST", "/calls/nope/cancel", table.gm).status_code == 404


def test_a_call_stores_the_full_skill_name_its_prefix_means(api: Api) -> None:
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")  # stealth, spot hidden, rifle, dodge
    sheet = 'name = "Bob"\nsystem = "brp"\nskills = { spear = 50, stealth = 30 }\n'
    bob = table.ok("POST", "/characters", sam, 201, json={"sheet": sheet})["id"]
    assert call(table, "ste", [alice, bob])["skill"] == "stealth"
    # "sp" is spot hidden on one sheet and spear on the other: the GM is asked to say which.
    r = table.req("POST", "/calls", table.gm, json={"skill": "sp", "character_ids": [alice, bob]})
    assert r.status_code == 422 and "spear, spot hidden" in r.json()["error"]["message"]


def test_a_call_matches_a_skill_spelt_with_other_capitals_on_each_sheet(api: Api) -> None:
    # Sheets match names in any case; so must a group call ("Spot Hidden" and "spot hidden").
    table = api.table("brp")
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")  # spot hidden, in lower case
    sheet = 'name = "Bob"\nsystem = "brp"\nskills = { "Spot Hidden" = 40 }\n'
    bob = table.ok("POST", "/characters", sam, 201, json={"sheet": sheet})["id"]
    view = call(table, "Spot Hidden", [alice, bob])
    assert str(view["skill"]).casefold() == "spot hidden"
    assert len(targets(view)) == 2


def test_a_no_break_space_in_a_name_is_a_space_not_a_control_character(api: Api) -> None:
    # A name typed on a phone or pasted from a document often carries a no-break space.
    table = api.table("brp")
    r = api.client.post("/api/join", json={"invite": table.invite, "name": "Ann\u00a0Lee"})
    assert r.status_code < 300, r.text
    assert "Ann Lee" in r.text and "\u00a0" not in r.json().__repr__()


def test_a_control_character_is_refused_in_words_not_pydantic_s(api: Api) -> None:
    table = api.table("brp")
    r = api.client.post("/api/join", json={"invite": table.invite, "name": "Ann\u0007"})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["field"] == "name" and "Value error" not in r.text
    assert error["message"] == (
        "name: control characters (a tab, a line break or the like) are not allowed"
    )
