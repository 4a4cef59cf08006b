"""People and workspaces (SPEC §17): roles, administrators, disabled accounts, sign-in details,
invitations and the first-run setup salt.

Revision ID: 0008_people
Revises: 0007_token_scopes
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_people"
down_revision = "0007_token_scopes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(
            sa.Column("admin", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # Before roles, the first account was the one its operator made by hand: it administers.
    op.execute("UPDATE users SET admin = true WHERE id = (SELECT min(id) FROM users)")
    with op.batch_alter_table("user_sessions") as batch:
        batch.add_column(sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("user_agent", sa.String(200), nullable=True))
    with op.batch_alter_table("workspace_members") as batch:
        # Every member could do everything before roles: nobody loses a right by the upgrade.
        batch.add_column(sa.Column("role", sa.String(16), nullable=False, server_default="owner"))
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("workspace_id", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("secret_sha256", sa.String(64), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("max_uses", sa.Integer(), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_invitations_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            name="fk_invitations_created_by_users",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_invitations"),
        sa.UniqueConstraint("secret_sha256", name="uq_invitations_secret_sha256"),
    )
    op.create_index("ix_invitations_workspace_id", "invitations", ["workspace_id"])
    op.create_table(
        "instance_settings",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_instance_settings"),
    )


def downgrade() -> None:
    op.drop_table("instance_settings")
    op.drop_index("ix_invitations_workspace_id", table_name="invitations")
    op.drop_table("invitations")
    with op.batch_alter_table("workspace_members") as batch:
        batch.drop_column("role")
    with op.batch_alter_table("user_sessions") as batch:
        batch.drop_column("user_agent")
        batch.drop_column("last_seen_at")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("disabled")
        batch.drop_column("admin")
