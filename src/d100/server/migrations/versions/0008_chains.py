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


KEPT = "seed_chains_kept"  # a downgrade's keeping of what the older schema has no room for


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
    bind = op.get_bind()
    if not sa.inspect(bind).has_table(KEPT):
        return
    # Back from a downgrade: each private chain's seeds as they were.
    columns = "id, chain, member_id, server_seed, revealed_at"
    kept = bind.execute(sa.text(f"SELECT {columns} FROM {KEPT}")).all()
    for seed_id, chain, member_id, server_seed, revealed_at in kept:
        bind.execute(
            sa.text(
                "UPDATE seed_sessions SET chain = :chain, member_id = :member_id, "
                "server_seed = :server_seed, revealed_at = :revealed_at WHERE id = :id"
            ),
            {
                "id": seed_id,
                "chain": chain,
                "member_id": member_id,
                "server_seed": server_seed,
                "revealed_at": revealed_at,
            },
        )
    op.drop_table(KEPT)


def downgrade() -> None:
    # The older server knows two chains, open and blind, and lists every seed it holds to
    # every member. A private chain's seeds (and whether each was revealed, to its audience)
    # are kept aside; in the older schema each stands as revealed with no seed shown, so it
    # draws nothing more and tells nothing. Upgrading again puts them back.
    op.create_table(
        KEPT,
        sa.Column("id", ID, primary_key=True),
        sa.Column("chain", sa.String(8), nullable=False),
        sa.Column("member_id", ID, nullable=False),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("revealed_at", sa.String(40), nullable=True),
    )
    private = "chain NOT IN ('open', 'blind')"
    op.execute(
        f"INSERT INTO {KEPT} (id, chain, member_id, server_seed, revealed_at) "
        f"SELECT id, chain, member_id, server_seed, revealed_at FROM seed_sessions WHERE {private}"
    )
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
    op.execute(
        sa.text(
            "UPDATE seed_sessions SET server_seed = '', "
            f"revealed_at = COALESCE(revealed_at, :stamp) WHERE {private}"
        ).bindparams(stamp=stamp)
    )
    op.drop_column("seed_sessions", "member_id")
    op.drop_column("seed_sessions", "chain")
