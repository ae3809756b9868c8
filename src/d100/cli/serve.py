"""``d100 serve``: the table server, where a GM and players roll together in the browser."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..server.config import (
    DATABASE_ENV,
    DEFAULT_HOST,
    DEFAULT_PORT,
    HEADER_SECONDS,
    default_database_url,
)
from .parser import EXIT_USAGE

GRACE = 3  # seconds open live streams get to finish when the server stops

HELP = f"""\
Start the table server and print the address to open. The GM creates a table there and
shares the invite link; players join from it and everyone sees rolls live.

The database is --database, else ${DATABASE_ENV}, else a SQLite file in ./data
(or $D100_DATA_DIR). For PostgreSQL: postgresql+psycopg://user@host/dbname

Each token may make $D100_RATE_BURST API requests at once (default 120), then
$D100_RATE_PER_SECOND a second (default 4); raise them only for a load test.
A request's line and headers must arrive within $D100_HEADER_SECONDS seconds
(default {HEADER_SECONDS:g}) of the connection's opening or of its last answer; an idle
connection closes then too. A body a route reads must arrive within
$D100_BODY_SECONDS seconds (default 10). A request's odds get $D100_JOB_SECONDS
seconds of an odds worker (default 5) before they are refused as too much work.
At most $D100_MAX_CONNECTIONS connections are open at
once (default: the open-files limit, raised to its hard limit, less a reserve), and
at most $D100_MAX_CONNECTIONS_PER_ADDRESS from one address (default 64) and
$D100_MAX_CONNECTIONS_PER_NETWORK from one /24 or /64 (default 256; the trusted
proxies in $D100_TRUSTED_PROXIES are exempt from both). Past a network's share or
the cap, the oldest idle connection that never carried a member's request makes room.

On PostgreSQL, set $D100_PROCESSES to the number of server processes sharing the
database (default 1): each takes its share of the server's max_connections for its
pool, and refuses to start where its share is too small.

Quotas: $D100_TABLES_PER_DAY tables opened a day from one address (default 100),
$D100_EVENTS_PER_TABLE events in a table's log (default 100000), and, where set,
$D100_DATABASE_MAX_BYTES for the database (no new table past it).
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        description=HELP,
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--database", metavar="URL", help="SQLAlchemy database URL")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import hypercorn  # noqa: F401  (serving.run's: a missing server extra is told before start)
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import OperationalError

    from ..server import serving  # the server's dependencies load only for this command
    from ..server.app import create_app
    from ..server.config import header_seconds, processes, proxy_options
    from ..server.guard import Limits
    from ..server.quotas import Quotas

    url = args.database or default_database_url()
    try:
        limits = Limits.from_env()
        head_seconds = header_seconds()
        serving.connection_cap(1 << 20)  # a bad D100_MAX_CONNECTIONS is told before start
        serving.per_address_cap()
        serving.per_network_cap()
        # before the address is printed: its database driver, Discord's key (a bad one is told)
        # on PostgreSQL, its pool sized to this process's share of the server's connections
        app = create_app(
            url, limits=limits, freeze=True, processes=processes(), quotas=Quotas.from_env()
        )
    except ValueError as err:
        print(f"d100: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except OperationalError as err:
        print(f"d100: error: cannot reach the database: {err.orig}", file=sys.stderr)
        return EXIT_USAGE
    shown = make_url(url).render_as_string(hide_password=True)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(
        f"d100 table server on {shown}\nOpen http://{host}:{args.port}/ in your browser "
        "(Ctrl+C stops it).",
        flush=True,
    )
    serving.run(
        app,
        host=args.host,
        port=args.port,
        header_seconds=head_seconds,
        grace=GRACE,
        proxies=proxy_options()["forwarded_allow_ips"],
    )
    return 0
