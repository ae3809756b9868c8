"""Where the server listens and keeps its data: flags, then environment, then defaults."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8100
DATABASE_ENV = "D100_DATABASE_URL"
DATA_DIR_ENV = "D100_DATA_DIR"
PROXIES_ENV = "D100_TRUSTED_PROXIES"
HEADER_SECONDS_ENV = "D100_HEADER_SECONDS"
PROCESSES_ENV = "D100_PROCESSES"  # server processes sharing one PostgreSQL database
# A request's head (request line and headers) is a few hundred bytes: one not all in within
# this many seconds of the connection's opening or of its last answer is a client holding the
# connection open, slowloris-style (an idle kept-alive connection closes then too).
HEADER_SECONDS = 10.0


def data_dir() -> Path:
    return Path(os.environ.get(DATA_DIR_ENV, "data"))


def default_database_url() -> str:
    """``D100_DATABASE_URL`` if set, else a SQLite file in the data directory."""
    url = os.environ.get(DATABASE_ENV)
    if url:
        return url
    return f"sqlite:///{(data_dir() / 'd100.sqlite3').resolve()}"


@dataclass(frozen=True)
class Settings:
    database_url: str
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT


def proxy_options(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The handling of ``X-Forwarded-For`` (``serving.trusted_proxies``): trusted only from
    the addresses listed in ``D100_TRUSTED_PROXIES`` (comma-separated); unset, never (a
    server trusting loopback by default lets any local process pick the client address the
    rate limit counts)."""
    env = os.environ if environ is None else environ
    proxies = env.get(PROXIES_ENV, "").strip()
    return {"proxy_headers": bool(proxies), "forwarded_allow_ips": proxies or None}


def header_seconds(environ: Mapping[str, str] | None = None) -> float:
    """``D100_HEADER_SECONDS`` if set (a test shortens it), else ``HEADER_SECONDS``."""
    env = os.environ if environ is None else environ
    raw = env.get(HEADER_SECONDS_ENV, "").strip()
    if not raw:
        return HEADER_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise ValueError(f"{HEADER_SECONDS_ENV} must be a number of seconds > 0, not {raw!r}")
    return seconds


def processes(environ: Mapping[str, str] | None = None) -> int:
    """``D100_PROCESSES`` if set, else 1: how many server processes share the database, each
    sizing its PostgreSQL pool to its share of the server's connections (``store.pool_sizes``)."""
    env = os.environ if environ is None else environ
    raw = env.get(PROCESSES_ENV, "").strip()
    if not raw:
        return 1
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{PROCESSES_ENV} must be a whole number >= 1, not {raw!r}")
    return int(raw)
