"""Fixtures for the server tests: every store test runs on SQLite and on PostgreSQL; the
browser tests share one Chromium and one server per set of settings (tests/server/browsing.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from d100.server.app import create_app

from .browsing import CHROMIUM_NOW, base, browser, servers
from .services import migrated_sqlite
from .tablehelp import Api

__all__ = ["base", "browser", "servers"]  # the browser tests' shared Chromium and servers


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return migrated_sqlite(tmp_path / "d100.sqlite3")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(database_url)) as c:
        yield c


@pytest.fixture
def api(client: TestClient) -> Api:
    return Api(client)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Chromium stays up from one browser test to the next, and stops before any other."""
    yield
    if nextitem is None or nextitem.get_closest_marker("browser") is None:
        CHROMIUM_NOW.stop()
