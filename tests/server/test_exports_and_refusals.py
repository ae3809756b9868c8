"""The log's export streams (bounded memory, a cap per table, a reader that stops reading is
dropped), and inputs that answered 500 are 422s naming the field or header: on SQLite and
on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.server import export
from d100.server.app import create_app
from d100.server.guard import Limits

from .tablehelp import Api, Table, bearer

ROLLS = 120


@pytest.fixture
def table(database_url: str) -> Iterator[tuple[TestClient, Table]]:
    limits = Limits(burst=10_000, per_second=1_000.0)  # a long log, made quickly
    with TestClient(create_app(database_url, limits=limits)) as client:
        yield client, Api(client).table()


def _long_log(table: Table, rolls: int = ROLLS) -> str:
    alice = table.character(table.gm, "Alice")
    for _ in range(rolls):
        table.roll(table.gm, alice, "stealth")
    return alice


def test_the_export_streams_a_batch_at_a_time(
    table: tuple[TestClient, Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built whole, an export held the log in memory (13.6 MB for 10,000 rolls, once per
    export at once); streamed, it holds a batch."""
    client, t = table
    _long_log(t)
    whole = client.get(f"/api/tables/{t.id}/log.jsonl", headers=bearer(t.gm))
    assert whole.status_code == 200 and whole.headers["content-type"] == "application/jsonl"
    lines = [json.loads(line) for line in whole.text.splitlines()]
    assert [e["seq"] for e in lines] == list(range(1, len(lines) + 1))
    assert sum(e["kind"] == "roll" for e in lines) == ROLLS

    monkeypatch.setattr(export, "BATCH", 10)
    tracemalloc.start()
    try:
        streamed = client.get(f"/api/tables/{t.id}/log.jsonl", headers=bearer(t.gm))
        # The test client gathers the whole answer: that is the body's own size, once.
        peak = tracemalloc.get_traced_memory()[1] - 2 * len(streamed.content)
    finally:
        tracemalloc.stop()
    assert streamed.content == whole.content  # the same log, read in 10-event batches
    assert peak < len(whole.content) / 2, (peak, len(whole.content))


def test_a_member_s_unread_exports_hold_their_own_place_not_the_table_s(
    table: tuple[TestClient, Table],
) -> None:
    """A player who starts an export and never reads it (again every 29 s) kept every other
    member from exporting: the table's two places were theirs. Now each member runs one
    export at a time, a table's players four between them, and a GM's always has a place."""
    client, t = table
    server = client.app.state.server  # type: ignore[attr-defined]
    exports: export.Exports = server.exports

    def viewer(token: str) -> Any:
        return export.last_event(server.store, t.id, token)[0]

    def exporting(token: str) -> Any:
        return client.get(f"/api/tables/{t.id}/log.jsonl", headers=bearer(token))

    hog, pat = t.join("Hog"), t.join("Pat")
    held = exports.take(viewer(hog))  # the hostile player's export, never read
    again = exporting(hog)
    assert again.status_code == 429 and again.headers["retry-after"]
    error = again.json()["error"]
    assert error["field"] == "log.jsonl" and "one export of the log at a time" in error["allowed"]
    assert exporting(pat).is_success and exporting(t.gm).is_success  # others are not held up
    more = [exports.take(viewer(t.join(f"Hog {n}"))) for n in range(3)]  # four players' places
    busy = exporting(pat)
    assert busy.status_code == 429
    assert "at most 4 players' exports" in busy.json()["error"]["allowed"]
    assert exporting(t.gm).is_success  # the GM's place is never a player's
    other = Api(client).table()  # another table's exports are its own
    assert client.get(f"/api/tables/{other.id}/log.jsonl", headers=bearer(other.gm)).is_success
    exports.give_back(held)
    assert exporting(pat).is_success
    for place in more:
        exports.give_back(place)
    assert exports.running == 0  # each export gave its place back


def test_an_export_to_a_reader_that_stops_reading_is_dropped(
    table: tuple[TestClient, Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, t = table
    _long_log(t, 3 * 10)  # three batches of 10: the reader stalls after the first
    server = client.app.state.server  # type: ignore[attr-defined]
    monkeypatch.setattr(export, "SEND_SECONDS", 0.2)
    monkeypatch.setattr(export, "BATCH", 10)
    viewer, last = export.last_event(server.store, t.id, t.gm)
    place = server.exports.take(viewer)
    response = export.LogExport(server.store, server.exports, place, t.gm, last)
    sent: list[Any] = []

    async def stalls(message: Any) -> None:  # the first batch goes, then the socket is full
        sent.append(message)
        if len(sent) > 2:
            await asyncio.Event().wait()

    async def never() -> Any:
        await asyncio.Event().wait()

    scope = {"type": "http", "asgi": {"spec_version": "2.4"}, "method": "GET"}
    asyncio.run(asyncio.wait_for(response(scope, never, stalls), 5))
    assert [m["type"] for m in sent] == ["http.response.start", *["http.response.body"] * 2]
    assert server.exports.running == 0  # its place is back


def test_numbers_too_long_and_keys_too_deep_in_a_sheet_are_422s(api: Api) -> None:
    """Each was a 500 (Python's limit on decimal digits; an error message that itself failed
    to render a 4,000-digit hex number or 3,000 levels of dotted keys)."""
    t = api.table()
    base = 'name = "Alice"\nsystem = "brp"\n'
    cases = {
        "a skill of 5,000 digits": (base + "skills = { stealth = " + "1" * 5000 + " }\n",
                                    "sheet"),
        "Luck of 5,000 digits": (base + "luck = { current = " + "9" * 5000 + ", maximum = 5 }\n",
                                 "sheet"),
        "0x and 4,000 hex digits": (base + "skills = { stealth = 0x" + "f" * 4000 + " }\n",
                                    "sheet.skills.stealth"),
        "3,000 levels of dotted keys": (base + "x" + ".x" * 3000 + " = 1\n", "sheet.x"),
        "3,000 levels in the skills": (base + "skills.x" + ".x" * 3000 + " = 1\n",
                                       "sheet.skills.x"),
    }
    for name, (sheet, field) in cases.items():
        answer = t.req("POST", "/characters", t.gm, json={"sheet": sheet})
        assert answer.status_code == 422, (name, answer.text[:300])
        error = answer.json()["error"]
        assert error["field"] == field, (name, error)
        assert len(json.dumps(error)) < 2_000, name  # it says what it refused, briefly
    hexed = t.req("POST", "/characters", t.gm, json={"sheet": cases["0x and 4,000 hex digits"][0]})
    assert "4,816 digits" in hexed.json()["error"]["message"]
    assert t.ok("GET", "", t.gm)["characters"] == []  # nothing was stored


def test_an_origin_that_is_no_url_is_a_422_naming_the_header(api: Api) -> None:
    t = api.table()
    for origin in ("http://[::1", "http://[", "https://[v1.x"):
        answer = t.req("GET", "", t.gm, headers={"origin": origin})
        assert answer.status_code == 422, (origin, answer.text)
        error = answer.json()["error"]
        assert error["field"] == "origin" and error["value"] == origin, error
    assert t.req("GET", "", t.gm, headers={"origin": "http://testserver"}).is_success
    assert t.req("GET", "", t.gm, headers={"origin": "http://[::1]:8100"}).status_code == 403
