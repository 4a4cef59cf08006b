"""Personal access tokens, the sharing switch and published active notes (SPEC §10).

Revision ID: 0004_outside_agents
Revises: 0003_proposals
Create Date: 2026-11-30
"""

from __future__ import annotations

revision = "0004_outside_agents"
down_revision = "0003_proposals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
