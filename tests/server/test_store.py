"""The store on SQLite and PostgreSQL: migrations match the models, SQLite commits durably,
and the log is numbered without gaps."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from d100.server.models import Base
from d100.server.store import Store


def test_migrations_build_exactly_the_models(database_url: str) -> None:
    store = Store(database_url)
    try:
        store.migrate()
        store.migrate()  # a second run is a no-op
        with store.engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        assert diff == []
    finally:
        store.dispose()


def test_sqlite_is_wal_with_full_sync(tmp_path: object) -> None:
    store = Store(f"sqlite:///{tmp_path}/d.sqlite3")
    try:
        with store.read() as session:
            assert session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert session.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
    finally:
        store.dispose()


def test_a_failed_write_leaves_no_trace_and_wakes_nobody(database_url: str) -> None:
    woken: list[str] = []
    store = Store(database_url, on_commit=woken.append)
    try:
        store.migrate()
        from d100.server import tables

        with store.write() as session:
            made = tables.create_table(session, "T", "brp", "G", {}, {})
        assert woken == [made.table.id]
        try:
            with store.write() as session:
                tables.join(session, made.invite_token, "Pat")
                raise RuntimeError("crash before commit")
        except RuntimeError:
            pass
        with store.read() as session:
            seqs = session.execute(text("SELECT seq FROM events WHERE table_id = :t"),
                                   {"t": made.table.id}).scalars().all()
        assert seqs == [1] and woken == [made.table.id]
    finally:
        store.dispose()
