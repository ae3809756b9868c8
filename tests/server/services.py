"""The services the server tests may need: a PostgreSQL database of their own, Chromium, and
real servers on free ports (always stopped)."""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

PG_ADMIN = os.environ.get("D100_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
# Debian's headless shell of Chromium (package chromium-headless-shell, the same engine and
# version as its chromium) where installed: the full browser in headless mode also draws its
# own window's toolbar in renderers of its own for every window a test opens, and took about
# 40% more CPU over the same page tests (tests/server/test_browser_first_hour.py: 43 s against
# 25 s). Without it, the full browser.
SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get(
    "D100_CHROMIUM", SHELL if Path(SHELL).exists() else "/usr/bin/chromium"
)
ROOT = Path(__file__).resolve().parents[2]
# A test's odds are never raced against a wall clock: a loaded machine is slow, not wrong, and
# the default 5 s on a worker was seen run out under a whole suite on two cores. The tests of
# the worker's deadline set their own (tests/server/test_cost.py, test_load.py).
JOB_SECONDS = 600.0


def postgres_available(admin: str = PG_ADMIN) -> bool:
    try:
        import psycopg

        with psycopg.connect(admin, connect_timeout=2):
            return True
    except Exception:
        return False


def chromium_available() -> bool:
    return Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None


@contextmanager
def postgres_database(
    admin: str = PG_ADMIN, prefix: str = "d100_test", migrated: bool = False
) -> Iterator[str]:
    """A fresh database on ``admin``'s server, dropped afterwards; the SQLAlchemy URL to it.
    ``migrated``: already at the newest schema, a copy of a template migrated once per test
    process (``CREATE DATABASE ... TEMPLATE``: a file copy, where migrating is seconds)."""
    import psycopg

    name = f"{prefix}_{secrets.token_hex(6)}"
    template = f' TEMPLATE "{_pg_template(admin)}"' if migrated else ""
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"{template}')
    try:
        yield _url(admin, name)
    finally:
        _drop(admin, name)


def _url(admin: str, name: str) -> str:
    base = admin.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    return f"{base}/{name}"


def _drop(admin: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_PG_TEMPLATES: dict[str, str] = {}


def _pg_template(admin: str) -> str:
    """This test process's migrated template database on ``admin``'s server (dropped at its
    exit), made on first use. No connection to it stays open: a copy needs none."""
    if admin not in _PG_TEMPLATES:
        import psycopg

        from d100.server.store import Store

        name = f"d100_template_{secrets.token_hex(6)}"
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        atexit.register(_drop, admin, name)
        store = Store(_url(admin, name))
        store.migrate()
        store.dispose()
        _PG_TEMPLATES[admin] = name
    return _PG_TEMPLATES[admin]


_TEMPLATE: list[Path] = []


def migrated_sqlite(path: Path) -> str:
    """The URL of a SQLite database at ``path`` already at the newest schema: a copy of one
    migrated once per test process (migrating a new file is most of a server test's start)."""
    if not _TEMPLATE:
        from d100.server.store import Store

        where = Path(tempfile.mkdtemp(prefix="d100-template-"))
        atexit.register(shutil.rmtree, where, ignore_errors=True)
        store = Store(f"sqlite:///{where / 'template.sqlite3'}")
        store.migrate()
        store.dispose()  # the last connection closed: the log is folded into the file
        _TEMPLATE.append(where / "template.sqlite3")
    shutil.copyfile(_TEMPLATE[0], path)
    return f"sqlite:///{path}"


# A fixture's ``params`` for a test run on each database the server stores in.
DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def database_for(request: pytest.FixtureRequest, where: Path) -> str:
    """The URL of a database of the kind ``request.param`` names (``DATABASES``), at the newest
    schema: a migrated SQLite file in the folder ``where``, or this test process's PostgreSQL
    database (``pg_url``, a session's: its tests make their own tables)."""
    if request.param == "sqlite":
        return migrated_sqlite(where / "d100.sqlite3")
    url: str = request.getfixturevalue("pg_url")
    return url


def _limit_files(limits: tuple[int, int]) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, limits)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serve(
    database_url: str, log: Path, open_files: tuple[int, int] | None = None, **env_vars: str
) -> Iterator[str]:
    """``d100 serve`` in its own process on a free port; the base address. Stopped on exit.
    ``env_vars`` are set for the server (the benchmark raises the rate limits with them);
    ``open_files``, its (soft, hard) limit on open files, as a deployment might have."""
    port = free_port()
    env = {
        **os.environ,
        "D100_DATABASE_URL": database_url,
        "D100_JOB_SECONDS": str(JOB_SECONDS),
        **env_vars,
    }
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "d100", "serve", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
            preexec_fn=None if open_files is None else lambda: _limit_files(open_files),
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120  # a start takes seconds; 30 s was seen loaded
            while True:
                try:
                    if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server did not start: {log.read_text()[-2000:]}")
                time.sleep(0.1)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
