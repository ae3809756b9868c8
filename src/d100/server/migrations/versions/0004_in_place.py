"""A character's Luck in columns of its own, written in place when spent (the sheet's text is
no longer rewritten under the table's lock); a called test's helpers as rows of their own, and
the targets found by character, so deleting a character touches its own rows through indexes.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import tomllib
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

ID = sa.String(32)
characters = sa.table(
    "characters",
    sa.column("id", ID),
    sa.column("sheet", sa.Text),
    sa.column("luck_current", sa.Integer),
    sa.column("luck_maximum", sa.Integer),
)
targets = sa.table("call_targets", sa.column("id", ID), sa.column("assists", sa.JSON))
assists = sa.table(
    "call_assists",
    sa.column("target_id", ID),
    sa.column("character_id", ID),
    sa.column("skill", sa.String(80)),
    sa.column("position", sa.Integer),
)


def _luck_of(data: dict[str, Any]) -> Any:
    """The one character's ``luck`` table of a stored sheet: at the top level (a character
    file) or in its one table (a party file); as the server stored it, checked on upload."""
    if "name" in data:
        return data.get("luck")
    (character,) = (v for v in data.values() if isinstance(v, dict))
    return character.get("luck")


def upgrade() -> None:
    op.add_column("characters", sa.Column("luck_current", sa.Integer, nullable=True))
    op.add_column("characters", sa.Column("luck_maximum", sa.Integer, nullable=True))
    op.create_index("ix_call_targets_character_id", "call_targets", ["character_id"])
    op.create_table(
        "call_assists",
        sa.Column("target_id", ID, sa.ForeignKey("call_targets.id"), primary_key=True),
        sa.Column("character_id", ID, sa.ForeignKey("characters.id"), primary_key=True),
        sa.Column("skill", sa.String(80), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
    )
    op.create_index("ix_call_assists_character_id", "call_assists", ["character_id"])
    bind = op.get_bind()
    for character_id, sheet in bind.execute(sa.select(characters.c.id, characters.c.sheet)):
        luck = _luck_of(tomllib.loads(sheet))
        if isinstance(luck, dict):
            bind.execute(
                characters.update()
                .where(characters.c.id == character_id)
                .values(luck_current=luck["current"], luck_maximum=luck["maximum"])
            )
    rows = [
        {
            "target_id": target_id,
            "character_id": a["character_id"],
            "skill": a["skill"],
            "position": n,
        }
        for target_id, helpers in bind.execute(sa.select(targets.c.id, targets.c.assists))
        for n, a in enumerate(helpers or [])
    ]
    if rows:
        bind.execute(assists.insert(), rows)
    op.drop_column("call_targets", "assists")


def downgrade() -> None:
    import tomlkit  # the sheets take back the Luck spent since, as the older server reads it

    op.add_column(
        "call_targets", sa.Column("assists", sa.JSON, nullable=False, server_default="[]")
    )
    bind = op.get_bind()
    helpers: dict[str, list[dict[str, str]]] = {}
    found = bind.execute(
        sa.select(assists.c.target_id, assists.c.character_id, assists.c.skill).order_by(
            assists.c.target_id, assists.c.position
        )
    )
    for target_id, character_id, skill in found:
        helpers.setdefault(target_id, []).append({"character_id": character_id, "skill": skill})
    for target_id, listed in helpers.items():
        bind.execute(targets.update().where(targets.c.id == target_id).values(assists=listed))
    stored = sa.select(characters.c.id, characters.c.sheet, characters.c.luck_current).where(
        characters.c.luck_current.isnot(None)
    )
    for character_id, sheet, current in bind.execute(stored):
        document = tomlkit.parse(sheet)
        luck = _luck_of(document)
        if luck["current"] != current:
            luck["current"] = current
            bind.execute(
                characters.update()
                .where(characters.c.id == character_id)
                .values(sheet=tomlkit.dumps(document))
            )
    op.drop_index("ix_call_assists_character_id", "call_assists")
    op.drop_table("call_assists")
    op.drop_index("ix_call_targets_character_id", "call_targets")
    op.drop_column("characters", "luck_maximum")
    op.drop_column("characters", "luck_current")
