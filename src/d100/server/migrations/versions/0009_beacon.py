"""Seeds bound to a public randomness beacon: a table may bind every seed to a future round
of drand's quicknet (``game_tables.beacon``); each such seed names its round
(``seed_sessions.beacon_round``) and keeps the round's signature once fetched.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Tables made before keep drawing as they did: no beacon.
    op.add_column(
        "game_tables",
        sa.Column("beacon", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("seed_sessions", sa.Column("beacon_round", sa.BigInteger(), nullable=True))
    op.add_column("seed_sessions", sa.Column("beacon_signature", sa.String(96), nullable=True))


def downgrade() -> None:
    # The older server would draw a beacon-bound seed's rolls from the server seed alone,
    # which its published commitment (naming a round) does not allow: refused while one is
    # unrevealed. Reveal them (rotate) and turn the tables' beacon off first.
    bind = op.get_bind()
    bound = bind.execute(
        sa.text(
            "SELECT COUNT(*) FROM seed_sessions "
            "WHERE beacon_round IS NOT NULL AND revealed_at IS NULL"
        )
    ).scalar_one()
    if bound:
        raise RuntimeError(
            f"{bound} unrevealed seeds are bound to beacon rounds: an older server cannot "
            "draw from them; downgrade a database with no beacon-bound table"
        )
    op.drop_column("seed_sessions", "beacon_signature")
    op.drop_column("seed_sessions", "beacon_round")
    op.drop_column("game_tables", "beacon")
