"""A helper attached to a called test is a "help" event: the server's own word, no longer a
rule system's request field's.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("UPDATE events SET kind = 'help' WHERE kind = 'assist'")


def downgrade() -> None:
    op.execute("UPDATE events SET kind = 'assist' WHERE kind = 'help'")
