"""Note identity and authorship, note history (SPEC §15) and the event backlog (SPEC §13).

documents gains `uid` (a random id never reused, so a proposal can tell a recreated note or
one moved onto its path from the note it was made on) and who made the current revision;
edit_proposals gains the `document_uid` it was made on; note_revisions keeps replaced texts;
note_events is the bounded backlog behind the event stream's ids.

Revision ID: 0006_history
Revises: 0005_search
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_history"
down_revision = "0005_search"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)
# A fresh random 32-hex id per existing row, in each database's own SQL.
_RANDOM_UID = {
    "sqlite": "lower(hex(randomblob(16)))",
    "postgresql": "replace(gen_random_uuid()::text, '-', '')",
}


def upgrade() -> None:
    # Plain ADD COLUMNs (no table rebuild on SQLite, which would drop the search triggers of
    # migration 0005); hence `uid` is unique by an index and `saved_by` carries no foreign key.
    dialect = op.get_bind().dialect.name
    op.add_column("documents", sa.Column("uid", sa.String(32), nullable=True))
    op.add_column("documents", sa.Column("saved_by", sa.Integer(), nullable=True))
    op.add_column(
        "documents", sa.Column("source_kind", sa.String(16), nullable=False, server_default="page")
    )
    op.add_column("documents", sa.Column("source_name", sa.Text(), nullable=True))
    op.add_column(
        "documents", sa.Column("action", sa.String(16), nullable=False, server_default="edit")
    )
    op.add_column("documents", sa.Column("run_started_at", TS, nullable=True))
    op.execute(f"UPDATE documents SET uid = {_RANDOM_UID[dialect]}")
    op.create_index("ix_documents_uid", "documents", ["uid"], unique=True)
    op.add_column("edit_proposals", sa.Column("document_uid", sa.String(32), nullable=True))
    # Proposals made before this migration are bound to the note now at their path.
    op.execute(
        "UPDATE edit_proposals SET document_uid = (SELECT d.uid FROM documents d "
        "WHERE d.workspace_id = edit_proposals.workspace_id AND d.path = edit_proposals.path)"
    )
    op.create_table(
        "note_revisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.String(64), nullable=False),
        sa.Column("document_uid", sa.String(32), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("path_sha256", sa.String(64), nullable=False),
        sa.Column("saved_at", TS, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("source_kind", sa.String(16), nullable=False),
        sa.Column("source_name", sa.Text(), nullable=True),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(16), nullable=False),
        sa.Column("base_id", sa.Integer(), nullable=True),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("gone_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_note_revisions_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_note_revisions_user_id_users", ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_note_revisions"),
        sa.UniqueConstraint("document_uid", "revision", name="uq_note_revisions_document_revision"),
    )
    op.create_index(
        "ix_note_revisions_workspace_path", "note_revisions", ["workspace_id", "path_sha256"]
    )
    op.create_table(
        "note_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name="fk_note_events_workspace_id_workspaces",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_note_events"),
    )
    op.create_index("ix_note_events_workspace_id", "note_events", ["workspace_id"])


def downgrade() -> None:
    op.drop_table("note_events")
    op.drop_table("note_revisions")
    op.drop_column("edit_proposals", "document_uid")
    op.drop_index("ix_documents_uid", table_name="documents")
    for name in ("run_started_at", "action", "source_name", "source_kind", "saved_by", "uid"):
        op.drop_column("documents", name)
