"""A channel is a table: ``/table open`` makes the channel's table with its opener as GM,
and a Discord user is a member of it on first use (a member row bound to their user id,
which a verified interaction vouches for). Everything goes through the server's own
functions (``gametables``), so the table is the one its web page shows.

Opening one takes the permission to manage the channel, checked on every call (a server's
admins may show the command to anyone): otherwise the first member to type it would be the
GM of everyone who plays there. A table opened here counts in the tables quota
(``quotas.by_discord``: its opener's and its Discord server's), as one opened on the web
counts its address's. ``/table close``, by its GM or by whoever may manage the channel, frees
the channel; the table and its log stay on its page. ``/table delete``, by its GM alone,
deletes the table for good (``deleting``), its name typed to confirm."""

from __future__ import annotations

import tomllib
from itertools import chain, count
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..server import deleting, gametables
from ..server.access import GM, member_by_token, viewer_of
from ..server.errors import ApiError
from ..server.events import lock_table
from ..server.gametables import NAME_LIMIT, not_the_gm_s, skeleton, text_field
from ..server.models import ChannelPost, DiscordChannel, DiscordMember, GameTable, Member
from ..server.quotas import Openings, Quotas, by_discord, check_room
from ..server.store import Store
from ..server.tokens import new_token, token_hash
from .commands import GM_LINK, HOUSE_RULES, NAME, OPENS, OPENS_WORDS, SYSTEM
from .interactions import Interaction, message
from .limits import CONTENT_MAX, clip
from .render import escaped


def channel_table(session: Session, channel_id: str | None) -> str | None:
    if channel_id is None:
        return None
    return session.scalars(
        select(DiscordChannel.table_id).where(DiscordChannel.channel_id == channel_id)
    ).first()


def channel_settings(store: Store, channel_id: str | None) -> dict[str, dict[str, Any]]:
    """The settings of the channel's table by its system (its house rules), which a quick
    roll's chat-bot words leave to their table (SealDice's ``setcoc``); none where the
    channel is no table. A read: a quick roll writes nothing."""
    with store.read() as session:
        table_id = channel_table(session, channel_id)
        table = None if table_id is None else session.get(GameTable, table_id)
        if table is None or not table.house_rules:
            return {}
        return {table.system: {HOUSE_RULES: dict(table.house_rules)}}


def house_rules(text: str) -> dict[str, Any]:
    """``/table open``'s house rules: TOML, as a sheet's (``key = value`` lines)."""
    try:
        return tomllib.loads(text.replace(";", "\n"))
    except tomllib.TOMLDecodeError as err:
        allowed = "TOML, e.g. key = true; other = 2"
        raise ApiError(
            422, "house_rules", None, allowed, f"house_rules: {err}; allowed: {allowed}"
        ) from None


def open_table(
    store: Store, it: Interaction, options: dict[str, Any], openings: Openings, quotas: Quotas
) -> dict[str, Any]:
    """The channel's table, made now with the opener as its GM (one table per channel),
    counted in the tables quota (a table brought from the web was counted there) and refused
    as the web's opening is when the database is full."""
    if it.channel_id is None:
        return message("A table is opened in a channel.", private=True)
    if not it.may(OPENS):
        return message(
            f"Opening this channel's table needs the {OPENS_WORDS} permission in this channel"
            " (or Administrator).",
            private=True,
        )
    link = str(options.get(GM_LINK) or "").strip()
    if link:
        return _adopt(store, it, link)
    if not options.get(SYSTEM):
        return message(
            "A new table needs its `system`; or give `gm_link` to bring a table you are GM of"
            " on the web.",
            private=True,
        )
    rules = house_rules(str(options.get(HOUSE_RULES) or ""))
    name = str(options.get(NAME) or f"#{it.channel_id}")
    try:
        with store.write() as session:
            held = channel_table(session, it.channel_id)
            if held is not None:
                return _already(session, held)
            check_room(session, quotas)
            openings.take(session, *by_discord(it.guild_id, it.user_id))
            made = gametables.create_table(
                session, name, str(options.get(SYSTEM) or ""), _name(it), rules, {}
            )
            session.add(DiscordChannel(channel_id=it.channel_id, table_id=made.table.id))
            session.add(
                DiscordMember(table_id=made.table.id, user_id=it.user_id, member_id=made.gm.id)
            )
            table, gm_name = made.table, made.gm.name
    except IntegrityError:  # another /table open of this channel committed first
        with store.read() as session:
            held = channel_table(session, it.channel_id)
            if held is None:  # closed again since
                raise
            return _already(session, held)
    return message(
        clip(
            f"{escaped(gm_name)} opened a table here: {escaped(table.name)} ({table.system}),"
            " as its GM.",
            CONTENT_MAX,
        )
    )


NOT_A_GM_LINK = (
    "That is not the GM link of a table: give the link the web showed when the table was"
    " made (or the token after its #)."
)


def _adopt(store: Store, it: Interaction, link: str) -> dict[str, Any]:
    """A table made on the web, brought to this channel by its GM: whoever gives its GM link
    (or the token after the link's ``#``) proves they are its GM, and their Discord user is
    bound to that GM member. The token is renewed at once, as a link typed into a command
    may stay in the client's history: ``/link`` gives the GM a new one."""
    token = link.rsplit("#", 1)[-1].strip()
    try:
        with store.write() as session:
            held = channel_table(session, it.channel_id)
            if held is not None:
                return _already(session, held)
            gm = member_by_token(session, token)
            if gm is None or gm.role != GM:
                return message(NOT_A_GM_LINK, private=True)  # the token is never echoed
            table = lock_table(session, gm.table_id)
            elsewhere = session.scalars(
                select(DiscordChannel.channel_id).where(DiscordChannel.table_id == table.id)
            ).first()
            if elsewhere is not None:
                return message(
                    f"{escaped(table.name)} is already the table of <#{elsewhere}>: its GM"
                    " frees it there with `/table close` first.",
                    private=True,
                )
            bound = session.scalars(
                select(DiscordMember.member_id).where(
                    DiscordMember.table_id == table.id, DiscordMember.user_id == it.user_id
                )
            ).first()
            if bound is not None and bound != gm.id:
                return message(
                    "You already play at this table under another name: its GM link is"
                    " another member's.",
                    private=True,
                )
            session.add(DiscordChannel(channel_id=it.channel_id, table_id=table.id))
            if bound is None:
                session.add(DiscordMember(table_id=table.id, user_id=it.user_id, member_id=gm.id))
            gm.token_hash = token_hash(new_token())
            name, system, gm_name = table.name, table.system, gm.name
    except IntegrityError:  # another /table open of this channel committed first
        with store.read() as session:
            held = channel_table(session, it.channel_id)
            if held is None:
                raise
            return _already(session, held)
    return message(
        clip(
            f"{escaped(gm_name)} brought their table here: {escaped(name)} ({system}), as its"
            " GM. Its GM link is renewed: `/link` gives the new one.",
            CONTENT_MAX,
        )
    )


def _already(session: Session, table_id: str) -> dict[str, Any]:
    table = session.get(GameTable, table_id)
    assert table is not None  # the channel's binding's foreign key
    return message(
        clip(
            f"This channel already has a table: {escaped(table.name)}, whose GM is"
            f" {escaped(_gms(session, table_id))}. Its GM, or whoever has the {OPENS_WORDS}"
            " permission here, may free the channel with `/table close`.",
            CONTENT_MAX,
        ),
        private=True,
    )


def _gms(session: Session, table_id: str) -> str:
    names = session.scalars(
        select(Member.name).where(Member.table_id == table_id, Member.role == GM)
    ).all()
    return ", ".join(names)


def close_table(store: Store, it: Interaction) -> dict[str, Any]:
    """The channel freed of its table, by the table's GM or by whoever may manage the
    channel (its moderators free a channel someone took): the table and its log stay, for
    its members' links; the channel is sent nothing more of it."""
    with store.write() as session:
        table_id = channel_table(session, it.channel_id)
        if table_id is None:
            return no_table()
        table = lock_table(session, table_id)
        if not it.may(OPENS) and not _is_gm(session, table_id, it.user_id):
            gms = escaped(_gms(session, table_id))
            return message(
                clip(
                    f"Closing this channel's table is for its GM ({gms}) or whoever has the"
                    f" {OPENS_WORDS} permission in this channel.",
                    CONTENT_MAX,
                ),
                private=True,
            )
        session.execute(delete(DiscordChannel).where(DiscordChannel.channel_id == it.channel_id))
        # the web's rolls not yet posted: the channel is another table's, or none's, now
        session.execute(
            delete(ChannelPost).where(
                ChannelPost.table_id == table_id, ChannelPost.channel_id == it.channel_id
            )
        )
        name = table.name
    return message(
        clip(
            f"{escaped(it.user_name)} closed this channel's table, {escaped(name)}: its page and"
            " log stay for its members' links, and `/table open` makes the channel a new one.",
            CONTENT_MAX,
        )
    )


def delete_table(store: Store, it: Interaction, options: dict[str, Any]) -> dict[str, Any]:
    """The channel's table deleted for good by its GM, who types its name to confirm (a
    command typed is no second thought): its log, characters and every link to it go, and
    the channel is free. Whoever else asks is told who may, and that ``/table close`` frees
    the channel without deleting anything."""
    with store.write() as session:
        table_id = channel_table(session, it.channel_id)
        if table_id is None:
            return no_table()
        table = lock_table(session, table_id)
        gm = _gm_of(session, table_id, it.user_id)
        if gm is None:
            gms = escaped(_gms(session, table_id))
            return message(
                clip(
                    f"Deleting this channel's table is for its GM ({gms}) alone; `/table close`"
                    f" frees the channel, its page and log kept.",
                    CONTENT_MAX,
                ),
                private=True,
            )
        name = table.name
        if " ".join(str(options.get(NAME) or "").split()) != name:
            return message(
                clip(
                    f"To delete {escaped(name)} for good (its log, characters and every link to"
                    " it), give its name exactly as `name`. To keep its log, export it from"
                    " its page first (`/link`).",
                    CONTENT_MAX,
                ),
                private=True,
            )
        deleting.delete_table(session, viewer_of(session, gm))
    return message(
        clip(
            f"{escaped(it.user_name)} deleted this channel's table, {escaped(name)}, for good:"
            " its log and links are gone, and `/table open` makes the channel a new one.",
            CONTENT_MAX,
        )
    )


def _is_gm(session: Session, table_id: str, user_id: str) -> bool:
    return _gm_of(session, table_id, user_id) is not None


def _gm_of(session: Session, table_id: str, user_id: str) -> Member | None:
    """The user's member row at the table where it is a GM's (not revoked), else None."""
    member_id = session.scalars(
        select(DiscordMember.member_id).where(
            DiscordMember.table_id == table_id, DiscordMember.user_id == user_id
        )
    ).first()
    member = None if member_id is None else session.get(Member, member_id)
    return member if member is not None and member.role == GM and not member.revoked else None


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
    member, _ = gametables.add_player(session, table, _free_name(session, table, it))
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


ANONYMOUS = "Discord user"  # a name's stem when none of the user's own may be a player's
NUMBER_ROOM = 8  # " 2" to " 9999999": more members than a table ever has


def _free_name(session: Session, table: GameTable, it: Interaction) -> str:
    """The name a Discord user joins under: as the server shows them, unless it (or one
    looking like it) is taken, or may not be a player's (a GM tag): then with their
    username, then numbered. Never a refusal: Discord gives them no way to choose a name,
    and a web player taking theirs first would lock them out of the channel's table."""
    taken = {
        skeleton(n) for n in session.scalars(select(Member.name).where(Member.table_id == table.id))
    }
    shown, handle = _name(it), it.username
    own = [shown]
    if handle:
        own += [f"{clip(shown, NAME_LIMIT - len(handle) - 3)} ({handle})", handle]
    allowed = [n for n in map(_allowed, own) if n is not None]
    # a stem a number fits after uncut (a cut could end it in a GM tag: "... gm")
    stem = next((n for n in allowed if len(n) <= NAME_LIMIT - NUMBER_ROOM), ANONYMOUS)
    numbered = (f"{stem} {n}" for n in count(2))
    return next(
        name
        for name in map(_allowed, chain(allowed or [ANONYMOUS], numbered))
        if name is not None and skeleton(name) not in taken
    )


def _allowed(name: str) -> str | None:
    """``name`` as a player's name is kept (``gametables.add_player``'s rules), or None."""
    try:
        cleaned = text_field("name", name, NAME_LIMIT)
        not_the_gm_s("name", cleaned)
    except ApiError:
        return None
    return cleaned
