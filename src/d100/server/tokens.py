"""Secrets and ids. Tokens carry 256 random bits and only their SHA-256 is stored, so a copy
of the database grants nothing; ids are public (they appear in addresses) and shorter."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, datetime

TOKEN_BYTES = 32
ID_BYTES = 9


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_id() -> str:
    return secrets.token_urlsafe(ID_BYTES)


def new_seed() -> bytes:
    return secrets.token_bytes(TOKEN_BYTES)


def new_client_seed() -> str:
    return secrets.token_hex(8)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# Control, line-breaking and invisible format characters: refused in one-line texts (PostgreSQL
# refuses NUL outright), and named so in the description's patterns (a regex class, both dialects).
CONTROLS = "\\u0000-\\u001f\\u007f-\\u009f\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff"
UNPRINTABLE = re.compile(f"[{CONTROLS}]")
