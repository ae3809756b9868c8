"""Events of a channel's table made through another door, waiting to be posted to it.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "discord_posts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("channel_id", sa.String(24), nullable=False),
        sa.Column("lease_until", sa.Float, nullable=False, server_default="0"),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_table("discord_posts")
