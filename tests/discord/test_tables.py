"""A channel is a table: ``/table open`` makes it with its opener as GM, a Discord user is a
member on first use, ``/link`` answers privately with the user's own link to its page."""

from __future__ import annotations

from typing import Any

import httpx
import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.commands import definitions
from d100.discord.limits import problems
from d100.systems import REGISTRY

from .signing import Discord, payload

GM = "400000000000000004"
PLAYER = "400000000000000044"


def table_open(
    system: str,
    house_rules: str | None = None,
    permissions: int = interactions.MANAGE_CHANNELS,
    **kw: Any,
) -> dict[str, Any]:
    """``/table open``, by a member who may manage the channel unless ``permissions`` say
    otherwise."""
    options: list[dict[str, Any]] = [{"name": "system", "type": 3, "value": system}]
    if house_rules is not None:
        options.append({"name": "house_rules", "type": 3, "value": house_rules})
    data = {
        "id": "2",
        "name": "table",
        "type": 1,
        "options": [{"name": "open", "type": 1, "options": options}],
    }
    return payload(interactions.APPLICATION_COMMAND, data, permissions=permissions, **kw)


def link(**kw: Any) -> dict[str, Any]:
    return payload(interactions.APPLICATION_COMMAND, {"id": "3", "name": "link", "type": 1}, **kw)


def said(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["type"] == interactions.MESSAGE
    assert not problems(body["data"]), problems(body["data"])
    return body["data"]


def private(data: dict[str, Any]) -> bool:
    return bool(data.get("flags", 0) & interactions.EPHEMERAL)


def page_of(client: TestClient, url: str) -> dict[str, Any]:
    """What the web API shows the holder of a link: its table and event log."""
    path, token = url.split("#")
    table_id = path.rsplit("/", 1)[1]
    headers = {"authorization": f"Bearer {token}"}
    events = client.get(f"/api/tables/{table_id}/events", headers=headers)
    assert events.status_code == 200, events.text
    state = client.get(f"/api/tables/{table_id}", headers=headers)
    assert state.status_code == 200, state.text
    return {"events": events.json(), "me": state.json()["me"]}


def the_link(data: dict[str, Any]) -> str:
    return next(w for w in data["content"].split() if "/t/" in w)


def test_table_open_makes_the_channel_s_table_with_its_opener_as_gm(
    client: TestClient, discord: Discord
) -> None:
    system = next(iter(REGISTRY)).name
    opened = said(discord.post(client, table_open(system, user=GM, name="Gina")))
    assert not private(opened) and "GM" in opened["content"] and system in opened["content"]
    again = said(discord.post(client, table_open(system, user=GM)))
    assert private(again) and "already" in again["content"]
    gm = said(discord.post(client, link(user=GM)))
    assert private(gm)
    seen = page_of(client, the_link(gm))
    assert seen["me"]["role"] == "gm" and seen["me"]["name"] == "Gina"


def test_a_discord_user_is_a_member_on_first_use(client: TestClient, discord: Discord) -> None:
    said(discord.post(client, table_open(next(iter(REGISTRY)).name, user=GM, name="Gina")))
    first = the_link(said(discord.post(client, link(user=PLAYER, name="Pat"))))
    seen = page_of(client, first)
    assert seen["me"]["role"] == "player" and seen["me"]["name"] == "Pat"
    joins = [e for e in seen["events"] if e["kind"] == "join"]
    assert len(joins) == 1
    second = the_link(said(discord.post(client, link(user=PLAYER, name="Pat"))))
    assert [e["kind"] for e in page_of(client, second)["events"]].count("join") == 1
    # a new link replaces the old: only its hash is kept
    path, token = first.split("#")
    table_id = path.rsplit("/", 1)[1]
    gone = client.get(f"/api/tables/{table_id}", headers={"authorization": f"Bearer {token}"})
    assert gone.status_code == 401


def test_no_table_and_bad_house_rules_answer_privately(
    client: TestClient, discord: Discord
) -> None:
    none = said(discord.post(client, link(user=PLAYER)))
    assert private(none) and "/table open" in none["content"]
    bad = said(discord.post(client, table_open(next(iter(REGISTRY)).name, "= oops", user=GM)))
    assert private(bad) and "house rules" in bad["content"]  # in words, not a key
    assert "\\_" not in bad["content"]
    unknown = said(discord.post(client, table_open("no-such-system", user=GM)))
    assert private(unknown) and "no-such-system" in unknown["content"]


def test_the_table_commands_are_registered() -> None:
    names = {c["name"] for c in definitions()}
    assert {"table", "link"} <= names


SHEET = 'name = "Alice"\nsystem = "brp"\nskills = { "spot hidden" = 55, dodge = 30 }\n'
CDN = "https://cdn.discordapp.com/attachments/1/2/alice.toml"


def sheet(url: str = CDN, size: int = len(SHEET), **kw: Any) -> dict[str, Any]:
    data = {
        "id": "4",
        "name": "sheet",
        "type": 1,
        "options": [{"name": "file", "type": 11, "value": "900"}],
        "resolved": {"attachments": {"900": {"id": "900", "url": url, "size": size}}},
    }
    return payload(interactions.APPLICATION_COMMAND, data, **kw)


@respx.mock
def test_sheet_sets_a_character_from_an_attached_toml_file(
    client: TestClient, discord: Discord
) -> None:
    respx.get(CDN).mock(return_value=httpx.Response(200, text=SHEET))
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    made = said(discord.post(client, sheet(user=PLAYER, name="Pat")))
    assert private(made) and "Alice" in made["content"]
    seen = page_of(client, the_link(said(discord.post(client, link(user=PLAYER, name="Pat")))))
    assert any(e["kind"] == "character" for e in seen["events"]), seen["events"]
    again = said(discord.post(client, sheet(user=PLAYER, name="Pat")))  # the page's own check
    assert private(again) and "Alice" in again["content"]


@respx.mock
def test_sheet_fetches_only_discord_s_files_and_only_small_ones(
    client: TestClient, discord: Discord
) -> None:
    elsewhere = respx.get("https://evil.example/alice.toml").mock(
        return_value=httpx.Response(200, text=SHEET)
    )
    said(discord.post(client, table_open("brp", user=GM)))
    refused = said(discord.post(client, sheet("https://evil.example/alice.toml", user=PLAYER)))
    assert private(refused) and not elsewhere.called
    big = said(discord.post(client, sheet(size=10**6, user=PLAYER)))
    assert private(big) and "bytes" in big["content"]
    respx.get(CDN).mock(return_value=httpx.Response(200, text='name = "Bob"\nsystem = "coc7"\n'))
    other = said(discord.post(client, sheet(user=PLAYER)))
    assert private(other) and "system" in other["content"]


@respx.mock
def test_sheet_says_so_when_discord_s_file_cannot_be_read(
    client: TestClient, discord: Discord
) -> None:
    respx.get(CDN).mock(side_effect=httpx.ConnectTimeout("slow"))
    said(discord.post(client, table_open("brp", user=GM)))
    failed = said(discord.post(client, sheet(user=PLAYER)))
    assert private(failed) and "could not be read" in failed["content"]
