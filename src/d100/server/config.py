"""Where the server listens and keeps its data: flags, then environment, then defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8100
DATABASE_ENV = "D100_DATABASE_URL"
DATA_DIR_ENV = "D100_DATA_DIR"


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
