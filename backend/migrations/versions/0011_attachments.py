"""Attachments (SPEC §18): files stored once per workspace and SHA-256, named by path.

`attachment_blobs` holds the bytes (BLOB on SQLite, bytea on PostgreSQL) keyed by workspace
and SHA-256; `attachments` gives them paths, unique per workspace by `path_sha256` like notes.

Revision ID: 0011_attachments
Revises: 0011_oauth (written beside OAuth's migration; it follows it, so there is one head)
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_attachments"
down_revision = "0011_oauth"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "attachment_blobs",
        sa.Column("workspace_id", sa.String(64), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_attachment_blobs_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("workspace_id", "sha256", name="pk_attachment_blobs"),
    )
    op.create_table(
        "attachments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.String(64), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("path_sha256", sa.String(64), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("content_type", sa.String(64), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("unreferenced_since", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_attachments_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            name="fk_attachments_created_by_users",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_attachments"),
        sa.UniqueConstraint("workspace_id", "path_sha256", name="uq_attachments_workspace_path"),
    )
    op.create_index("ix_attachments_workspace_sha256", "attachments", ["workspace_id", "sha256"])


def downgrade() -> None:
    op.drop_index("ix_attachments_workspace_sha256", table_name="attachments")
    op.drop_table("attachments")
    op.drop_table("attachment_blobs")
