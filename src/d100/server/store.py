"""The database: SQLite (one file, WAL, durable commits) or PostgreSQL, migrated by Alembic.

Every write runs in a transaction that commits before the caller answers, so a roll that was
acknowledged is on disk. After a commit the store calls ``on_commit`` with each table the
transaction touched and the events it appended there: the live hub hands them to that table's
streams.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import bindparam, create_engine, event, func, inspect, select, text, update
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.pool import NullPool
from sqlalchemy.sql import Update

from .models import Member

MIGRATIONS = Path(__file__).parent / "migrations"
MIGRATION_LOCK = 0xD100  # pg_advisory_xact_lock key: servers starting together migrate once
TOUCHED = "d100_touched"
# session.info: this process serves a Discord endpoint, so a write's events of the kinds a
# table's channel is sent are queued for it (``events.append``); without one no roll looks
MIRROR = "d100_mirror"
APPENDED = "d100_appended"  # session.info: {table id: [what ``events.append`` wrote, in order]}
# session.info: the tables a member row of was changed (joined, revoked, a token made anew):
# their streams check their tokens again, reading the log from the database
RESEATED = "d100_reseated"
POSTED = "d100_posted"  # session.info: a channel post was queued (the sender looks at commit)
WRITE = "d100_write"
MOST_EVENTS = "d100_most_events"  # session.info: the events a table's log may hold (None: any)
# Connections kept open. Requests, and the live streams' reads of the log as they catch up
# (another process's event, reconnects), hold one each on a worker thread (anyio's 40): with
# SQLAlchemy's default of 5, each beyond that opened a connection and closed it after
# (PostgreSQL forks a backend per connection; SQLite reruns the PRAGMAs).
POOL, POOL_OVERFLOW = 30, 10
# On PostgreSQL each process takes at most its share of the server's ``max_connections``
# (less the superusers' reserve and ``SPARE`` for migrations, psql and backups): past it the
# server answers "too many clients" to whichever process asks next. A process needs at least
# ``LEAST_POOL`` pooled connections, and one more for its LISTEN (``live.listen``).
SPARE = 3
LEAST_POOL = 4


class PoolTooSmall(ValueError):
    """The database cannot give each process the connections it needs: refused at start."""


def pool_sizes(max_connections: int, reserved: int, processes: int) -> tuple[int, int]:
    """Each of ``processes``' pool size and overflow on a PostgreSQL server allowing
    ``max_connections`` with ``reserved`` of them kept for superusers: together, with their
    listeners, never more than the server allows (less ``SPARE``)."""
    room = max_connections - reserved - SPARE
    share = room // processes - 1  # the listener's
    if share < LEAST_POOL:
        raise PoolTooSmall(
            f"PostgreSQL allows {max_connections} connections ({reserved} kept for superusers, "
            f"{SPARE} left spare): {processes} server processes get {max(share, 0)} each, and "
            f"each needs at least {LEAST_POOL + 1}; raise max_connections to at least "
            f"{processes * (LEAST_POOL + 1) + reserved + SPARE} or lower D100_PROCESSES"
        )
    pool = min(POOL, share * 3 // 4)
    return pool, min(POOL_OVERFLOW, share - pool)


# What a busy database raises: unreachable, restarting, locked past the busy timeout, too many
# clients, or every pooled connection in use (answered 503 with Retry-After).
DATABASE_BUSY = (OperationalError, PoolTimeout)


class Store:
    def __init__(
        self,
        url: str,
        on_commit: Callable[[str, list[Any] | None], None] | None = None,
        mirror: bool = False,
        on_posted: Callable[[], None] | None = None,
        processes: int | None = None,
        events_per_table: int | None = None,
    ) -> None:
        """``on_commit``: called with each table a committed write changed and the events it
        appended there, or None where the streams must look in the database (a commit that
        may not have landed, a change of the table's members); ``on_posted``: once a committed
        write queued channel posts (``mirror``: writes queue them); ``processes``: how many
        server processes share a PostgreSQL database, each pool sized to its share of the
        server's connections (``PoolTooSmall`` if too few); ``events_per_table``: the most
        events a table's log may hold (``events.append``)."""
        self.url: URL = make_url(url)
        self.on_commit = on_commit
        self.on_posted = on_posted
        sizes = (POOL, POOL_OVERFLOW)
        if processes is not None and self.url.get_backend_name() == "postgresql":
            sizes = pool_sizes(*_connection_limits(self.url), processes)
        self.pool_size, self.pool_overflow = sizes
        self.engine = _engine(self.url, *sizes)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(
            self.engine.execution_options(**{WRITE: True}),
            expire_on_commit=False,
            info={MIRROR: mirror, MOST_EVENTS: events_per_table},
        )
        event.listen(self._write, "before_flush", _reseated)
        # SQLite has one writer at a time. Writers of this process queue here, and the next
        # starts the moment the last commits; without it they wait in SQLite's busy handler,
        # which sleeps and polls (up to 100 ms a nap), leaving the database idle meanwhile.
        # Other processes on the same file still wait in the busy handler.
        # (Rolls sharing one durable commit, a group commit, were measured to make no
        # difference here: a roll's CPU, not its commit, bounds how many the server makes.)
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
        committing = False
        with self._writers, self._write() as session:
            try:
                with session.begin():
                    yield session
                    committing = True
            except BaseException:
                # A COMMIT that failed on its way back may have landed: the tables' streams
                # look again (finding nothing new if it did not). A failed write wakes nobody.
                if committing:
                    self._woken(session, landed=False)
                raise
            self._woken(session, landed=True)

    def _woken(self, session: Session, landed: bool) -> None:
        if self.on_commit is not None:
            appended: dict[str, list[Any]] = session.info.get(APPENDED, {})
            reseated: set[str] = session.info.get(RESEATED, set())
            for table_id in session.info.get(TOUCHED, set()):
                handed = landed and table_id not in reseated
                self.on_commit(table_id, appended.get(table_id, []) if handed else None)
        if self.on_posted is not None and session.info.get(POSTED):
            self.on_posted()

    def member_table(self, hashed: str) -> str | None:
        """The table of the member whose token has this hash, None for any other (a revoked
        member's included)."""
        with self.read() as session:
            found = session.execute(
                text("SELECT table_id FROM members WHERE token_hash = :h AND NOT revoked"),
                {"h": hashed},
            ).first()
        return None if found is None else str(found[0])

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


def count_of(session: Session, model: Any, *where: Any) -> int:
    """How many rows of ``model`` match ``where``."""
    found = session.scalar(select(func.count()).select_from(model).where(*where))
    return int(found or 0)


# One statement per shape, SQL cached, with its row's primary key attributes.
_UPDATES: dict[tuple[type, tuple[str, ...]], tuple[Update, tuple[str, ...]]] = {}


def write_columns(session: Session, row: Any, **values: Any) -> None:
    """Write these columns of a loaded row at once, as one UPDATE by its primary key, and keep
    the row's values in step as if loaded so: the unit of work, which would track and write
    them again at commit, stays out of the roll's path. The row must not be pending."""
    model, names = type(row), tuple(sorted(values))
    found = _UPDATES.get((model, names))
    if found is None:
        primary = tuple(str(column.key) for column in inspect(model).primary_key)
        where = [getattr(model, key) == bindparam(f"pk_{key}") for key in primary]
        statement = update(model).where(*where).values({n: bindparam(n) for n in names})
        found = _UPDATES[(model, names)] = (statement, primary)
    statement, primary = found
    keys = {f"pk_{key}": getattr(row, key) for key in primary}
    session.connection().execute(statement, {**values, **keys})
    for name, value in values.items():
        set_committed_value(row, name, value)


def touch(session: Session, table_id: str) -> bool:
    """Mark a table as changed: its live streams wake after this transaction commits. True
    the first time in this transaction."""
    touched: set[str] = session.info.setdefault(TOUCHED, set())
    first = table_id not in touched
    touched.add(table_id)
    return first


def _reseated(session: Session, _context: Any, _instances: Any) -> None:
    """Note the tables whose members a write changes, whichever code changes them."""
    for row in (*session.new, *session.dirty, *session.deleted):
        if isinstance(row, Member):
            session.info.setdefault(RESEATED, set()).add(row.table_id)
            touch(session, row.table_id)


def _connection_limits(url: URL) -> tuple[int, int]:
    """The PostgreSQL server's ``max_connections`` and its superusers' reserve."""
    probe = create_engine(url, poolclass=NullPool)
    try:
        with probe.connect() as connection:
            most = connection.execute(text("SHOW max_connections")).scalar_one()
            reserved = connection.execute(text("SHOW superuser_reserved_connections")).scalar_one()
    finally:
        probe.dispose()
    return int(most), int(reserved)


def _engine(url: URL, size: int = POOL, overflow: int = POOL_OVERFLOW) -> Engine:
    if url.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, pool_size=size, max_overflow=overflow)
    pool: dict[str, int] = {}
    if url.database and url.database != ":memory:":  # (in memory: one connection per thread)
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        pool = {"pool_size": size, "max_overflow": overflow}
    engine = create_engine(url, connect_args={"check_same_thread": False}, **pool)
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
