"""The tables each opener opened in the last day (the tables quota), kept in the database:
a restart, or another process on the same database, counts them as well.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "openings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("opener", sa.String(200), nullable=False),
        sa.Column("opened_at", sa.Float, nullable=False),
    )
    op.create_index("openings_by_opener", "openings", ["opener", "opened_at"])


def downgrade() -> None:
    # The older server counts openings in its memory: the day's count starts afresh.
    op.drop_index("openings_by_opener", table_name="openings")
    op.drop_table("openings")
