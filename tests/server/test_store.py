"""The store on SQLite and PostgreSQL: migrations match the models, SQLite commits durably,
the log is numbered without gaps, and concurrent writes are each answered only after their
commit."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from d100.server import event_kinds as kinds
from d100.server.events import append, lock_table
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
    store = Store(database_url, on_commit=lambda table_id, _: woken.append(table_id))
    try:
        store.migrate()
        from d100.server import gametables

        with store.write() as session:
            made = gametables.create_table(session, "T", "brp", "G", {}, {})
        assert woken == [made.table.id]
        try:
            with store.write() as session:
                gametables.join(session, made.invite_token, "Pat")
                raise RuntimeError("crash before commit")
        except RuntimeError:
            pass
        with store.read() as session:
            seqs = (
                session.execute(
                    text("SELECT seq FROM events WHERE table_id = :t"), {"t": made.table.id}
                )
                .scalars()
                .all()
            )
        assert seqs == [1] and woken == [made.table.id]
    finally:
        store.dispose()


def test_a_commit_that_fails_wakes_its_tables_streams_to_look_again(tmp_path: Path) -> None:
    """A COMMIT that fails may have landed (its answer lost on the way back): the streams of
    the tables it touched look again, finding nothing new if it did not. Made to fail here by
    a foreign key checked only at COMMIT."""
    woken: list[tuple[str, object]] = []
    store = Store(f"sqlite:///{tmp_path}/d.sqlite3", on_commit=lambda *told: woken.append(told))
    try:
        store.migrate()
        table_id = _table(store)
        woken.clear()
        with pytest.raises(IntegrityError), store.write() as session:
            _append(table_id)(session)
            _fail_at_commit(session)
        assert woken == [(table_id, None)]  # no events handed: the streams read the log
        assert [kind for _, kind in _log(store, table_id)] == ["table"]  # nothing landed here
    finally:
        store.dispose()


# -- concurrent writes -------------------------------------------------------------------------


def _table(store: Store) -> str:
    from d100.server import gametables

    with store.write() as session:
        return gametables.create_table(session, "T", "brp", "G", {}, {}).table.id


def _append(table_id: str) -> Callable[[Session], int]:
    def act(session: Session) -> int:
        return append(session, lock_table(session, table_id), kinds.rested("tester")).seq

    return act


def _log(store: Store, table_id: str) -> list[tuple[int, str]]:
    with store.read() as session:
        rows = session.execute(
            text("SELECT seq, kind FROM events WHERE table_id = :t ORDER BY seq"), {"t": table_id}
        )
        return [(seq, kind) for seq, kind in rows]


def _fail_at_commit(session: Session) -> None:
    """Make this SQLite transaction's COMMIT fail: a foreign key checked only then."""
    session.execute(text("PRAGMA defer_foreign_keys = ON"))
    session.execute(
        text(
            "INSERT INTO events (table_id, seq, kind, visibility, data, created_at) "
            "VALUES ('no such table', 1, 'x', 'public', '{}', '')"
        )
    )


def test_concurrent_writes_all_commit_in_order_before_their_answer(database_url: str) -> None:
    store = Store(database_url)
    try:
        store.migrate()
        table_id = _table(store)
        sessions: list[Session] = []  # kept, so no two share an id
        seen_committed: list[bool] = []
        fresh = Store(database_url)  # another engine: sees only what is committed

        def caller() -> int:
            with store.write() as session:
                sessions.append(session)
                time.sleep(0.002)  # others arrive meanwhile and wait for the table's lock
                seq = _append(table_id)(session)
            with fresh.read() as session:
                seen_committed.append(
                    session.execute(
                        text("SELECT count(*) FROM events WHERE table_id = :t AND seq = :s"),
                        {"t": table_id, "s": seq},
                    ).scalar_one()
                    == 1
                )
            return seq

        with ThreadPoolExecutor(16) as pool:
            seqs = list(pool.map(lambda _: caller(), range(64)))
        fresh.dispose()
        assert sorted(seqs) == list(range(2, 66))  # event 1 made the table
        assert [seq for seq, _ in _log(store, table_id)] == list(range(1, 66))
        assert all(seen_committed) and len(seen_committed) == 64
    finally:
        store.dispose()


def test_a_draw_takes_each_nonce_once_and_keeps_a_loaded_seed_in_step(database_url: str) -> None:
    """``draw`` takes the next nonce in the statement that reads it; a seed already loaded in
    the same transaction (by an earlier write of it) then holds the new next nonce."""
    from d100.server.access import BLIND, GM_CHAIN, OPEN, Chain
    from d100.server.events import get_table
    from d100.server.gametables import active_seed, draw
    from d100.server.models import Event, Member

    store = Store(database_url)
    try:
        store.migrate()
        table_id = _table(store)
        with store.write() as session:
            table = get_table(session, table_id)
            gm = session.query(Member).filter_by(table_id=table_id).one()
            loaded = active_seed(session, table_id, Chain(OPEN))
            assert loaded is not None
            first = draw(session, table, Chain(OPEN), gm.id)
            second = draw(session, table, Chain(OPEN), gm.id)
            assert (first.nonce, second.nonce) == (loaded.next_nonce - 2, loaded.next_nonce - 1)
            assert first.seed_id == loaded.id and first.client_seed == gm.client_seed
            blind = draw(session, table, Chain(BLIND), gm.id)
            assert blind.seed_id != loaded.id and blind.nonce == 0
            # A chain's first draw starts it, announced in the log before its roll.
            assert active_seed(session, table_id, Chain(GM_CHAIN)) is None
            last = table.last_seq
            private = draw(session, table, Chain(GM_CHAIN), gm.id)
            announced = session.get_one(Event, (table_id, last + 1))
            assert announced.kind == "chain" and private.nonce == 0
            assert announced.data["chains"][0]["id"] == private.seed_id
            again = draw(session, table, Chain(GM_CHAIN), gm.id)
            assert (again.seed_id, again.nonce, table.last_seq) == (private.seed_id, 1, last + 1)
        with store.read() as session:
            seed = active_seed(session, table_id, Chain(OPEN))
            assert seed is not None and seed.next_nonce == second.nonce + 1
    finally:
        store.dispose()
