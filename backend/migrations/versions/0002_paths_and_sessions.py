"""Operating limits: NFC paths, key sessions tied to the sign-in that opened them.

- `key_sessions.user_session_id`: the sign-in (user_sessions.id) a key session was opened
  under, so signing out revokes it. Not a foreign key: SQLite cannot add one without
  rebuilding the table; the service deletes them on sign-out instead.
- Sign-in ids are now keyed with the server secret (HMAC), so every existing sign-in and key
  session is ended: users sign in again once.
- Note paths move to Unicode NFC with bidirectional controls and zero-width characters
  removed; a path that would then collide with another note gets " (2)", " (3)", ... before
  its extension, so no note is lost.

Revision ID: 0002_paths_and_sessions
Revises: 0001_initial
Create Date: 2026-11-30
"""

from __future__ import annotations

import hashlib
import unicodedata

import sqlalchemy as sa
from alembic import op

from ambient.paths import INVISIBLE_CHARS, PathError, normalize_path

revision = "0002_paths_and_sessions"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def _key(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8")).hexdigest()


def _cleaned(path: str) -> str:
    stripped = "".join(ch for ch in path if ch not in INVISIBLE_CHARS)
    try:
        return normalize_path(stripped)
    except PathError:  # e.g. a segment that was only invisible characters
        kept = "".join("_" if ch in INVISIBLE_CHARS else ch for ch in path)
        return unicodedata.normalize("NFC", kept)


def _numbered(path: str, n: int) -> str:
    folder, _, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    name = f"{stem} ({n}).{ext}" if dot and stem else f"{name} ({n})"
    return f"{folder}/{name}" if folder else name


def _normalise_document_paths() -> None:
    conn = op.get_bind()
    documents = sa.table(
        "documents",
        sa.column("id", sa.Integer),
        sa.column("workspace_id", sa.String),
        sa.column("path", sa.Text),
        sa.column("path_sha256", sa.String),
    )
    rows = conn.execute(
        sa.select(documents.c.id, documents.c.workspace_id, documents.c.path).order_by(
            documents.c.id
        )
    ).all()
    taken = {(row.workspace_id, _key(row.path)) for row in rows}
    for row in rows:
        target = _cleaned(row.path)
        if target == row.path:
            continue
        candidate, n = target, 2
        while (row.workspace_id, _key(candidate)) in taken:
            candidate, n = _numbered(target, n), n + 1
        taken.discard((row.workspace_id, _key(row.path)))
        taken.add((row.workspace_id, _key(candidate)))
        conn.execute(
            documents.update()
            .where(documents.c.id == row.id)
            .values(path=candidate, path_sha256=_key(candidate))
        )


def upgrade() -> None:
    op.add_column("key_sessions", sa.Column("user_session_id", sa.String(64), nullable=True))
    op.create_index("ix_key_sessions_user_session_id", "key_sessions", ["user_session_id"])
    op.execute("DELETE FROM key_sessions")
    op.execute("DELETE FROM user_sessions")
    _normalise_document_paths()


def downgrade() -> None:
    op.drop_index("ix_key_sessions_user_session_id", table_name="key_sessions")
    with op.batch_alter_table("key_sessions") as batch:
        batch.drop_column("user_session_id")
