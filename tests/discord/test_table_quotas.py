"""``/table open`` counts in the tables quota as the web's opening does: a Discord request's
address is always Discord's, so a table counts against the user who opens it and the Discord
server it is opened in, each refused clearly (how long for, not a moment's "busy")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.discord.router import Discord as Endpoint
from d100.server.app import create_app
from d100.server.quotas import Quotas
from tests.server.services import migrated_sqlite
from tests.server.tablehelp import Api

from .signing import Discord
from .test_tables import private, said, table_open

ANN, BEN = "400000000000000004", "400000000000000044"
HOME, AWAY = "200000000000000002", "200000000000000003"
channels = iter(range(600000000000000000, 600000000000001000))


@pytest.fixture
def client(tmp_path: Path, endpoint: Endpoint) -> Iterator[TestClient]:
    """A server keeping two tables a day per opener."""
    url = migrated_sqlite(tmp_path / "d100.sqlite3")
    app = create_app(url, discord=endpoint, quotas=Quotas(tables_per_day=2))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


def opened(client: TestClient, discord: Discord, user: str, guild: str) -> dict[str, Any]:
    """``/table open`` in a channel of its own."""
    sent = table_open("brp", user=user, guild=guild)
    sent["channel_id"] = str(next(channels))
    return said(discord.post(client, sent))


def test_table_open_counts_per_user_and_per_server(client: TestClient, discord: Discord) -> None:
    for _ in range(2):
        assert "opened a table here" in opened(client, discord, ANN, HOME)["content"]
    refused = opened(client, discord, ANN, HOME)
    assert private(refused) and "Busy" not in refused["content"]
    assert "too many tables opened by you today; try again in" in refused["content"]
    hours = int(refused["content"].split("try again in ")[1].split(" h")[0])
    assert hours == 24  # a day after the first of its two
    # Ben's first table in Ann's server: the server has opened two today
    elsewhere = opened(client, discord, BEN, HOME)
    assert "too many tables opened in this server today" in elsewhere["content"]
    # the refusal counted nothing of Ben's: two tables in another server, then his own quota
    for _ in range(2):
        assert "opened a table here" in opened(client, discord, BEN, AWAY)["content"]
    assert "opened by you today" in opened(client, discord, BEN, AWAY)["content"]
    # the web's addresses are counted apart
    Api(client).table()


def test_a_table_brought_from_the_web_is_not_counted_again(
    client: TestClient, discord: Discord
) -> None:
    """Adopting by its GM link opens no table: it was counted where it was made."""
    web = Api(client)
    for _ in range(2):
        table = web.table()
        sent = table_open("brp", user=ANN, guild=HOME)
        sent["data"]["options"][0]["options"] = [
            {"name": "gm_link", "type": 3, "value": f"http://127.0.0.1/t/{table.id}#{table.gm}"}
        ]
        sent["channel_id"] = str(next(channels))
        assert "brought their table here" in said(discord.post(client, sent))["content"]
    assert "opened a table here" in opened(client, discord, ANN, HOME)["content"]


def test_a_full_database_opens_no_table_in_a_channel(
    tmp_path: Path, endpoint: Endpoint, discord: Discord
) -> None:
    url = migrated_sqlite(tmp_path / "d100.sqlite3")
    app = create_app(url, discord=endpoint, quotas=Quotas(database_bytes=1))
    with TestClient(app, base_url="http://127.0.0.1") as full:
        refused = opened(full, discord, ANN, HOME)
        assert private(refused) and "database is full" in refused["content"]
