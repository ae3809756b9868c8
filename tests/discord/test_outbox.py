"""The REST side against a mocked Discord (respx): follow-ups, 429 with ``retry_after``,
bucket headers, give-ups (unknown interaction 10062, missing access), registration."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import httpx
import pytest
import respx

from d100.cli import main
from d100.discord import outbox
from d100.discord.commands import definitions
from d100.discord.limits import CHOICE_MAX, DESCRIPTION_MAX, NAME_MAX
from d100.discord.register import register
from d100.systems import REGISTRY

API = outbox.API


class Clock:
    """Time that moves only when the outbox sleeps: waits are counted, not spent."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def box(clock: Clock, token: str | None = "bot-token") -> outbox.Outbox:
    return outbox.Outbox(httpx.AsyncClient(), token, sleep=clock.sleep, clock=clock)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@respx.mock
def test_a_429_waits_its_retry_after_then_sends() -> None:
    clock = Clock()
    route = respx.post(f"{API}/channels/5/messages").mock(
        side_effect=[
            httpx.Response(
                429,
                json={
                    "message": "You are being rate limited.",
                    "retry_after": 1.5,
                    "global": False,
                },
            ),
            httpx.Response(200, json={"id": "m1"}),
        ]
    )
    done = run(box(clock).send(outbox.channel_post("5", {"content": "hi"})))
    assert done.sent and route.call_count == 2
    assert clock.slept == [1.5]
    assert route.calls.last.request.headers["authorization"] == "Bot bot-token"


@respx.mock
def test_a_spent_bucket_is_waited_out_before_its_next_use() -> None:
    clock = Clock()
    spent = {
        "x-ratelimit-bucket": "abc",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset-after": "2.25",
    }
    route = respx.post(f"{API}/channels/5/messages").mock(
        side_effect=[httpx.Response(200, json={}, headers=spent), httpx.Response(200, json={})]
    )
    sender = box(clock)

    async def twice() -> None:
        await sender.send(outbox.channel_post("5", {"content": "1"}))
        await sender.send(outbox.channel_post("5", {"content": "2"}))

    run(twice())
    assert route.call_count == 2 and clock.slept == [2.25]


@respx.mock
def test_a_global_429_holds_every_route() -> None:
    clock = Clock()
    respx.post(f"{API}/channels/5/messages").mock(
        side_effect=[
            httpx.Response(429, json={"retry_after": 3, "global": True}),
            httpx.Response(200, json={}),
        ]
    )
    other = respx.post(f"{API}/channels/6/messages").respond(200, json={})
    sender = box(clock)

    async def both() -> None:
        await sender.send(outbox.channel_post("5", {}))
        await sender.send(outbox.channel_post("6", {}))

    run(both())
    assert clock.slept == [3.0] and other.called


@pytest.mark.parametrize(("status", "code"), [(404, 10062), (404, 10015), (403, 50001)])
@respx.mock
def test_unknown_interaction_and_missing_access_are_logged_and_dropped(
    status: int, code: int, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    route = respx.patch(url__regex=r".*/messages/@original").respond(
        status, json={"message": "Unknown interaction", "code": code}
    )
    done = run(box(clock).send(outbox.edit_original("1", "tok", {"content": "late"})))
    assert not done.sent and done.code == code and route.call_count == 1  # not retried
    assert "gave up" in caplog.text and str(code) in caplog.text


@respx.mock
def test_a_5xx_is_retried_then_dropped() -> None:
    clock = Clock()
    route = respx.post(f"{API}/channels/5/messages").respond(502)
    done = run(box(clock).send(outbox.channel_post("5", {})))
    assert not done.sent and route.call_count == outbox.TRIES


@respx.mock
def test_the_queue_sends_in_order_through_one_sender() -> None:
    clock = Clock()
    route = respx.post(url__regex=r".*/webhooks/1/tok$").respond(200, json={})
    sender = box(clock)

    async def queued() -> None:
        for i in range(5):
            sender.put(outbox.follow_up("1", "tok", {"content": str(i)}))
        await sender.flush()
        await sender.close()

    run(queued())
    assert [json.loads(c.request.content)["content"] for c in route.calls] == list("01234")
    assert all("authorization" not in c.request.headers for c in route.calls)  # webhook token


def test_channel_posts_need_the_bot_token() -> None:
    clock = Clock()
    done = run(box(clock, token=None).send(outbox.channel_post("5", {})))
    assert not done.sent and done.status == 0


@pytest.mark.parametrize("guild", [None, "42"])
@respx.mock
def test_register_puts_every_command(guild: str | None) -> None:
    path = "/applications/7/guilds/42/commands" if guild else "/applications/7/commands"
    route = respx.put(f"{API}{path}").respond(200, json=[])

    async def go() -> Any:
        async with httpx.AsyncClient() as client:
            return await register(client, "7", "bot-token", guild)

    assert run(go()).sent
    sent = json.loads(route.calls.last.request.content)
    assert sent == definitions()
    assert route.calls.last.request.headers["authorization"] == "Bot bot-token"


@respx.mock
def test_d100_discord_register_says_what_discord_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("D100_DISCORD_APPLICATION_ID", "7")
    monkeypatch.setenv("D100_DISCORD_BOT_TOKEN", "wrong")
    respx.put(f"{API}/applications/7/commands").respond(
        401, json={"message": "401: Unauthorized", "code": 0}
    )
    assert main(["discord", "register"]) == 1
    assert "bot token" in capsys.readouterr().err
    respx.put(f"{API}/applications/7/guilds/9/commands").respond(200, json=[])
    assert main(["discord", "register", "--guild", "9"]) == 0
    assert "server 9" in capsys.readouterr().out


def test_the_commands_fit_discord_s_limits_and_offer_every_system() -> None:
    for spec in definitions():
        assert 1 <= len(spec["name"]) <= 32 and spec["name"].islower()
        assert 1 <= len(spec["description"]) <= DESCRIPTION_MAX
        pending, systems = list(spec.get("options", [])), []
        while pending:  # a subcommand's options too
            option = pending.pop()
            pending.extend(option.get("options", []))
            assert 1 <= len(option["description"]) <= DESCRIPTION_MAX
            choices = option.get("choices", [])
            assert len(choices) <= CHOICE_MAX
            assert all(len(c["name"]) <= NAME_MAX and len(c["value"]) <= NAME_MAX for c in choices)
            if option["name"] == "system":
                systems.append([c["value"] for c in choices])
        assert all(offered == list(REGISTRY.names()) for offered in systems)


@respx.mock
def test_a_sent_message_is_told_its_id_and_an_offering_message_s_edit_is_kept_once() -> None:
    """A post's ``then`` hears Discord's answer (the message made); the edit kept for a roll's
    offering message is given once, and not once the interaction's token is past editing."""
    clock = Clock()
    respx.post(f"{API}/webhooks/1/t").respond(200, json={"id": "m7"})
    sent = box(clock)
    heard: list[outbox.Outcome] = []

    async def go() -> None:
        post = outbox.follow_up("1", "t", {"content": "x"})
        sent.put(dataclasses.replace(post, then=heard.append))
        await sent.flush()

    run(go())
    assert [o.body for o in heard] == [{"id": "m7"}]
    edit = outbox.edit_message("1", "t", "m7", {"components": []})
    sent.offered(("table", 3), edit)
    assert sent.taken(("table", 3)) == edit and sent.taken(("table", 3)) is None
    sent.offered(("table", 4), edit)
    clock.now += outbox.TOKEN_SECONDS
    assert sent.taken(("table", 4)) is None
