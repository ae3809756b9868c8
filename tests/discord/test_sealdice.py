"""SealDice's check words on Discord's ``/roll`` as SealDice and the command line read them:
``.rah``/``.rch`` hidden (the channel told only that a roll was made, the roll to its roller
alone), ``3#`` rolled three times from the interaction's dice."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import respx
from fastapi.testclient import TestClient

from d100.discord import interactions
from d100.discord.answers import OWN, ROLL, dice_for, quick_answer
from d100.discord.limits import problems
from d100.discord.router import Discord as Endpoint
from d100.engine import resolve
from d100.results import CheckResult
from d100.server.guard import Buckets, Limits
from d100.systems.coc7_setcoc import RULES

from .signing import APP, Discord, command
from .test_play import r
from .test_tables import CDN, GM, PLAYER, link, page_of, private, said, sheet, table_open, the_link

SECRET = b"s" * 32


def dice_shown(card: dict[str, Any]) -> str:
    return next(f["value"] for f in card["fields"] if f["name"] == "Dice")


def rolled(request: dict[str, Any], interaction: str, times: int = 1) -> list[CheckResult]:
    """The rolls an interaction's dice make of ``request``, one after another."""
    source = dice_for(SECRET, interaction)
    found = [resolve(request, source) for _ in range(times)]
    assert all(isinstance(r, CheckResult) for r in found)
    return found  # type: ignore[return-value]


def test_sd_w3_rah_tells_the_channel_only_that_a_roll_was_made() -> None:
    for word in (".rah", ".rch"):  # .rah by the table's rule (none here: 0), .rch by rule 0
        answer = quick_answer(ROLL, f"{word} 侦查50", None, False, "Vera", SECRET, "42")
        own = answer[OWN]
        public = {k: v for k, v in answer.items() if k != OWN}
        assert public["content"] == "Vera rolled in secret." and "embeds" not in public
        assert "flags" not in public  # the channel's
        assert not re.search(r"\d", json.dumps(public))  # no dice, skill, level or count
        assert own["flags"] == interactions.EPHEMERAL and not problems(own)
        (expected,) = rolled({"system": "coc7", "skill": 50, "house_rules": {"setcoc": 0}}, "42")
        assert f"{expected.roll:02d}" in dice_shown(own["embeds"][0])
    plain = quick_answer(ROLL, ".ra 侦查50", None, False, "Vera", SECRET, "42")
    assert OWN not in plain and "embeds" in plain


def test_sd_w3_a_hidden_roll_asked_secret_is_the_roller_s_alone_without_notice() -> None:
    answer = quick_answer(ROLL, ".rah 侦查50", None, True, "Vera", SECRET, "42")
    assert OWN not in answer and answer["flags"] == interactions.EPHEMERAL
    assert "embeds" in answer


def test_bcdice_s_prefix_is_hidden_on_discord_too() -> None:
    answer = quick_answer(ROLL, "SCC<=65", None, False, "Vera", SECRET, "7")
    assert answer["content"] == "Vera rolled in secret." and OWN in answer


def test_sd_w5_repeats_roll_each_time_from_the_interaction_s_dice() -> None:
    answer = quick_answer(ROLL, ".ra 3#p 侦查50", None, False, "Vera", SECRET, "9")
    assert not problems(answer)
    cards = answer["embeds"]
    assert len(cards) == 3
    request = {"system": "coc7", "skill": 50, "penalty_dice": 1, "house_rules": {"setcoc": 0}}
    for i, (card, result) in enumerate(zip(cards, rolled(request, "9", 3), strict=True), 1):
        assert card["title"].startswith(f"{i}/3 · ")
        assert f"[{result.roll:02d}]" in dice_shown(card)
        assert result.level.upper() in card["title"]
    hidden = quick_answer(ROLL, ".rah 10#侦查50", None, False, "Vera", SECRET, "9")
    assert len(hidden[OWN]["embeds"]) == 10 and not problems(hidden[OWN])
    refused = quick_answer(ROLL, ".ra 11#侦查50", None, False, "Vera", SECRET, "9")
    assert refused["flags"] == interactions.EPHEMERAL and "1..10" in refused["content"]


@respx.mock
def test_sd_w3_the_hidden_roll_follows_its_notice_privately(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    posted = respx.post(re.compile(rf".*/webhooks/{APP}/[^/]+$")).respond(200, json={"id": "1"})
    answer = discord.post(client, command("roll", ".rah 侦查50"))
    body = answer.json()
    assert body["type"] == interactions.MESSAGE and OWN not in body["data"]
    assert body["data"]["content"].endswith(" rolled in secret.")
    client.portal.call(endpoint.outbox.flush)  # type: ignore[union-attr]
    (sent,) = [json.loads(call.request.content) for call in posted.calls]
    assert sent["flags"] & interactions.EPHEMERAL and not problems(sent)
    assert "Dice" in {f["name"] for f in sent["embeds"][0]["fields"]}


RULE_3 = {"coc7": {"house_rules": {"setcoc": 3}}}  # a channel's table's settings, by system


def test_sd_w6_sc_takes_the_channel_s_table_rule_as_the_shell_its_session_s() -> None:
    # 97 vs SAN 60: a failure under rule 0 (its loss rolled, 4), a fumble under rule 3 (its
    # loss at its maximum, 6), as SESSION's SD-W6 reads them
    plain = quick_answer(ROLL, ".sc 1/1d6 60 @97,4", None, False, "Vera", SECRET, "1")
    assert plain["embeds"][0]["title"] == "SealDice .sc (setcoc 0)"
    assert "SAN 60 -\\> 56" in plain["embeds"][0]["fields"][0]["value"]
    ruled = quick_answer(ROLL, ".sc 1/1d6 60 @97", None, False, "Vera", SECRET, "1", RULE_3)
    assert ruled["embeds"][0]["title"] == "SealDice .sc (setcoc 3)"
    assert "at its maximum" in ruled["embeds"][0]["fields"][0]["value"]


def test_sd_w7_en_takes_the_channel_s_table_rule() -> None:
    # 03 over a skill of 2 improves under rule 0 (its critical is 01 only) and not under rule
    # 3, whose 01-05 are criticals whatever the skill (SD-W7's c)
    plain = quick_answer(ROLL, ".en 侦查2 @3,5", None, False, "Vera", SECRET, "1")
    assert "improves, +5 -\\> 7" in plain["embeds"][0]["fields"][0]["value"]
    ruled = quick_answer(ROLL, ".en 侦查2 @3", None, False, "Vera", SECRET, "1", RULE_3)
    assert "no improvement" in ruled["embeds"][0]["fields"][0]["value"]


def test_sd_w1_ra_takes_the_table_s_rule_and_rc_rule_0() -> None:
    ruled = {"coc7": {"house_rules": {"setcoc": 2}}}
    ra = quick_answer(ROLL, ".ra 侦查50 @3", None, False, "Vera", SECRET, "1", ruled)
    assert "CRITICAL" in ra["embeds"][0]["title"]  # rule 2: 01-05 at or under the skill
    assert "setcoc 2" in ra["embeds"][0]["description"]
    rc = quick_answer(ROLL, ".rc 侦查50 @3", None, False, "Vera", SECRET, "1", ruled)
    assert "EXTREME" in rc["embeds"][0]["title"] and "setcoc 0" in rc["embeds"][0]["description"]
    other = quick_answer(ROLL, ".ra 侦查50 @3", None, False, "Vera", SECRET, "1", {"brp": {}})
    assert "setcoc 0" in other["embeds"][0]["description"]  # another system's table: rule 0


def test_sd_w8_setcoc_on_discord_names_where_a_table_s_rule_is_set() -> None:
    answer = quick_answer(ROLL, ".setcoc 2", None, False, "Vera", SECRET, "1")
    assert answer["flags"] == interactions.EPHEMERAL
    assert "/table open" in answer["content"] and "shell" not in answer["content"]


@respx.mock
def test_sd_w6_a_quick_sc_in_a_table_s_channel_takes_its_setcoc(
    client: TestClient, discord: Discord
) -> None:
    said(discord.post(client, table_open("coc7", "setcoc = 3", user=GM, name="Gina")))
    body = said(discord.post(client, command("roll", ".sc 1/1d6 60 @97")))
    assert body["embeds"][0]["title"] == "SealDice .sc (setcoc 3)"


# -- at a channel's table: /r Alice .rah 困难侦查 ----------------------------------------------

COC7_SHEET = 'name = "Alice"\nsystem = "coc7"\nskills = { "侦查" = 50, "聆听" = 40 }\n'
OTHER = "400000000000000444"  # a second player of the table


def at_table(client: TestClient, discord: Discord, house_rules: str | None = None) -> None:
    respx.get(CDN).mock(return_value=httpx.Response(200, text=COC7_SHEET))
    said(discord.post(client, table_open("coc7", house_rules, user=GM, name="Gina")))
    said(discord.post(client, sheet(size=len(COC7_SHEET.encode()), user=PLAYER, name="Pat")))


def rolls_seen(client: TestClient, discord: Discord, user: str) -> list[dict[str, Any]]:
    url = the_link(said(discord.post(client, link(user=user, name=user[-4:]))))
    return [e for e in page_of(client, url)["events"] if e["kind"] == "roll"]


@respx.mock
def test_sd_w3_a_hidden_word_at_a_table_is_a_secret_roll(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    at_table(client, discord)
    posted = respx.post(re.compile(rf".*/webhooks/{APP}/[^/]+$")).respond(200, json={"id": "1"})
    stub = said(discord.post(client, r("Alice", ".rah 3#困难侦查", user=PLAYER, name="Pat")))
    assert not private(stub) and stub["content"] == "Pat rolled in secret."
    # neither dice nor skill; its GM's buttons name each roll's number, as the page's log does
    assert not re.search(r"\d", json.dumps({**stub, "components": []})), stub
    labels = [b["label"] for row in stub["components"] for b in row["components"]]
    assert labels == [f"GM: show me ({i}/3)" for i in (1, 2, 3)]
    client.portal.call(endpoint.outbox.flush)  # type: ignore[union-attr]
    (own,) = [json.loads(call.request.content) for call in posted.calls]
    assert private(own) and not problems(own) and len(own["embeds"]) == 3
    gm = rolls_seen(client, discord, GM)
    assert [e["visibility"] for e in gm] == ["gm"] * 3  # as the page's secret roll
    asked = gm[0]["result"]["request"]
    assert asked["skill"] == 50 and asked["difficulty"] == "hard"
    assert asked["house_rules"] == {"setcoc": 0}  # SealDice's default: the table sets none
    assert all("result" not in e for e in rolls_seen(client, discord, OTHER))


@respx.mock
def test_sd_w5_repeats_at_a_table_are_rolls_of_their_own(
    client: TestClient, discord: Discord
) -> None:
    at_table(client, discord, "setcoc = 2")
    shown = said(discord.post(client, r("Alice", ".ra", "3#p 聆听", user=PLAYER, name="Pat")))
    assert [c["title"][:4] for c in shown["embeds"]] == ["1/3 ", "2/3 ", "3/3 "]
    seen = rolls_seen(client, discord, OTHER)
    assert len(seen) == 3 and {e["visibility"] for e in seen} == {"public"}
    for card, event in zip(shown["embeds"], seen, strict=True):
        assert event["result"]["request"]["house_rules"] == {"setcoc": 2}  # the table's (SD-W1)
        assert event["result"]["request"]["penalty_dice"] == 1
        dice = next(f["value"] for f in card["fields"] if f["name"] == "Dice")
        assert f"{event['result']['roll']:02d}" in dice


@respx.mock
def test_sd_w1_rc_at_a_table_is_judged_by_rule_0_and_refusals_name_the_field(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))  # one user's many
    at_table(client, discord, "setcoc = 2")
    said(discord.post(client, r("Alice", ".rc 侦查", user=PLAYER, name="Pat")))
    (event,) = rolls_seen(client, discord, PLAYER)
    assert event["result"]["request"]["house_rules"] == {"setcoc": 0}
    for words, needle in (
        (".ra 侦查50", "the sheet gives the skill's value"),
        (".sc 1/1d6", "no SAN"),  # the table's Sanity roll: Alice's sheet holds no SAN
        (".setcoc 3", "allowed: the game master"),  # the GM's, as any GM action (SD-W8)
        (".ra 射击", "Alice has no such skill"),
    ):
        refused = said(discord.post(client, r("Alice", words, user=PLAYER, name="Pat")))
        assert private(refused) and needle in refused["content"], (words, refused)


SAN_SHEET = (
    'name = "Alice"\nsystem = "coc7"\nskills = { "侦查" = 50, "Library Use" = 60, sanity = 60 }\n'
)


def declared_seen(client: TestClient, discord: Discord, user: str) -> list[dict[str, Any]]:
    url = the_link(said(discord.post(client, link(user=user, name=user[-4:]))))
    return [e for e in page_of(client, url)["events"] if e["kind"] == "declared"]


@respx.mock
def test_sd_w6_w7_sc_and_en_at_a_table_roll_the_sheet_and_write_it_back(
    client: TestClient, discord: Discord
) -> None:
    respx.get(CDN).mock(return_value=httpx.Response(200, text=SAN_SHEET))
    said(discord.post(client, table_open("coc7", "setcoc = 3", user=GM, name="Gina")))
    said(discord.post(client, sheet(size=len(SAN_SHEET.encode()), user=PLAYER, name="Pat")))
    sc = said(discord.post(client, r("Alice", ".sc 1/1d6", user=PLAYER, name="Pat")))
    # a development phase: the GM's (a player's own .en is refused, as develop is)
    mine = said(discord.post(client, r("Alice", ".en", "Library Use", user=PLAYER, name="Pat")))
    assert private(mine) and "development" in mine["content"], mine
    en = said(discord.post(client, r("Alice", ".en", "Library Use", user=GM, name="Gina")))
    made_sc, made_en = declared_seen(client, discord, OTHER)
    # the table's declared rolls: drawn from its seeds, by its rule, the sheet's SAN and skill
    assert made_sc["roll"] == "sealdice_sc" and made_sc["request"]["setcoc"] == 3
    assert made_sc["request"]["sanity"] == 60 and made_sc["sheet"]["written"] is True
    assert made_en["roll"] == "sealdice_en" and made_en["request"]["setcoc"] == 3
    assert made_en["request"]["skills"][0]["name"] == "Library Use"
    assert made_en["request"]["skills"][0]["value"] == 60
    assert made_sc["provable"]["nonce"] != made_en["provable"]["nonce"]
    # the channel's card is the roll's: its title and SAN as logged
    assert sc["embeds"][0]["fields"][0]["value"] == "SealDice .sc (setcoc 3)"
    after = made_sc["result"]["sanity_after"]
    assert f"SAN 60 -\\> {after}" in sc["embeds"][0]["fields"][1]["value"], sc
    assert sc["embeds"][0]["title"].startswith(made_sc["result"]["level"])
    assert "SealDice .en (setcoc 3)" in en["embeds"][0]["fields"][0]["value"]
    # written back: a second .sc reads the SAN the first one left
    said(discord.post(client, r("Alice", ".sc 0/1", user=PLAYER, name="Pat")))
    third = declared_seen(client, discord, OTHER)[-1]
    assert third["request"]["sanity"] == after


@respx.mock
def test_sd_w8_the_gm_s_setcoc_at_a_channel_s_table_sets_its_rule_for_later_rolls(
    client: TestClient, discord: Discord
) -> None:
    at_table(client, discord)
    told = f"SealDice rule 2: {RULES['2'].summary}"
    set_ = said(discord.post(client, r(".setcoc", "2", user=GM, name="Gina")))
    assert not private(set_) and set_["content"] == f"Gina set {told}", set_
    said(discord.post(client, r("Alice", ".ra 侦查", user=PLAYER, name="Pat")))
    (event,) = rolls_seen(client, discord, OTHER)
    assert event["result"]["request"]["house_rules"]["setcoc"] == 2  # the rule set since
    url = the_link(said(discord.post(client, link(user=OTHER, name="0444"))))
    (change,) = [e for e in page_of(client, url)["events"] if e["kind"] == "house_rules"]
    assert change["told"] == told and change["after"]["setcoc"] == 2
    other = said(discord.post(client, r(".setcoc", "7", user=GM, name="Gina")))  # SD-W8
    assert other["content"].startswith(told) and "0, 1, 2, 3, 4, 5 or dg" in other["content"]


def test_sd_w8_setcoc_alone_says_the_channel_s_table_rule_else_the_default() -> None:
    bare = quick_answer(ROLL, ".setcoc", None, False, "Vera", SECRET, "1")
    assert bare["content"].startswith("SealDice rule 0 (SealDice") and "embeds" not in bare
    assert "flags" not in bare  # an answer, not a refusal
    ruled = {"coc7": {"house_rules": {"setcoc": 3}}}
    kept = quick_answer(ROLL, ".setcoc", None, False, "Vera", SECRET, "1", ruled)
    assert kept["content"].startswith(f"SealDice rule 3: {RULES['3'].summary[:20]}")
    details = quick_answer(ROLL, ".setcoc details", None, True, "Vera", SECRET, "1")
    assert details["flags"] == interactions.EPHEMERAL  # asked secret: the asker's alone
    assert details["content"].count("SealDice rule") == len(RULES)
    assert not problems(details)


@respx.mock
def test_sd_w8_any_member_asks_the_table_s_rule_only_the_gm_sets_it(
    client: TestClient, discord: Discord
) -> None:
    at_table(client, discord, "setcoc = 2")
    asked = said(discord.post(client, r(".setcoc", "", user=PLAYER, name="Pat")))
    assert asked["content"] == escaped_rule("2"), asked
    listed = said(discord.post(client, r(".setcoc", "details", user=OTHER, name="Sam")))
    assert listed["content"].count("SealDice rule") == len(RULES)
    refused = said(discord.post(client, r(".setcoc", "3", user=PLAYER, name="Pat")))
    assert private(refused) and "allowed: the game master" in refused["content"]
    url = the_link(said(discord.post(client, link(user=OTHER, name="0444"))))
    assert [e for e in page_of(client, url)["events"] if e["kind"] == "house_rules"] == []


def escaped_rule(key: str) -> str:
    from d100.discord.render import escaped

    return escaped(f"SealDice rule {key}: {RULES[key].summary}")


# rule: SD-W5
@respx.mock
def test_sd_w5_at_someone_at_a_channel_s_table_rolls_that_character_s_sheet(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))  # one user's many
    at_table(client, discord)
    said(discord.post(client, r(".ra", "困难侦查 @alice", user=PLAYER, name="Pat")))
    (event,) = rolls_seen(client, discord, PLAYER)
    assert event["character"]["name"] == "Alice" and event["skill"] == "侦查"
    assert event["result"]["request"]["difficulty"] == "hard"
    for user, words, needle in (
        (OTHER, "侦查 @Alice", "not yours"),  # another player's character
        (PLAYER, "侦查 @Bob", "not yours"),
    ):
        refused = said(discord.post(client, r(".ra", words, user=user, name="Sam")))
        assert private(refused) and needle in refused["content"], (words, refused)
    two = said(discord.post(client, r("Alice", ".ra 侦查 @Bob", user=PLAYER, name="Pat")))
    assert private(two) and "two characters named" in two["content"]
