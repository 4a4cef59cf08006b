"""Migration 0002 on existing rows: NFC paths without losing a note, sign-ins ended."""

from __future__ import annotations

import hashlib

from alembic import command
from sqlalchemy import text

from backend.db import build_engine
from backend.migrations import alembic_config, upgrade_to_head

NFC, NFD = "caf\u00e9.md", "cafe\u0301.md"


def _key(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8")).hexdigest()


def test_0002_normalises_paths_and_keeps_every_note(db_url):
    engine = build_engine(db_url)
    try:
        command.upgrade(alembic_config(engine), "0001_initial")
        rows = [
            (1, NFC, "the NFC note"),
            (2, NFD, "the NFD note"),
            (3, "notes/evil\u202egpj.md", "override"),
            (4, "zero\u200bwidth.md", "zero width"),
            (5, "plain.md", "plain"),
            (6, "\u200b/a.md", "only invisible"),
        ]
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO users (id, username, password_hash, created_at) "
                    "VALUES (1, 'u', 'x', CURRENT_TIMESTAMP)"
                )
            )
            conn.execute(text("INSERT INTO workspaces (id, name) VALUES ('w', 'W')"))
            conn.execute(
                text(
                    "INSERT INTO user_sessions (id, user_id, created_at, expires_at) "
                    "VALUES ('s', 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                )
            )
            for doc_id, path, content in rows:
                conn.execute(
                    text(
                        "INSERT INTO documents (id, workspace_id, path, path_sha256, content, "
                        "bytes, revision, updated_at) VALUES (:i, 'w', :p, :k, :c, 1, 1, "
                        "CURRENT_TIMESTAMP)"
                    ),
                    {"i": doc_id, "p": path, "k": _key(path), "c": content},
                )
        upgrade_to_head(engine)
        with engine.connect() as conn:
            stored = dict(conn.execute(text("SELECT content, path FROM documents")).all())
            keys = conn.execute(text("SELECT path, path_sha256 FROM documents")).all()
            sessions = conn.execute(text("SELECT count(*) FROM user_sessions")).scalar()
        assert stored == {
            "the NFC note": NFC,
            "the NFD note": "caf\u00e9 (2).md",  # normalised, and kept beside the other one
            "override": "notes/evilgpj.md",
            "zero width": "zerowidth.md",
            "plain": "plain.md",
            "only invisible": "_/a.md",
        }
        assert all(key == _key(path) for path, key in keys)
        assert sessions == 0  # sign-in ids are keyed with the secret now: sign in again
    finally:
        engine.dispose()
