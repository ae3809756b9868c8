"""Every table command and button refused: the answer is private, fits Discord's limits and
is the error's own words, naming the field and what is allowed; never a repr, a dump of a
value, a traceback or an internal code."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.router import Discord as Endpoint
from d100.server.guard import Buckets, Limits

from .signing import Discord, payload
from .test_play import LUCKY, click, r
from .test_tables import CDN, GM, PLAYER, link, private, said, sheet, table_open

STRANGER = "400000000000000066"
# What a person must never read: Python's reprs and dumps, tracebacks, the API's error kinds.
RAW = re.compile(
    r"Traceback|Error\(|Exception|\{'|\{\"|\[\{|'\w+':|\"\w+\":|\bNone\b|"
    r"bad_input|not_found|rule_refusal|too_much_work|\bkind\b"
)


@pytest.fixture(autouse=True)
def unlimited(endpoint: Endpoint) -> None:
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))


def refused(response: Any, *named: str) -> str:
    """The private refusal's text, checked: readable words naming each of ``named``."""
    body = said(response)
    assert private(body) and "embeds" not in body and "components" not in body, body
    text = str(body["content"])
    assert not RAW.search(text), text
    for word in named:
        assert word in text.replace("\\", ""), (word, text)  # markdown escapes aside
    return text


def call(skill: str, characters: str, words: str = "", **kw: Any) -> dict[str, Any]:
    options = [
        {"name": "skill", "type": 3, "value": skill},
        {"name": "characters", "type": 3, "value": characters},
    ]
    if words:
        options.append({"name": "words", "type": 3, "value": words})
    data = {"id": "8", "name": "call", "type": 1, "options": options}
    return payload(interactions.APPLICATION_COMMAND, data, **kw)


def seated(client: TestClient, discord: Discord) -> None:
    respx.get(CDN).mock(return_value=httpx.Response(200, text=LUCKY))
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    said(discord.post(client, sheet(user=PLAYER, name="Pat")))


def revoke(client: TestClient, discord: Discord, user: str, name: str) -> None:
    """The GM revokes a player on the page, as the page's GM does."""
    answer = said(discord.post(client, link(user=GM, name="Gina")))
    path, gm = next(w for w in answer["content"].split() if "/t/" in w).split("#")
    table = path.rsplit("/", 1)[1]
    said(discord.post(client, link(user=user, name=name)))  # a member by now
    headers = {"authorization": f"Bearer {gm}"}
    members = client.get(f"/api/tables/{table}", headers=headers).json()["members"]
    (member,) = [m for m in members if m["name"] == name]
    gone = client.post(f"/api/tables/{table}/members/{member['id']}/revoke", headers=headers)
    assert gone.status_code == 200, gone.text


@respx.mock
def test_r_refusals_name_the_field_in_words(client: TestClient, discord: Discord) -> None:
    seated(client, discord)
    pat = {"user": PLAYER, "name": "Pat"}
    refused(discord.post(client, r("Nobody", "spot hidden", **pat)), "character", "Alice")
    refused(discord.post(client, r("Alice", "lockpick", **pat)), "skill", "spot hidden")
    refused(discord.post(client, r("Alice", "spot hidden", "hardd", **pat)), "hardd")
    refused(discord.post(client, r("Alice", "spot hidden", "hard easy", **pat)), "difficulty")
    refused(discord.post(client, r("Alice", "spot hidden", "", "loud", **pat)), "visibility")
    # a user who is no member yet has no character here
    refused(discord.post(client, r("Alice", "spot hidden", user=STRANGER)), "character")


@respx.mock
def test_call_refusals_name_the_field_in_words(client: TestClient, discord: Discord) -> None:
    seated(client, discord)
    gm = {"user": GM, "name": "Gina"}
    refused(discord.post(client, call("spot hidden", "Alice", user=PLAYER)), "call", "game master")
    refused(discord.post(client, call("spot hidden", "Nobody", **gm)), "characters", "Alice")
    refused(discord.post(client, call("spot hidden", " , ", **gm)), "characters")
    refused(discord.post(client, call("lockpick", "Alice", **gm)), "skill", "lockpick")
    refused(discord.post(client, call("spot hidden", "Alice", "hardd", **gm)), "hardd")
    refused(discord.post(client, call("spot hidden", "Alice", "b99", **gm)), "bonus")


@respx.mock
def test_a_revoked_member_is_told_so_privately_by_every_command(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    revoke(client, discord, PLAYER, "Pat")
    pat = {"user": PLAYER, "name": "Pat"}
    for sent in (
        r("Alice", "spot hidden", **pat),
        link(**pat),
        sheet(**pat),
        call("spot hidden", "Alice", **pat),
        click("f:x:1:luck", **pat),
        click("c:x:y", **pat),
    ):
        assert refused(discord.post(client, sent)).endswith("You were removed from this table.")


@respx.mock
def test_buttons_refused_in_words(client: TestClient, discord: Discord) -> None:
    seated(client, discord)
    for custom in ("f:nope:1:luck", "f:nope:x:luck", "c:nope:nope", "zzz", "", "f:" + "x" * 90):
        refused(discord.post(client, click(custom, user=STRANGER)))
    refused(discord.post(client, click("f:x:1", user=PLAYER)), "button")


def test_no_table_commands_without_a_table(client: TestClient, discord: Discord) -> None:
    for sent in (r("Alice", "spot hidden"), call("spot", "Alice"), link(), click("c:x:y")):
        refused(discord.post(client, sent))
