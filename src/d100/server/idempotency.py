"""``Idempotency-Key`` for rolls: a client that lost the answer (timeout, dropped connection,
server restart) sends the same request with the same key and gets the roll that was made,
never a new one. Keys belong to the member who sent them.

The key is looked up after the table's row lock, inside the roll's own transaction, and
stored in that transaction: two concurrent requests with one key queue on the lock, and the
second finds the first's key (committed) instead of rolling again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Header
from sqlalchemy import bindparam, insert, select
from sqlalchemy.orm import Session

from .access import Viewer
from .errors import bad
from .events import lock_table
from .models import Event, IdempotencyKey
from .tokens import now

HEADER = "Idempotency-Key"
KEY_LIMIT = 200
ALLOWED = f"1..{KEY_LIMIT} printable ASCII characters, one key per distinct request"
# The header as the description states it; refused by ``once`` in its own words (422 naming
# the header), not by the framework's validation.
Key = Annotated[
    str | None,
    Header(
        alias=HEADER,
        json_schema_extra={"minLength": 1, "maxLength": KEY_LIMIT, "pattern": "^[ -~]+$"},
    ),
]
_INSERT = insert(IdempotencyKey)
_SEEN = select(IdempotencyKey.table_id, IdempotencyKey.event_seq, IdempotencyKey.body_hash).where(
    IdempotencyKey.member_id == bindparam("member_id"), IdempotencyKey.key == bindparam("key")
)


@dataclass(frozen=True)
class Outcome:
    event: Event
    replayed: bool  # True: the answer of an earlier request with this key


def once(
    session: Session,
    viewer: Viewer,
    key: str | None,
    body: dict[str, Any],
    act: Callable[[], Event],
) -> Outcome:
    """``act()`` unless this member already sent ``key`` with this ``body``."""
    if key is None:
        return Outcome(act(), replayed=False)
    if not 1 <= len(key) <= KEY_LIMIT or not (key.isascii() and key.isprintable()):
        raise bad(HEADER, key, ALLOWED, "not a usable key")
    digest = fingerprint(body)
    lock_table(session, viewer.table_id)
    # The key's row is read and written as a plain row: nothing else in the transaction
    # touches it, so the ORM's bookkeeping of it would be pure cost on every roll.
    keys = session.connection()
    seen = keys.execute(_SEEN, {"member_id": viewer.member_id, "key": key}).first()
    if seen is not None:
        table_id, event_seq, body_hash = seen
        if body_hash != digest:
            raise bad(HEADER, key, ALLOWED, "this key was already used for a different request")
        return Outcome(session.get_one(Event, (table_id, event_seq)), replayed=True)
    event = act()
    row = {
        "member_id": viewer.member_id,
        "key": key,
        "table_id": viewer.table_id,
        "body_hash": digest,
        "event_seq": event.seq,
        "created_at": now(),
    }
    keys.execute(_INSERT, row)
    return Outcome(event, replayed=False)


def fingerprint(body: dict[str, Any]) -> str:
    """The same request however its JSON was spelt (key order, spacing)."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
