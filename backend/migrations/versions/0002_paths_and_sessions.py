"""Operating limits: NFC paths, key sessions tied to the sign-in that opened them.

Revision ID: 0002_paths_and_sessions
Revises: 0001_initial
Create Date: 2026-11-30
"""

from __future__ import annotations

revision = "0002_paths_and_sessions"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
