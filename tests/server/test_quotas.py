"""Quotas on what the server's storage may be made to hold, each refused clearly while the
members of other tables go on: tables opened per address a day (one address once opened
tables and rolled as their GM at 76 rolls a second, 22 GB a day), events in a table's log,
and the database's size in all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.server.app import create_app
from d100.server.quotas import Quotas, database_bytes

from .tablehelp import Api, unused_address

MEMBER = ("198.51.100.7", 5000)


@pytest.fixture
def clients(database_url: str, request: pytest.FixtureRequest) -> Iterator[tuple[Api, Api]]:
    """An app with small quotas, and two clients of it at two addresses: a hostile one and a
    member's."""
    quotas: Quotas = request.param
    app = create_app(database_url, quotas=quotas)
    hostile_address = (unused_address(), 4000)  # the database's count is this test's alone
    with TestClient(app, client=hostile_address) as hostile, TestClient(
        app, client=MEMBER
    ) as member:
        yield Api(hostile), Api(member)


@pytest.mark.parametrize("clients", [Quotas(tables_per_day=3)], indirect=True)
def test_one_address_opening_tables_past_its_quota_is_told_429(clients: tuple[Api, Api]) -> None:
    hostile, member = clients
    mine = member.table()
    alice = mine.character(mine.gm, "Alice")
    for _ in range(3):
        hostile.table()
    refused = hostile.client.post("/api/tables", json={"name": "More", "system": "brp"})
    assert refused.status_code == 429, refused.text
    error = refused.json()["error"]
    assert error["field"] == "tables" and "at most 3 tables opened a day" in error["allowed"]
    assert int(refused.headers["retry-after"]) > 3600 * 7  # a third of a day to the next
    assert mine.roll(mine.gm, alice, "stealth")["result"]  # the member's roll is answered
    member.table()  # and another address opens its own


def test_an_ipv6_line_s_tables_are_counted_by_its_64(database_url: str) -> None:
    """One host holds a whole /64 and may pick any of its addresses: tables opened from
    four of them count as one address's, while another /64 opens its own."""
    app = create_app(database_url, quotas=Quotas(tables_per_day=3))
    prefix = unused_address(6)
    line = [(f"{prefix}::{n:x}", 4000 + n) for n in range(1, 5)]
    for host in line[:3]:
        with TestClient(app, client=host) as hostile:
            Api(hostile).table()
    with TestClient(app, client=line[3]) as hostile:
        refused = hostile.post("/api/tables", json={"name": "More", "system": "brp"})
        assert refused.status_code == 429, refused.text
    with TestClient(app, client=("::ffff:" + unused_address(), 4000)) as mapped:
        Api(mapped).table()  # an IPv4 address's own, as itself
    with TestClient(app, client=(unused_address(6) + "::1", 4000)) as other:
        Api(other).table()


@pytest.mark.parametrize("clients", [Quotas(events_per_table=12)], indirect=True)
def test_a_table_s_full_log_is_refused_clearly_and_read_as_ever(clients: tuple[Api, Api]) -> None:
    hostile, member = clients
    spam = hostile.table()
    bot = spam.character(spam.gm, "Bot")
    statuses = [spam.req("POST", "/rolls", spam.gm, json={"actor": {
        "character_id": bot, "skill": "stealth"}}).status_code for _ in range(15)]
    assert 201 in statuses and statuses[-1] == 409
    assert statuses == sorted(statuses)  # each answered till the log was full, then refused
    full = spam.req("POST", "/rolls", spam.gm, json={"actor": {
        "character_id": bot, "skill": "stealth"}}).json()["error"]
    assert full["field"] == "events" and full["value"] == 12
    assert "export it" in full["message"] and "D100_EVENTS_PER_TABLE" in full["allowed"]
    events = spam.events(spam.gm)
    assert events[-1]["seq"] == 12  # read as ever, nothing past the quota
    mine = member.table()
    alice = mine.character(mine.gm, "Alice")
    assert mine.roll(mine.gm, alice, "stealth")["result"]


@pytest.mark.parametrize("clients", [Quotas(database_bytes=1)], indirect=True)
def test_a_full_database_opens_no_new_table(clients: tuple[Api, Api]) -> None:
    hostile, _ = clients
    refused = hostile.client.post("/api/tables", json={"name": "More", "system": "brp"})
    assert refused.status_code == 409, refused.text
    error = refused.json()["error"]
    assert error["field"] == "database" and "D100_DATABASE_MAX_BYTES" in error["allowed"]


def test_the_database_s_size_is_its_own_figure(database_url: str) -> None:
    app = create_app(database_url)
    with TestClient(app):
        store = app.state.server.store
        with store.read() as session:
            before = database_bytes(session)
        Api(TestClient(app)).table()
        with store.read() as session:
            assert database_bytes(session) >= before > 0


def test_quotas_from_the_environment() -> None:
    assert Quotas.from_env({}) == Quotas(100, 100_000, None)
    said = {"D100_TABLES_PER_DAY": "5", "D100_EVENTS_PER_TABLE": "900",
            "D100_DATABASE_MAX_BYTES": "1000000"}
    assert Quotas.from_env(said) == Quotas(5, 900, 1_000_000)
    for name in said:
        for bad in ("0", "-1", "many", "1.5"):
            with pytest.raises(ValueError, match=name):
                Quotas.from_env({name: bad})


def test_the_tables_quota_holds_across_a_restart_and_frees_a_day_later(database_url: str) -> None:
    """The tables an address opened are counted in the database: a server started again on
    it (or another process) refuses the fourth as the first did; a table the quota refused,
    or one refused for its own reasons, counts nothing; a day after the first opening, one
    more may be opened (the clock is the test's)."""
    clock = [1_000_000.0]

    def app() -> Any:
        made = create_app(database_url, quotas=Quotas(tables_per_day=3))
        made.state.server.openings.clock = lambda: clock[0]
        return made

    hostile = (unused_address(), 4000)
    with TestClient(app(), client=hostile) as first:
        bad = first.post("/api/tables", json={"name": "Bad", "system": "brp", "house_rules": {
            "no such rule": 1}})
        assert bad.status_code == 422, bad.text
        for _ in range(3):
            Api(first).table()
            clock[0] += 60
    with TestClient(app(), client=hostile) as again:
        refused = again.post("/api/tables", json={"name": "More", "system": "brp"})
        assert refused.status_code == 429, refused.text
        assert int(refused.headers["retry-after"]) == 86_400 - 180  # the first's day, to go
        clock[0] += 86_400 - 180
        Api(again).table()  # the first opening's day is over
        refused = again.post("/api/tables", json={"name": "More", "system": "brp"})
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) == 60
