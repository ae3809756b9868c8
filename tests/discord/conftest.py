from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from d100.discord import outbox
from d100.discord.router import Discord as Endpoint
from d100.discord.signature import Verifier
from d100.server.app import create_app
from tests.conftest import need_service
from tests.server.services import migrated_sqlite, postgres_available, postgres_database

from .signing import APP, Discord


@pytest.fixture
def discord() -> Discord:
    return Discord()


@pytest.fixture
def endpoint(discord: Discord) -> Endpoint:
    verifier = Verifier.from_hex(discord.public_hex)
    box = outbox.Outbox(httpx.AsyncClient(), "bot-token", sleep=_no_sleep)
    # Answers wait long for their work: a test on a loaded machine (a worker process cold)
    # gets its answer, not a deferral; the tests of deferring set their own bound.
    return Endpoint(verifier, APP, box, b"dice key of the test", answer_seconds=30.0)


async def _no_sleep(seconds: float) -> None:
    return None


@pytest.fixture
def client(tmp_path: Path, endpoint: Endpoint) -> Iterator[TestClient]:
    app = create_app(migrated_sqlite(tmp_path / "d100.sqlite3"), discord=endpoint)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def on_both(
    request: pytest.FixtureRequest, tmp_path: Path, endpoint: Endpoint
) -> Iterator[TestClient]:
    """The table server on SQLite and on PostgreSQL, where several processes share tables:
    for the tests of what two requests at once do."""
    with ExitStack() as stack:
        # a database of its own on PostgreSQL too: the tests reuse Discord's ids (a channel's,
        # an interaction's), which name one table or answer across a whole database
        if request.param == "postgresql":
            need_service(postgres_available(), "PostgreSQL is not running at 127.0.0.1:5432")
            url = stack.enter_context(postgres_database(migrated=True))
        else:
            url = migrated_sqlite(tmp_path / "d100.sqlite3")
        app = create_app(url, discord=endpoint)
        yield stack.enter_context(TestClient(app, base_url="http://127.0.0.1"))
