from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from d100.discord import outbox
from d100.discord.router import Discord as Endpoint
from d100.discord.signature import Verifier
from d100.server.app import create_app

from .signing import APP, Discord


@pytest.fixture
def discord() -> Discord:
    return Discord()


@pytest.fixture
def endpoint(discord: Discord) -> Endpoint:
    verifier = Verifier.from_hex(discord.public_hex)
    box = outbox.Outbox(httpx.AsyncClient(), "bot-token", sleep=_no_sleep)
    return Endpoint(verifier, APP, box, b"dice key of the test")


async def _no_sleep(seconds: float) -> None:
    return None


@pytest.fixture
def client(tmp_path: Path, endpoint: Endpoint) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'd100.sqlite3'}", discord=endpoint)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c
