"""Tables, members, characters, provable-dice sessions, the event log and called tests.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.String(32)
HASH = sa.String(64)
STAMP = sa.String(40)


def upgrade() -> None:
    op.create_table(
        "game_tables",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("system", sa.String(32), nullable=False),
        sa.Column("house_rules", sa.JSON, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("invite_hash", HASH, nullable=False, unique=True),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
    )
    op.create_table(
        "members",
        sa.Column("id", ID, primary_key=True),
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), nullable=False, index=True),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("token_hash", HASH, nullable=False, unique=True),
        sa.Column("client_seed", sa.String(128), nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
    )
    op.create_table(
        "characters",
        sa.Column("id", ID, primary_key=True),
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), nullable=False, index=True),
        sa.Column("member_id", ID, sa.ForeignKey("members.id"), nullable=False, index=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("sheet", sa.Text, nullable=False),
        sa.Column("aim_rounds", sa.Integer, nullable=False),
        sa.Column("marks", sa.JSON, nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
    )
    op.create_table(
        "seed_sessions",
        sa.Column("id", ID, primary_key=True),
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), nullable=False, index=True),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("commitment", HASH, nullable=False),
        sa.Column("next_nonce", sa.Integer, nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
        sa.Column("revealed_at", STAMP, nullable=True),
    )
    op.create_table(
        "events",
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("visibility", sa.String(8), nullable=False),
        sa.Column("actor_id", ID, nullable=True),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
    )
    op.create_table(
        "calls",
        sa.Column("id", ID, primary_key=True),
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), nullable=False, index=True),
        sa.Column("skill", sa.String(80), nullable=False),
        sa.Column("fields", sa.JSON, nullable=False),
        sa.Column("hazard", sa.Text, nullable=False),
        sa.Column("visibility", sa.String(8), nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
    )
    op.create_table(
        "call_targets",
        sa.Column("id", ID, primary_key=True),
        sa.Column("call_id", ID, sa.ForeignKey("calls.id"), nullable=False, index=True),
        sa.Column("character_id", ID, sa.ForeignKey("characters.id"), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("event_seq", sa.Integer, nullable=True),
        sa.Column("assists", sa.JSON, nullable=False),
        sa.UniqueConstraint("call_id", "character_id"),
    )


def downgrade() -> None:
    for name in (
        "call_targets",
        "calls",
        "events",
        "seed_sessions",
        "characters",
        "members",
        "game_tables",
    ):
        op.drop_table(name)
