"""Sheets edited by form values and deleted; what an edit changed, in its event."""

from __future__ import annotations

import pytest

from .tablehelp import Api

pytestmark = pytest.mark.sqlite_only(
    "Sheet edits, deletes and the invite link answered by the routes. A delete's rows on "
    "both databases are test_lock.py's, a sheet's edit events test_event_schemas.py's."
)


def test_a_form_edit_sets_values_keeps_comments_and_says_what_changed(api: Api) -> None:
    table = api.table()
    pat, sam = table.join("Pat"), table.join("Sam")
    alice = table.character(pat, "Alice")
    sheet = table.ok("GET", "", pat)["characters"][0]["sheet"]
    table.ok("PUT", f"/characters/{alice}", pat, json={"sheet": "# my notes\n" + sheet})
    body = {
        "skills": {"stealth": 80, "dodge": None, "climb": 35},
        "luck": {"current": 5, "maximum": 5},
    }
    view = table.ok("PATCH", f"/characters/{alice}", pat, json=body)
    assert view["skills"] == {"stealth": 80, "spot hidden": 50, "rifle": 40, "climb": 35}
    assert view["luck"] == {"current": 5, "maximum": 5}
    assert view["sheet"].startswith("# my notes")
    edit = table.events(pat)[-1]
    assert edit["kind"] == "character" and edit["change"] == "edited"
    assert edit["changes"] == {
        "luck.current": [3, 5],
        "skills.climb": [None, 35],
        "skills.dodge": [30, None],
        "skills.stealth": [65, 80],
    }
    assert table.events(sam)[-1]["kind"] == "hidden"  # a sheet's values are its readers'
    assert table.req("PATCH", f"/characters/{alice}", sam, json=body).status_code == 403
    r = table.req("PATCH", f"/characters/{alice}", pat, json={"luck": {"current": 9, "maximum": 5}})
    assert r.status_code == 422 and r.json()["error"]["field"].startswith("sheet")
    r = table.req("PATCH", f"/characters/{alice}", pat, json={"skills": {"stealth": "high"}})
    assert r.status_code == 422


def test_a_character_is_deleted_by_its_player_or_the_gm_and_the_log_keeps_it(api: Api) -> None:
    table = api.table()
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    rolled = table.roll(pat, alice, "stealth")
    call = table.ok(
        "POST", "/calls", table.gm, 201, json={"skill": "stealth", "character_ids": [alice, bob]}
    )
    assert table.req("DELETE", f"/characters/{alice}", sam).status_code == 403
    assert table.ok("DELETE", f"/characters/{alice}", pat)["name"] == "Alice"
    state = table.ok("GET", "", table.gm)
    assert [c["name"] for c in state["characters"]] == ["Bob"]
    (left,) = [c for c in state["calls"] if c["id"] == call["id"]]
    assert [t["character"]["name"] for t in left["targets"]] == ["Bob"]
    gone = table.events(sam)[-1]
    assert gone["change"] == "deleted" and gone["character"]["name"] == "Alice"
    assert any(e["seq"] == rolled["seq"] and "result" in e for e in table.events(sam))
    assert table.req("DELETE", f"/characters/{alice}", pat).status_code == 404
    table.ok("DELETE", f"/characters/{bob}", table.gm)
    assert table.character(sam, "Alice")  # the name is free again


def test_revoke_answers_with_the_renewed_invite_link(api: Api) -> None:
    table = api.table()
    pat = table.join("Pat")
    me = table.ok("GET", "", pat)["me"]["id"]
    out = table.ok("POST", f"/members/{me}/revoke", table.gm)
    assert out["revoked"] and "/join#" in out["invite_link"]
    assert out["invite_link"].split("#")[1] != table.invite
