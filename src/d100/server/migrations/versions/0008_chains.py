"""Seeds in chains by audience: each seed names its chain (open, blind, the GM's, a member's
``gm`` or ``self`` one) and whose it is.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

ID = sa.String(32)


def upgrade() -> None:
    op.add_column(
        "seed_sessions",
        sa.Column("chain", sa.String(8), nullable=False, server_default="open"),
    )
    op.add_column("seed_sessions", sa.Column("member_id", ID, nullable=False, server_default=""))
    # An existing table keeps its open and blind seeds; its GM's and members' chains start on
    # their first roll (announced in the log before it). Rolls made before drew from the open
    # seed (``gm`` and ``self`` ones, an NPC's): verify says it cannot bind those.
    op.execute("UPDATE seed_sessions SET chain = 'blind' WHERE blind")


def downgrade() -> None:
    # The older server knows two chains, open and blind: a seed of another chain still active
    # is taken out of use as revealed (as the older server revealed the rolls of its audience
    # with the open seed), so its rolls can still be checked.
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
    op.execute(
        sa.text(
            "UPDATE seed_sessions SET revealed_at = :stamp "
            "WHERE chain NOT IN ('open', 'blind') AND revealed_at IS NULL"
        ).bindparams(stamp=stamp)
    )
    op.drop_column("seed_sessions", "member_id")
    op.drop_column("seed_sessions", "chain")
