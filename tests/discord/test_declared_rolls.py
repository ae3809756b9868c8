"""``/r`` at a table channel rolls dice (``/r Alice 1d6+1``) and a Sanity roll for the
character (``/r Alice sc 1/1d6``) by the page's route: the same event, seeds and sheet
write-back; a secret one shows the channel nothing."""

from __future__ import annotations

import json
import re

import httpx
import respx
from fastapi.testclient import TestClient

from tests.server.tablehelp import bearer

from .signing import Discord
from .test_play import r, the_link_of
from .test_tables import CDN, GM, PLAYER, page_of, private, said, sheet, table_open

COC7 = 'name = "Alice"\nsystem = "coc7"\nskills = { "spot hidden" = 55, sanity = 60, int = 70 }\n'


def seated(client: TestClient, discord: Discord) -> None:
    respx.get(CDN).mock(return_value=httpx.Response(200, text=COC7))
    said(discord.post(client, table_open("coc7", user=GM, name="Gina")))
    said(discord.post(client, sheet(size=len(COC7), user=PLAYER, name="Pat")))


@respx.mock
def test_r_rolls_dice_and_a_sanity_roll_for_the_character(  # rule: S7-2
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    dice = said(discord.post(client, r("Alice", "1d6+1", user=PLAYER, name="Pat")))
    assert not private(dice) and dice["embeds"][0]["title"].startswith("Total ")
    shown = {f["name"]: f["value"] for f in dice["embeds"][0]["fields"]}
    assert "/" in shown["Exact chance"]
    san = said(discord.post(client, r("Alice", "sc", "1/1d6", user=PLAYER, name="Pat")))
    fields = {f["name"]: f["value"] for f in san["embeds"][0]["fields"]}
    assert fields["SAN"].startswith("60 → ") and "3/5" in fields["Success"]
    url = the_link_of(client, discord)
    seen = page_of(client, url)
    made = [e for e in seen["events"] if e["kind"] == "declared"]
    assert [e["roll"] for e in made] == ["dice", "sanity"]
    after = made[1]["result"]["sanity_after"]
    assert fields["SAN"] == f"60 → {after}"
    path, token = url.split("#")
    state = client.get(f"/api/tables/{path.rsplit('/', 1)[1]}", headers=bearer(token)).json()
    alice = next(c for c in state["characters"] if c["name"] == "Alice")
    assert alice["skills"]["sanity"] == after  # written back, as the page's roll does
    # a skill of the sheet is still a check
    check = said(discord.post(client, r("Alice", "spot hidden", user=PLAYER, name="Pat")))
    assert "Sanity" not in json.dumps(check)


@respx.mock
def test_r_a_secret_sanity_roll_shows_the_channel_nothing(
    client: TestClient, discord: Discord
) -> None:
    seated(client, discord)
    respx.post(re.compile(r".*/webhooks/.*")).respond(200, json={"id": "1"})
    stub = said(discord.post(client, r("Alice", "sc", "1/1d6", "gm", user=PLAYER, name="Pat")))
    assert "secret" in stub["content"] and "embeds" not in stub
    assert not re.search(r"\d", json.dumps({**stub, "components": []})), stub


@respx.mock
def test_dice_rolled_on_the_page_are_posted_to_the_channel(
    client: TestClient, discord: Discord
) -> None:
    from .test_mirror import channel_route, posted

    route = channel_route()
    respx.get(CDN).mock(return_value=httpx.Response(200, text=COC7))
    said(discord.post(client, table_open("coc7", user=GM, name="Gina")))
    said(discord.post(client, sheet(size=len(COC7), user=PLAYER, name="Pat")))
    url = the_link_of(client, discord)
    path, token = url.split("#")
    at = f"/api/tables/{path.rsplit('/', 1)[1]}"
    body = {"words": "1d6+1"}
    made = client.post(f"{at}/declared-rolls", headers=bearer(token), json=body)
    assert made.status_code == 201, made.text
    (message,) = posted(route, 1)
    embed = message["embeds"][0]
    assert embed["title"] == f"Total {made.json()['result']['total']} · roll #{made.json()['seq']}"
    assert "Pat rolled 1d6+1" in embed["description"]


@respx.mock
def test_a_blind_sanity_roll_is_shown_to_everyone_by_its_gm_s_button(
    client: TestClient, discord: Discord
) -> None:
    from d100.discord import interactions

    from .test_buttons import offered
    from .test_play import click

    seated(client, discord)
    respx.post(re.compile(r".*/webhooks/.*")).respond(200, json={"id": "1"})
    stub = said(discord.post(client, r("Alice", "sc", "1/1d6", "blind", user=PLAYER, name="Pat")))
    ids = {b["label"]: b["custom_id"] for b in offered(stub)}
    assert set(ids) == {"GM: show me", "Show to everyone"}
    mine = said(discord.post(client, click(ids["GM: show me"], user=GM, name="Gina")))
    assert private(mine) and "SAN" in {f["name"] for f in mine["embeds"][0]["fields"]}
    answer = discord.post(client, click(ids["Show to everyone"], user=GM, name="Gina")).json()
    assert answer["type"] == interactions.UPDATE, answer
    shown = answer["data"]["embeds"][0]
    assert "Pat rolled sc 1/1d6 as Alice" in shown["description"]
    assert "SAN" in {f["name"] for f in shown["fields"]}
    seen = page_of(client, the_link_of(client, discord))
    assert [e["kind"] for e in seen["events"]].count("unblind_declared") == 1


@respx.mock
def test_r_rolls_an_attack_and_several_shots_by_the_page_s_route(  # rule: S7-6, S7-13
    client: TestClient, discord: Discord
) -> None:
    """``/r Alice spot dmg=1d3 impale``: a skill of the sheet leads an attack with its damage;
    ``/r Alice 55 shots2``: several shots; each the same declared roll the page makes."""
    seated(client, discord)
    hit = said(discord.post(client, r("Alice", "spot hidden", "dmg=1d3 impale", user=PLAYER)))
    fields = {f["name"]: f["value"] for f in hit["embeds"][0]["fields"]}
    assert "attack — skill 55; damage 1d3, impaling" in fields["Roll"]
    assert "a hit 55.00%" in fields["Exact odds"] and "attack" in fields
    shots = said(discord.post(client, r("Alice", "55", "shots2 dmg=1d10", user=PLAYER)))
    assert "multiple shots" in json.dumps(shots) and "any hit" in json.dumps(shots)
    wrong = said(discord.post(client, r("Alice", "spot hidden", "dmg=1d3x", user=PLAYER)))
    assert "damage" in json.dumps(wrong) and private(wrong)
    made = [e for e in page_of(client, the_link_of(client, discord))["events"]]
    assert [e["roll"] for e in made if e["kind"] == "declared"] == ["attack", "shots"]


@respx.mock
def test_r_develop_rolls_the_gm_s_development_phase(  # rule: S7-7, S7-10
    client: TestClient, discord: Discord
) -> None:
    marked = COC7 + 'marks = ["spot hidden"]\ncharacteristics = { DEX = 50, POW = 70 }\n'
    respx.get(CDN).mock(return_value=httpx.Response(200, text=marked))
    said(discord.post(client, table_open("coc7", user=GM, name="Gina")))
    said(discord.post(client, sheet(size=len(marked), user=PLAYER, name="Pat")))
    refused = said(discord.post(client, r("Alice", "develop", user=PLAYER, name="Pat")))
    assert private(refused) and "game master" in json.dumps(refused)
    made = said(discord.post(client, r("Alice", "develop", user=GM, name="Gina")))
    (card,) = made["embeds"]
    assert card["title"].startswith("Development phase: Alice · roll #")
    (line,) = card["fields"]
    assert line["name"] == "spot hidden"
    assert line["value"].startswith("55: improves 45.00%, mean +2.48")  # 45/100 of 5.5
    # a characteristic is rolled as a skill is, at a difficulty: POW 70, hard (35)
    pow_hard = said(discord.post(client, r("Alice", "POW", "hard", user=PLAYER, name="Pat")))
    (check,) = pow_hard["embeds"]
    fields = {f["name"]: f["value"] for f in check["fields"]}
    assert check["description"] == "Pat rolled POW as Alice"
    assert fields["Target"] == "35 (hard: half of 70)"
    assert fields["Any success"] == "35.00% (7/20)"  # 1..35 of 100, the fumble range apart


@respx.mock
def test_r_develop_party_rolls_every_player_s_character_s_phase(  # rule: XP-1
    client: TestClient, discord: Discord
) -> None:
    """``/r <any> develop party``: the GM's whole-party phase on a BRP table, the sheet's
    experience bonus added to each d100; refused to a player, and once nothing is marked."""
    brp = (
        'name = "Alice"\nsystem = "brp"\nskills = { spot = 60, ride = 0 }\n'
        'marks = ["spot", "ride"]\nexperience_bonus = 6\n'
    )
    respx.get(CDN).mock(return_value=httpx.Response(200, text=brp))
    said(discord.post(client, table_open("brp", user=GM, name="Gina")))
    said(discord.post(client, sheet(size=len(brp), user=PLAYER, name="Pat")))
    refused = said(discord.post(client, r("Alice", "develop", "party", user=PLAYER, name="Pat")))
    assert private(refused) and "game master" in json.dumps(refused)
    made = said(discord.post(client, r("anyone", "develop", "party", user=GM, name="Gina")))
    (card,) = made["embeds"]
    assert card["title"].startswith("Development phase: Alice · roll #")
    lines = {f["name"]: f["value"] for f in card["fields"]}
    assert "improves 46.00%" in lines["spot"]  # d100 + 6 over 60: 55..100
    assert "improves 100.00%" in lines["ride"]
    events = page_of(client, the_link_of(client, discord))["events"]
    assert [e["words"] for e in events if e["kind"] == "declared"] == ["develop"]
    again = said(discord.post(client, r("anyone", "develop", "party", user=GM, name="Gina")))
    assert private(again) and "nothing to roll" in json.dumps(again)
