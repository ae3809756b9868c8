"""Discord's limits on what a message, a command and an autocomplete may hold: every message
d100 sends is made to fit (``clip``) and the tests hold each one to ``problems``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000  # title, description, fields, footer and author of all embeds
TITLE_MAX = 256
DESCRIPTION_MAX = 100  # a command's or option's description
EMBED_DESCRIPTION_MAX = 4096
FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
CUSTOM_ID_MAX = 100
CHOICE_MAX = 25  # choices of an option, and of an autocomplete's answer
NAME_MAX = 100  # a choice's name and value
BUTTONS_PER_ROW = 5
ROWS_MAX = 5


def clip(text: str, most: int) -> str:
    """``text`` within ``most`` characters, an ellipsis saying where it was cut."""
    return text if len(text) <= most else text[: most - 1] + "…"


def problems(message: Mapping[str, Any]) -> list[str]:
    """What in a message body (an answer's ``data``, a follow-up) Discord would refuse."""
    out = []
    content = message.get("content") or ""
    if len(content) > CONTENT_MAX:
        out.append(f"content: {len(content)} characters, more than {CONTENT_MAX}")
    embeds = message.get("embeds") or []
    if len(embeds) > EMBEDS_MAX:
        out.append(f"embeds: {len(embeds)}, more than {EMBEDS_MAX}")
    total = 0
    for i, embed in enumerate(embeds):
        sizes = {
            "title": (len(embed.get("title", "")), TITLE_MAX),
            "description": (len(embed.get("description", "")), EMBED_DESCRIPTION_MAX),
            "footer": (len(embed.get("footer", {}).get("text", "")), FOOTER_MAX),
        }
        fields = embed.get("fields", [])
        if len(fields) > FIELDS_MAX:
            out.append(f"embeds[{i}].fields: {len(fields)}, more than {FIELDS_MAX}")
        for j, f in enumerate(fields):
            sizes[f"fields[{j}].name"] = (len(f.get("name", "")), FIELD_NAME_MAX)
            sizes[f"fields[{j}].value"] = (len(f.get("value", "")), FIELD_VALUE_MAX)
            if not f.get("name") or not f.get("value"):
                out.append(f"embeds[{i}].fields[{j}]: an empty name or value")
        for where, (size, most) in sizes.items():
            if size > most:
                out.append(f"embeds[{i}].{where}: {size} characters, more than {most}")
            total += size
    if total > EMBED_TOTAL_MAX:
        out.append(f"embeds: {total} characters in all, more than {EMBED_TOTAL_MAX}")
    rows = message.get("components") or []
    if len(rows) > ROWS_MAX:
        out.append(f"components: {len(rows)} rows, more than {ROWS_MAX}")
    for row in rows:
        buttons = row.get("components", [])
        if len(buttons) > BUTTONS_PER_ROW:
            out.append(f"components: {len(buttons)} in a row, more than {BUTTONS_PER_ROW}")
        for b in buttons:
            if len(b.get("custom_id", "")) > CUSTOM_ID_MAX:
                out.append(f"custom_id: {b['custom_id']!r} longer than {CUSTOM_ID_MAX}")
    return out


def choice_problems(answer: Mapping[str, Any]) -> list[str]:
    """What in an autocomplete answer Discord would refuse."""
    found = answer.get("data", {}).get("choices", [])
    out = [f"{len(found)} choices, more than {CHOICE_MAX}"] if len(found) > CHOICE_MAX else []
    for c in found:
        if not 1 <= len(c["name"]) <= NAME_MAX or len(str(c["value"])) > NAME_MAX:
            out.append(f"choice {c!r}: name 1..{NAME_MAX}, value at most {NAME_MAX}")
    return out
