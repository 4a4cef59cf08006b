"""Token scopes and reach, and proposals made by outside agents (SPEC §14).

Revision ID: 0007_token_scopes
Revises: 0006_history
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_token_scopes"
down_revision = "0006_history"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("personal_access_tokens") as batch:
        # Tokens made before scopes existed could only read: they stay read-only.
        batch.add_column(sa.Column("scope", sa.String(16), nullable=False, server_default="read"))
        batch.add_column(sa.Column("workspace_id", sa.String(64), nullable=True))
        batch.add_column(sa.Column("folder", sa.Text(), nullable=True))
        batch.create_foreign_key(
            "fk_personal_access_tokens_workspace_id_workspaces",
            "workspaces",
            ["workspace_id"],
            ["id"],
            ondelete="CASCADE",
        )
    with op.batch_alter_table("edit_proposals") as batch:
        # An agent's proposal belongs to no conversation; it names the token that made it.
        batch.alter_column("conversation_id", existing_type=sa.String(36), nullable=True)
        batch.add_column(sa.Column("token_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("agent_name", sa.String(100), nullable=True))
        batch.add_column(sa.Column("summary", sa.String(200), nullable=True))
    op.create_index("ix_edit_proposals_user_id", "edit_proposals", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_edit_proposals_user_id", table_name="edit_proposals")
    op.execute("DELETE FROM edit_proposals WHERE conversation_id IS NULL")
    with op.batch_alter_table("edit_proposals") as batch:
        batch.drop_column("summary")
        batch.drop_column("agent_name")
        batch.drop_column("token_id")
        batch.alter_column("conversation_id", existing_type=sa.String(36), nullable=False)
    with op.batch_alter_table("personal_access_tokens") as batch:
        batch.drop_constraint(
            "fk_personal_access_tokens_workspace_id_workspaces", type_="foreignkey"
        )
        batch.drop_column("folder")
        batch.drop_column("workspace_id")
        batch.drop_column("scope")
