"""One table, two doors: a roll made on a channel's table's web page is posted to the channel
as a plain player sees it, from a row written in the roll's own transaction; a roll made in
Discord is answered there and not posted again; a post Discord fails is tried again, and
each row goes to one sender only."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import httpx
import respx
from fastapi.testclient import TestClient
from sqlalchemy import event, select

from d100.discord import mirror
from d100.discord.router import Discord as Endpoint
from d100.server.app import create_app
from d100.server.models import ChannelPost
from d100.server.store import Store
from tests.server.tablehelp import Api

from .signing import Discord
from .test_play import r
from .test_tables import CDN, GM, PLAYER, SHEET, link, said, sheet, table_open, the_link

CHANNEL = "500000000000000005"  # the channel the signed payloads come from
NPC = 'name = "Ghoul"\nsystem = "brp"\nskills = { stealth = 83 }\n'


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.server.store  # type: ignore[attr-defined]
    return store


def posts(client: TestClient) -> list[ChannelPost]:
    with store_of(client).read() as session:
        return list(session.scalars(select(ChannelPost).order_by(ChannelPost.id)))


def seated(client: TestClient, discord: Discord) -> tuple[str, str, str]:
    """A channel's table with Pat's Alice: the table, the GM's and Pat's web tokens."""
    respx.get(CDN).mock(return_value=httpx.Response(200, text=SHEET))
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    said(discord.post(client, sheet(user=PLAYER, name="Pat")))
    gm = the_link(said(discord.post(client, link(user=GM, name="Gina"))))
    pat = the_link(said(discord.post(client, link(user=PLAYER, name="Pat"))))
    table_id = gm.split("#")[0].rsplit("/", 1)[1]
    return table_id, gm.split("#")[1], pat.split("#")[1]


def web_roll(
    client: TestClient, table_id: str, token: str, character: str, **extra: Any
) -> dict[str, Any]:
    state = client.get(f"/api/tables/{table_id}", headers={"authorization": f"Bearer {token}"})
    cid = next(c["id"] for c in state.json()["characters"] if c["name"] == character)
    skill = extra.pop("skill", "spot hidden")
    rolled = client.post(
        f"/api/tables/{table_id}/rolls",
        headers={"authorization": f"Bearer {token}"},
        json={"actor": {"character_id": cid, "skill": skill}, **extra},
    )
    assert rolled.status_code == 201, rolled.text
    body: dict[str, Any] = rolled.json()
    return body


def no_sender(client: TestClient, endpoint: Endpoint) -> None:
    """The app's sender stopped: the rows stay for the test to see, or to send itself."""

    async def stop() -> None:
        assert endpoint.sender is not None
        endpoint.sender.cancel()

    client.portal.call(stop)


def channel_route() -> respx.Route:
    return respx.post(re.compile(rf".*/channels/{CHANNEL}/messages$")).respond(
        200, json={"id": "1"}
    )


def posted(route: respx.Route, count: int) -> list[dict[str, Any]]:
    """The channel's messages, once ``count`` have come."""
    deadline = time.monotonic() + 10
    while route.call_count < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert route.call_count == count, route.calls
    return [json.loads(call.request.content) for call in route.calls]


@respx.mock
def test_a_roll_on_the_web_page_is_posted_to_its_table_s_channel(
    on_both: TestClient, discord: Discord
) -> None:
    client = on_both
    route = channel_route()
    table_id, _, pat = seated(client, discord)
    assert posts(client) == []  # the table's opening and joins are not rolls
    rolled = web_roll(client, table_id, pat, "Alice")
    (message,) = posted(route, 1)
    embed = message["embeds"][0]
    assert "Pat rolled spot hidden as Alice" in embed["description"]
    assert f"#{rolled['seq']}" in embed["title"]
    shown = {f["name"]: f["value"] for f in embed["fields"]}
    assert shown["Effective skill"] == "55"
    assert str(rolled["result"]["roll"]).zfill(2) in shown["Dice"]
    head = rolled["head"]  # the roll's answer's: its post's footer says it too
    assert embed["footer"]["text"] == f"log #{head['seq']} · {head['link'][:8]}"
    assert "components" not in message or not message["components"]  # Pat's Luck is Pat's
    deadline = time.monotonic() + 5
    while posts(client) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert posts(client) == []  # sent: its row is gone


@respx.mock
def test_a_web_roll_is_posted_at_its_commit_not_at_the_sender_s_next_look(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    route = channel_route()
    table_id, _, pat = seated(client, discord)
    no_sender(client, endpoint)

    async def patient() -> None:  # a sender that would look again only in an hour
        endpoint.due = asyncio.Event()
        sender = mirror.run(store_of(client), endpoint.outbox, endpoint.due, idle=3600)
        endpoint.sender = asyncio.get_running_loop().create_task(sender)
        await asyncio.sleep(0.1)  # its first look, at nothing

    client.portal.call(patient)
    web_roll(client, table_id, pat, "Alice")
    (message,) = posted(route, 1)
    assert "Pat rolled spot hidden as Alice" in message["embeds"][0]["description"]


@respx.mock
def test_the_post_is_written_with_the_roll_and_a_discord_roll_is_not_posted_again(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    no_sender(client, endpoint)
    table_id, _, pat = seated(client, discord)
    said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat")))
    assert posts(client) == []  # answered in the channel by its own door
    rolled = web_roll(client, table_id, pat, "Alice")
    (row,) = posts(client)
    assert (row.table_id, row.seq, row.channel_id) == (table_id, rolled["seq"], CHANNEL)


@respx.mock
def test_the_channel_sees_a_secret_roll_and_an_npc_s_as_a_player_would(
    client: TestClient, discord: Discord
) -> None:
    route = channel_route()
    table_id, gm, _ = seated(client, discord)
    made = client.post(
        f"/api/tables/{table_id}/characters",
        headers={"authorization": f"Bearer {gm}"},
        json={"sheet": NPC},
    )
    assert made.status_code == 201, made.text
    web_roll(client, table_id, gm, "Ghoul", skill="stealth", visibility="gm")
    web_roll(client, table_id, gm, "Ghoul", skill="stealth")
    secret, npc = posted(route, 2)
    assert secret["content"] == "Someone rolled in secret." and "embeds" not in secret
    # the footer is the log's head (public, a hash that may hold any two digits): the rest
    # must not hold the NPC's skill
    card = dict(npc["embeds"][0])
    assert re.fullmatch(r"log #\d+ · [0-9a-f]{8}", card.pop("footer")["text"])
    text = json.dumps({**npc, "embeds": [card]})
    assert "Ghoul" in text and "83" not in text and "Dice" not in text, text
    assert not re.search(r"\b\d{2}\b", npc["embeds"][0]["description"])


@respx.mock
def test_a_post_discord_fails_is_taken_again_and_each_row_by_one_sender(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    no_sender(client, endpoint)
    store = store_of(client)
    table_id, _, pat = seated(client, discord)
    web_roll(client, table_id, pat, "Alice")
    at = time.time() + 3600  # after any lease the app's own sender may hold
    first = mirror.take(store, at)
    assert len(first) == 1 and mirror.take(store, at) == []  # held: no second sender gets it
    route = respx.post(re.compile(rf".*/channels/{CHANNEL}/messages$")).mock(
        side_effect=[httpx.Response(503, json={})] * 5 + [httpx.Response(200, json={"id": "1"})]
    )
    later = at + mirror.LEASE + 1
    taken = client.portal.call(mirror.send_due, store, endpoint.outbox, lambda: later)
    assert taken == 1 and route.call_count == 5 and len(posts(client)) == 1  # kept
    again = later + mirror.LEASE + 1
    assert client.portal.call(mirror.send_due, store, endpoint.outbox, lambda: again) == 1
    assert route.call_count == 6 and posts(client) == []


@respx.mock
def test_a_server_without_discord_looks_up_no_channel_as_it_rolls(
    tmp_path: Any, client: TestClient, discord: Discord
) -> None:
    """Where no Discord endpoint is served, a roll's transaction does not look for its
    table's channel (a round trip inside the table's lock on PostgreSQL); where one is, the
    web's rolls are looked up and queued."""

    def lookups(app_client: TestClient, roll: Any) -> list[str]:
        seen: list[str] = []

        def statement(_conn: Any, _cursor: Any, sql: str, *_: Any) -> None:
            seen.append(sql)

        engine = store_of(app_client).engine
        event.listen(engine, "before_cursor_execute", statement)
        try:
            roll()
        finally:
            event.remove(engine, "before_cursor_execute", statement)
        return [s for s in seen if "discord_channels" in s]

    with TestClient(create_app(f"sqlite:///{tmp_path / 'plain.sqlite3'}")) as plain:
        table = Api(plain).table("brp")
        alice = table.character(table.gm, "Alice")
        assert lookups(plain, lambda: table.roll(table.gm, alice, "stealth")) == []
    table_id, _, pat = seated(client, discord)
    assert lookups(client, lambda: web_roll(client, table_id, pat, "Alice"))


@respx.mock
def test_a_contest_on_the_web_page_is_posted_as_a_plain_player_sees_it(
    client: TestClient, discord: Discord
) -> None:
    """Who won and each side's level; the NPC's side without its dice, target or skill; a
    blind one as a secret until the page shows it, then as the contest."""
    route = channel_route()
    table_id, gm, _ = seated(client, discord)
    made = client.post(
        f"/api/tables/{table_id}/characters",
        headers={"authorization": f"Bearer {gm}"},
        json={"sheet": NPC},
    )
    assert made.status_code == 201, made.text
    state = client.get(f"/api/tables/{table_id}", headers={"authorization": f"Bearer {gm}"})
    alice = next(c["id"] for c in state.json()["characters"] if c["name"] == "Alice")
    actor = {"character_id": alice, "skill": "spot hidden", "dice": [10]}
    opponent = {"character_id": made.json()["id"], "skill": "stealth", "dice": [95]}
    sides: dict[str, Any] = {"actor": actor, "opponent": opponent}
    public = web_roll(client, table_id, gm, "Alice", **sides)
    blind = web_roll(client, table_id, gm, "Alice", visibility="blind", **sides)
    shown = client.post(
        f"/api/tables/{table_id}/rolls/{blind['seq']}/unblind",
        headers={"authorization": f"Bearer {gm}"},
    )
    assert shown.status_code == 201, shown.text
    contest, secret, unblinded = posted(route, 3)
    assert secret["content"] == "Someone rolled in secret." and "embeds" not in secret
    for message, seq in ((contest, public["seq"]), (unblinded, shown.json()["seq"])):
        (embed,) = message["embeds"]
        assert embed["title"].startswith("Alice wins") and f"#{seq}" in embed["title"], embed
        assert "Gina rolled spot hidden as Alice against Ghoul" in embed["description"]
        sides_shown = {f["name"]: f["value"] for f in embed["fields"]}
        assert "10 (by hand) vs 55" in sides_shown["Alice"], sides_shown
        text = json.dumps(message)
        assert not re.search(r"\b(83|95)\b", text) and "stealth" not in text, text
