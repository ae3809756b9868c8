"""The store's tables. The event log is append-only: rows are inserted, never updated, and
deleted only with their whole table by its GM (``deleting``); everything else is current
state that the log explains."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ID = String(32)
HASH = String(64)


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class GameTable(Base):
    __tablename__ = "game_tables"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    system: Mapped[str] = mapped_column(String(32))
    house_rules: Mapped[dict[str, Any]]
    settings: Mapped[dict[str, Any]]
    invite_hash: Mapped[str] = mapped_column(HASH, unique=True)
    # The last event's number: bumped under the row lock, so events commit in number order.
    last_seq: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[str] = mapped_column(String(40))
    # Every seed of the table names a future drand quicknet round its draws mix in
    # (d100.beacon): chosen when the table is made, on a server that fetches rounds.
    beacon: Mapped[bool] = mapped_column(Boolean, default=False)
    # The last event's link (``d100.chain``), extended under the same lock; None until the
    # table's first chained event (a table whose log began before the chain).
    last_link: Mapped[str | None] = mapped_column(HASH, nullable=True, default=None)


class Member(Base):
    __tablename__ = "members"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), index=True)
    role: Mapped[str] = mapped_column(String(8))  # "gm" or "player"
    name: Mapped[str] = mapped_column(String(80))
    token_hash: Mapped[str] = mapped_column(HASH, unique=True)
    client_seed: Mapped[str] = mapped_column(String(128))
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[str] = mapped_column(String(40))


class Character(Base):
    __tablename__ = "characters"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), index=True)
    member_id: Mapped[str] = mapped_column(ForeignKey("members.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    sheet: Mapped[str] = mapped_column(Text)  # the command line's TOML, character layout
    aim_rounds: Mapped[int] = mapped_column(Integer, default=0)
    marks: Mapped[dict[str, Any]]  # improvement marks per skill
    created_at: Mapped[str] = mapped_column(String(40))
    # The sheet's Luck (None: it has none), written in place when spent or restored: the
    # sheet's text keeps the Luck it was stored with, and is rewritten only to be read
    # (``characters.current_text``), never under the table's lock.
    luck_current: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    luck_maximum: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)


class SeedSession(Base):
    """A provable-dice session: the secret server seed is shown only as its commitment until
    the GM rotates it; each roll takes the next nonce. Seeds come in chains by audience
    (``access.Chain``): the open chain for rolls every member sees in full, the blind chain
    (``blind``) for blind rolls, revealed once every one was shown, and on first use the GM's
    chain and each member's ``gm`` and ``self`` chains, each revealed only to the members who
    see every roll drawn from it. So revealing one chain's seed never lets a member recompute
    a roll (or a part of one) kept from them."""

    __tablename__ = "seed_sessions"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), index=True)
    server_seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(HASH)
    next_nonce: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[str] = mapped_column(String(40))
    revealed_at: Mapped[str | None] = mapped_column(String(40), nullable=True)
    blind: Mapped[bool] = mapped_column(Boolean, default=False)
    # Which chain (access.Chain): "open", "blind", "gm" or "self", and the member whose
    # chain it is ("" for the table's own: open, blind and the GM's).
    chain: Mapped[str] = mapped_column(String(8), default="open")
    member_id: Mapped[str] = mapped_column(ID, default="")
    # At a table with the beacon: the quicknet round its commitment names (published after
    # it), and that round's signature once fetched; draws use the server seed mixed with the
    # round's randomness (d100.beacon.mixed). None at a table without.
    beacon_round: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    beacon_signature: Mapped[str | None] = mapped_column(String(96), nullable=True)


class BlindRoll(Base):
    """A blind roll and whether the GM has shown it yet: its seed is revealed only when every
    blind roll made with it has been shown."""

    __tablename__ = "blind_rolls"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seed_id: Mapped[str] = mapped_column(ForeignKey("seed_sessions.id"), index=True)
    unblinded_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Opening(Base):
    """A table opened, counted against its opener (a client address, a Discord user or
    server) for the tables quota a day (``quotas.Openings``); rows older than a day are
    dropped as the opener opens more."""

    __tablename__ = "openings"
    __table_args__ = (Index("openings_by_opener", "opener", "opened_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    opener: Mapped[str] = mapped_column(String(200))
    opened_at: Mapped[float] = mapped_column(Float)  # seconds since the epoch


class IdempotencyKey(Base):
    """A roll request's ``Idempotency-Key``, per member: a retry answers with the event the
    first request made, so retrying is never a free reroll."""

    __tablename__ = "idempotency_keys"

    member_id: Mapped[str] = mapped_column(ForeignKey("members.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"))
    body_hash: Mapped[str] = mapped_column(HASH)
    event_seq: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[str] = mapped_column(String(40))


class Event(Base):
    __tablename__ = "events"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    visibility: Mapped[str] = mapped_column(String(8))
    actor_id: Mapped[str | None] = mapped_column(ID, nullable=True)
    data: Mapped[dict[str, Any]]
    created_at: Mapped[str] = mapped_column(String(40))
    # The players who see it besides the GMs (access.sees_event); None: ``visibility`` decides.
    audience: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True, default=None)
    # Its link in the table's hash chain (``d100.chain``), and the secret its commitment is
    # salted from: never shown, only proofs made from it. None: logged before the chain.
    link: Mapped[str | None] = mapped_column(HASH, nullable=True, default=None)
    secret: Mapped[str | None] = mapped_column(HASH, nullable=True, default=None)


@dataclass(frozen=True, slots=True)
class Logged:
    """An event as a plain row (``events.events_after``): what the live streams read on every
    commit, without the ORM's bookkeeping of an ``Event``."""

    seq: int
    kind: str
    visibility: str
    actor_id: str | None
    data: dict[str, Any]
    created_at: str
    audience: list[Any] | None
    link: str | None = None
    secret: str | None = None


class Call(Base):
    """A test the GM called for (OQ10, CH8): one target per character, each answered alone."""

    __tablename__ = "calls"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), index=True)
    skill: Mapped[str] = mapped_column(String(80))
    fields: Mapped[dict[str, Any]]
    hazard: Mapped[str] = mapped_column(Text)
    visibility: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[str] = mapped_column(String(40))
    audience: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True, default=None)
    # A called contest: {"character_id", "skill", "fields"}, the side the GM chose.
    opponent: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)


class CallTarget(Base):
    __tablename__ = "call_targets"
    __table_args__ = (UniqueConstraint("call_id", "character_id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    call_id: Mapped[str] = mapped_column(ForeignKey("calls.id"), index=True)
    character_id: Mapped[str] = mapped_column(ForeignKey("characters.id"), index=True)
    status: Mapped[str] = mapped_column(String(12))  # pending, rolled, declined
    event_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)


class CallAssist(Base):
    """A helper attached to a called test (OQ11, CH8), in the order they were attached: a row
    of its own, so a character's deletion finds what it helps with by index."""

    __tablename__ = "call_assists"

    target_id: Mapped[str] = mapped_column(ForeignKey("call_targets.id"), primary_key=True)
    character_id: Mapped[str] = mapped_column(
        ForeignKey("characters.id"), primary_key=True, index=True
    )
    skill: Mapped[str] = mapped_column(String(80))
    position: Mapped[int] = mapped_column(Integer)


class DiscordChannel(Base):
    """A Discord channel's table: ``/table open`` binds it, one table per channel."""

    __tablename__ = "discord_channels"

    channel_id: Mapped[str] = mapped_column(String(24), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), index=True)


class ChannelPost(Base):
    """An event of a channel's table made through another door (the web page, the API), to be
    posted to the channel: written in the event's own transaction, so a crash between the
    commit and the post loses none; deleted once Discord has it (``d100.discord.mirror``)."""

    __tablename__ = "discord_posts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32))
    seq: Mapped[int] = mapped_column(Integer)
    channel_id: Mapped[str] = mapped_column(String(24))
    lease_until: Mapped[float] = mapped_column(Float, default=0.0)  # a sender's, till then
    tries: Mapped[int] = mapped_column(Integer, default=0)


class DiscordMember(Base):
    """A Discord user's member row at a table, made on their first use of its channel: the
    user id is Discord's verified word, so it stands in for the member's token."""

    __tablename__ = "discord_members"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(24), primary_key=True)
    member_id: Mapped[str] = mapped_column(ForeignKey("members.id"), unique=True)
