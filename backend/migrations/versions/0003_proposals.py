"""Edit proposals (SPEC §8).

Revision ID: 0003_proposals
Revises: 0002_paths_and_sessions
Create Date: 2026-11-30
"""

from __future__ import annotations

revision = "0003_proposals"
down_revision = "0002_paths_and_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
