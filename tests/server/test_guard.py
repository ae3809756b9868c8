"""Abuse and cross-site requests: the Origin check on the stream and on cookie-signed writes,
per-token rate limits (429 with Retry-After), a cap on every input's size."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.server.app import create_app
from d100.server.guard import Buckets, Limits

from .tablehelp import Api, Table, bearer

SELF = "http://testserver"  # TestClient's own origin


@pytest.fixture
def sqlite_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'd100.sqlite3'}")) as c:
        yield c


def test_foreign_origin_refused_everywhere_even_with_a_token(sqlite_client: TestClient) -> None:
    table = Api(sqlite_client).table()
    for origin in ("https://evil.example", "null", "http://testserver.evil.example"):
        r = table.req("GET", "/events/stream", table.gm, headers={"origin": origin})
        assert r.status_code == 403 and r.json()["error"]["field"] == "origin", r.text
        r = table.req("POST", "/rest", table.gm, headers={"origin": origin})
        assert r.status_code == 403
    assert table.req("POST", "/rest", table.gm, headers={"origin": SELF}).status_code == 200


def test_cookie_writes_must_name_this_server(sqlite_client: TestClient) -> None:
    r = sqlite_client.post("/api/tables", json={"name": "Keep", "system": "brp"})
    table_id = r.json()["table"]["id"]  # the GM's cookie is now in the client
    rest = f"/api/tables/{table_id}/rest"
    refused = sqlite_client.post(rest)
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "origin"
    assert sqlite_client.post(rest, headers={"origin": "https://evil.example"}).status_code == 403
    assert sqlite_client.post(rest, headers={"origin": SELF}).status_code == 200
    assert sqlite_client.get(f"/api/tables/{table_id}").status_code == 200  # reads need none


def test_a_token_is_limited_and_told_when_to_retry(tmp_path: Path) -> None:
    app = create_app(
        f"sqlite:///{tmp_path / 'd100.sqlite3'}", limits=Limits(burst=5, per_second=0.5)
    )
    with TestClient(app) as client:
        table = Api(client).table()  # one request from this address
        pat = table.join("Pat")  # two
        for _ in range(5):
            assert table.req("GET", "", table.gm).status_code == 200
        limited = table.req("GET", "", table.gm)
        assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
        assert set(limited.json()["error"]) == {"kind", "field", "value", "allowed", "message"}
        assert table.req("GET", "", pat).status_code == 200  # another token: its own bucket
        for _ in range(3):  # open routes count per client address: 2 spent above
            assert client.get("/api/systems").status_code == 200
        assert client.get("/api/systems", headers=bearer("made-up")).status_code == 429
        assert client.get("/health").status_code == 200  # outside the API


def test_buckets_refill_and_forget_the_idlest() -> None:
    now = [0.0]
    buckets = Buckets(Limits(burst=2, per_second=1, keys=2), clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [0, 0, 1.0]
    now[0] = 1.5
    assert buckets.take("a") == 0 and buckets.take("a") == pytest.approx(0.5)
    buckets.take("b")
    buckets.take("c")  # a third key: "a", the least recently used, is forgotten
    assert buckets.take("a") == 0


def test_rate_limits_from_the_environment() -> None:
    assert Limits.from_env({}) == Limits()  # unset: today's limits
    raised = Limits.from_env({"D100_RATE_BURST": "1000000", "D100_RATE_PER_SECOND": "2.5"})
    assert (raised.burst, raised.per_second) == (1_000_000, 2.5)
    assert raised.body_bytes == Limits().body_bytes  # only the rate moves
    for bad_env in ({"D100_RATE_BURST": "0"}, {"D100_RATE_BURST": "many"},
                    {"D100_RATE_PER_SECOND": "0"}, {"D100_RATE_PER_SECOND": "inf"},
                    {"D100_RATE_PER_SECOND": "nan"}):
        with pytest.raises(ValueError, match="D100_RATE"):
            Limits.from_env(bad_env)


def test_a_body_over_the_cap_is_refused_unread(sqlite_client: TestClient) -> None:
    r = sqlite_client.post(
        "/api/odds", content=b"[" * (65 * 1024), headers={"content-type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["error"]["field"] == "body"
    r = sqlite_client.post(
        "/api/odds", content=b"[" * 5000 + b"]" * 5000, headers={"content-type": "application/json"}
    )
    assert r.status_code in (400, 422) and "error" in r.json()


def sheet(name: str, skill: str = "stealth") -> str:
    return f'name = "{name}"\nsystem = "brp"\nskills = {{ "{skill}" = 50 }}\n'


def over(table: Table) -> list[tuple[str, str, dict[str, Any], str]]:
    """(method, path, body, field) for a value just past each limit."""
    character = table.character(table.gm, "Orc")
    return [
        ("POST", "/characters", {"sheet": sheet("x" * 81)}, "sheet.name"),
        ("POST", "/characters", {"sheet": sheet("a\\u0000b")}, "sheet.name"),
        ("POST", "/characters", {"sheet": "#" * 20_001}, "sheet"),
        ("PUT", "/me/client-seed", {"client_seed": "s" * 129}, "client_seed"),
        ("POST", "/calls", {"skill": "s" * 81, "character_ids": [character]}, "skill"),
        (
            "POST",
            "/calls",
            {"skill": "stealth", "character_ids": [character] * 51},
            "character_ids",
        ),
        (
            "POST",
            "/calls",
            {"skill": "stealth", "hazard": "h" * 501, "character_ids": [character]},
            "hazard",
        ),
        (
            "POST",
            "/calls",
            {"skill": "stealth", "hazard": "a\x00b", "character_ids": [character]},
            "hazard",
        ),
        (
            "POST",
            "/rolls",
            {"actor": {"character_id": character, "skill": "stealth", "dice": [50] * 101}},
            "actor.dice",
        ),
        (
            "POST",
            "/rolls",
            {
                "actor": {
                    "character_id": character,
                    "skill": "stealth",
                    "fields": {"modifiers": [1] * 101},
                }
            },
            "modifiers",
        ),
        (
            "POST",
            "/rolls",
            {
                "actor": {
                    "character_id": character,
                    "skill": "stealth",
                    "fields": {str(i): 0 for i in range(51)},
                }
            },
            "actor.fields",
        ),
        ("GET", f"/events?after={2**31}", {}, "after"),
    ]


def test_every_input_has_a_size_limit(api: Api) -> None:
    """On SQLite and PostgreSQL (whose columns refuse what SQLite stores): a value just past
    its limit is a 422 naming the field, never a 500."""
    table = api.table()
    cases = over(table)
    for method, path, body, field in cases:
        r = table.req(method, path, table.gm, json=body or None)
        assert r.status_code == 422, (path, field, r.status_code, r.text[:300])
        assert field in r.json()["error"]["field"], (field, r.json())
    for name, body in (
        ("name", {"name": "n" * 201, "system": "brp"}),
        ("gm_name", {"name": "Keep", "system": "brp", "gm_name": "\x00"}),
        ("settings", {"name": "Keep", "system": "brp", "settings": {str(i): 1 for i in range(51)}}),
    ):
        r = api.client.post("/api/tables", json=body)
        assert r.status_code == 422 and r.json()["error"]["field"] == name, r.text
    r = api.client.post("/api/join", json={"invite": table.invite, "name": "n" * 81})
    assert r.status_code == 422 and r.json()["error"]["field"] == "name"
    # At the limit, each is accepted and stored.
    at_limit = table.ok(
        "POST", "/characters", table.gm, 201, json={"sheet": sheet("x" * 80, "s" * 80)}
    )
    assert at_limit["name"] == "x" * 80
    table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={"skill": "s" * 80, "hazard": "h" * 500, "character_ids": [at_limit["id"]]},
    )
    table.ok("PUT", "/me/client-seed", table.gm, json={"client_seed": "s" * 128})
