"""``POST /discord/interactions`` with payloads signed by a key made here: PING, refusals of
bad, tampered and stale signatures, every command, autocomplete, replay and rate limits.
Every message answered is held to Discord's limits."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient

from d100.discord import commands, interactions
from d100.discord.answers import dice_for
from d100.discord.limits import CHOICE_MAX, choice_problems, problems
from d100.discord.router import RATE, TYPING, UNSIGNED
from d100.discord.router import Discord as Endpoint
from d100.engine import odds, resolve
from d100.quick import read
from d100.render.view import frac, pct
from d100.server.guard import Buckets
from d100.systems import REGISTRY
from tests.helpers import brute_force

from .signing import Discord, autocomplete, command, payload, ping


def exact_odds(request: dict[str, Any]) -> tuple[dict[str, Fraction], Fraction]:
    """Every level's chance and success's, counted by brute force over every die."""
    levels = brute_force(request)
    wins = REGISTRY.get(request["system"]).success_levels
    return levels, sum((p for k, p in levels.items() if k in wins), Fraction(0))


def answered(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    if body["type"] in (interactions.MESSAGE, interactions.UPDATE):
        assert not problems(body["data"]), problems(body["data"])
    if body["type"] == interactions.CHOICES:
        assert not choice_problems(body)
    return body


def fields(body: dict[str, Any]) -> dict[str, str]:
    return {f["name"]: f["value"] for f in body["data"]["embeds"][0]["fields"]}


def test_ping_is_answered_pong(client: TestClient, discord: Discord) -> None:
    assert answered(discord.post(client, ping())) == {"type": interactions.PONG}


def test_a_bad_signature_is_401(client: TestClient, discord: Discord) -> None:
    body = json.dumps(ping()).encode()
    headers = discord.headers(body)
    other = Discord().headers(body)  # another application's key
    for sent in (
        {},  # none at all
        {**headers, "x-signature-ed25519": "00" * 64},
        {**headers, "x-signature-ed25519": "not hex"},
        {**headers, "x-signature-ed25519": other["x-signature-ed25519"]},
        {**headers, "x-signature-timestamp": str(int(headers["x-signature-timestamp"]) + 1)},
    ):
        answer = client.post("/discord/interactions", content=body, headers=sent)
        assert answer.status_code == 401, sent
        assert answer.json()["error"]["field"] == "signature"


def test_a_tampered_body_is_401(client: TestClient, discord: Discord) -> None:
    body = json.dumps(ping()).encode()
    headers = discord.headers(body)
    tampered = body.replace(b'"type": 1', b'"type": 2')
    assert tampered != body
    assert (
        client.post("/discord/interactions", content=tampered, headers=headers).status_code == 401
    )
    assert client.post("/discord/interactions", content=body, headers=headers).status_code == 200


def test_a_stale_or_future_timestamp_is_401(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    # the server's clock stands still: a second lost on a loaded machine moves no timestamp
    # across the five minutes
    now = time.time()
    endpoint.verifier = replace(endpoint.verifier, clock=lambda: now)
    for at in (now - 301, now + 301):
        answer = discord.post(client, ping(), at=at)
        assert answer.status_code == 401
        assert "stale" in answer.json()["error"]["message"]
    assert discord.post(client, ping(), at=now - 299).status_code == 200
    assert discord.post(client, ping(), at=now + 299).status_code == 200


def test_a_body_too_large_is_refused_before_it_is_read(
    client: TestClient, discord: Discord
) -> None:
    body = b"{" + b" " * 70_000 + b"}"
    answer = client.post("/discord/interactions", content=body, headers=discord.headers(body))
    assert answer.status_code == 413


def test_roll_answers_level_mark_dice_target_bands_and_exact_odds(
    client: TestClient, discord: Discord
) -> None:  # rule: BRP2, BRP4
    sent = command("roll", "brp 65 hard b1")
    body = answered(discord.post(client, sent))
    assert body["type"] == interactions.MESSAGE
    assert "flags" not in body["data"]  # public
    # the same roll from the interaction's dice, independently of the endpoint
    request = read("brp 65 hard b1")
    result = resolve(request, dice_for(b"dice key of the test", sent["id"]))
    spec = REGISTRY.get("brp").declares.level(result.level)
    embed = body["data"]["embeds"][0]
    assert embed["title"].startswith(f"{spec.mark} {result.level.upper()}")
    shown = fields(body)
    tens = sorted(result.dice)
    assert f"[{result.roll:02d}]" in shown["Dice"] and "kept" in shown["Dice"]
    assert all(f"{d:02d}" in shown["Dice"] for d in tens)
    assert shown["Effective skill"] == "25"  # 65 - 40: the target (BRP2)
    assert "criticals 01" in shown["Bands"]
    # the exact odds, against brute force over every die of the two-d10-tens roll
    levels, success = exact_odds({k: v for k, v in request.items() if k != "dice"})
    assert shown["Any success"] == f"{pct(success)} ({frac(success)})"
    p = levels[result.level]
    assert shown["This level"] == f"{pct(p)} ({frac(p)})"


def test_a_replayed_payload_answers_the_same_roll(client: TestClient, discord: Discord) -> None:
    sent = command("roll", "coc7 50 hard")
    first = answered(discord.post(client, sent))
    again = answered(discord.post(client, sent))
    assert first == again
    other = answered(discord.post(client, command("roll", "coc7 50 hard", user="9")))
    assert other["type"] == interactions.MESSAGE  # a new interaction: its own dice


def test_secret_answers_to_the_roller_only(client: TestClient, discord: Discord) -> None:
    body = answered(discord.post(client, command("roll", "brp 40", secret=True)))
    assert body["data"]["flags"] == interactions.EPHEMERAL
    public = answered(discord.post(client, command("roll", "brp 40", secret=False, user="8")))
    assert "flags" not in public["data"]


def test_bcdice_forms_come_through_the_editions(client: TestClient, discord: Discord) -> None:
    for form in ("CC<=65", "RQG<=80", "CBR(60,45)", "RES(13-10)"):
        body = answered(discord.post(client, command("roll", form, user=form)))
        assert body["data"].get("embeds"), (form, body)
        expected = read(form)["system"]
        assert REGISTRY.get(expected).title in body["data"]["embeds"][0]["title"]


def test_the_system_option_names_the_system(client: TestClient, discord: Discord) -> None:
    body = answered(discord.post(client, command("odds", "65 hard", system="openquest")))
    assert "OpenQuest" in body["data"]["embeds"][0]["title"]


def test_odds_are_exact(client: TestClient, discord: Discord) -> None:  # rule: OQ1
    body = answered(discord.post(client, command("odds", "openquest 55 +20")))
    levels, success = exact_odds({"system": "openquest", "skill": 55, "modifiers": [20]})
    shown = fields(body)
    assert shown["Any success"] == f"{pct(success)} ({frac(success)})"
    for level, p in levels.items():
        mark = REGISTRY.get("openquest").declares.level(level).mark
        assert shown[f"{mark} {level.upper()}"] == f"{pct(p)} ({frac(p)})"


def test_advise_lists_every_option_best_first(client: TestClient, discord: Discord) -> None:
    body = answered(discord.post(client, command("advise", "brp 65 hard")))
    values = [f["value"] for f in body["data"]["embeds"][0]["fields"]]
    chances = [float(v.split("success ")[1].split("%")[0]) for v in values]
    assert chances == sorted(chances, reverse=True) and len(chances) > 2
    plain = odds(read("brp 65 hard"))
    assert any(f"success {pct(plain.success)}" in v for v in values)  # "as asked"


def test_bad_words_answer_privately_naming_the_field(client: TestClient, discord: Discord) -> None:
    for words, needle in (
        ("brp hard", "no skill given"),
        ("nonsense", "not a quick roll"),
        ("openquest 65 hard easy", "both set difficulty"),
    ):
        body = answered(discord.post(client, command("roll", words, user=words)))
        assert body["data"]["flags"] == interactions.EPHEMERAL
        assert needle in body["data"]["content"], body


def test_a_busy_user_is_told_privately_when_to_try_again(
    client: TestClient, discord: Discord, endpoint: Endpoint
) -> None:
    # the buckets' clock stands still: the wait told is the rule's, however slow the machine
    endpoint.buckets = Buckets(RATE, clock=lambda: 1000.0)
    for _ in range(RATE.burst):
        assert "embeds" in answered(discord.post(client, command("odds", "brp 50")))["data"]
    body = answered(discord.post(client, command("odds", "brp 50")))
    assert body["data"]["flags"] == interactions.EPHEMERAL
    assert body["data"]["content"] == "Busy, try again in 2 s."
    # keyed by the verified guild and user: another user, or this one elsewhere, is not busy
    assert "embeds" in answered(discord.post(client, command("odds", "brp 50", user="7")))["data"]
    assert "embeds" in answered(discord.post(client, command("odds", "brp 50", guild="3")))["data"]


def test_autocomplete_offers_systems_then_their_words(client: TestClient, discord: Discord) -> None:
    body = answered(discord.post(client, autocomplete("roll", "")))
    assert [c["value"] for c in body["data"]["choices"]] == list(REGISTRY.names())[:CHOICE_MAX]
    body = answered(discord.post(client, autocomplete("roll", "coc7 60 h")))
    assert [c["value"] for c in body["data"]["choices"]] == ["coc7 60 hard"]
    body = answered(discord.post(client, autocomplete("roll", "60 ", system="brp")))
    values = [c["value"] for c in body["data"]["choices"]]
    assert "60 difficult" in values and all(v.startswith("60 ") for v in values)
    assert answered(discord.post(client, autocomplete("roll", "coc7 ")))["data"]["choices"] == []


def test_every_system_s_words_complete_within_discord_s_limits(
    client: TestClient, discord: Discord
) -> None:
    for system in REGISTRY.names():
        for typed in ("", f"{system} 50 ", f"{system} 50 h", "x" * 99 + " "):
            answered(discord.post(client, autocomplete("roll", typed, system=system)))


def test_every_command_of_every_system_fits_discord_s_limits(
    client: TestClient, discord: Discord
) -> None:
    for spec in REGISTRY:
        target = spec.declares.target
        words = f"{spec.name} 50 {target.default if target.presets else ''}"
        for name, _, _ in commands.QUICK:
            body = answered(discord.post(client, command(name, words, user=spec.name + name)))
            assert body["type"] == interactions.MESSAGE and body["data"].get("embeds"), body


def test_a_slow_answer_is_deferred_then_followed_up(
    client: TestClient, discord: Discord, endpoint: Endpoint, respx_mock: Any
) -> None:
    edited = respx_mock.patch(url__regex=r".*/webhooks/.*/messages/@original").respond(200, json={})
    endpoint.answer_seconds = 0.0  # every answer past its time: deferred
    sent = command("roll", "brp 65", secret=True)
    body = answered(discord.post(client, sent))
    assert body == {"type": interactions.DEFERRED, "data": {"flags": interactions.EPHEMERAL}}
    deadline = time.monotonic() + 10
    while not edited.called and time.monotonic() < deadline:
        time.sleep(0.05)
    assert edited.called
    request = edited.calls.last.request
    assert f"/webhooks/{sent['application_id']}/{sent['token']}/" in str(request.url)
    message = json.loads(request.content)
    assert not problems(message) and message["embeds"]
    assert message["flags"] == interactions.EPHEMERAL


def test_unknown_commands_and_unreadable_payloads(client: TestClient, discord: Discord) -> None:
    body = answered(
        discord.post(client, payload(interactions.APPLICATION_COMMAND, {"name": "nope"}))
    )
    assert body["data"]["flags"] == interactions.EPHEMERAL
    raw = b"[1, 2]"
    assert (
        client.post("/discord/interactions", content=raw, headers=discord.headers(raw)).status_code
        == 400
    )


def test_no_endpoint_without_the_public_key(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from d100.server.app import create_app

    monkeypatch.delenv("D100_DISCORD_PUBLIC_KEY", raising=False)
    with TestClient(
        create_app(f"sqlite:///{tmp_path / 'x.sqlite3'}"), base_url="http://127.0.0.1"
    ) as c:
        assert c.post("/discord/interactions", content=b"{}").status_code in (404, 405)


def test_a_user_typing_past_their_share_is_offered_nothing_and_others_still_roll(
    client: TestClient, discord: Discord, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Autocomplete flooded by one user (124 a second once slowed another table's rolls):
    past their share their completions are empty and worked out no more, while another
    user's completions and a roll are answered."""
    from d100.discord import router

    endpoint.typing = Buckets(TYPING, clock=lambda: 1000.0)  # the clock stands still
    worked: list[str] = []
    real = router.suggest
    monkeypatch.setattr(router, "suggest", lambda *a: worked.append(a[0]) or real(*a))
    for _ in range(TYPING.burst):
        assert answered(discord.post(client, autocomplete("roll", "")))["data"]["choices"]
    flooded = answered(discord.post(client, autocomplete("roll", "")))
    assert flooded["data"]["choices"] == [] and len(worked) == TYPING.burst
    typed_by_another = autocomplete("roll", "")
    typed_by_another["member"]["user"]["id"] = "7"
    other = answered(discord.post(client, typed_by_another))
    assert other["data"]["choices"]
    rolled = answered(discord.post(client, command("roll", "brp 50", user="7")))
    assert "embeds" in rolled["data"]
    # the flooding user's commands have their own share: typing spent none of it
    assert "embeds" in answered(discord.post(client, command("roll", "brp 50")))["data"]


def test_badly_signed_posts_are_refused_per_address_before_their_body_is_read(
    client: TestClient, discord: Discord, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One address posting badly signed requests: 401 for its first few, then 429 with
    Retry-After, its signature no longer checked; Discord's signed posts from its own
    address are answered meanwhile."""
    endpoint.unsigned = Buckets(UNSIGNED, clock=lambda: 1000.0)
    checked: list[bytes] = []
    real = endpoint.verifier

    class Counted:
        def verify(self, signature: str | None, stamp: str | None, body: bytes) -> None:
            checked.append(body)
            real.verify(signature, stamp, body)

    monkeypatch.setattr(endpoint, "verifier", Counted())
    body = json.dumps(command("roll", "brp 50")).encode()
    forged = {**discord.headers(body), "x-signature-ed25519": "00" * 64}
    hostile = TestClient(client.app, base_url="http://127.0.0.1", client=("203.0.113.9", 4000))
    statuses = [
        hostile.post("/discord/interactions", content=body, headers=forged).status_code
        for _ in range(UNSIGNED.burst + 3)
    ]
    assert statuses == [401] * UNSIGNED.burst + [429] * 3
    assert len(checked) == UNSIGNED.burst
    refused = hostile.post("/discord/interactions", content=body, headers=forged)
    assert refused.headers["retry-after"] == "1" and refused.json()["error"]["field"] == "signature"
    # Discord, from its own address, is answered; the hostile address even when signed
    assert "embeds" in answered(discord.post(client, command("roll", "brp 50")))["data"]
    signed = hostile.post("/discord/interactions", content=body, headers=discord.headers(body))
    assert signed.status_code == 429
