"""Discord speaks the table's language: names matched as the web matches them, a roller
named by their table name, a number too long refused by its field, and a table of the web
brought to a channel by its GM link."""

from __future__ import annotations

import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.router import Discord as Endpoint
from d100.server.guard import Buckets, Limits
from tests.test_errors import TOO_LONG_WORDS

from .signing import Discord, command, payload
from .test_play import r, seated
from .test_tables import GM, PLAYER, link, private, said, the_link

LONG = "9" * 5000


@respx.mock
def test_r_matches_names_in_any_case_and_spacing_as_the_web_does(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)  # Alice's sheet says "spot hidden"
    rolled = said(discord.post(client, r("alice", "Spot  Hidden", user=PLAYER, name="Pat")))
    assert not private(rolled), rolled
    shown = {f["name"]: f["value"] for f in rolled["embeds"][0]["fields"]}
    assert "55" in shown.values()


@respx.mock
def test_a_roller_is_named_in_the_channel_by_their_table_name(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)  # Pat joined as "Pat"; their Discord name now wears a GM tag
    rolled = said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat (GM)")))
    text = str(rolled)
    assert "Pat" in text and "(GM)" not in text


@respx.mock
def test_a_number_too_long_is_refused_by_its_field_never_a_crash(
    client: TestClient, discord: Discord
) -> None:
    quick = said(discord.post(client, command("roll", "brp " + LONG)))
    assert "5,000 digits" in quick["content"] and "went wrong" not in quick["content"]
    assert LONG[:300] not in quick["content"]
    seated(client, discord)
    words = said(discord.post(client, r("Alice", "spot hidden", "+" + LONG, user=PLAYER)))
    assert private(words) and "5,000 digits" in words["content"], words
    assert "went wrong" not in words["content"] and LONG[:300] not in words["content"]


def test_a_number_too_long_in_a_system_s_own_words_is_refused_never_a_crash(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:  # rule: SD-W6, SD-W7, S7-13, S7-14
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))  # a user's six in a row
    for words in TOO_LONG_WORDS:  # each was "Something went wrong", a traceback in the log
        quick = said(discord.post(client, command("roll", words)))
        assert private(quick) and "5,000 digits" in quick["content"], (words[:20], quick)
        assert "went wrong" not in quick["content"] and LONG[:300] not in quick["content"]


def adopt(gm_link: str, **kw: object) -> dict[str, object]:
    options = [{"name": "gm_link", "type": 3, "value": gm_link}]
    data = {
        "id": "2",
        "name": "table",
        "type": 1,
        "options": [{"name": "open", "type": 1, "options": options}],
    }
    return payload(
        interactions.APPLICATION_COMMAND, data, permissions=interactions.MANAGE_CHANNELS, **kw
    )


def test_table_open_brings_a_table_of_the_web_by_its_gm_link(
    client: TestClient, discord: Discord
) -> None:
    made = client.post("/api/tables", json={"name": "The Keep", "system": "brp", "gm_name": "Gina"})
    assert made.status_code == 201, made.text
    gm_link = made.json()["gm_link"]
    invite = made.json()["invite_link"]
    refused = said(discord.post(client, adopt(invite, user=PLAYER, name="Pat")))
    assert private(refused) and "not the GM link" in refused["content"]
    assert invite.split("#")[-1] not in refused["content"]  # never echoed
    brought = said(discord.post(client, adopt(gm_link, user=GM, name="Gina (GM)")))
    assert not private(brought) and "The Keep" in brought["content"], brought
    assert "Gina brought" in brought["content"]
    table_id = gm_link.split("#")[0].rsplit("/", 1)[1]
    old = client.get(
        f"/api/tables/{table_id}", headers={"authorization": f"Bearer {gm_link.split('#')[1]}"}
    )
    assert old.status_code == 401  # the link typed into a command is renewed
    mine = said(discord.post(client, link(user=GM, name="Gina (GM)")))
    fresh = the_link(mine)
    me = client.get(
        f"/api/tables/{table_id}", headers={"authorization": f"Bearer {fresh.split('#')[1]}"}
    )
    assert me.status_code == 200 and me.json()["me"]["role"] == "gm"
    again = said(discord.post(client, adopt(gm_link, user=GM)))
    assert private(again) and "already has a table" in again["content"]
