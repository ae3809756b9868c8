"""Who holds a channel's table: opening one takes the permission to manage the channel
(checked on every call, whatever the registration), ``/table close`` frees the channel, and
a Discord user's name at a table is never a refusal."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.commands import definitions
from d100.discord.router import Discord as Endpoint
from d100.server.guard import Buckets, Limits

from .signing import Discord, payload
from .test_tables import GM, PLAYER, link, page_of, private, said, table_open, the_link


@pytest.fixture(autouse=True)
def unlimited(endpoint: Endpoint) -> None:
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))


MODERATOR = "400000000000000064"


def table_close(permissions: int = 0, **kw: Any) -> dict[str, Any]:
    data = {"id": "2", "name": "table", "type": 1, "options": [{"name": "close", "type": 1}]}
    return payload(interactions.APPLICATION_COMMAND, data, permissions=permissions, **kw)


def test_table_open_is_registered_for_those_who_may_manage_the_channel() -> None:
    (table,) = [c for c in definitions() if c["name"] == "table"]
    assert table["default_member_permissions"] == str(interactions.MANAGE_CHANNELS)
    assert {o["name"] for o in table["options"]} == {"open", "close", "delete"}


def test_table_open_is_refused_to_a_member_who_may_not_manage_the_channel(
    client: TestClient, discord: Discord
) -> None:
    """The registration hides the command, but a server's admins may show it to anyone: the
    permissions Discord computed for the channel are checked on every call."""
    everything_else = ~(interactions.MANAGE_CHANNELS | interactions.ADMINISTRATOR) & (2**50 - 1)
    for bits in (0, everything_else):
        refused = said(discord.post(client, table_open("brp", permissions=bits, user=PLAYER)))
        assert private(refused) and "Manage Channels" in refused["content"], refused
    unread = table_open("brp", user=PLAYER)
    for odd in ("sixteen", "-16", "1" * 5000, None):
        unread["member"]["permissions"] = odd
        unread["id"] = str(int(unread["id"]) + 1)
        assert "Manage Channels" in said(discord.post(client, unread))["content"]
    assert "/table open" in said(discord.post(client, link(user=PLAYER)))["content"]  # none made
    admin = table_open("brp", permissions=interactions.ADMINISTRATOR, user=GM, name="Gina")
    assert "GM" in said(discord.post(client, admin))["content"]


def test_a_channel_s_table_refuses_a_second_opener_naming_its_gm(
    client: TestClient, discord: Discord
) -> None:
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    again = said(discord.post(client, table_open("coc7", user=MODERATOR, name="Mod")))
    assert private(again) and "already" in again["content"] and "Gina" in again["content"]
    assert "/table close" in again["content"]


def test_table_close_frees_the_channel_for_its_gm_or_a_moderator_and_keeps_the_table(
    client: TestClient, discord: Discord
) -> None:
    said(discord.post(client, table_open("brp", user=PLAYER, name="Mallory")))
    squatter = the_link(said(discord.post(client, link(user=PLAYER, name="Mallory"))))
    said(discord.post(client, link(user=GM, name="Gina")))  # a player of Mallory's table
    refused = said(discord.post(client, table_close(user=GM, name="Gina")))
    assert private(refused) and "Mallory" in refused["content"]
    assert "Manage Channels" in refused["content"]
    closed = said(
        discord.post(client, table_close(interactions.MANAGE_CHANNELS, user=MODERATOR, name="Mod"))
    )
    assert not private(closed) and "closed" in closed["content"]
    assert "/table open" in said(discord.post(client, link(user=GM)))["content"]
    kept = page_of(client, squatter)  # the table and its log stay on the web
    assert kept["me"]["role"] == "gm" and any(e["kind"] == "join" for e in kept["events"])
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    seen = page_of(client, the_link(said(discord.post(client, link(user=GM, name="Gina")))))
    assert seen["me"]["role"] == "gm"  # a new table: Gina its GM
    by_gm = said(discord.post(client, table_close(user=GM, name="Gina")))  # no permission
    assert not private(by_gm) and "closed" in by_gm["content"]
    none = said(discord.post(client, table_close(interactions.MANAGE_CHANNELS, user=MODERATOR)))
    assert private(none) and "/table open" in none["content"]


def test_a_discord_user_whose_name_a_web_player_took_joins_under_a_distinct_one(
    client: TestClient, discord: Discord
) -> None:
    """A Discord user cannot choose their name at a table: a clash is never a refusal."""
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    gm = the_link(said(discord.post(client, link(user=GM, name="Gina"))))
    path, token = gm.split("#")
    table_id = path.rsplit("/", 1)[1]
    headers = {"authorization": f"Bearer {token}"}
    invite = client.post(f"/api/tables/{table_id}/invite", headers=headers).json()["invite_link"]
    for taken in ("Vera", "Vera (vera)"):
        joined = client.post("/api/join", json={"invite": invite.split("#")[1], "name": taken})
        assert joined.status_code in (200, 201), joined.text
        client.cookies.clear()
    names = {}
    for user, shown in (
        ("400000000000000071", "Vera"),  # taken, and so is "Vera (vera)"
        ("400000000000000072", "V\u0435ra"),  # a Cyrillic e: looks like Vera
        ("400000000000000073", "Gina (GM)"),  # a GM tag no player may wear
        ("400000000000000074", "\u200b"),  # shows nothing
    ):
        answer = said(discord.post(client, link(user=user, name=shown)))
        assert private(answer) and "/t/" in answer["content"], answer
        names[shown] = page_of(client, the_link(answer))["me"]["name"]
    assert names == {
        "Vera": "Vera 2",
        "V\u0435ra": "V\u0435ra 3",  # its own, with its username, and Vera 2 look like taken ones
        "Gina (GM)": "Discord user",
        "\u200b": "Discord user 2",
    }
    state = client.get(f"/api/tables/{table_id}", headers=headers).json()
    assert len({m["name"] for m in state["members"]}) == len(state["members"]) == 7


def table_delete(typed: str, permissions: int = 0, **kw: Any) -> dict[str, Any]:
    """``/table delete`` with ``typed`` as the table's name."""
    options = [{"name": "name", "type": 3, "value": typed}]
    data = {
        "id": "2",
        "name": "table",
        "type": 1,
        "options": [{"name": "delete", "type": 1, "options": options}],
    }
    return payload(interactions.APPLICATION_COMMAND, data, permissions=permissions, **kw)


def test_table_delete_is_its_gm_s_alone_with_its_name_typed(
    on_both: TestClient, discord: Discord
) -> None:
    """Who may free the channel may not delete its table: only its GM, typing its name; then
    the table is gone for the web too (every link refused) and the channel is free."""
    client = on_both
    opened = table_open("brp", user=GM, name="Gina")
    opened["data"]["options"][0]["options"].append({"name": "name", "type": 3, "value": "Moor"})
    said(discord.post(client, opened))
    gm = the_link(said(discord.post(client, link(user=GM, name="Gina"))))
    pat = the_link(said(discord.post(client, link(user=PLAYER, name="Pat"))))
    everything = interactions.MANAGE_CHANNELS | interactions.ADMINISTRATOR
    for who, bits in ((PLAYER, 0), (MODERATOR, everything)):
        refused = said(discord.post(client, table_delete("Moor", bits, user=who)))
        assert private(refused) and "for its GM (Gina) alone" in refused["content"]
    for wrong in ("moor", "Moor!", ""):  # its name exactly, or nothing is deleted
        asked = said(discord.post(client, table_delete(wrong, user=GM, name="Gina")))
        assert private(asked) and "give its name exactly" in asked["content"]
    assert page_of(client, pat)["me"]["name"] == "Pat"  # all still there
    done = said(discord.post(client, table_delete(" Moor ", user=GM, name="Gina")))
    assert not private(done) and "deleted this channel's table, Moor, for good" in done["content"]
    for url in (gm, pat):
        path, token = url.split("#")
        gone = client.get(
            f"/api/tables/{path.rsplit('/', 1)[1]}", headers={"authorization": f"Bearer {token}"}
        )
        assert gone.status_code == 401
    assert "/table open" in said(discord.post(client, link(user=GM)))["content"]  # channel free
    none = said(discord.post(client, table_delete("Moor", user=GM)))
    assert private(none) and "/table open" in none["content"]
