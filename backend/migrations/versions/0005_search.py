"""Full-text search over notes (SPEC §11): FTS5 on SQLite, trigram GIN on PostgreSQL.

SQLite: an external-content FTS5 table with the `trigram` tokenizer (matches inside words,
Japanese included) over documents.content, kept in step by triggers on documents, so every
write path (save, rename, delete, a workspace's cascade) is covered without Python hooks.
PostgreSQL: the pg_trgm extension and a GIN index on documents.content, which serves ILIKE.
Both index the notes already there. The names are frozen here (backend.services.search
spells the same ones).

Revision ID: 0005_search
Revises: 0004_outside_agents
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0005_search"
down_revision = "0004_outside_agents"
branch_labels = None
depends_on = None

FTS = "documents_fts"
TRGM_INDEX = "ix_documents_content_trgm"

_SQLITE_UP = (
    # columnsize=0: no per-row size table (bm25 ranking is not used).
    (
        f"CREATE VIRTUAL TABLE {FTS} USING fts5(content, content='documents', "
        "content_rowid='id', tokenize='trigram', columnsize=0)"
    ),
    (
        f"CREATE TRIGGER {FTS}_after_insert AFTER INSERT ON documents BEGIN "
        f"INSERT INTO {FTS}(rowid, content) VALUES (new.id, new.content); END"
    ),
    (
        f"CREATE TRIGGER {FTS}_after_delete AFTER DELETE ON documents BEGIN "
        f"INSERT INTO {FTS}({FTS}, rowid, content) VALUES ('delete', old.id, old.content); END"
    ),
    # A rename changes only the path, which the index does not hold: no work for it.
    (
        f"CREATE TRIGGER {FTS}_after_update AFTER UPDATE OF content ON documents BEGIN "
        f"INSERT INTO {FTS}({FTS}, rowid, content) VALUES ('delete', old.id, old.content); "
        f"INSERT INTO {FTS}(rowid, content) VALUES (new.id, new.content); END"
    ),
    f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')",  # the notes already there
)
_SQLITE_DOWN = (
    f"DROP TRIGGER IF EXISTS {FTS}_after_update",
    f"DROP TRIGGER IF EXISTS {FTS}_after_delete",
    f"DROP TRIGGER IF EXISTS {FTS}_after_insert",
    f"DROP TABLE IF EXISTS {FTS}",
)
_POSTGRES_UP = (
    # pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it.
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"CREATE INDEX {TRGM_INDEX} ON documents USING gin (content gin_trgm_ops)",
)
_POSTGRES_DOWN = (f"DROP INDEX IF EXISTS {TRGM_INDEX}",)


def _run(sqlite: tuple[str, ...], postgres: tuple[str, ...]) -> None:
    name = op.get_bind().dialect.name
    if name not in ("sqlite", "postgresql"):
        raise RuntimeError(f"search needs SQLite or PostgreSQL, not {name}")
    for statement in sqlite if name == "sqlite" else postgres:
        op.execute(statement)


def upgrade() -> None:
    _run(_SQLITE_UP, _POSTGRES_UP)


def downgrade() -> None:
    _run(_SQLITE_DOWN, _POSTGRES_DOWN)
