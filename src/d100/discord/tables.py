"""A channel is a table: ``/table open`` makes the channel's table with its opener as GM,
and a Discord user is a member of it on first use (a member row bound to their user id,
which a verified interaction vouches for). Everything goes through the server's own
functions (``gametables``), so the table is the one its web page shows."""

from __future__ import annotations

import tomllib
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..server import gametables
from ..server.errors import ApiError
from ..server.events import lock_table
from ..server.gametables import NAME_LIMIT
from ..server.models import DiscordChannel, DiscordMember, GameTable, Member
from ..server.store import Store
from ..server.tokens import new_token, token_hash
from .commands import HOUSE_RULES, NAME, SYSTEM
from .interactions import Interaction, message
from .limits import CONTENT_MAX, clip
from .render import escaped


def channel_table(session: Session, channel_id: str | None) -> str | None:
    if channel_id is None:
        return None
    return session.scalars(
        select(DiscordChannel.table_id).where(DiscordChannel.channel_id == channel_id)
    ).first()


def house_rules(text: str) -> dict[str, Any]:
    """``/table open``'s house rules: TOML, as a sheet's (``key = value`` lines)."""
    try:
        return tomllib.loads(text.replace(";", "\n"))
    except tomllib.TOMLDecodeError as err:
        allowed = "TOML, e.g. key = true; other = 2"
        raise ApiError(
            422, "house_rules", None, allowed, f"house_rules: {err}; allowed: {allowed}"
        ) from None


def open_table(store: Store, it: Interaction, options: dict[str, Any]) -> dict[str, Any]:
    """The channel's table, made now with the opener as its GM (one table per channel)."""
    if it.channel_id is None:
        return message("A table is opened in a channel.", private=True)
    rules = house_rules(str(options.get(HOUSE_RULES) or ""))
    name = str(options.get(NAME) or f"#{it.channel_id}")
    try:
        with store.write() as session:
            if channel_table(session, it.channel_id) is not None:
                return message("This channel already has a table.", private=True)
            made = gametables.create_table(
                session, name, str(options.get(SYSTEM) or ""), _name(it), rules, {}
            )
            session.add(DiscordChannel(channel_id=it.channel_id, table_id=made.table.id))
            session.add(
                DiscordMember(table_id=made.table.id, user_id=it.user_id, member_id=made.gm.id)
            )
            table = made.table
    except IntegrityError:  # another /table open of this channel committed first
        return message("This channel already has a table.", private=True)
    return message(
        clip(
            f"{escaped(it.user_name)} opened a table here: {escaped(table.name)} ({table.system}),"
            " as its GM.",
            CONTENT_MAX,
        )
    )


REMOVED = "You were removed from this table."


def member_of(session: Session, it: Interaction) -> tuple[GameTable, Member] | None:
    """The channel's table and the user's member row there, made on first use (None: the
    channel has no table)."""
    table_id = channel_table(session, it.channel_id)
    if table_id is None:
        return None
    table = lock_table(session, table_id)
    member_id = session.scalars(
        select(DiscordMember.member_id).where(
            DiscordMember.table_id == table_id, DiscordMember.user_id == it.user_id
        )
    ).first()
    if member_id is not None:
        member = session.get(Member, member_id)
        assert member is not None  # a foreign key
        if member.revoked:  # as a revoked token is: nothing more at this table
            raise ApiError(403, "member", None, "", REMOVED)  # what is allowed goes unsaid
        return table, member
    member, _ = gametables.add_player(session, table, _name(it))
    session.add(DiscordMember(table_id=table_id, user_id=it.user_id, member_id=member.id))
    return table, member


def link(store: Store, it: Interaction, base_url: str) -> dict[str, Any]:
    """The user's own link to the table's page, privately. Their token is made anew (only
    its hash is stored), so an earlier link of theirs stops working."""
    with store.write() as session:
        found = member_of(session, it)
        if found is None:
            return no_table()
        table, member = found
        token = new_token()
        member.token_hash = token_hash(token)
    # The token rides in the fragment, which browsers never send: it stays out of logs.
    url = f"{base_url.rstrip('/')}/t/{table.id}#{token}"
    return message(
        f"Your link to {escaped(clip(table.name, 200))} (yours alone): {url}", private=True
    )


NO_TABLE = "This channel has no table: `/table open` makes one."


def no_table() -> dict[str, Any]:
    return message(NO_TABLE, private=True)


def _name(it: Interaction) -> str:
    return clip(it.user_name or it.user_id, NAME_LIMIT)
