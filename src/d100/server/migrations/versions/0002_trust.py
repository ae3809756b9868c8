"""Blind rolls draw from their own seed session; blind rolls tracked until shown; roll
requests' idempotency keys.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ID = sa.String(32)
HASH = sa.String(64)
STAMP = sa.String(40)
SEED_BYTES = 32  # as tokens.new_seed; repeated so the migration never changes with the code


def upgrade() -> None:
    op.add_column(
        "seed_sessions",
        sa.Column("blind", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "blind_rolls",
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seed_id", ID, sa.ForeignKey("seed_sessions.id"), nullable=False, index=True),
        sa.Column("unblinded_seq", sa.Integer, nullable=True),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("member_id", ID, sa.ForeignKey("members.id"), primary_key=True),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("body_hash", HASH, nullable=False),
        sa.Column("event_seq", sa.Integer, nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
    )
    # Existing tables get their blind session now. Blind rolls made before this migration
    # drew from the open session and were never tracked: its next reveal can show them.
    bind = op.get_bind()
    seeds = sa.table(
        "seed_sessions",
        sa.column("id", ID),
        sa.column("table_id", ID),
        sa.column("server_seed", sa.String(64)),
        sa.column("commitment", HASH),
        sa.column("next_nonce", sa.Integer),
        sa.column("created_at", STAMP),
        sa.column("blind", sa.Boolean),
    )
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
    for (table_id,) in bind.execute(sa.text("SELECT id FROM game_tables")).all():
        seed = secrets.token_bytes(SEED_BYTES)
        bind.execute(
            seeds.insert().values(
                id=secrets.token_urlsafe(9),
                table_id=table_id,
                server_seed=seed.hex(),
                commitment=hashlib.sha256(seed).hexdigest(),
                next_nonce=0,
                created_at=stamp,
                blind=True,
            )
        )


def downgrade() -> None:
    op.drop_table("idempotency_keys")
    op.drop_table("blind_rolls")
    op.execute("DELETE FROM seed_sessions WHERE blind")
    op.drop_column("seed_sessions", "blind")
