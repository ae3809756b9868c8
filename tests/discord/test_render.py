"""Every message is made to fit Discord's limits, and the limits' check can fail."""

from __future__ import annotations

from d100.discord.interactions import message
from d100.discord.limits import EMBED_TOTAL_MAX, FIELDS_MAX, problems
from d100.discord.render import embed, error_message, escaped


def test_an_embed_of_too_much_is_cut_to_fit() -> None:
    fields = [(f"option {i} " + "n" * 300, "v" * 2000) for i in range(40)]
    body = embed("t" * 300, "d" * 5000, fields, footer="best first")
    shown = message(embeds=[body])
    assert not problems(shown)
    assert len(body["fields"]) <= FIELDS_MAX
    assert "more not shown" in body["footer"]["text"]
    total = len(body["title"]) + len(body["description"]) + len(body["footer"]["text"])
    assert total + sum(len(f["name"]) + len(f["value"]) for f in body["fields"]) <= EMBED_TOTAL_MAX


def test_the_check_finds_what_discord_would_refuse() -> None:
    assert problems({"content": "x" * 2001})
    too_many = {"title": "t", "fields": [{"name": "n", "value": "v"}] * 26}
    assert problems({"embeds": [too_many]})
    assert problems({"embeds": [{"title": "t", "description": "d" * 4097}]})
    long_id = {"components": [{"type": 1, "components": [{"type": 2, "custom_id": "x" * 101}]}]}
    assert problems(long_id)
    assert not problems(message("fine"))


def test_errors_are_private_clipped_and_not_markdown() -> None:
    body = error_message("*bold* @everyone " + "x" * 3000)
    assert body["flags"] == 64 and not problems(body)
    assert body["allowed_mentions"] == {"parse": []}
    assert escaped("*a*") == "\\*a\\*"
