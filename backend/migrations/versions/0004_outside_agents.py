"""Personal access tokens, the sharing switch and published active notes (SPEC §10).

Revision ID: 0004_outside_agents
Revises: 0003_proposals
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_outside_agents"
down_revision = "0003_proposals"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "personal_access_tokens",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("last_used_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name="fk_personal_access_tokens_user_id_users",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_personal_access_tokens"),
        sa.UniqueConstraint("token_sha256", name="uq_personal_access_tokens_token_sha256"),
    )
    op.create_index("ix_personal_access_tokens_user_id", "personal_access_tokens", ["user_id"])
    op.create_table(
        "active_note_sharing",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name="fk_active_note_sharing_user_id_users",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name="pk_active_note_sharing"),
    )
    op.create_table(
        "active_note_publications",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("window_id", sa.String(64), nullable=False),
        sa.Column("workspace_id", sa.String(64), nullable=False),
        sa.Column("pointer_path", sa.Text(), nullable=False),
        sa.Column("pointer_view", sa.String(16), nullable=False),
        sa.Column("pointer_meta", sa.Text(), nullable=False),
        sa.Column("chosen_at", TS, nullable=False),
        sa.Column("refreshed_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name="fk_active_note_publications_user_id_users",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_active_note_publications_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "window_id", name="pk_active_note_publications"),
    )
    op.create_index(
        "ix_active_note_publications_user_chosen",
        "active_note_publications",
        ["user_id", "chosen_at"],
    )


def downgrade() -> None:
    op.drop_table("active_note_publications")
    op.drop_table("active_note_sharing")
    op.drop_table("personal_access_tokens")
