"""A payload sent again (Discord retrying, or anyone replaying one they saw) answers with the
roll its interaction made, never a new one: the interaction's id is the roll's idempotency
key, the member's own, so two users' keys never meet."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from d100.discord.router import Discord as Endpoint
from d100.server.guard import Buckets, Limits

from .signing import Discord
from .test_play import (
    LUCKY,
    bodies,
    click,
    drained,
    failed_roll,
    r,
    seated,
    the_link_of,
    webhooks,
)
from .test_tables import CDN, GM, PLAYER, page_of, private, said, sheet, table_open


@pytest.fixture
def client(on_both: TestClient) -> TestClient:
    return on_both


@pytest.fixture(autouse=True)
def unlimited(endpoint: Endpoint) -> None:
    """Many commands of one person: the rate limit is not what these test."""
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))


def rolls_of(client: TestClient, discord: Discord) -> list[dict[str, Any]]:
    events = page_of(client, the_link_of(client, discord))["events"]
    return [e for e in events if e["kind"] == "roll"]


@respx.mock
def test_r_sent_twice_makes_one_roll_and_answers_it_twice(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    sent = r("Alice", "spot hidden", user=PLAYER, name="Pat")
    first = said(discord.post(client, sent))
    again = said(discord.post(client, sent))
    assert again == first  # the same roll: its number, dice and level
    assert len(rolls_of(client, discord)) == 1


@respx.mock
def test_r_sent_twice_at_once_makes_one_roll(client: TestClient, discord: Discord) -> None:
    seated(client, discord)
    for _ in range(3):
        sent = r("Alice", "spot hidden", user=PLAYER, name="Pat")
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda s: said(discord.post(client, s)), [sent, sent]))
        assert answers[0] == answers[1]
    assert len(rolls_of(client, discord)) == 3  # one per interaction


@respx.mock
def test_one_interaction_id_from_two_users_makes_two_rolls(
    client: TestClient, discord: Discord
) -> None:
    respx.get(CDN).mock(return_value=httpx.Response(200, text=LUCKY))
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    said(discord.post(client, sheet(user=PLAYER, name="Pat")))
    respx.get(CDN).mock(return_value=httpx.Response(200, text=LUCKY.replace("Alice", "Bob")))
    other = "400000000000000055"
    said(discord.post(client, sheet(user=other, name="Quinn")))
    mine = said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat", id="77")))
    theirs = said(discord.post(client, r("Bob", "spot hidden", user=other, name="Quinn", id="77")))
    assert "Bob" in theirs["embeds"][0]["description"]  # Quinn's own roll, not Pat's answered
    assert mine["embeds"][0]["title"] != theirs["embeds"][0]["title"]  # two numbers
    assert len(rolls_of(client, discord)) == 2


@respx.mock
def test_a_follow_up_click_sent_again_or_twice_at_once_follows_up_once(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:  # rule: BRP7
    respx.get(CDN).mock(return_value=httpx.Response(200, text=LUCKY))
    posted, _ = webhooks()
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    said(discord.post(client, sheet(user=PLAYER, name="Pat")))
    rolled = failed_roll(client, discord, endpoint, posted)
    custom = rolled["components"][0]["components"][0]["custom_id"]
    sent = click(custom, user=PLAYER, name="Pat")
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: discord.post(client, sent).json(), range(2)))
    assert answers[0] == answers[1]  # both acknowledge the one follow-up
    drained(client, endpoint)
    again = discord.post(client, sent).json()  # and a third time, later
    assert again == answers[0]
    drained(client, endpoint)
    public = [m for m in bodies(posted) if not private(m)]  # the roller's own views aside
    shown = {m["embeds"][0]["title"] for m in public}
    assert len(public) == 3 and len(shown) == 1, shown  # each answer posts the same roll
    seq = int(rolled["embeds"][0]["title"].rsplit("#", 1)[1])
    assert len([e for e in rolls_of(client, discord) if e.get("reroll_of") == seq]) == 1
