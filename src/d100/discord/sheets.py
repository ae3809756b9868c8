"""``/sheet``: a character from an attached TOML file, through the parser the page uses
(``server.characters``), made at the channel's table for the member who sent it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from ..server import characters
from ..server.access import viewer_of
from ..server.errors import ApiError
from ..server.models import GameTable
from ..server.store import Store
from .commands import FILE
from .interactions import Interaction, message
from .render import escaped
from .tables import channel_table, member_of, no_table

SHEET_BYTES = 64 * 1024  # as the web API's body: a sheet is a few KB
SHEET_SECONDS = 1.5  # of Discord's 3 s to answer
# Only Discord's own file hosts are fetched: the URL is Discord's word, but never a way in.
HOSTS = ("https://cdn.discordapp.com/", "https://media.discordapp.net/")


def attachment(it: Interaction, option: Any) -> Mapping[str, Any]:
    resolved = (it.data.get("resolved") or {}).get("attachments") or {}
    found = resolved.get(str(option))
    if not isinstance(found, Mapping) or not str(found.get("url", "")).startswith(HOSTS):
        raise ApiError(422, FILE, None, "a TOML file attached", "file: no sheet attached")
    if int(found.get("size") or 0) > SHEET_BYTES:
        raise ApiError(
            413, FILE, None, f"at most {SHEET_BYTES} bytes", f"file: at most {SHEET_BYTES} bytes"
        )
    return found


async def fetch(client: httpx.AsyncClient, url: str) -> str:
    try:
        return await _fetch(client, url)
    except httpx.HTTPError:
        raise ApiError(
            502, FILE, None, "a file Discord serves", "file: could not be read"
        ) from None


async def _fetch(client: httpx.AsyncClient, url: str) -> str:
    async with client.stream("GET", url, timeout=SHEET_SECONDS) as response:
        if response.status_code != 200:
            raise ApiError(502, FILE, None, "a file Discord serves", "file: could not be read")
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > SHEET_BYTES:
                raise ApiError(413, FILE, None, f"at most {SHEET_BYTES} bytes", "file: too large")
            chunks.append(chunk)
    try:
        return b"".join(chunks).decode()
    except UnicodeDecodeError:
        raise ApiError(422, FILE, None, "UTF-8 text (TOML)", "file: not UTF-8 text") from None


def table_system(store: Store, it: Interaction) -> str | None:
    with store.read() as session:
        table_id = channel_table(session, it.channel_id)
        table = None if table_id is None else session.get(GameTable, table_id)
        return None if table is None else table.system


def make(store: Store, it: Interaction, system: str, text: str) -> dict[str, Any]:
    """The sheet, parsed outside the lock, then made for the sender (a member from now on)."""
    sent = characters.upload(system, text)
    with store.write() as session:
        found = member_of(session, it)
        if found is None:
            return no_table()
        viewer = viewer_of(session, found[1])
        row = characters.create(session, viewer, sent, None)
        name = row.name
    return message(f"{escaped(name)}'s sheet is at the table.", private=True)
