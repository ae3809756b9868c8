"""Abuse and cross-site requests: the Origin check on the stream and on cookie-signed writes,
per-token rate limits (429 with Retry-After), a cap on every input's size."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.server.admission import Admission
from d100.server.app import create_app
from d100.server.guard import LOOPBACK, Buckets, Limits
from d100.server.store import Store

from .services import migrated_sqlite
from .tablehelp import SHEETS, Api, Table, bearer, token_of

GUARDED = pytest.mark.sqlite_only(
    "A revoked member kept out, a sheet's limits and the engine's cap on helpers: the "
    "guard's and the rules' refusals. The inputs that reach the store (sizes, hostile "
    "JSON) stay on both databases."
)

SELF = "http://testserver"  # TestClient's own origin


@pytest.fixture
def sqlite_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(migrated_sqlite(tmp_path / "d100.sqlite3"))) as c:
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
        migrated_sqlite(tmp_path / "d100.sqlite3"), limits=Limits(burst=5, per_second=0.5)
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
    assert Limits.from_env({}) == Limits(hosts=LOOPBACK)  # unset: today's limits, loopback
    assert Limits.from_env({"D100_HOSTS": "*"}).hosts is None
    assert Limits.from_env({"D100_HOSTS": "d100.example, Table.example"}).hosts == {
        "d100.example",
        "table.example",
    }
    raised = Limits.from_env({"D100_RATE_BURST": "1000000", "D100_RATE_PER_SECOND": "2.5"})
    assert (raised.burst, raised.per_second) == (1_000_000, 2.5)
    assert raised.body_bytes == Limits().body_bytes  # only the rate moves
    for bad_env in (
        {"D100_RATE_BURST": "0"},
        {"D100_RATE_BURST": "many"},
        {"D100_RATE_PER_SECOND": "0"},
        {"D100_RATE_PER_SECOND": "inf"},
        {"D100_RATE_PER_SECOND": "nan"},
    ):
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


# -- hostile input: each a clean 4xx naming the field, never a 5xx (on both databases) -------

HOSTILE = {  # raw JSON: what a JSON library in the client would refuse to send
    "lone surrogate": '"\\ud800"',
    "NaN": "NaN",
    "Infinity": "-Infinity",
    "a number too large for a float": "1e400",
    "nesting 900 deep": "[" * 900 + "]" * 900,
}


def hostile_bodies(table: Table, character: str) -> list[tuple[str, str, str]]:
    """(path, raw body, the field the refusal must name) with each hostile value in a name,
    a roll's fields, its modifiers, house rules and a sheet."""
    out = []
    for value in HOSTILE.values():
        out += [
            ("/api/tables", f'{{"name": {value}, "system": "brp"}}', "name"),
            (
                "/api/tables",
                f'{{"name": "Keep", "system": "brp", "house_rules": {{"a": {value}}}}}',
                "house_rules",
            ),
            (
                f"/api/tables/{table.id}/rolls",
                f'{{"actor": {{"character_id": "{character}", "skill": "stealth", '
                f'"fields": {{"modifiers": [{value}]}}}}}}',
                "actor.fields.modifiers",
            ),
            (
                f"/api/tables/{table.id}/rolls",
                f'{{"actor": {{"character_id": "{character}", "skill": "stealth", '
                f'"fields": {{"x": {value}}}}}}}',
                "actor.fields.x",
            ),
            ("/api/odds", f'{{"system": "brp", "skill": {value}}}', "skill"),
            (f"/api/tables/{table.id}/characters", f'{{"sheet": {value}}}', "sheet"),
        ]
    return out


def test_hostile_json_is_a_4xx_naming_the_field(api: Api) -> None:
    table = api.table()
    orc = table.character(table.gm, "Orc")
    for path, raw, field in hostile_bodies(table, orc):
        r = api.client.post(
            path,
            content=raw.encode(),
            headers={**bearer(table.gm), "content-type": "application/json"},
        )
        assert r.status_code == 422, (path, raw[:60], r.status_code, r.text[:300])
        named = r.json()["error"]["field"]
        assert named.startswith(field), (raw[:40], named)
    # Event numbers past a 32-bit column (PostgreSQL) and a 64-bit one (SQLite).
    for seq in (2**31, 2**63):
        r = table.req("POST", f"/rolls/{seq}/unblind", table.gm)
        assert r.status_code == 422 and r.json()["error"]["field"] == "path.seq", r.text
        r = table.req("GET", f"/events?after={seq}", table.gm)
        assert r.status_code == 422 and r.json()["error"]["field"] == "query.after", r.text


def test_a_body_that_trickles_in_is_refused() -> None:
    """Slowloris on the body: the guard stops waiting after ``body_seconds``."""
    import asyncio

    from d100.server.errors import ApiError
    from d100.server.guard import _read_body

    async def never() -> dict[str, Any]:
        await asyncio.sleep(60)
        raise AssertionError("unreachable")

    with pytest.raises(ApiError) as refused:
        asyncio.run(_read_body(never, Limits(body_seconds=0.05)))
    assert refused.value.status == 408 and refused.value.field == "body"


def test_every_answer_carries_the_security_headers(sqlite_client: TestClient) -> None:
    for path in ("/", "/t/x", "/static/app.css", "/api/systems", "/api/tables/x", "/health"):
        r = sqlite_client.get(path)
        assert r.headers["x-content-type-options"] == "nosniff", path
        assert r.headers["referrer-policy"] == "no-referrer", path
        csp = r.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
    assert "frame-ancestors 'none'" in sqlite_client.get("/docs").headers["content-security-policy"]


def test_only_the_configured_host_names_are_answered(tmp_path: Path) -> None:
    """DNS rebinding: a page at evil.example resolving to this server sends Host: evil.example."""
    app = create_app(
        migrated_sqlite(tmp_path / "d100.sqlite3"), limits=Limits(hosts=frozenset({"d100.example"}))
    )
    with TestClient(app, base_url="http://d100.example:8100") as client:
        assert client.get("/api/systems").status_code == 200
        for host in ("evil.example", "d100.example.evil.example", "127.0.0.1"):
            for path in ("/api/systems", "/", "/health"):
                r = client.get(path, headers={"host": host})
                assert r.status_code == 421 and r.json()["error"]["field"] == "host", (host, path)


def test_made_up_tokens_share_their_address_s_bucket(tmp_path: Path) -> None:
    """Every made-up bearer token used to get a bucket of its own (and a flood of them
    evicted the real ones): now they all count against the client's address."""
    app = create_app(
        migrated_sqlite(tmp_path / "d100.sqlite3"), limits=Limits(burst=6, per_second=0.1)
    )
    with TestClient(app) as client:
        table = Api(client).table()  # 1 from this address
        statuses = [table.req("GET", "", f"made-up-{i}").status_code for i in range(8)]
        assert statuses[:5] == [401] * 5 and statuses[-1] == 429, statuses
        assert table.req("GET", "", table.gm).status_code == 200  # the GM's own bucket


def test_made_up_tokens_are_looked_up_one_at_a_time_per_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token not seen yet costs a thread and a query to look up, and a flood of made-up
    ones from one address took a thread each, as many at once as it sent. Now an address's
    lookups run one at a time (a few waiting, refused beyond), whatever its allowance."""
    running, most = [0], [0]
    real = Store.member_table

    def counted(self: Store, hashed: str) -> str | None:
        running[0] += 1
        most[0] = max(most[0], running[0])
        time.sleep(0.02)  # a slow query: lookups sent together overlap if they may
        running[0] -= 1
        return real(self, hashed)

    monkeypatch.setattr(Store, "member_table", counted)
    app = create_app(migrated_sqlite(tmp_path / "d100.sqlite3"), limits=Limits(burst=6))
    with TestClient(app) as client:
        table = Api(client).table()
        statuses: list[int] = []

        def made_up(i: int) -> None:
            statuses.append(table.req("GET", "", f"made-up-{i}").status_code)

        threads = [threading.Thread(target=made_up, args=(i,)) for i in range(30)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert len(statuses) == 30 and set(statuses) <= {401, 429}, statuses
    assert most[0] == 1, most


@pytest.mark.parametrize("header", ["authorization", "cookie"])
def test_a_repeated_header_is_read_as_the_routes_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str
) -> None:
    """The routes read the first of a repeated header (Starlette's ``headers.get``); the
    guard read the last. A member sending their token, then a made-up one (or a cookie
    header without the table's cookie), was answered as the member but counted with their
    address: a share of the server's threads besides their table's (one per address they
    send from), and their address's rate limit instead of their token's."""
    groups: list[str] = []
    turn = Admission.turn

    def counted(self: Admission, table: str) -> Any:
        groups.append(table)
        return turn(self, table)

    monkeypatch.setattr(Admission, "turn", counted)
    app = create_app(
        migrated_sqlite(tmp_path / "d100.sqlite3"), limits=Limits(burst=6, per_second=0.1)
    )
    with TestClient(app) as client:
        table = Api(client).table()
        assert table.req("GET", "", table.gm).status_code == 200  # the GM's token is known
        for i in range(8):  # the address's allowance spent: made-up tokens are refused
            table.req("GET", "", f"made-up-{i}")
        assert table.req("GET", "", "made-up").status_code == 429
        if header == "authorization":
            sent = [("authorization", f"Bearer {table.gm}"), ("authorization", "Bearer made-up")]
        else:
            sent = [("cookie", f"d100_{table.id}={table.gm}"), ("cookie", "other=1")]
        groups.clear()
        answer = client.get(f"/api/tables/{table.id}", headers=sent)
        assert answer.status_code == 200, answer.text  # the GM's request, on the GM's bucket
        assert answer.json()["me"]["role"] == "gm"
        assert groups == [f"table:{table.id}"], groups  # and in the GM's table's turn


def test_made_up_tokens_from_a_member_s_address_do_not_lock_the_member_out(
    tmp_path: Path,
) -> None:
    """A player joins (or the server restarts, or their token was the idlest forgotten) and
    someone at the same address sends made-up tokens faster than the address's rate: every
    request of the member is refused before their token is looked up, for as long as the
    flood goes on, when the lookup waited on the address's allowance; a real token gets its
    own bucket, whatever the address's."""
    app = create_app(
        migrated_sqlite(tmp_path / "d100.sqlite3"), limits=Limits(burst=6, per_second=0.1)
    )
    with TestClient(app) as client:
        table = Api(client).table()  # 1 from this address
        pat = table.join("Pat")  # 1 more; Pat's token is not seen yet
        for i in range(8):  # someone else at the address, with made-up tokens
            table.req("GET", "", f"made-up-{i}")
        assert table.req("GET", "", pat).status_code == 200


@pytest.mark.slow
def test_a_flood_of_made_up_tokens_keeping_the_lookups_full_does_not_refuse_a_member(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone at a member's address (a NAT, the table's wifi) keeps made-up tokens in
    flight. When an address's lookups could queue only 16, the member's first request (after
    joining, or after a restart) found the queue full and was refused 429 before their token
    was looked up: 4 to 5 times in 38 against a real server (SQLite and PostgreSQL, 48
    connections from the address), every time with a query as slow as here. Now it waits
    its turn behind the flood's lookups in flight."""
    real = Store.member_table
    looked_up = [0]

    def slow(self: Store, hashed: str) -> str | None:
        time.sleep(0.02)  # a busy database: each lookup takes a while
        looked_up[0] += 1
        return real(self, hashed)

    monkeypatch.setattr(Store, "member_table", slow)
    app = create_app(migrated_sqlite(tmp_path / "d100.sqlite3"))
    with TestClient(app) as client:
        table = Api(client).table()
        pat = table.join("Pat")  # not seen yet
        answered = threading.Event()  # the flood goes on till the member is answered
        flooders = 24

        def flood(i: int) -> None:
            n = 0
            while not answered.is_set():
                n += 1
                table.req("GET", "", f"made-up-{i}-{n}")

        threads = [threading.Thread(target=flood, args=(i,)) for i in range(flooders)]
        for thread in threads:
            thread.start()
        try:
            give_up = time.monotonic() + 60
            while looked_up[0] < 2 * flooders:  # the flood's lookups fill the address's turn
                assert time.monotonic() < give_up, looked_up
                time.sleep(0.01)
            status = table.req("GET", "", pat).status_code
        finally:
            answered.set()
            for thread in threads:
                thread.join(60)
    assert status == 200, status


@GUARDED
def test_revoke_keeps_them_out_and_the_gm_sees_it(api: Api) -> None:
    """The revoked player holds the invite link: it is renewed, the GM gets the new one, and
    the log says what happened."""
    table = api.table()
    sam = table.join("Sam")
    sam_id = table.ok("GET", "", sam)["me"]["id"]
    revoked = table.ok("POST", f"/members/{sam_id}/revoke", table.gm)
    assert revoked["revoked"] and revoked["invite_link"]
    again = api.client.post("/api/join", json={"invite": table.invite, "name": "Sam again"})
    assert again.status_code == 401
    assert table.req("GET", "", sam).status_code == 401
    fresh = token_of(revoked["invite_link"])
    assert (
        api.client.post("/api/join", json={"invite": fresh, "name": "Newcomer"}).status_code == 201
    )
    api.client.cookies.clear()
    event = next(e for e in table.events(table.gm) if e["kind"] == "revoke")
    assert event["member"]["id"] == sam_id and event["invite_renewed"] is True


@GUARDED
def test_sheet_limits_and_edits_logged_with_what_changed(api: Api) -> None:
    table = api.table()
    pat = table.join("Pat")
    base = 'name = "Alice"\nsystem = "brp"\n'
    for body, field in (
        (
            base + "skills = { " + ", ".join(f"s{i} = 1" for i in range(101)) + " }\n",
            "sheet.skills",
        ),
        (base + 'skills = { "a\\u0000b" = 5 }\n', "sheet.skills"),
        (base + 'skills = { "line\\nbreak" = 5 }\n', "sheet.skills"),
        (base + 'skills = { "' + "s" * 81 + '" = 5 }\n', "sheet.skills"),
        (base + "luck = { current = 101, maximum = 1000 }\n", "sheet.luck.maximum"),
    ):
        r = table.req("POST", "/characters", pat, json={"sheet": body})
        assert r.status_code == 422 and r.json()["error"]["field"] == field, (body[:80], r.text)
    alice = table.character(pat, "Alice")
    for i in range(19):
        table.character(pat, f"Extra {i}")
    full = table.req("POST", "/characters", pat, json={"sheet": sheet("Extra 19")})
    assert full.status_code == 409 and full.json()["error"]["field"] == "member_id"
    # Pat restores Alice's Luck by editing the sheet: the GM sees it, and what changed.
    table.roll(pat, alice, "stealth", actor={"fields": {"luck_boost": True}})
    edited = SHEETS["brp"].format(name="Alice")  # Luck back at 3 of 5
    table.ok(
        "PUT",
        f"/characters/{alice}",
        pat,
        json={"sheet": edited.replace("stealth = 65", "stealth = 95")},
    )
    edit = [e for e in table.events(table.gm) if e["kind"] == "character" and e.get("changes")][-1]
    assert edit["changes"] == {"luck.current": [2, 3], "skills.stealth": [65, 95]}
    sam = table.join("Sam")
    stub = next(e for e in table.events(sam) if e["seq"] == edit["seq"])
    assert stub["kind"] == "hidden" and "changes" not in stub  # Alice's sheet is not Sam's


@GUARDED
def test_ch8_helpers_stop_at_the_engine_s_cap(api: Api) -> None:
    """With no max_assisters house rule, an eleventh helper used to be attached, and the
    called test then failed with a 422 on every try."""
    table = api.table("chances")
    sam = table.join("Sam")
    tested = table.character(sam, "Tested")
    helpers = [table.character(sam, f"Helper {i}") for i in range(11)]
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={"skill": "sneaking", "fields": {"risk": "easy"}, "character_ids": [tested]},
    )
    target = call["targets"][0]["id"]
    for helper in helpers[:10]:
        body = {"character_id": helper, "skill": "sneaking"}
        table.ok("POST", f"/targets/{target}/assists", sam, 201, json=body)
    body = {"character_id": helpers[10], "skill": "sneaking"}
    r = table.req("POST", f"/targets/{target}/assists", sam, json=body)
    assert r.status_code == 409 and "at most 10" in r.json()["error"]["allowed"]
    table.roll(sam, tested, None, target_id=target)  # the test still rolls


def test_forwarded_for_is_trusted_only_from_configured_proxies() -> None:
    from d100.server.config import proxy_options

    assert proxy_options({}) == {"proxy_headers": False, "forwarded_allow_ips": None}
    trusted = proxy_options({"D100_TRUSTED_PROXIES": "10.0.0.2"})
    assert trusted == {"proxy_headers": True, "forwarded_allow_ips": "10.0.0.2"}


@pytest.mark.parametrize("declared", ["999999999", "0" * 10 + "9" * 5000])
def test_a_body_declared_over_the_cap_is_refused_at_once(declared: str) -> None:
    """A 2-byte body declaring a gigabyte: refused for its declared length (413) before any
    of it is read, not after the body's time limit runs out (408). A length of more digits
    than Python converts to an int is over too."""
    import asyncio

    from d100.server.guard import Guard

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the app never sees it")

    async def receive() -> dict[str, Any]:
        if sent:
            await asyncio.sleep(60)  # the rest of the body, never sent
        sent.append(True)
        return {"type": "http.request", "body": b"{}", "more_body": True}

    sent: list[bool] = []
    answer: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        answer.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/odds",
        "headers": [(b"content-length", declared.encode()), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1),
    }
    guard = Guard(app, Limits(body_seconds=10), member_table=lambda _: None)
    asyncio.run(asyncio.wait_for(guard(scope, receive, send), 2))
    assert answer[0]["status"] == 413
    assert b'"field":"body"' in answer[1]["body"]
