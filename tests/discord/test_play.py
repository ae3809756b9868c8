"""``/r character skill [words]``: a roll as the user's character at the channel's table,
by the server's own roll path; the channel sees what a plain player sees."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.commands import definitions
from d100.discord.limits import problems
from d100.discord.router import Discord as Endpoint
from d100.server.errors import ApiError

from .signing import APP, Discord, payload
from .test_tables import CDN, GM, PLAYER, SHEET, link, page_of, private, said, sheet, table_open


def r(
    character: str, skill: str, words: str = "", visibility: str = "", **kw: Any
) -> dict[str, Any]:
    options = [
        {"name": "character", "type": 3, "value": character},
        {"name": "skill", "type": 3, "value": skill},
    ]
    if words:
        options.append({"name": "words", "type": 3, "value": words})
    if visibility:
        options.append({"name": "visibility", "type": 3, "value": visibility})
    return payload(
        interactions.APPLICATION_COMMAND,
        {"id": "6", "name": "r", "type": 1, "options": options},
        **kw,
    )


def typing(focused: str, typed: str, character: str = "", **kw: Any) -> dict[str, Any]:
    options = [{"name": focused, "type": 3, "value": typed, "focused": True}]
    if character and focused != "character":
        options.append({"name": "character", "type": 3, "value": character})
    data = {"id": "6", "name": "r", "type": 1, "options": options}
    return payload(interactions.AUTOCOMPLETE, data, **kw)


def seated(client: TestClient, discord: Discord) -> None:
    respx.get(CDN).mock(return_value=httpx.Response(200, text=SHEET))
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    said(discord.post(client, sheet(user=PLAYER, name="Pat")))


@respx.mock
def test_r_rolls_through_the_table_s_log_with_level_and_odds(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    rolled = said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat")))
    assert not private(rolled)
    shown = {f["name"]: f["value"] for f in rolled["embeds"][0]["fields"]}
    assert "55" in shown.values()  # the sheet's skill is the target
    assert "Level" in shown and "Any success" in shown and "/" in shown["Any success"]
    seen = page_of(client, the_link_of(client, discord))
    rolls = [e for e in seen["events"] if e["kind"] == "roll"]
    assert len(rolls) == 1 and rolls[0]["skill"] == "spot hidden"
    assert str(rolls[0]["result"]["roll"]).zfill(2) in shown["Dice"]
    # the log's head after the roll, as the page's log gives it, for a member to keep
    head = rolls[0]["head"]
    assert rolled["embeds"][0]["footer"]["text"] == f"log #{head['seq']} · {head['link'][:8]}"


def the_link_of(client: TestClient, discord: Discord) -> str:
    gm = said(discord.post(client, link(user=PLAYER, name="Pat")))
    return next(w for w in gm["content"].split() if "/t/" in w)


@respx.mock
def test_r_in_secret_shows_the_channel_nothing_and_the_roller_their_roll(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    own = respx.post(re.compile(rf".*/webhooks/{APP}/.*")).respond(200, json={"id": "1"})
    stub = said(
        discord.post(client, r("Alice", "spot hidden", visibility="gm", user=PLAYER, name="Pat"))
    )
    assert not private(stub) and "secret" in stub["content"] and "embeds" not in stub
    # no dice, skill nor number (its GM's buttons name the roll's, as the page's stub does)
    assert not re.search(r"\d", json.dumps({**stub, "components": []})), stub
    for _ in range(100):
        if own.called:
            break
        time.sleep(0.02)
    sent = json.loads(own.calls.last.request.content)
    assert sent["flags"] & interactions.EPHEMERAL and not problems(sent)
    assert "Dice" in {f["name"] for f in sent["embeds"][0]["fields"]}


@respx.mock
def test_r_completes_the_user_s_characters_and_skills_and_refuses_a_forged_value(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    names = discord.post(client, typing("character", "al", user=PLAYER, name="Pat")).json()
    assert [c["value"] for c in names["data"]["choices"]] == ["Alice"]
    skills = discord.post(client, typing("skill", "sp", "Alice", user=PLAYER, name="Pat")).json()
    assert [c["value"] for c in skills["data"]["choices"]] == ["spot hidden"]
    # The GM's completion shows the table's characters; a stranger's shows none.
    other = discord.post(client, typing("character", "", user="400000000000000444")).json()
    assert other["data"]["choices"] == []
    forged = said(discord.post(client, r("Alice", "lockpicking", user=PLAYER, name="Pat")))
    assert private(forged) and "skill" in forged["content"]
    theirs = said(discord.post(client, r("Alice", "spot hidden", user="400000000000000444")))
    assert private(theirs) and "character" in theirs["content"]


def test_r_is_registered_within_discord_s_limits() -> None:
    (found,) = [c for c in definitions() if c["name"] == "r"]
    assert all(len(o["name"]) <= 32 and len(o["description"]) <= 100 for o in found["options"])
    assert [o["name"] for o in found["options"]][:2] == ["character", "skill"]


LUCKY = (
    'name = "Alice"\nsystem = "brp"\nskills = { "spot hidden" = 5 }\n'
    "luck = { current = 3, maximum = 3 }\n"
)


def click(custom_id: str, **kw: Any) -> dict[str, Any]:
    data = {"custom_id": custom_id, "component_type": 2}
    return payload(interactions.MESSAGE_COMPONENT, data, **kw)


def webhooks() -> tuple[respx.Route, respx.Route]:
    """Discord's webhook routes, mocked: follow-up messages posted, and messages edited."""
    posted = respx.post(re.compile(rf".*/webhooks/{APP}/[^/]+$")).respond(200, json={"id": "1"})
    edited = respx.patch(re.compile(rf".*/webhooks/{APP}/.*/messages/.*")).respond(200, json={})
    return posted, edited


def drained(client: TestClient, endpoint: Endpoint) -> None:
    """Wait until the outbox has sent everything queued."""
    client.portal.call(endpoint.outbox.flush)  # type: ignore[union-attr]


def bodies(route: respx.Route) -> list[dict[str, Any]]:
    out = [json.loads(call.request.content) for call in route.calls]
    assert all(not problems(body) for body in out), [problems(b) for b in out]
    return out


def clicked(
    client: TestClient,
    discord: Discord,
    endpoint: Endpoint,
    sent: dict[str, Any],
    routes: tuple[respx.Route, respx.Route],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A click acknowledged (a deferred update): the last message it posted and the last
    edit of the message clicked."""
    answer = discord.post(client, sent)
    assert answer.json() == {"type": interactions.DEFERRED_UPDATE}, answer.text
    drained(client, endpoint)
    posted, edited = routes
    return bodies(posted)[-1], bodies(edited)[-1]


def failed_roll(
    client: TestClient,
    discord: Discord,
    endpoint: Endpoint,
    posted: respx.Route,
    tries: int = 20,
    until: Callable[[list[str]], bool] = bool,
) -> dict[str, Any]:
    """A roll of Alice's skill of 5, rolled until it fails: the private message offering its
    follow-ups to her player (the offers bound her Luck: the channel's answer has none). The
    posts so far are forgotten, so a test reads only what follows."""
    for _ in range(tries):  # a skill of 5 fails nearly always
        shown = said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat")))
        assert "components" not in shown, shown
        drained(client, endpoint)
        offers = [b for b in bodies(posted) if b.get("components")]
        rows = [row for message in offers[-1:] for row in message["components"]]
        ids = [b["custom_id"] for row in rows for b in row["components"]]
        if offers and until(ids):
            assert offers[-1]["flags"] & interactions.EPHEMERAL
            posted.reset()
            return offers[-1]
        posted.reset()
    raise AssertionError(f"no failure offering what was wanted in {tries} rolls")


@respx.mock
def test_a_failed_roll_s_follow_up_button_rolls_again_for_its_roller_only(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:  # rule: BRP7
    respx.get(CDN).mock(return_value=httpx.Response(200, text=LUCKY))
    posted, edited = webhooks()
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    said(discord.post(client, sheet(user=PLAYER, name="Pat")))
    rolled = failed_roll(client, discord, endpoint, posted)
    (row,) = rolled["components"]
    button = row["components"][0]
    seq = rolled["embeds"][0]["title"].rsplit("#", 1)[1]
    assert len(button["custom_id"]) <= 100 and button["custom_id"].split(":")[2] == seq
    theirs = said(discord.post(client, click(button["custom_id"], user=GM, name="Gina")))
    assert private(theirs) and "not yours" in theirs["content"]
    again = discord.post(client, click(button["custom_id"], user=PLAYER, name="Pat"))
    assert again.json() == {"type": interactions.DEFERRED_UPDATE}
    drained(client, endpoint)
    # the new roll, in the channel (and its roller's own view, privately, if it offers more)
    (new,) = [b for b in bodies(posted) if not private(b)]
    assert not private(new) and new["embeds"], new
    (disabled,) = bodies(edited)  # and the clicked message's buttons, disabled
    assert "/messages/@original" in str(edited.calls.last.request.url)
    offered = [b for r in disabled["components"] for b in r["components"]]
    assert offered and all(b["disabled"] for b in offered)
    assert button["custom_id"] in {b["custom_id"] for b in offered}
    events = page_of(client, the_link_of(client, discord))["events"]
    rerolled = [e for e in events if e["kind"] == "roll" and e.get("reroll_of") == int(seq)]
    assert len(rerolled) == 1, [e for e in events if e["kind"] == "roll"][-1]


@respx.mock
def test_r_with_dear_odds_works_them_out_first_and_rolls(
    client: TestClient, discord: Discord, monkeypatch: Any
) -> None:
    seated(client, discord)
    monkeypatch.setattr("d100.server.rolls.cheap_odds", lambda request: None)  # every odds dear
    rolled = said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat")))
    shown = {f["name"]: f["value"] for f in rolled["embeds"][0]["fields"]}
    assert "/" in shown["Any success"]
    assert [e["kind"] for e in page_of(client, the_link_of(client, discord))["events"]].count(
        "roll"
    ) == 1


@respx.mock
def test_r_blind_shows_nobody_but_the_gm_its_result(client: TestClient, discord: Discord) -> None:
    seated(client, discord)
    own = respx.post(re.compile(rf".*/webhooks/{APP}/.*")).respond(200, json={"id": "1"})
    sent = r("Alice", "spot hidden", visibility="blind", user=PLAYER, name="Pat")
    stub = said(discord.post(client, sent))
    assert "secret" in stub["content"], stub
    assert not re.search(r"\d", json.dumps({**stub, "components": []})), stub
    for _ in range(100):
        if own.called:
            break
        time.sleep(0.02)
    mine = json.loads(own.calls.last.request.content)
    assert "embeds" not in mine and not re.search(r"\d", mine["content"]), mine


@respx.mock
def test_a_channel_s_writes_wait_their_turn_in_the_web_s_write_queue(
    client: TestClient, discord: Discord
) -> None:
    """Opening, a sheet, a roll: each written in its table's turn of the queue the page's
    rolls wait in (on SQLite one write at a time in all), never from a thread of its own."""
    writing = client.app.state.server.writing  # type: ignore[attr-defined]
    lanes: list[str] = []
    run = writing.run

    async def counted(lane: str, fn: Callable[..., Any], *args: Any) -> Any:
        lanes.append(lane)
        return await run(lane, fn, *args)

    writing.run = counted
    seated(client, discord)
    said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat")))
    assert len(lanes) == 3 and set(lanes) == {"table:discord-500000000000000005"}, lanes


@respx.mock
def test_a_full_write_queue_is_a_private_busy(client: TestClient, discord: Discord) -> None:
    seated(client, discord)
    turns = client.app.state.server.writing.turns  # type: ignore[attr-defined]
    full = turns.refusal
    turns.refusal = lambda lane: full(lane) or ApiError(
        429, "request", None, "fewer", "too many", {"retry-after": "3"}
    )
    busy = said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat")))
    assert private(busy) and busy["content"] == "Busy, try again in 3 s.", busy


@respx.mock
def test_r_takes_dice_typed_by_hand_as_its_help_offers_and_logs_them_as_typed(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    rolled = said(discord.post(client, r("Alice", "spot hidden", "@07", user=PLAYER, name="Pat")))
    shown = {f["name"]: f["value"] for f in rolled["embeds"][0]["fields"]}
    assert shown["Dice"] == "07 (by hand)", shown
    seen = page_of(client, the_link_of(client, discord))
    (made,) = [e for e in seen["events"] if e["kind"] == "roll"]
    assert made["manual"] is True and made["result"]["dice"] == [7]
    hidden = r("Alice", "spot hidden", "@07", "blind", user=PLAYER, name="Pat")
    refused = said(discord.post(client, hidden))  # the table's own rule, in its words
    assert private(refused) and "dice" in refused["content"] and "hidden" in refused["content"]


@respx.mock
def test_completing_skills_parses_the_sheet_once_per_change_not_per_call(
    client: TestClient, discord: Discord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Autocomplete is a keystroke's: every completion of the same sheet reads the skills of
    one parse, a sheet changed is parsed once more."""
    from d100 import sheets
    from d100.server import characters

    seated(client, discord)
    characters._parsed.cache_clear()
    characters._with_luck.cache_clear()
    parsed: list[str] = []
    loads = sheets.loads
    monkeypatch.setattr(sheets, "loads", lambda text: parsed.append(text) or loads(text))
    for typed in ("s", "sp", "spo", "spot", "spot ", "spot h", "x", ""):
        skills = discord.post(client, typing("skill", typed, "Alice", user=PLAYER, name="Pat"))
        assert skills.status_code == 200
    assert len(parsed) == 1
    changed = SHEET.replace("55", "60")
    respx.get(CDN).mock(return_value=httpx.Response(200, text=changed))
    said(discord.post(client, sheet(size=len(changed), user=PLAYER, name="Pat")))
    discord.post(client, typing("skill", "sp", "Alice", user=PLAYER, name="Pat"))
    discord.post(client, typing("skill", "spo", "Alice", user=PLAYER, name="Pat"))
    assert len(set(parsed)) == 2
