"""The HTTP API as /openapi.json describes it: each operation lists the statuses the server
refuses with, each with the one error shape; a 405's Allow names every method of its path."""

from __future__ import annotations

import jsonschema
import pytest

from .described import DESCRIBED, fits
from .tablehelp import Api

pytestmark = pytest.mark.sqlite_only(
    "The routes' description and their answers' shapes. The events' shapes as stored and "
    "read back on both databases are test_event_schemas.py's."
)


@pytest.fixture
def api(shared_api: Api) -> Api:
    """One server per database for the module: each test opens a table of its own there."""
    return shared_api


METHODS = ("get", "put", "post", "patch", "delete")


def test_every_operation_lists_its_refusals_with_the_error_shape() -> None:
    for path, ops in DESCRIBED["paths"].items():
        for method, op in ops.items():
            for status in ("401", "404", "422", "429", "503"):
                if path == "/health" and status != "503":
                    continue
                content = op["responses"].get(status, {}).get("content", {})
                ref = content.get("application/json", {}).get("schema", {}).get("$ref", "")
                assert ref.endswith("/ErrorBody"), (method, path, status)


def test_a_refusal_fits_the_described_error_shape(api: Api) -> None:
    table = api.table()
    schema = fits({"$ref": "#/components/schemas/ErrorBody"})
    for method, path, token in (
        ("GET", "", None),  # 401
        ("POST", "/rolls", table.gm),  # 422: no body
        ("GET", "/characters/AAAAAAAAAAAA/sheet", table.gm),  # 404
    ):
        r = table.req(method, path, token)
        assert r.status_code >= 400, r.text
        schema.validate(r.json())
    wrong = {"error": {"kind": "x", "field": "y", "allowed": "z", "message": 1}}
    with pytest.raises(jsonschema.ValidationError):  # the shape can refuse: no value, a number
        schema.validate(wrong)


def test_a_405_allows_every_method_of_its_path(api: Api) -> None:
    table = api.table()
    ids = {"table_id": table.id, "character_id": "AAAAAAAAAAAA", "member_id": "AAAAAAAAAAAA"}
    ids |= {"seq": "1", "call_id": "AAAAAAAAAAAA", "target_id": "AAAAAAAAAAAA"}
    checked = 0
    for path, ops in DESCRIBED["paths"].items():
        taken = {m.upper() for m in ops}
        url = path.format(**ids)
        for method in METHODS:
            if method in ops or (method == "get" and "head" in ops):
                continue
            r = api.client.request(
                method.upper(), url, headers={"authorization": f"Bearer {table.gm}"}
            )
            assert r.status_code == 405, (method, path, r.status_code, r.text)
            allow = {m.strip() for m in r.headers["allow"].split(",")}
            assert taken <= allow, (method, path, allow)
            checked += 1
    assert checked > 30


def test_what_the_description_says_of_a_body_is_what_is_accepted(api: Api) -> None:
    """JSON Schema counts 65.0 an integer: it is one here too (the core stays strict); a system
    is one of the registry's names, and a name with a control character is refused."""
    whole = api.client.post("/api/odds", json={"system": "brp", "skill": 65.0, "modifiers": [5.0]})
    exact = api.client.post("/api/odds", json={"system": "brp", "skill": 65, "modifiers": [5]})
    assert whole.status_code == exact.status_code == 200, whole.text
    assert whole.json()["odds"] == exact.json()["odds"]
    half = api.client.post("/api/odds", json={"system": "brp", "skill": 65.5})
    assert half.status_code == 422 and half.json()["error"]["field"] == "skill"
    new_table = DESCRIBED["components"]["schemas"]["NewTable"]["properties"]
    assert "brp" in new_table["system"]["enum"]
    assert "x" not in new_table["system"]["enum"]
    r = api.client.post("/api/tables", json={"name": "A\u2028B", "system": "brp"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "name", r.text


def test_a_table_s_state_fits_its_described_shape_and_keeps_secrets(api: Api) -> None:
    """As the GM and as a player: the state fits TableState; the player's copy of the GM's
    NPC names no value (the description makes them optional, never promised)."""
    table = api.table()
    npc = table.character(table.gm, "Guard")
    player = table.join("Pat")
    pats = table.character(player, "Pat's")
    opponent = {"character_id": npc, "skill": "dodge"}
    called = {"skill": "stealth", "character_ids": [pats], "opponent": opponent}
    table.ok("POST", "/calls", table.gm, 201, json=called)
    schema = fits({"$ref": "#/components/schemas/TableState"})
    for token in (table.gm, player):
        schema.validate(table.ok("GET", "", token))
    seen = {c["id"]: c for c in table.ok("GET", "", player)["characters"]}
    assert "skills" not in seen[npc] and "sheet" not in seen[npc], seen[npc]
    call = table.ok("GET", "", player)["calls"][0]
    assert call["opponent"]["character"]["id"] == npc and "skill" not in call["opponent"], call
    wrong = table.ok("GET", "", player) | {"members": [{"id": "x"}]}
    with pytest.raises(jsonschema.ValidationError):  # the shape can refuse: a member unnamed
        schema.validate(wrong)


def test_a_played_table_s_events_fit_the_described_event(api: Api) -> None:
    """Public, GM-only and blind rolls, as the GM, the roller and another player: each event
    fits EventView, and what a viewer may not see is absent from it."""
    table = api.table()
    pat, sam = table.join("Pat"), table.join("Sam")
    mine = table.character(pat, "Pat's")
    for visibility in ("public", "gm", "blind"):
        table.roll(pat, mine, "Spot Hidden", visibility=visibility)
    schema = fits({"$ref": "#/components/schemas/EventView"})
    seen = {}
    for token in (table.gm, pat, sam):
        events = table.events(token)
        for event in events:
            schema.validate(event)
        seen[token] = [e for e in events if e["kind"] in ("roll", "hidden")]
    assert all("result" in e for e in seen[table.gm])
    assert "result" not in seen[pat][-1]  # a blind roller does not see the result
    assert [e["kind"] for e in seen[sam]][-2:] == ["hidden", "hidden"]
    with pytest.raises(jsonschema.ValidationError):  # the shape can refuse: no number
        schema.validate({"kind": "roll"})


def test_a_chart_refuses_no_pair_of_bounds_and_checks_a_skill_given(api: Api) -> None:
    """A chart's points are at most 101, those past left out (none where high is below low),
    so no bounds the description allows are refused; a skill its request gives is checked
    (a fraction was accepted, and ignored), one it leaves out is not required."""
    from d100.engine import odds

    client = api.client
    chart = client.post("/api/odds/chart",
                        json={"request": {"system": "brp"}, "low": 0, "high": 1000, "step": 1})
    assert chart.status_code == 200, chart.text
    points = chart.json()
    assert [p["skill"] for p in points] == list(range(101))
    assert points[40]["success"] == str(odds({"system": "brp", "skill": 40}).success)
    empty = client.post("/api/odds/chart",
                        json={"request": {"system": "brp"}, "low": 50, "high": 10})
    assert empty.status_code == 200 and empty.json() == []
    fraction = client.post("/api/odds/chart", json={"request": {"system": "brp", "skill": 50.5}})
    assert fraction.status_code == 422
    assert fraction.json()["error"]["field"] == "request.skill"
    described = client.get("/openapi.json").json()["components"]["schemas"]["Chart"]
    for variant in described["properties"]["request"]["oneOf"]:
        assert "skill" not in variant.get("required", ()), variant["title"]


def test_a_chart_s_bounds_are_skills_its_system_takes_as_described(api: Api) -> None:
    """A chart's low and high past the highest skill its system takes (Taking Chances' 100)
    are stated by the description and refused naming the bound; a system taking skills to
    1000 is charted that far, and its description says no less (the fuzzer's low of 128)."""
    client = api.client
    described = fits(DESCRIBED["components"]["schemas"]["Chart"])
    for bound in ("low", "high"):
        body = {"request": {"system": "chances", "risk": 0}, "low": 90, bound: 128}
        assert not described.is_valid(body), body
        refused = client.post("/api/odds/chart", json=body)
        assert refused.status_code == 422, refused.text
        error = refused.json()["error"]
        assert (error["field"], error["value"]) == (bound, 128), error
        assert "0..100" in error["allowed"]
    kept = {"request": {"system": "chances", "risk": 0}, "low": 90, "high": 100}
    assert described.is_valid(kept)
    assert [p["skill"] for p in client.post("/api/odds/chart", json=kept).json()] == [90, 95, 100]
    far = {"request": {"system": "brp"}, "low": 128, "high": 1000, "step": 400}
    assert described.is_valid(far)
    assert [p["skill"] for p in client.post("/api/odds/chart", json=far).json()] == [128, 528, 928]


def _odds_schema() -> jsonschema.protocols.Validator:
    op = DESCRIBED["paths"]["/api/odds"]["post"]
    return fits(op["requestBody"]["content"]["application/json"]["schema"])


BETWEEN_FIELDS = [
    # DG-9: Luck is tested at 50
    ({"system": "delta-green", "skill": 60, "test": "luck"},
     {"system": "delta-green", "skill": 50, "test": "luck"}),
    # DG-7: a projection is willpower and bond together, in a Sanity test with a loss
    ({"system": "delta-green", "skill": 50, "test": "sanity", "san_loss": "1/1d4",
      "willpower": 12},
     {"system": "delta-green", "skill": 50, "test": "sanity", "san_loss": "1/1d4",
      "willpower": 12, "bond": 10}),
    ({"system": "delta-green", "skill": 50, "willpower": 12, "bond": 10},
     {"system": "delta-green", "skill": 50}),
    # RQ-2: exactly one of skill, characteristic or resistance; a multiplier with a
    # characteristic
    ({"system": "rqg", "skill": 50, "characteristic": 12},
     {"system": "rqg", "characteristic": 12, "multiplier": 3}),
    ({"system": "rqg", "skill": 50, "multiplier": 3}, {"system": "rqg", "skill": 50}),
    ({"system": "rqg", "actor": {"skill": 50}, "opponent": {}},
     {"system": "rqg", "actor": {"skill": 50}, "opponent": {"characteristic": 12}}),
    # C6: a resistance roll has no malfunction number
    ({"system": "coc6", "resistance": {"active": 10, "passive": 12}, "malfunction": 98},
     {"system": "coc6", "resistance": {"active": 10, "passive": 12}}),
    ({"system": "brp-foundry"}, {"system": "brp-foundry", "skill": 40}),
]


def test_the_odds_description_states_the_rules_between_fields(api: Api) -> None:
    """What the server refuses between a request's fields, the description says: each refused
    request fails its schema, and its accepted twin fits it and is answered (rules DG-7,
    DG-9, RQ-2 and Call of Cthulhu 6th's resistance roll)."""
    schema = _odds_schema()
    for refused, accepted in BETWEEN_FIELDS:
        with pytest.raises(jsonschema.ValidationError):
            schema.validate(refused)
        r = api.client.post("/api/odds", json=refused)
        assert r.status_code == 422, (refused, r.text)
        schema.validate(accepted)
        r = api.client.post("/api/odds", json=accepted)
        assert r.status_code == 200, (accepted, r.text)


def test_a_query_parameter_no_route_takes_is_refused_naming_it(api: Api) -> None:
    """As a body's unknown field is: a misspelt ``after`` read as none answered the whole log."""
    table = api.table()
    r = table.req("GET", "/events?afterr=3", table.gm)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == "afterr" and "after" in r.json()["error"]["allowed"]
    assert table.req("GET", "/events?after=0", table.gm).status_code == 200
    assert api.client.get("/api/systems?x=1").status_code == 422


def test_a_sheet_within_its_characters_but_over_the_byte_cap_is_the_described_413(
    api: Api,
) -> None:
    """A sheet's schema counts characters (20,000), the guard a body's bytes (64 KiB): a sheet
    of 20,000 escaped characters fits the one and not the other, so its 413 is described,
    saying the cap is on bytes (the fuzzer's schema-violating sheets met it first)."""
    import json

    from d100.server.guard import Limits

    table = api.table()
    sheet = "é" * 20_000
    body = json.dumps({"sheet": sheet}).encode()  # escaped: six bytes a character
    assert len(body) > Limits().body_bytes
    schema = DESCRIBED["paths"]["/api/tables/{table_id}/characters"]["post"]
    fits(schema["requestBody"]["content"]["application/json"]["schema"]).validate({"sheet": sheet})
    refused = table.req(
        "POST", "/characters", table.gm, content=body, headers={"content-type": "application/json"}
    )
    assert refused.status_code == 413 and refused.json()["error"]["field"] == "body"
    assert "bytes" in schema["responses"]["413"]["description"]
