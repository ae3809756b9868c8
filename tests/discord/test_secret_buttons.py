"""A secret roll's stub in the channel carries its GM's buttons: "GM: show me" answers the GM
alone with the roll, and a blind roll's "Show to everyone" shows it as the page's "Show"
does, the stub becoming the roll. Anyone else's click is refused privately; the ids hold only
the table and the roll's number, which the stub's readers see on the page too."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.router import Discord as Endpoint
from d100.server.guard import Buckets, Limits

from .signing import Discord
from .test_buttons import offered, pats_page, seated
from .test_mirror import channel_route, posted, web_roll
from .test_mirror import seated as seated_with_links
from .test_play import click, r
from .test_tables import GM, PLAYER, SHEET, private, said

RENDERED = pytest.mark.sqlite_only(
    "Which buttons a secret roll's stub offers and who is answered: renderings and access "
    "rules. Showing a roll once, and a web page's roll posted at its commit, stay on both "
    "databases."
)

GM_ONLY = "Only the table's GM may use this button."


@pytest.fixture
def client(on_both: TestClient) -> TestClient:
    return on_both


@pytest.fixture(autouse=True)
def unlimited(endpoint: Endpoint) -> None:
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))


def stub_of(client: TestClient, discord: Discord, visibility: str) -> dict[str, Any]:
    seated(client, discord, "brp", SHEET)
    asked = r("Alice", "spot hidden", visibility=visibility, user=PLAYER, name="Pat")
    stub = said(discord.post(client, asked))
    assert not private(stub) and stub["content"] == "Pat rolled in secret.", stub
    return stub


def ids_of(stub: dict[str, Any]) -> dict[str, str]:
    return {b["label"]: b["custom_id"] for b in offered(stub)}


@respx.mock
@RENDERED
def test_a_blind_roll_s_stub_offers_its_gm_both_buttons_and_names_only_its_number(
    client: TestClient, discord: Discord
) -> None:
    stub = stub_of(client, discord, "blind")
    ids = ids_of(stub)
    assert set(ids) == {"GM: show me", "Show to everyone"}
    base, headers = pats_page(client, discord)
    (seen,) = [e for e in client.get(f"{base}/events", headers=headers).json() if e["seq"] > 3]
    table_id = base.rsplit("/", 1)[1]
    assert ids == {
        "GM: show me": f"s:{table_id}:{seen['seq']}",
        "Show to everyone": f"u:{table_id}:{seen['seq']}",
    }
    # Beside the ids (the table and the number the roller's page shows), no number at all.
    assert not re.search(r"\d", json.dumps({**stub, "components": []})), stub


@respx.mock
@RENDERED
def test_a_gm_only_roll_s_stub_offers_show_me_and_an_only_me_roll_none(
    client: TestClient, discord: Discord
) -> None:
    stub = stub_of(client, discord, "gm")
    assert set(ids_of(stub)) == {"GM: show me"}
    mine = said(discord.post(client, r("Alice", "spot hidden", visibility="self", user=PLAYER)))
    assert "components" not in mine, mine  # its GM does not see it: nothing to show them


@respx.mock
@RENDERED
def test_gm_show_me_answers_the_gm_alone_and_nobody_else(
    client: TestClient, discord: Discord
) -> None:
    show_me = ids_of(stub_of(client, discord, "gm"))["GM: show me"]
    refused = said(discord.post(client, click(show_me, user=PLAYER, name="Pat")))
    assert private(refused) and refused["content"] == GM_ONLY, refused
    shown = said(discord.post(client, click(show_me, user=GM, name="Gina")))
    assert private(shown), shown
    fields = {f["name"]: f["value"] for f in shown["embeds"][0]["fields"]}
    assert fields["Effective skill"] == "55" and re.fullmatch(r"\d{2,3}", fields["Dice"]), fields
    assert "components" not in shown  # the GM's own view: no roller's buttons


@respx.mock
def test_show_to_everyone_turns_the_stub_into_the_roll_once_and_only_for_the_gm(
    client: TestClient, discord: Discord
) -> None:
    show_all = ids_of(stub_of(client, discord, "blind"))["Show to everyone"]
    refused = said(discord.post(client, click(show_all, user=PLAYER, name="Pat")))
    assert private(refused) and refused["content"] == GM_ONLY, refused
    answer = discord.post(client, click(show_all, user=GM, name="Gina"))
    body = answer.json()
    assert body["type"] == interactions.UPDATE, body
    shown = body["data"]
    assert not private(shown) and shown["components"] == [] and shown["content"] == ""
    assert "Pat rolled spot hidden as Alice" in shown["embeds"][0]["description"], shown
    base, headers = pats_page(client, discord)
    events = client.get(f"{base}/events", headers=headers).json()
    (unblind,) = [e for e in events if e["kind"] == "unblind"]  # the page's "Show", once
    assert f"#{unblind['seq']}" in shown["embeds"][0]["title"]
    again = said(discord.post(client, click(show_all, user=GM, name="Gina")))
    assert private(again) and again["content"].startswith("Already shown"), again


@respx.mock
def test_a_web_page_s_secret_roll_is_posted_with_its_gm_s_buttons(
    client: TestClient, discord: Discord
) -> None:
    route = channel_route()
    table_id, _, pat = seated_with_links(client, discord)
    rolled = web_roll(client, table_id, pat, "Alice", visibility="blind")
    (message,) = posted(route, 1)
    assert message["content"] == "Someone rolled in secret."
    assert ids_of(message) == {
        "GM: show me": f"s:{table_id}:{rolled['seq']}",
        "Show to everyone": f"u:{table_id}:{rolled['seq']}",
    }
