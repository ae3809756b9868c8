"""Migrations keep what was acknowledged: a database the server filled, taken back to the first
revision and forward again, still holds every table, member, character and log event, and the
server goes on serving and rolling on it (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import text

from d100.cli.verify import audit_log
from d100.server.app import create_app
from d100.server.store import MIGRATIONS, Store
from tests.conftest import need_service

from .services import postgres_available, postgres_database
from .tablehelp import Api, Table

FIRST = "0001"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of this test's own: a migration goes down and up over every table in it, and
    the worker's shared PostgreSQL database holds other tests' (a beacon-bound seed left
    unrevealed rightly stops a downgrade)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'd100.sqlite3'}"
        return
    need_service(postgres_available(), "PostgreSQL is not running at 127.0.0.1:5432")
    with postgres_database() as url:
        yield url


def _alembic(store: Store, action: str, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        getattr(command, action)(config, revision)


def _character(character_id: str, sheet: str, luck: int | None) -> tuple[str, str]:
    """A character as the server reads it: its sheet, with the Luck of its column. Going back
    to the first revision writes the Luck spent into the sheet's text (the older server reads
    it there); forward again, the column holds it and the text keeps it."""
    if luck is not None and f"current = {luck}," not in sheet:
        sheet = re.sub(r"current = \d+,", f"current = {luck},", sheet, count=1)
    return character_id, sheet


def _rows(store: Store) -> dict[str, Any]:
    """What the first revision already held, row by row, in a stable order."""
    with store.engine.connect() as c:
        return {
            "tables": c.execute(
                text("SELECT id, name, last_seq FROM game_tables ORDER BY id")
            ).all(),
            "members": c.execute(text("SELECT id, name, role FROM members ORDER BY id")).all(),
            "characters": [
                _character(*row)
                for row in c.execute(
                    text("SELECT id, sheet, luck_current FROM characters ORDER BY id")
                )
            ],
            "events": c.execute(
                text("SELECT table_id, seq, kind FROM events ORDER BY table_id, seq")
            ).all(),
            "open seeds": c.execute(
                text("SELECT id, next_nonce FROM seed_sessions WHERE NOT blind ORDER BY id")
            ).all(),
        }


def _play(client: TestClient) -> tuple[Table, str, str]:
    table = Api(client).table("brp")
    pat = table.join("Pat")
    alice = table.character(pat, "Alice")
    table.roll(pat, alice, "stealth")
    table.roll(pat, alice, "dodge", actor={"dice": [42]})
    table.roll(table.gm, table.character(table.gm, "Orc"), "spot", visibility="gm")
    return table, pat, alice


def test_down_to_the_first_revision_and_up_again_loses_nothing(database_url: str) -> None:
    with TestClient(create_app(database_url)) as client:
        table, pat, alice = _play(client)
        before_log = table.req("GET", "/log.jsonl", table.gm).text
    store = Store(database_url)
    try:
        before = _rows(store)
        assert len(before["events"]) >= 3
        _alembic(store, "downgrade", FIRST)
        with store.engine.connect() as c:
            assert c.execute(text("SELECT version_num FROM alembic_version")).scalar() == FIRST
        _alembic(store, "upgrade", "head")
        assert _rows(store) == before
        with store.engine.connect() as c:  # 0002 gives every table its blind seed again
            blind = c.execute(text("SELECT table_id FROM seed_sessions WHERE blind")).all()
        assert sorted(t for (t,) in blind) == [t[0] for t in before["tables"]]
        assert table.id in {t[0] for t in before["tables"]}
    finally:
        store.dispose()
    with TestClient(create_app(database_url)) as client:
        table.api = Api(client)
        assert table.req("GET", "/log.jsonl", table.gm).text == before_log
        event = table.roll(pat, alice, "stealth")
        assert event["seq"] == json.loads(before_log.splitlines()[-1])["seq"] + 1


def test_an_empty_database_migrates_in_either_direction(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'd.sqlite3'}")
    try:
        store.migrate()
        _alembic(store, "downgrade", "base")
        with store.engine.connect() as c:
            names = {r[0] for r in c.execute(text("SELECT name FROM sqlite_master"))}
        assert "game_tables" not in names and "events" not in names
        store.migrate()
        assert _rows(store)["tables"] == []
    finally:
        store.dispose()


def test_luck_and_helpers_go_back_to_the_sheet_and_the_target_and_come_again(
    database_url: str,
) -> None:
    """0004 keeps Luck in columns and a called test's helpers in rows of their own: taken back
    to 0003, the Luck spent is written into the sheet and the helpers into the target, as the
    older server reads them; forward again, the table reads as it did."""
    with TestClient(create_app(database_url)) as client:
        api = Api(client)
        brp = api.table("brp")
        pat = brp.join("Pat")
        alice = brp.character(pat, "Alice")
        brp.roll(pat, alice, "stealth", actor={"fields": {"luck_boost": True}})  # 3 -> 2
        oq = api.table("openquest")
        sam = oq.join("Sam")
        bob, carl = oq.character(sam, "Bob"), oq.character(oq.gm, "Carl")
        called = {"skill": "stealth", "character_ids": [bob]}
        call = oq.ok("POST", "/calls", oq.gm, 201, json=called)
        target = call["targets"][0]["id"]
        oq.ok("POST", f"/targets/{target}/assists", oq.gm, 201,
              json={"character_id": carl, "skill": "stealth"})
        before = (brp.ok("GET", "", brp.gm)["characters"], oq.ok("GET", "", oq.gm)["calls"])
    store = Store(database_url)
    try:
        _alembic(store, "downgrade", "0003")
        with store.engine.connect() as c:
            sheet = c.execute(text("SELECT sheet FROM characters WHERE id = :i"), {"i": alice})
            assert "current = 2," in sheet.scalar_one()
            query = text("SELECT assists FROM call_targets WHERE id = :i")
            helpers = c.execute(query, {"i": target})
            found = helpers.scalar_one()
            assert (json.loads(found) if isinstance(found, str) else found) == [
                {"character_id": carl, "skill": "stealth"}
            ]
        _alembic(store, "upgrade", "head")
    finally:
        store.dispose()
    with TestClient(create_app(database_url)) as client:
        brp.api = oq.api = Api(client)
        after = (brp.ok("GET", "", brp.gm)["characters"], oq.ok("GET", "", oq.gm)["calls"])
    assert after == before
    assert after[0][0]["luck"] == {"current": 2, "maximum": 5}


def test_a_downgrade_keeps_each_chain_s_seeds_secret_and_an_upgrade_brings_them_back(
    database_url: str,
) -> None:
    """0008 puts seeds in chains by audience. Taken back to 0007, whose server lists every
    seed to every member, a private chain's seed is out of use with no seed shown (kept
    aside); forward again it is back, the rolls go on on it, and every export verifies."""
    with TestClient(create_app(database_url)) as client:
        table, pat, _ = _play(client)  # the GM's gm roll of the Orc: the GM's chain
        seeds = table.ok("GET", "", table.gm)["seeds"]
        private = {s["id"] for s in seeds if s["chain"] not in ("open", "blind")}
        assert len(private) == 1
    store = Store(database_url)
    try:
        _alembic(store, "downgrade", "0007")
        with store.engine.connect() as c:
            rows = c.execute(
                text(
                    "SELECT id, server_seed, revealed_at FROM seed_sessions "
                    "WHERE NOT blind AND table_id = :t"
                ),
                {"t": table.id},
            ).all()
        shown = {seed_id: server_seed for seed_id, server_seed, _ in rows}
        assert all(shown[s] == "" for s in private), shown  # nothing the older server lists
        assert sum(1 for _, _, revealed in rows if revealed is None) == 1, rows  # the open one
        _alembic(store, "upgrade", "head")
    finally:
        store.dispose()
    with TestClient(create_app(database_url)) as client:
        table.api = Api(client)
        orc = next(
            c["id"] for c in table.ok("GET", "", table.gm)["characters"] if c["name"] == "Orc"
        )
        again = table.roll(table.gm, orc, "spot", visibility="gm")
        assert again["provable"]["seed_id"] in private and again["provable"]["nonce"] == 1
        table.ok("POST", "/seeds/rotate", table.gm)
        for token in (table.gm, pat):
            lines = table.req("GET", "/log.jsonl", token).text.splitlines()
            out = audit_log(lines).to_dict()
            assert out["ok"] and out["unverifiable"] == 0, out
