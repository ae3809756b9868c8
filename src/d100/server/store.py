"""The database: SQLite (one file, WAL, durable commits) or PostgreSQL, migrated by Alembic.

Every write runs in one transaction that commits before the caller answers, so a roll that was
acknowledged is on disk. After a commit the store calls ``on_commit`` with each table the
transaction touched: the live hub wakes that table's streams.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).parent / "migrations"
MIGRATION_LOCK = 0xD100  # pg_advisory_xact_lock key: servers starting together migrate once
TOUCHED = "d100_touched"
WRITE = "d100_write"


class Store:
    def __init__(self, url: str, on_commit: Callable[[str], None] | None = None) -> None:
        self.url: URL = make_url(url)
        self.on_commit = on_commit
        self.engine = _engine(self.url)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(
            self.engine.execution_options(**{WRITE: True}), expire_on_commit=False
        )
        # SQLite has one writer at a time. Writers of this process queue here, and the next
        # starts the moment the last commits; without it they wait in SQLite's busy handler,
        # which sleeps and polls (up to 100 ms a nap), leaving the database idle meanwhile.
        # Other processes on the same file still wait in the busy handler.
        self._writers: AbstractContextManager[object] = (
            nullcontext() if self.is_postgres else threading.RLock()
        )

    @property
    def is_postgres(self) -> bool:
        return self.url.get_backend_name() == "postgresql"

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._read() as session, session.begin():
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One transaction, committed (durably) on leaving the block, rolled back on error."""
        with self._writers, self._write() as session:
            with session.begin():
                yield session
            touched: set[str] = session.info.get(TOUCHED, set())
        if self.on_commit is not None:
            for table_id in touched:
                self.on_commit(table_id)

    def migrate(self) -> None:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self.engine.execution_options(**{WRITE: True}).begin() as connection:
            if self.is_postgres:
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                )
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def dispose(self) -> None:
        self.engine.dispose()


def touch(session: Session, table_id: str) -> None:
    """Mark a table as changed: its live streams wake after this transaction commits."""
    session.info.setdefault(TOUCHED, set()).add(table_id)


def _engine(url: URL) -> Engine:
    if url.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Take over BEGIN from the driver (see _sqlite_begin); WAL lets readers run beside the
    # writer, and synchronous=FULL makes each commit survive power loss, not only a crash.
    dbapi_connection.isolation_level = None
    for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", "busy_timeout=30000"):
        dbapi_connection.execute(f"PRAGMA {pragma}")


def _sqlite_begin(connection: Any) -> None:
    # A write starts IMMEDIATE, taking the write lock up front: a deferred transaction that
    # read first could not upgrade once another writer had committed (SQLITE_BUSY).
    write = connection.get_execution_options().get(WRITE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
