"""Tables, sign-in, tokens, revocation and the seeds."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from d100.provable import commitment
from d100.server.models import Member

from .tablehelp import SHEETS, Api, token_of

pytestmark = pytest.mark.sqlite_only(
    "The routes' rules for tables, sign-in, tokens and names (names are compared in "
    "Python). Their writes are on both databases elsewhere: every kind of event (invites "
    "renewed, revocations, seed rotations) by test_event_schemas.py, a revoked member's "
    "streams by test_live_handover.py, the seeds' chains by test_secret_seeds.py and "
    "test_chain.py."
)


@pytest.fixture
def api(shared_api: Api) -> Api:
    """One server per database for the module: each test opens a table of its own there."""
    return shared_api


def error(r: object) -> dict[str, object]:
    body: dict[str, dict[str, object]] = r.json()  # type: ignore[attr-defined]
    assert set(body["error"]) == {"kind", "field", "value", "allowed", "message"}
    return body["error"]


def test_health_and_openapi(client: TestClient) -> None:
    assert client.get("/health").json()["status"] == "ok"
    spec = client.get("/openapi.json").json()
    paths = set(spec["paths"])
    for path in (
        "/api/tables",
        "/api/join",
        "/api/session",
        "/api/odds",
        "/api/tables/{table_id}/rolls",
        "/api/tables/{table_id}/events/stream",
        "/api/tables/{table_id}/log.jsonl",
        "/api/tables/{table_id}/calls",
    ):
        assert path in paths


def test_create_table_sets_gm_cookie_and_links(client: TestClient) -> None:
    r = client.post("/api/tables", json={"name": "Keep", "system": "brp"})
    assert r.status_code == 201
    body = r.json()
    table_id = body["table"]["id"]
    cookie = r.headers["set-cookie"]
    assert f"d100_{table_id}=" in cookie and "HttpOnly" in cookie
    assert "samesite=strict" in cookie.lower()
    gm = token_of(body["gm_link"])
    assert len(gm) >= 43  # 256 bits, base64url
    assert "/join#" in body["invite_link"]
    state = client.get(f"/api/tables/{table_id}").json()  # by cookie
    assert state["me"]["role"] == "gm"
    assert state["seeds"][0]["commitment"] and "server_seed" not in state["seeds"][0]


def test_tokens_are_stored_hashed(api: Api) -> None:
    table = api.table()
    player = table.join("Pat")
    app = api.client.app  # type: ignore[attr-defined]
    with app.state.server.store.read() as session:
        hashes = session.scalars(select(Member.token_hash)).all()
    assert table.gm not in hashes and player not in hashes
    assert all(len(h) == 64 for h in hashes)


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": "x", "system": "gurps"}, "system"),
        ({"name": "", "system": "brp"}, "name"),
        ({"name": "x", "system": "brp", "house_rules": {"nope": 1}}, "house_rules.nope"),
        (
            {"name": "x", "system": "brp", "house_rules": {"threshold_rounding": "up"}},
            "house_rules.threshold_rounding",
        ),
        (
            {"name": "x", "system": "brp", "settings": {"improvement": "always"}},
            "settings.improvement",
        ),
        ({"name": "x", "system": "brp", "extra": 1}, "extra"),
        ({"name": 5, "system": "brp"}, "name"),
    ],
)
def test_create_table_errors(client: TestClient, body: dict[str, object], field: str) -> None:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422
    assert error(r)["field"] == field


def test_malformed_json_is_a_clean_422(client: TestClient) -> None:
    r = client.post(
        "/api/tables", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422
    error(r)


def test_a_body_that_is_not_json_is_named_body_not_its_character_number(
    client: TestClient,
) -> None:
    """The validator places a JSON decode error at the character where it failed (0): the
    field a client can fix is the body itself."""
    r = client.post(
        "/api/tables", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422
    found = error(r)
    assert found["field"] == "body"
    assert found["message"].startswith("body: ")


def test_unknown_path_and_method_are_json(client: TestClient) -> None:
    assert error(client.get("/api/nothing"))["field"] == "path"
    assert client.put("/api/tables").status_code == 405


def test_join_and_sign_in(api: Api) -> None:
    table = api.table()
    r = api.client.post("/api/join", json={"invite": table.invite, "name": "  Pat  "})
    assert r.status_code == 201
    assert r.json()["me"] == {**r.json()["me"], "name": "Pat", "role": "player"}
    assert f"d100_{table.id}=" in r.headers["set-cookie"]
    rejoin = token_of(r.json()["rejoin_link"])
    api.client.cookies.clear()
    r = api.client.post("/api/session", json={"token": rejoin})
    assert r.status_code == 200 and r.json()["table_id"] == table.id
    assert api.client.get(f"/api/tables/{table.id}").json()["me"]["name"] == "Pat"
    assert api.client.delete(f"/api/tables/{table.id}/session").status_code == 204


def test_bad_tokens_are_401_and_never_echoed(api: Api) -> None:
    table = api.table()
    for r in (
        api.client.post("/api/join", json={"invite": "forged", "name": "Eve"}),
        api.client.post("/api/session", json={"token": "forged-token"}),
        table.req("GET", "", "forged-token"),
        table.req("GET", "", None),
    ):
        assert r.status_code == 401
        assert "forged" not in r.text
    other = api.table()
    assert table.req("GET", "", other.gm).status_code == 401  # a token for another table


def test_missing_table_is_404_for_a_known_token(api: Api) -> None:
    table = api.table()
    r = api.client.get(
        "/api/tables/nope/log.jsonl", headers={"authorization": f"Bearer {table.gm}"}
    )
    assert r.status_code == 401  # the token is not for that table: no table probing


def test_revoke(api: Api) -> None:
    table = api.table()
    pat = table.join("Pat")
    me = table.ok("GET", "", pat)["me"]
    assert table.req("POST", f"/members/{me['id']}/revoke", pat).status_code == 403
    assert table.ok("POST", f"/members/{me['id']}/revoke", table.gm)["revoked"] is True
    assert table.req("GET", "", pat).status_code == 401
    gm_id = table.ok("GET", "", table.gm)["me"]["id"]
    assert table.req("POST", f"/members/{gm_id}/revoke", table.gm).status_code == 409
    assert table.req("POST", "/members/nobody/revoke", table.gm).status_code == 404


def test_new_invite_retires_the_old_one(api: Api) -> None:
    table = api.table()
    link = table.ok("POST", "/invite", table.gm)["invite_link"]
    assert (
        api.client.post("/api/join", json={"invite": table.invite, "name": "A"}).status_code == 401
    )
    table.invite = token_of(link)
    table.join("B")
    pat = table.join("Pat")
    assert table.req("POST", "/invite", pat).status_code == 403


def test_client_seed_and_rotation_reveal(api: Api) -> None:
    table = api.table()
    pat = table.join("Pat")
    assert (
        table.ok("PUT", "/me/client-seed", pat, json={"client_seed": "lucky"})["client_seed"]
        == "lucky"
    )
    assert table.req("PUT", "/me/client-seed", pat, json={"client_seed": ""}).status_code == 422
    first = table.ok("GET", "", pat)["seeds"][0]
    assert table.req("POST", "/seeds/rotate", pat).status_code == 403
    new = table.ok("POST", "/seeds/rotate", table.gm)
    seeds = table.ok("GET", "", pat)["seeds"]
    revealed = next(s for s in seeds if s["id"] == first["id"])
    assert commitment(bytes.fromhex(revealed["server_seed"])) == first["commitment"]
    assert new["commitment"] != first["commitment"] and "server_seed" not in seeds[-1]


def test_names_are_unique_per_table_in_any_case(api: Api) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    r = api.client.post("/api/join", json={"invite": table.invite, "name": "  pAT "})
    assert r.status_code == 409 and "choose another name" in r.json()["error"]["message"]
    gm_clash = api.client.post("/api/join", json={"invite": table.invite, "name": "gina"})
    assert gm_clash.status_code == 409
    alice = table.character(pat, "Alice")
    sam = table.join("Sam")
    sheet = SHEETS["brp"].format
    clash = table.req("POST", "/characters", sam, json={"sheet": sheet(name="ALICE")})
    assert clash.status_code == 409 and clash.json()["error"]["field"] == "sheet.name"
    bob = table.character(sam, "Bob")
    rename = table.req("PUT", f"/characters/{bob}", sam, json={"sheet": sheet(name="alice")})
    assert rename.status_code == 409
    # Saving a character under its own name (any case) is no clash.
    table.ok("PUT", f"/characters/{alice}", pat, json={"sheet": sheet(name="ALICE")})


def test_lookalike_names_clash_and_only_the_gm_wears_the_gm_tag(api: Api) -> None:
    """Names compare by what they look like: "\u0410lice" (a Cyrillic A) beside "Alice" passed
    the check, and so did a player calling themselves "Gina (GM)"."""
    table = api.table("brp")  # the GM is Gina
    pat = table.join("Alice")
    lookalikes = (
        "\u0410lice",
        "\u0391LICE",
        "Alice ",
        "ALICE",
        "\uff21lice",
        "G\u0456na",
        "\u0430\u04cf\u0456\u0441\u0435",
    )  # Cyrillic, Greek, fullwidth letters
    for lookalike in lookalikes:
        r = api.client.post("/api/join", json={"invite": table.invite, "name": lookalike})
        error = r.json()["error"]
        assert r.status_code == 409 and error["field"] == "name", (lookalike, r.text)
        assert error["value"] == " ".join(lookalike.split()), lookalike
        assert "'Alice'" in error["message"] or "'Gina'" in error["message"], error
    claims = ("Gina (GM)", "GM", "gm Sam", "Sam [G\u041c]", "Sam, game master", "Sam \uff27\uff2d")
    for claim in claims:
        r = api.client.post("/api/join", json={"invite": table.invite, "name": claim})
        error = r.json()["error"]
        assert r.status_code == 422 and error["field"] == "name", (claim, r.text)
        assert error["value"] == claim and "GM" in error["message"], error
    for fine in ("Gmork", "Sigma", "Alicia", "Al"):  # unlike every name taken, no tag
        api.client.post("/api/join", json={"invite": table.invite, "name": fine}).raise_for_status()
    api.client.cookies.clear()
    sheet = SHEETS["brp"].format
    table.character(pat, "Orc Chief")
    clash = table.req("POST", "/characters", pat, json={"sheet": sheet(name="\u041erc  chief")})
    error = clash.json()["error"]
    assert clash.status_code == 409 and error["field"] == "sheet.name", clash.text
    assert "'Orc Chief'" in error["message"]
    r = table.req("POST", "/characters", pat, json={"sheet": sheet(name="Orc (GM)")})
    assert r.status_code == 422 and r.json()["error"]["field"] == "sheet.name", r.text
    table.ok("POST", "/characters", table.gm, 201, json={"sheet": sheet(name="Orc (GM)")})


def test_names_with_invisible_marks_or_a_dotted_gm_tag_are_lookalikes(api: Api) -> None:
    """Marks that show nothing, small capitals and a tag spelt with dots or spaces inside its
    brackets looked like a name taken or the GM's tag and got past the skeleton."""
    table = api.table("brp")
    table.join("Alice")
    bob = table.join("Bob")
    for lookalike in ("Gina\u034f", "Alice\ufe0f", "Bob\u17b4", "Alice\u3164", "\u0262ina"):
        r = api.client.post("/api/join", json={"invite": table.invite, "name": lookalike})
        assert r.status_code == 409 and r.json()["error"]["field"] == "name", (lookalike, r.text)
    for claim in ("G\u034fM", "Sam (G.M.)", "Sam (G M)", "Sam [\u0262\u1d0d]"):
        r = api.client.post("/api/join", json={"invite": table.invite, "name": claim})
        assert r.status_code == 422 and "GM" in r.json()["error"]["message"], (claim, r.text)
    api.client.cookies.clear()
    sheet = SHEETS["brp"].format
    for name in ("Gina", "alice\u034f", "G\u034fM"):  # a person at the table, or the GM's tag
        r = table.req("POST", "/characters", bob, json={"sheet": sheet(name=name)})
        assert r.status_code in (409, 422) and r.json()["error"]["field"] == "sheet.name", name
    table.character(bob, "Bob")  # their own name is no one else's


def test_a_member_gets_their_own_link_back(api: Api) -> None:
    table = api.table("brp")
    pat = table.join("Pat")
    gm_link = table.ok("POST", "/me/link", table.gm)
    assert gm_link["role"] == "gm" and gm_link["link"].endswith(f"/t/{table.id}#{table.gm}")
    assert table.ok("POST", "/me/link", pat)["link"].endswith(f"#{pat}")
    assert table.req("POST", "/me/link", None).status_code == 401


def test_an_invite_says_which_table_it_opens_and_nothing_more(api: Api) -> None:
    """The join page names the table and its GM before a name is asked; a link that no longer
    works is the 401 of any bad token, its value never echoed."""
    table = api.table()
    pat = table.join("Pat")
    table.character(pat, "Alice")
    r = api.client.post("/api/invitation", json={"invite": table.invite})
    assert r.status_code == 200, r.text
    opened = r.json()
    assert opened == {
        "table": {"name": opened["table"]["name"], "system": "brp", "title": "Basic Roleplaying"},
        "game_masters": [table.ok("GET", "", table.gm)["me"]["name"]],
    }
    assert "Pat" not in r.text and "Alice" not in r.text  # who sits there is for members
    old = table.invite
    table.ok("POST", "/invite", table.gm)
    r = api.client.post("/api/invitation", json={"invite": old})
    assert r.status_code == 401 and old not in r.text
    r = api.client.post("/api/invitation", json={"invite": ""})
    assert r.status_code == 422 and r.json()["error"]["field"] == "invite"


def test_a_removed_player_s_characters_are_called_no_more(api: Api) -> None:
    """Removing a player cancels the tests waiting on their characters, and a new call for
    one is a 422 naming it: nobody could roll it."""
    table = api.table()
    pat, sam = table.join("Pat"), table.join("Sam")
    alice, bob = table.character(pat, "Alice"), table.character(sam, "Bob")
    call = {"skill": "stealth", "character_ids": [alice, bob], "hazard": "the guard hears"}
    table.ok("POST", "/calls", table.gm, 201, json=call)
    pat_id = table.ok("GET", "", pat)["me"]["id"]
    table.ok("POST", f"/members/{pat_id}/revoke", table.gm)
    (open_call,) = table.ok("GET", "", table.gm)["calls"]
    status = {t["character"]["id"]: t["status"] for t in open_call["targets"]}
    assert status == {alice: "cancelled", bob: "pending"}
    r = table.req("POST", "/calls", table.gm, json=call)
    assert r.status_code == 422
    err = r.json()["error"]
    assert (err["field"], err["value"]) == ("character_ids", alice)
    assert "player was removed" in err["message"]
    table.ok("POST", "/calls", table.gm, 201, json=call | {"character_ids": [bob]})
