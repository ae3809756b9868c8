"""What the server's storage may be made to hold: tables opened a day per opener (a client
address on the web, a Discord user and a Discord server through ``/table open``), events in a
table's log, and the database's size in all. Each refusal names the quota and what to do
about it; ``d100 serve`` reads them from the environment (a test or an embedded app sets its
own, or none).

The tables an opener opened are counted in the database (a restart forgets nothing, and every
process on one database counts them together); a table deleted since is counted all the same
(deleting gives no opening back). The events are the table's own numbering, and the size the
database's own figure."""

from __future__ import annotations

import ipaddress
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from .errors import ApiError
from .models import Opening

TABLES_PER_DAY_ENV = "D100_TABLES_PER_DAY"
EVENTS_PER_TABLE_ENV = "D100_EVENTS_PER_TABLE"
DATABASE_BYTES_ENV = "D100_DATABASE_MAX_BYTES"
# A GM opens a table a campaign, a one-shot an evening; a club's address a few more. The
# benchmark opens 75 from one address.
TABLES_PER_DAY = 100
# A long campaign logs a few thousand rolls a year: at 76 rolls a second a script would fill
# this in a quarter of an hour, and the table is then read only.
EVENTS_PER_TABLE = 100_000
DAY = 86_400.0
TABLES = "tables"  # the field a refusal of the tables quota names
_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))")


@dataclass(frozen=True)
class Quotas:
    """None for a quota not kept."""

    tables_per_day: int | None = None
    events_per_table: int | None = None
    database_bytes: int | None = None

    def __post_init__(self) -> None:
        for name in ("tables_per_day", "events_per_table", "database_bytes"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"quota {name} must be a whole number >= 1, not {value!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Quotas:
        """``D100_TABLES_PER_DAY`` (100), ``D100_EVENTS_PER_TABLE`` (100,000) and
        ``D100_DATABASE_MAX_BYTES`` (none), each where set."""
        env = os.environ if environ is None else environ
        return cls(
            _whole(env, TABLES_PER_DAY_ENV, TABLES_PER_DAY),
            _whole(env, EVENTS_PER_TABLE_ENV, EVENTS_PER_TABLE),
            _whole(env, DATABASE_BYTES_ENV, None),
        )


def _whole(env: Mapping[str, str], name: str, default: int | None) -> int | None:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name} must be a whole number >= 1, not {raw!r}")
    return int(raw)


@dataclass(frozen=True)
class Opener:
    """Who a table is counted against: its bucket's key, whose tables the refusal says they
    are ("from your address") and the quota's own words ("from one address")."""

    key: str
    whose: str
    per: str


def by_address(host: str) -> Opener:
    """The web's opener: the client address (``counted_as``)."""
    return Opener("address:" + counted_as(host), "from your address", "from one address")


def by_discord(guild_id: str | None, user_id: str) -> tuple[Opener, ...]:
    """Discord's openers, as a request's address is always Discord's: the verified user (one
    person's account in any number of servers) and the server it is opened in (many accounts
    that one person made to open tables in one server they run). A channel outside a server
    counts by its user alone."""
    user = Opener("discord-user:" + user_id, "by you", "by one Discord user")
    if guild_id is None:
        return (user,)
    return user, Opener("discord-guild:" + guild_id, "in this server", "in one Discord server")


class Openings:
    """The tables each opener opened in the last day, counted in the database, in the
    transaction that opens the table: a table that is not made (refused, rolled back) counts
    nothing, and a restart or another process on the same database counts what was."""

    def __init__(self, quotas: Quotas, clock: Callable[[], float] = time.time) -> None:
        self.most = quotas.tables_per_day
        self.clock = clock

    def take(self, session: Session, *openers: Opener) -> None:
        """Count one table opened by each of ``openers``, all or none: a 429 naming the first
        whose quota is spent, with when it may open the next (``Retry-After``)."""
        if self.most is None:
            return
        now = self.clock()
        keys = sorted({o.key for o in openers})
        if session.get_bind().dialect.name == "postgresql":  # one opener's count at a time
            for key in keys:  # in one order, so two openings never wait on each other
                session.execute(_LOCK, {"key": f"d100 openings {key}"})
        for opener in openers:
            session.execute(
                delete(Opening).where(Opening.opener == opener.key, Opening.opened_at <= now - DAY)
            )
            opened = session.scalars(
                select(Opening.opened_at)
                .where(Opening.opener == opener.key)
                .order_by(Opening.opened_at)
                .limit(self.most)
            ).all()
            if len(opened) >= self.most:
                raise self._refused(opener, opened[0] + DAY - now)
        session.add_all(Opening(opener=o.key, opened_at=now) for o in openers)

    def _refused(self, opener: Opener, wait: float) -> ApiError:
        wait = max(wait, 1.0)
        hours = math.ceil(wait / 3600)
        return ApiError(
            429,
            TABLES,
            None,
            f"at most {self.most} tables opened a day {opener.per}",
            f"too many tables opened {opener.whose} today; try again in {hours} h",
            {"retry-after": str(math.ceil(wait))},
        )


def counted_as(host: str) -> str:
    """Whose tables an address's are: an IPv4 address's own (an IPv4-mapped IPv6 address
    too), an IPv6 address's /64 (one host or one line holds all of a /64, and picks any of
    its addresses: counted by address, it opened as many tables as it liked)."""
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    if address.version == 4:
        return str(address)
    return str(ipaddress.ip_network((address, 64), strict=False))


def check_room(session: Session, quotas: Quotas) -> None:
    """409 when the database has reached its size quota: no new table is opened (the tables
    there go on)."""
    most = quotas.database_bytes
    if most is None:
        return
    size = database_bytes(session)
    if size >= most:
        raise ApiError(
            409,
            "database",
            None,
            f"a database under {most} bytes ({DATABASE_BYTES_ENV})",
            "the server's database is full: no new table can be opened; ask its operator",
        )


def database_bytes(session: Session) -> int:
    """The database's size: PostgreSQL's own figure, or SQLite's pages in use."""
    if session.get_bind().dialect.name == "postgresql":
        found = session.execute(text("SELECT pg_database_size(current_database())")).scalar()
    else:
        pages = session.execute(text("PRAGMA page_count")).scalar() or 0
        found = pages * (session.execute(text("PRAGMA page_size")).scalar() or 0)
    return int(found or 0)
