"""Fixtures for the server tests: every store test runs on SQLite and on PostgreSQL; the
browser tests share one Chromium and one server per set of settings (tests/server/browsing.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from d100.server.app import create_app
from tests.conftest import need_service

from .browsing import CHROMIUM_NOW, base, browser, servers
from .services import postgres_available, postgres_database
from .tablehelp import Api

__all__ = ["base", "browser", "servers"]  # the browser tests' shared Chromium and servers


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    need_service(postgres_available(), "PostgreSQL is not running at 127.0.0.1:5432")
    with postgres_database() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'd100.sqlite3'}"
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
