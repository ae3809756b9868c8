"""``/call``: the GM calls a test in the channel, with its hazard, and the channel gets one
Roll button per character called; a click by the character's player (or the GM) rolls it as
the page's call does, anyone else is told privately it is not theirs."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from d100.cli import main
from d100.discord import interactions
from d100.discord.commands import definitions
from d100.discord.limits import CUSTOM_ID_MAX, choice_problems, problems
from d100.discord.router import Discord as Endpoint
from d100.server.guard import Buckets, Limits

from .signing import Discord, payload
from .test_play import bodies, click, clicked, drained, webhooks
from .test_tables import CDN, GM, PLAYER, link, page_of, private, said, sheet, table_open

QUINN = "400000000000000055"
HAZARD = "the ghoul hears you"


@pytest.fixture(autouse=True)
def unlimited(endpoint: Endpoint) -> None:
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))


def call(skill: str, characters: str, hazard: str = "", words: str = "", **kw: Any) -> Any:
    options = [
        {"name": "skill", "type": 3, "value": skill},
        {"name": "characters", "type": 3, "value": characters},
    ]
    for name, value in (("hazard", hazard), ("words", words)):
        if value:
            options.append({"name": name, "type": 3, "value": value})
    data = {"id": "8", "name": "call", "type": 1, "options": options}
    return payload(interactions.APPLICATION_COMMAND, data, **kw)


def seated(client: TestClient, discord: Discord) -> None:
    sheets = {
        n: f'name = "{n}"\nsystem = "brp"\nskills = {{ "spot hidden" = 55, dodge = 30 }}\n'
        for n in ("Alice", "Bob")
    }
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    for user, name, character in ((PLAYER, "Pat", "Alice"), (QUINN, "Quinn", "Bob")):
        respx.get(CDN).mock(return_value=httpx.Response(200, text=sheets[character]))
        said(discord.post(client, sheet(user=user, name=name)))


def page(client: TestClient, discord: Discord, user: str, name: str) -> dict[str, Any]:
    """The page as that member sees it: the table's state and its log."""
    answer = said(discord.post(client, link(user=user, name=name)))
    url = next(w for w in answer["content"].split() if "/t/" in w)
    path, token = url.split("#")
    table = path.rsplit("/", 1)[1]
    state = client.get(f"/api/tables/{table}", headers={"authorization": f"Bearer {token}"})
    return state.json() | {"events": page_of(client, url)["events"], "id": table}


def buttons_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for row in message.get("components", ()) for b in row["components"]]


@respx.mock
def test_the_gm_calls_a_test_with_a_roll_button_per_character_and_its_hazard(
    client: TestClient, discord: Discord
) -> None:  # rule: OQ12 (the hazard is declared before anyone rolls)
    seated(client, discord)
    called = said(discord.post(client, call("spot", "alice, Bob", HAZARD, "hard", user=GM)))
    assert not private(called)
    shown = json.dumps(called)
    assert HAZARD in shown and "spot hidden" in shown and "difficulty hard" in shown
    pats = page(client, discord, PLAYER, "Pat")
    (seen,) = pats["calls"]
    assert seen["hazard"] == HAZARD and seen["skill"] == "spot hidden"
    targets = {t["character"]["name"]: t["id"] for t in seen["targets"]}
    found = buttons_of(called)
    assert [b["label"] for b in found] == ["Roll: Alice", "Roll: Bob"]
    for b in found:  # only the table and a called test's id, each on the player's page
        kind, table, target = b["custom_id"].split(":")
        assert kind == "c" and table == pats["id"] and target in targets.values()
        assert len(b["custom_id"]) <= CUSTOM_ID_MAX and not b.get("disabled")


@respx.mock
def test_a_click_rolls_the_called_test_for_its_player_or_the_gm_only(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    seated(client, discord)
    posted, edited = webhooks()
    called = said(discord.post(client, call("spot hidden", "Alice, Bob", HAZARD, user=GM)))
    alice, bob = (b["custom_id"] for b in buttons_of(called))
    theirs = said(discord.post(client, click(alice, user=QUINN, name="Quinn")))
    assert private(theirs) and "not yours" in theirs["content"]
    sent = click(alice, user=PLAYER, name="Pat")
    assert discord.post(client, sent).json() == {"type": interactions.DEFERRED_UPDATE}
    drained(client, endpoint)
    # the channel's message, and the roller's own offers privately when it failed
    (rolled,) = [b for b in bodies(posted) if not private(b)]
    assert "Alice" in json.dumps(rolled["embeds"])
    (now,) = bodies(edited)  # the call's message: Alice's button used, Bob's still there
    assert [(b["label"], bool(b.get("disabled"))) for b in buttons_of(now)] == [
        ("Alice: rolled", True),
        ("Roll: Bob", False),
    ]
    stale = click(alice, user=PLAYER, name="Pat")
    again, same = clicked(client, discord, endpoint, stale, (posted, edited))
    assert private(again) and "Already used" in again["content"] and same == now
    assert discord.post(client, sent).json() == {"type": interactions.DEFERRED_UPDATE}  # replay
    by_gm = discord.post(client, click(bob, user=GM, name="Gina"))
    assert by_gm.json() == {"type": interactions.DEFERRED_UPDATE}
    drained(client, endpoint)
    seen = page(client, discord, QUINN, "Quinn")
    (state,) = seen["calls"]
    assert {t["character"]["name"]: t["status"] for t in state["targets"]} == {
        "Alice": "rolled",
        "Bob": "rolled",
    }
    made = [e for e in seen["events"] if e["kind"] == "roll"]
    assert len(made) == 2 and all(e["call"]["id"] == state["id"] for e in made)
    assert all(e["call"]["hazard"] == HAZARD for e in made)


def test_call_is_registered_within_discord_s_limits(capsys: Any) -> None:
    (found,) = [c for c in definitions() if c["name"] == "call"]
    assert [o["name"] for o in found["options"]][:2] == ["skill", "characters"]
    assert all(len(o["description"]) <= 100 for o in found["options"])
    assert main(["discord", "register", "--print"]) == 0
    assert "call" in {c["name"] for c in json.loads(capsys.readouterr().out)}


@respx.mock
def test_every_call_message_fits_discord_s_limits(client: TestClient, discord: Discord) -> None:
    seated(client, discord)
    long = "x" * 500
    called = said(discord.post(client, call("spot hidden", "Alice, Bob", long, user=GM)))
    assert not problems(called)


def typing(focused: str, typed: str, characters: str = "", **kw: Any) -> dict[str, Any]:
    options = [{"name": focused, "type": 3, "value": typed, "focused": True}]
    if characters:
        options.append({"name": "characters", "type": 3, "value": characters})
    data = {"id": "8", "name": "call", "type": 1, "options": options}
    return payload(interactions.AUTOCOMPLETE, data, **kw)


@respx.mock
def test_call_completes_the_table_s_characters_and_their_skills(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)

    def offered(sent: dict[str, Any]) -> list[str]:
        body = discord.post(client, sent).json()
        assert not choice_problems(body)
        return [c["value"] for c in body["data"]["choices"]]

    assert offered(typing("characters", "", user=GM)) == ["Alice", "Bob"]
    assert offered(typing("characters", "Alice, b", user=GM)) == ["Alice, Bob"]
    assert offered(typing("characters", "alice,", user=GM)) == ["alice, Bob"]  # not twice
    assert offered(typing("skill", "sp", "Alice, Bob", user=GM)) == ["spot hidden"]
    assert offered(typing("skill", "", "Bob", user=GM)) == ["spot hidden", "dodge"]
    assert offered(typing("characters", "", user=PLAYER)) == ["Alice"]  # a player: their own
    assert offered(typing("characters", "", user="400000000000000999")) == []  # no member


GHOUL = 'name = "Ghoul"\nsystem = "brp"\nskills = { listen = 83 }\n'


def contest_call(opponent: str, opponent_skill: str, **kw: Any) -> Any:
    sent = call("spot hidden", "Alice", HAZARD, **kw)
    sent["data"]["options"] += [
        {"name": "opponent", "type": 3, "value": opponent},
        {"name": "opponent_skill", "type": 3, "value": opponent_skill},
    ]
    return sent


@respx.mock
def test_a_called_contest_against_an_npc_shows_the_channel_its_name_and_level_only(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    seated(client, discord)
    respx.get(CDN).mock(return_value=httpx.Response(200, text=GHOUL))
    said(discord.post(client, sheet(user=GM, name="Gina")))  # the GM's: an NPC
    posted, _ = webhooks()
    called = said(discord.post(client, contest_call("ghoul", "listen", user=GM)))
    assert "against Ghoul" in json.dumps(called) and "listen" not in json.dumps(called)
    (alice,) = (b["custom_id"] for b in buttons_of(called))
    sent = click(alice, user=PLAYER, name="Pat")
    assert discord.post(client, sent).json() == {"type": interactions.DEFERRED_UPDATE}
    drained(client, endpoint)
    (rolled,) = bodies(posted)  # the channel's message: the roller's side, the Ghoul's level
    assert not private(rolled)
    (shown,) = rolled["embeds"]
    fields = {f["name"]: f["value"] for f in shown["fields"]}
    assert set(fields) >= {"Alice", "Ghoul"} and "vs 55" in fields["Alice"]
    # the footer is the log's head, public, a hash that may hold any two digits
    unheaded = json.dumps({**rolled, "embeds": [{**shown, "footer": None}]})
    assert "dice" not in fields["Ghoul"] and "83" not in unheaded
    assert "listen" not in json.dumps(rolled)  # the GM chose not to say the Ghoul's skill
    assert "wins" in shown["title"] or "tie" in shown["title"].lower()
    made = [e for e in page(client, discord, PLAYER, "Pat")["events"] if e["kind"] == "contest"]
    assert len(made) == 1 and made[0]["call"]["hazard"] == HAZARD
    gm = [e for e in page(client, discord, GM, "Gina")["events"] if e["kind"] == "contest"]
    assert gm[0]["result"]["opponent"]["target"] == 83  # the GM's page has every number


@respx.mock
def test_a_contest_call_names_a_known_opponent_and_its_skill(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    nobody = said(discord.post(client, contest_call("Zed", "listen", user=GM)))
    assert private(nobody) and "opponent" in nobody["content"] and "Zed" in nobody["content"]
    sent = call("spot hidden", "Alice", user=GM)
    sent["data"]["options"].append({"name": "opponent", "type": 3, "value": "Bob"})
    skill_less = said(discord.post(client, sent))
    assert private(skill_less) and "opponent skill" in skill_less["content"]


@respx.mock
def test_a_click_on_a_test_called_out_of_the_clicker_s_sight_answers_as_an_unknown_one(
    client: TestClient, discord: Discord
) -> None:
    """A secret call's id is shown to its audience only; a click on it from anyone else is
    told what a made-up id is told, so it says nothing of whether the test exists."""
    seated(client, discord)
    gm = page(client, discord, GM, "Gina")
    answer = said(discord.post(client, link(user=GM, name="Gina")))  # a link anew: its token
    token = next(w for w in answer["content"].split() if "/t/" in w).split("#")[1]
    alice = next(c["id"] for c in gm["characters"] if c["name"] == "Alice")
    secret = {"skill": "spot hidden", "character_ids": [alice], "visibility": "gm"}
    made = client.post(
        f"/api/tables/{gm['id']}/calls", headers={"authorization": f"Bearer {token}"}, json=secret
    )
    assert made.status_code == 201, made.text
    target = made.json()["targets"][0]["id"]
    unseen = said(discord.post(client, click(f"c:{gm['id']}:{target}", user=QUINN, name="Quinn")))
    unknown = said(discord.post(client, click(f"c:{gm['id']}:{'x' * len(target)}", user=QUINN)))
    assert private(unseen) and unseen == unknown, (unseen, unknown)


@respx.mock
def test_a_group_luck_call_names_only_the_lowest_luck(client: TestClient, discord: Discord) -> None:
    sheets = {
        n: f'name = "{n}"\nsystem = "coc7"\nluck = {{ current = {v}, maximum = 99 }}\n'
        for n, v in (("Alice", 50), ("Bob", 35))
    }
    said(discord.post(client, table_open("coc7", user=GM, name="Gina")))
    for user, name, character in ((PLAYER, "Pat", "Alice"), (QUINN, "Quinn", "Bob")):
        respx.get(CDN).mock(return_value=httpx.Response(200, text=sheets[character]))
        said(discord.post(client, sheet(user=user, name=name)))
    asked = call("luck", "Alice, Bob", user=GM)
    asked["data"]["options"].append({"name": "lowest", "type": 5, "value": True})
    called = said(discord.post(client, asked))
    assert [b["label"] for b in buttons_of(called)] == ["Roll: Bob"]
    assert "Alice" not in json.dumps(called)
