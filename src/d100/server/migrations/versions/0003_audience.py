"""Who sees a called test that is not public (its audience), kept with the call and with each
event about it; the opponent the GM chose for a called contest.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Null: public, as every call and event made before this revision was.
    op.add_column("events", sa.Column("audience", sa.JSON, nullable=True))
    op.add_column("calls", sa.Column("audience", sa.JSON, nullable=True))
    op.add_column("calls", sa.Column("opponent", sa.JSON, nullable=True))


def downgrade() -> None:
    op.drop_column("calls", "opponent")
    op.drop_column("calls", "audience")
    op.drop_column("events", "audience")
