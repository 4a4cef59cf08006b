"""Alembic environment: runs against the engine the app hands over (or ANA_DATABASE_URL)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine, text

from backend.config import Settings
from backend.db import build_engine
from backend.models import Base

# Any constant works; it only has to be the same for every instance of the app.
_PG_MIGRATION_LOCK = 0x414E41  # "ANA"

config = context.config
target_metadata = Base.metadata


def _engine() -> Engine:
    engine = config.attributes.get("engine")
    if engine is not None:
        return engine
    return build_engine(Settings().resolved_database_url())


def run_migrations_online() -> None:
    engine = _engine()
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            if connection.dialect.name == "postgresql":
                # Two instances starting together must not both run the DDL.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK}
                )
            context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("Offline (--sql) migrations are not supported; run against a database.")
run_migrations_online()
