"""``/ledger [character] [public]``: the luck ledger of the user's characters at the channel's
table, formatted from the server's card; answered privately from the log as the user sees it,
or posted from the log as the channel sees it. A player's ledger is the same before and after
the GM's secret rolls of the player's own character."""

from __future__ import annotations

from typing import Any

import pytest
import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.commands import definitions
from d100.discord.router import Discord as Endpoint
from d100.server.guard import Buckets, Limits

from .signing import Discord, payload
from .test_play import r, seated
from .test_tables import GM, PLAYER, private, said


@pytest.fixture(autouse=True)
def unlimited(endpoint: Endpoint) -> None:
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))


def ledger(character: str = "", public: bool | None = None, **kw: Any) -> dict[str, Any]:
    options: list[dict[str, Any]] = []
    if character:
        options.append({"name": "character", "type": 3, "value": character})
    if public is not None:
        options.append({"name": "public", "type": 5, "value": public})
    data = {"id": "8", "name": "ledger", "type": 1, "options": options}
    return payload(interactions.APPLICATION_COMMAND, data, **kw)


def card(data: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = data["embeds"][0]
    return found


def test_ledger_is_registered_for_a_table_s_channels() -> None:
    command = next(c for c in definitions() if c["name"] == "ledger")
    assert command["contexts"] == [0]
    assert {o["name"] for o in command["options"]} == {"character", "public"}


@respx.mock
def test_a_player_s_ledger_counts_what_they_see_and_tells_nothing_of_secret_rolls(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    pat = {"user": PLAYER, "name": "Pat"}
    for _ in range(3):
        said(discord.post(client, r("Alice", "spot hidden", **pat)))
    said(discord.post(client, r("Alice", "dodge", visibility="self", **pat)))
    mine = said(discord.post(client, ledger(**pat)))
    assert private(mine)
    shown = card(mine)
    assert shown["title"] == "Luck ledger of Pat's characters"
    assert shown["footer"]["text"].startswith("4 rolls counted, events ")
    assert "only you see this" in shown["footer"]["text"]
    names = [f["name"] for f in shown["fields"]]
    assert names[-1] == "any success" and len(names) >= 2
    assert shown["description"].startswith("**")  # the tail in words, first
    one = said(discord.post(client, ledger("alice", **pat)))
    assert card(one)["title"] == "Luck ledger of Alice"
    assert card(one)["fields"] == shown["fields"]

    # the GM rolls Alice in secret and blind: nothing Pat's ledger says changes
    for visibility in ("gm", "blind", "self"):
        said(discord.post(client, r("Alice", "dodge", visibility=visibility, user=GM, name="Gina")))
    assert said(discord.post(client, ledger(**pat))) == mine
    assert said(discord.post(client, ledger("Alice", **pat))) == one
    # the GM's counts them all: Pat's "only me" roll is Pat's alone
    gms = card(said(discord.post(client, ledger("Alice", user=GM, name="Gina"))))
    assert gms["footer"]["text"].startswith("6 rolls counted")


@respx.mock
def test_a_public_ledger_counts_only_what_the_channel_sees(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    pat = {"user": PLAYER, "name": "Pat"}
    said(discord.post(client, r("Alice", "spot hidden", **pat)))
    said(discord.post(client, r("Alice", "dodge", visibility="gm", **pat)))
    said(discord.post(client, r("Alice", "dodge", visibility="gm", user=GM, name="Gina")))
    posted = said(discord.post(client, ledger("Alice", public=True, **pat)))
    assert not private(posted)
    assert card(posted)["footer"]["text"].startswith("1 roll counted")
    assert "only the rolls this channel may see" in card(posted)["footer"]["text"]
    # the GM's own ledger, posted, is the channel's too: no secret roll of theirs in it
    gm_posted = said(discord.post(client, ledger("Alice", public=True, user=GM, name="Gina")))
    assert card(gm_posted)["footer"]["text"] == card(posted)["footer"]["text"]
    own = said(discord.post(client, ledger("Alice", **pat)))
    assert private(own) and card(own)["footer"]["text"].startswith("2 rolls counted")


@respx.mock
def test_ledger_refusals_are_private_and_name_what_is_allowed(
    client: TestClient, discord: Discord
) -> None:
    none = said(discord.post(client, ledger(user=PLAYER, name="Pat")))
    assert private(none) and "no table" in none["content"]
    seated(client, discord)
    wrong = said(discord.post(client, ledger("Zed", user=PLAYER, name="Pat")))
    assert private(wrong) and "Zed" in wrong["content"] and "Alice" in wrong["content"]
    # a newcomer with no character: an empty ledger of their characters, not a refusal
    new = said(discord.post(client, ledger(user="400000000000000099", name="Newt")))
    assert card(new)["footer"]["text"].startswith("0 rolls counted")
