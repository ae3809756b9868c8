"""Alembic environment: the store hands over an open connection (see ``store.migrate``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from d100.server.models import Base

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("run migrations through d100.server.store.migrate")
context.configure(connection=connection, target_metadata=Base.metadata)
with context.begin_transaction():
    context.run_migrations()
