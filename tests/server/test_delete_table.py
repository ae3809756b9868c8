"""A GM deletes a table for good: its log and every row it holds go, every link to it stops
working, its live streams are told and closed; nobody else may, and they learn nothing from
trying (a stranger's answer is an unknown table's); and what its address opened stays counted
in the tables quota."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from d100.server.app import create_app
from d100.server.models import Base
from d100.server.quotas import Quotas

from .sse import Stream
from .tablehelp import Api, Table, unused_address
from .test_access_matrix import serve_in_thread


@dataclass
class Served:
    app: FastAPI
    base: str
    api: Api


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """One server per database for the module (streams need a real one)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('deleting') / 'd100.sqlite3'}"
    else:
        url = request.getfixturevalue("pg_url")
    app = create_app(url)
    for base in serve_in_thread(app):
        with httpx.Client(base_url=base, timeout=30) as client:
            yield Served(app, base, Api(client))


def rows(app: FastAPI) -> dict[str, int]:
    """How many rows each of the store's tables holds."""
    with app.state.server.store.read() as session:
        return {
            t.name: int(session.scalar(select(func.count()).select_from(t)) or 0)
            for t in Base.metadata.sorted_tables
        }


def played(api: Api) -> tuple[Table, str]:
    """A table with something in every kind of row: a player, characters, rolls in each
    visibility (each chain's seeds, a blind roll), one with an idempotency key, a rotation,
    a called test with a helper; and the player's token."""
    table = api.table("chances")
    pat = table.join("Pat")
    alice, bob = table.character(pat, "Alice"), table.character(table.gm, "Bob")
    for visibility in ("public", "gm", "blind", "self"):
        table.roll(
            pat, alice, "sneaking", visibility=visibility, actor={"fields": {"risk": "easy"}}
        )
    body = {"actor": {"character_id": alice, "skill": "hearing", "fields": {"risk": "easy"}}}
    table.ok("POST", "/rolls", pat, 201, json=body, headers={"idempotency-key": "once"})
    table.ok("POST", "/seeds/rotate", table.gm)
    call = table.ok(
        "POST",
        "/calls",
        table.gm,
        201,
        json={"skill": "sneaking", "fields": {"risk": "easy"}, "character_ids": [alice]},
    )
    target = call["targets"][0]["id"]
    table.ok(
        "POST",
        f"/targets/{target}/assists",
        table.gm,
        201,
        json={"character_id": bob, "skill": "sneaking"},
    )
    return table, pat


def test_the_gm_deletes_the_table_and_every_row_it_holds(served: Served) -> None:
    kept, kept_pat = played(served.api)
    before = rows(served.app)
    doomed, pat = played(served.api)
    assert all(
        rows(served.app)[name] > count
        for name, count in before.items()
        # Discord's rows are a channel's; an opening is its opener's, kept for the quota
        if name not in ("discord_channels", "discord_members", "discord_posts", "openings")
    ), rows(served.app)
    r = doomed.req("DELETE", "", doomed.gm)
    assert r.status_code == 204, r.text
    assert rows(served.app) == before  # every row of the table, and only those
    for token in (doomed.gm, pat):  # every link stops working
        assert doomed.req("GET", "", token).status_code == 401
        signed = served.api.client.post("/api/session", json={"token": token})
        assert signed.status_code == 401
    invited = served.api.client.post("/api/invitation", json={"invite": doomed.invite})
    assert invited.status_code == 401
    assert doomed.req("DELETE", "", doomed.gm).status_code == 401  # gone: as any unknown table
    # the other table plays on, its log whole
    alice = next(
        c["id"] for c in kept.ok("GET", "", kept_pat)["characters"] if c["name"] == "Alice"
    )
    assert kept.roll(kept_pat, alice, "sneaking", actor={"fields": {"risk": "easy"}})["result"]
    assert [e["seq"] for e in kept.events(kept.gm)] == list(range(1, len(kept.events(kept.gm)) + 1))


def test_only_the_gm_deletes_and_a_stranger_learns_nothing(served: Served) -> None:
    table = served.api.table()
    pat = table.join("Pat")
    stranger = served.api.table()  # the GM of another table
    refused = table.req("DELETE", "", pat)
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "token"

    def answer(table_id: str, token: str | None) -> tuple[int, dict[str, object]]:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        r = served.api.client.delete(f"/api/tables/{table_id}", headers=headers)
        return r.status_code, r.json()

    for token in (stranger.gm, None, "not-a-token"):
        assert answer(table.id, token) == answer("AAAAAAAAAAAA", token)
        assert answer(table.id, token)[0] == 401
    assert table.ok("GET", "", table.gm)["table"]["id"] == table.id  # still there


def test_its_live_streams_are_told_and_closed(served: Served) -> None:
    table = served.api.table()
    pat = table.join("Pat")
    start = table.ok("GET", "", pat)["table"]["last_seq"]
    with (
        Stream(served.base, table.id, pat, start) as player,
        Stream(served.base, table.id, table.gm, start) as gm,
    ):
        assert table.req("DELETE", "", table.gm).status_code == 204
        for stream in (player, gm):
            kind, _, data = stream.next()
            assert kind == "denied" and data["error"]["field"] == "token"
            with pytest.raises(EOFError):
                stream.next()


def test_deleting_gives_no_table_back_to_the_quota(database_url: str) -> None:
    """An address that deleted a table it opened has opened it all the same: deleting and
    opening again and again opens no more tables a day than the quota."""
    app = create_app(database_url, quotas=Quotas(tables_per_day=2))
    with TestClient(app, client=(unused_address(), 4000)) as client:
        api = Api(client)
        for _ in range(2):
            table = api.table()
            assert table.req("DELETE", "", table.gm).status_code == 204
        refused = client.post("/api/tables", json={"name": "Again", "system": "brp"})
        assert refused.status_code == 429 and refused.json()["error"]["field"] == "tables"
