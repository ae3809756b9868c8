"""A Discord channel's table, and the Discord users who are members of it.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

ID = sa.String(32)
SNOWFLAKE = sa.String(24)  # Discord's ids: 64-bit integers, sent as text


def upgrade() -> None:
    op.create_table(
        "discord_channels",
        sa.Column("channel_id", SNOWFLAKE, primary_key=True),
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), nullable=False, index=True),
    )
    op.create_table(
        "discord_members",
        sa.Column("table_id", ID, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("user_id", SNOWFLAKE, primary_key=True),
        sa.Column("member_id", ID, sa.ForeignKey("members.id"), nullable=False, unique=True),
    )


def downgrade() -> None:
    op.drop_table("discord_members")
    op.drop_table("discord_channels")
