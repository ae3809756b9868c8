"""A channel table's command or click whose work is not done within ``answer_seconds`` (it
waits its turn in the write queue behind the page's rolls) is acknowledged at once, within
Discord's 3 s, and answered when done: the command's "thinking..." replaced by its message,
one meant for the user alone following privately, a click's answer following it."""

from __future__ import annotations

import asyncio
from typing import Any

import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.router import ANSWERED_PRIVATELY
from d100.discord.router import Discord as Endpoint

from .signing import Discord
from .test_buttons import offered
from .test_play import bodies, click, drained, r, seated, webhooks
from .test_tables import GM, PLAYER, link, private


def slowed(client: TestClient, discord: Discord, endpoint: Endpoint) -> Endpoint:
    """A table seated while answers come at once; from then on every answer is late."""
    seated(client, discord)
    endpoint.answer_seconds = 0.0
    return endpoint


def settled(client: TestClient, endpoint: Endpoint) -> None:
    """Wait until the late answers' work is done and the outbox has sent what it queued."""

    async def done() -> None:
        while endpoint.pending:
            await asyncio.gather(*list(endpoint.pending), return_exceptions=True)

    client.portal.call(done)
    drained(client, endpoint)


def late(client: TestClient, discord: Discord, sent: dict[str, Any]) -> dict[str, Any]:
    answer = discord.post(client, sent)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


@respx.mock
def test_a_late_roll_is_acknowledged_then_its_message_replaces_thinking(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    slow = slowed(client, discord, endpoint)
    _, edited = webhooks()
    body = late(client, discord, r("Alice", "spot hidden", user=PLAYER, name="Pat"))
    assert body == {"type": interactions.DEFERRED, "data": {}}  # public "thinking..."
    settled(client, slow)
    (shown,) = bodies(edited)
    assert "Pat rolled spot hidden as Alice" in shown["embeds"][0]["description"], shown
    assert "flags" not in shown


@respx.mock
def test_a_late_secret_roll_replaces_thinking_by_its_stub_and_tells_the_roller_privately(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    slow = slowed(client, discord, endpoint)
    posted, edited = webhooks()
    sent = r("Alice", "spot hidden", visibility="gm", user=PLAYER, name="Pat")
    assert late(client, discord, sent)["type"] == interactions.DEFERRED
    settled(client, slow)
    (stub,) = bodies(edited)
    assert stub["content"] == "Pat rolled in secret." and "embeds" not in stub, stub
    (own,) = bodies(posted)
    assert private(own) and own["embeds"], own


@respx.mock
def test_a_late_refusal_is_told_privately_not_in_the_public_thinking(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    slow = slowed(client, discord, endpoint)
    posted, edited = webhooks()
    late(client, discord, r("Nobody", "spot hidden", user=PLAYER, name="Pat"))
    settled(client, slow)
    (said,) = bodies(edited)
    assert said["content"] == ANSWERED_PRIVATELY, said
    (refused,) = bodies(posted)
    assert private(refused) and "Nobody" in refused["content"], refused


@respx.mock
def test_a_late_link_is_private_from_the_start(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    slow = slowed(client, discord, endpoint)
    _, edited = webhooks()
    body = late(client, discord, link(user=PLAYER, name="Pat"))
    assert body == {"type": interactions.DEFERRED, "data": {"flags": interactions.EPHEMERAL}}
    settled(client, slow)
    (linked,) = bodies(edited)
    assert "/t/" in linked["content"] and "flags" not in linked, linked


@respx.mock
def test_a_late_click_is_acknowledged_and_its_answer_follows(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    seated(client, discord)
    posted, _ = webhooks()
    stub = late(client, discord, r("Alice", "spot hidden", visibility="gm", user=PLAYER))
    show_me = {b["label"]: b["custom_id"] for b in offered(stub["data"])}["GM: show me"]
    endpoint.answer_seconds = 0.0
    before = len(posted.calls)
    body = late(client, discord, click(show_me, user=GM, name="Gina"))
    assert body == {"type": interactions.DEFERRED_UPDATE}
    settled(client, endpoint)
    shown = bodies(posted)[before:][-1]
    assert private(shown) and shown["embeds"], shown
