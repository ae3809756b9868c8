"""A follow-up's buttons once it is used: the clicked message's buttons are disabled through
the outbox, and a click on a button gone stale (used here or on the page, or clicked twice at
once) is answered privately "already used", never acting twice."""

from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.router import Discord as Endpoint
from d100.server.guard import Buckets, Limits

from .signing import Discord
from .test_play import LUCKY, bodies, click, clicked, drained, failed_roll, r, webhooks
from .test_tables import CDN, GM, PLAYER, link, private, said, sheet, table_open

RENDERED = pytest.mark.sqlite_only(
    "What a secret roll's follow-up shows the channel and how a server's failure is "
    "worded: renderings. A follow-up taken once, whoever clicks first, stays on both "
    "databases."
)

COC7 = (
    'name = "Alice"\nsystem = "coc7"\nskills = { "spot hidden" = 40 }\n'
    "luck = { current = 99, maximum = 99 }\n"
)


@pytest.fixture
def client(on_both: TestClient) -> TestClient:
    return on_both


@pytest.fixture(autouse=True)
def unlimited(endpoint: Endpoint) -> None:
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))


def seated(client: TestClient, discord: Discord, system: str, text: str) -> None:
    respx.get(CDN).mock(return_value=httpx.Response(200, text=text))
    said(discord.post(client, table_open(system, user=GM, name="Gina")))
    said(discord.post(client, sheet(user=PLAYER, name="Pat")))


def offered(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for row in message.get("components", ()) for b in row["components"]]


def seq_of(message: dict[str, Any]) -> int:
    return int(message["embeds"][0]["title"].rsplit("#", 1)[1])


def pats_page(client: TestClient, discord: Discord) -> tuple[str, dict[str, str]]:
    answer = said(discord.post(client, link(user=PLAYER, name="Pat")))
    path, token = next(w for w in answer["content"].split() if "/t/" in w).split("#")
    return f"/api/tables/{path.rsplit('/', 1)[1]}", {"authorization": f"Bearer {token}"}


def follow_ups_of(client: TestClient, discord: Discord, seq: int) -> list[dict[str, Any]]:
    base, headers = pats_page(client, discord)
    events = client.get(f"{base}/events", headers=headers).json()
    return [e for e in events if e["kind"] == "roll" and e.get("reroll_of") == seq]


@respx.mock
def test_taking_one_follow_up_disables_every_button_and_the_rest_are_already_used(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:  # rule: C7-4, C7-5
    seated(client, discord, "coc7", COC7)
    routes = webhooks()
    _, edited = routes
    # 41..95 fails with Luck to buy it and a push: two offers at least
    rolled = failed_roll(
        client,
        discord,
        endpoint,
        routes[0],
        tries=30,
        until=lambda ids: len(ids) >= 2 and any(c.endswith(":push") for c in ids),
    )
    keys = {b["custom_id"].rsplit(":", 1)[1]: b["custom_id"] for b in offered(rolled)}
    assert {"push"} < set(keys), keys
    taken = discord.post(client, click(keys["push"], user=PLAYER, name="Pat"))
    assert taken.json() == {"type": interactions.DEFERRED_UPDATE}
    drained(client, endpoint)
    (now,) = bodies(edited)
    assert {b["custom_id"] for b in offered(now)} == set(keys.values())
    assert all(b["disabled"] for b in offered(now))
    for custom in keys.values():  # stale now, the push's own button as much as Luck's
        sent = click(custom, user=PLAYER, name="Pat")
        stale, again = clicked(client, discord, endpoint, sent, routes)
        assert private(stale) and "Already used" in stale["content"], stale
        assert again == now
    assert len(follow_ups_of(client, discord, seq_of(rolled))) == 1


@respx.mock
def test_a_follow_up_taken_on_the_page_makes_discord_s_button_already_used_and_disabled(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:  # rule: BRP7
    seated(client, discord, "brp", LUCKY)
    routes = webhooks()
    rolled = failed_roll(client, discord, endpoint, routes[0])
    base, headers = pats_page(client, discord)
    page = client.post(f"{base}/rolls/{seq_of(rolled)}/reroll", headers=headers, json={})
    assert page.status_code == 201, page.text
    custom = offered(rolled)[0]["custom_id"]
    sent = click(custom, user=PLAYER, name="Pat")
    stale, now = clicked(client, discord, endpoint, sent, routes)
    assert private(stale) and "Already used" in stale["content"]
    assert offered(now) and all(b["disabled"] for b in offered(now))  # set right by the click
    assert len(follow_ups_of(client, discord, seq_of(rolled))) == 1


@respx.mock
def test_a_follow_up_taken_on_the_page_disables_the_offering_message_s_buttons(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:  # rule: BRP7
    """The roller's private message offering the reroll is edited as the page's reroll is
    posted to the channel: its buttons disabled, before anyone clicks one."""
    seated(client, discord, "brp", LUCKY)
    routes = webhooks()
    posted, edited = routes
    channel = respx.post(re.compile(r".*/channels/\d+/messages$")).respond(200, json={"id": "2"})
    rolled = failed_roll(client, discord, endpoint, posted)  # Discord's message 1 (as mocked)
    base, headers = pats_page(client, discord)
    page = client.post(f"{base}/rolls/{seq_of(rolled)}/reroll", headers=headers, json={})
    assert page.status_code == 201, page.text
    deadline = time.monotonic() + 10
    while not (edited.called and channel.called) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert channel.called, "the page's reroll is posted to the channel"
    (edit,) = edited.calls
    assert str(edit.request.url).endswith("/messages/1"), edit.request.url
    now = json.loads(edit.request.content)
    assert {b["custom_id"] for b in offered(now)} == {b["custom_id"] for b in offered(rolled)}
    assert all(b["disabled"] for b in offered(now)), now
    stale, again = clicked(
        client, discord, endpoint, click(offered(rolled)[0]["custom_id"], user=PLAYER), routes
    )
    assert private(stale) and "Already used" in stale["content"] and again == now


@respx.mock
def test_two_clicks_at_once_follow_up_once(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:  # rule: BRP7
    seated(client, discord, "brp", LUCKY)
    posted, _ = webhooks()
    rolled = failed_roll(client, discord, endpoint, posted)
    custom = offered(rolled)[0]["custom_id"]
    clicks = [click(custom, user=PLAYER, name="Pat") for _ in range(2)]  # two interactions
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda sent: discord.post(client, sent).json(), clicks))
    assert answers == [{"type": interactions.DEFERRED_UPDATE}] * 2, answers
    drained(client, endpoint)
    messages = bodies(posted)
    (refused,) = [m for m in messages if "Already used" in m["content"]]
    # one roll in the channel (its roller's own view aside), one "already used"
    (made,) = [m for m in messages if m.get("embeds") and not private(m)]
    assert private(refused) and not private(made)
    assert len(follow_ups_of(client, discord, seq_of(rolled))) == 1


@respx.mock
@RENDERED
def test_a_secret_roll_s_follow_up_shows_the_channel_only_that_it_happened(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:  # rule: BRP7
    seated(client, discord, "brp", LUCKY)
    posted, edited = webhooks()
    for _ in range(20):  # the roller's own view, privately, carries the follow-ups
        said(discord.post(client, r("Alice", "spot hidden", visibility="gm", user=PLAYER)))
        drained(client, endpoint)
        own = bodies(posted)[-1]
        if offered(own):
            break
    assert private(own)
    before = len(posted.calls)
    taken = discord.post(client, click(offered(own)[0]["custom_id"], user=PLAYER, name="Pat"))
    assert taken.json() == {"type": interactions.DEFERRED_UPDATE}
    drained(client, endpoint)
    stub, mine = bodies(posted)[before:]
    assert not private(stub) and "secret" in stub["content"] and "embeds" not in stub
    # no dice, skill nor number (its GM's buttons name the roll's, as the page's stub does)
    assert not re.search(r"\d", json.dumps({**stub, "components": []})), stub
    assert private(mine) and mine["embeds"]
    assert all(b["disabled"] for b in offered(bodies(edited)[-1]))


@respx.mock
@RENDERED
def test_a_failure_of_the_server_is_answered_without_its_words(
    client: TestClient, discord: Discord, monkeypatch: pytest.MonkeyPatch
) -> None:
    seated(client, discord, "brp", LUCKY)

    def broken(*args: Any) -> Any:
        raise RuntimeError("internal detail {'key': 1}")

    monkeypatch.setattr("d100.discord.play.roll_as", broken)
    monkeypatch.setattr("d100.discord.clicks.click", broken)
    for sent in (r("Alice", "spot hidden", user=PLAYER), click("f:x:1:luck", user=PLAYER)):
        answer = said(discord.post(client, sent))
        assert private(answer) and "went wrong" in answer["content"]
        assert "internal" not in answer["content"]
