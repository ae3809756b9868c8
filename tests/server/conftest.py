"""Fixtures for the server tests: a test of the server's store runs on SQLite and on
PostgreSQL, one whose subject is not the store (marked ``sqlite_only``, with why) on SQLite;
the browser tests share one Chromium and one server per set of settings
(tests/server/browsing.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from d100.server.app import create_app
from d100.server.guard import Limits

from .browsing import CHROMIUM_NOW, base, browser, servers
from .services import DATABASES, JOB_SECONDS, database_for
from .tablehelp import Api

__all__ = ["base", "browser", "servers"]  # the browser tests' shared Chromium and servers

# the default limits but the odds worker's deadline, which no test of a route's answer races
UNRACED = Limits(job_seconds=JOB_SECONDS)


@pytest.fixture(params=DATABASES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return database_for(request, tmp_path)


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(database_url, limits=UNRACED)) as c:
        yield c


@pytest.fixture
def api(client: TestClient) -> Api:
    return Api(client)


@pytest.fixture(scope="module", params=DATABASES)
def module_api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    """One server per database for a whole module, for the tests that each open a table of
    their own and read nothing else of the server's (its start, its odds workers' too, is
    most of a short test's time). A module takes it as its ``api`` through ``shared_api``."""
    url = database_for(request, tmp_path_factory.mktemp("module"))
    with TestClient(create_app(url, limits=UNRACED)) as c:
        yield Api(c)


@pytest.fixture
def shared_api(module_api: Api) -> Api:
    """The module's server (``module_api``), its client's cookies cleared for each test."""
    module_api.client.cookies.clear()
    return module_api


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Chromium stays up from one browser test to the next, and stops before any other."""
    yield
    if nextitem is None or nextitem.get_closest_marker("browser") is None:
        CHROMIUM_NOW.stop()
