"""The log's hash chain: each event's link (to the one before it) and the secret its
commitment is salted from; each table's last link, extended under the table's lock.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

HASH = sa.String(64)
KEPT = "event_links_kept"  # a downgrade's keeping of the links the older schema has no room for


def upgrade() -> None:
    # Events logged before stay without a link: verify reports them as before the chain,
    # and a table's next event starts its chain.
    op.add_column("events", sa.Column("link", HASH, nullable=True))
    op.add_column("events", sa.Column("secret", HASH, nullable=True))
    op.add_column("game_tables", sa.Column("last_link", HASH, nullable=True))
    bind = op.get_bind()
    if not sa.inspect(bind).has_table(KEPT):
        return
    # Back from a downgrade: each link as it was, and the chain goes on from a table's last
    # one if the older server appended nothing meanwhile (else its events are unchained, and
    # verify says the log dropped out of the chain there).
    kept = bind.execute(sa.text(f"SELECT table_id, seq, link, secret FROM {KEPT}")).all()
    for table_id, seq, link, secret in kept:
        bind.execute(
            sa.text(
                "UPDATE events SET link = :link, secret = :secret "
                "WHERE table_id = :table_id AND seq = :seq"
            ),
            {"table_id": table_id, "seq": seq, "link": link, "secret": secret},
        )
    bind.execute(
        sa.text(
            "UPDATE game_tables SET last_link = (SELECT e.link FROM events e "
            "WHERE e.table_id = game_tables.id AND e.seq = game_tables.last_seq)"
        )
    )
    op.drop_table(KEPT)


def downgrade() -> None:
    op.create_table(
        KEPT,
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("link", HASH, nullable=False),
        sa.Column("secret", HASH, nullable=False),
    )
    op.execute(
        f"INSERT INTO {KEPT} (table_id, seq, link, secret) "
        "SELECT table_id, seq, link, secret FROM events WHERE link IS NOT NULL"
    )
    op.drop_column("game_tables", "last_link")
    op.drop_column("events", "secret")
    op.drop_column("events", "link")
