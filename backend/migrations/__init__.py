"""Alembic migrations, the source of truth for the schema; `upgrade_to_head` applies them."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

MIGRATIONS_DIR = Path(__file__).resolve().parent


def alembic_config(engine: Engine | None = None) -> Config:
    """An Alembic Config pointing at this folder; `engine` is handed to env.py directly."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if engine is not None:
        config.attributes["engine"] = engine
    return config


def upgrade_to_head(engine: Engine) -> None:
    """Apply every pending migration to the database behind `engine`."""
    command.upgrade(alembic_config(engine), "head")
