"""Event ids per workspace, in commit order (SPEC §13): `note_events.seq` from a counter on
the workspace row.

Before, the stream's id was the table's global id: on PostgreSQL ids are handed out before
commit, so a resume with `Last-Event-ID` could skip an event that committed late with a
smaller id, and a member of one workspace could count another workspace's saves. The counter
row is locked by the writing transaction until it commits, so within a workspace the numbers
follow commit order and say nothing about other workspaces.

Revision ID: 0010_event_sequence
Revises: 0009_identities
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_event_sequence"
down_revision = "0009_identities"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workspaces") as batch:
        batch.add_column(sa.Column("event_seq", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("note_events") as batch:
        batch.add_column(sa.Column("seq", sa.Integer(), nullable=True))
    # The kept backlog keeps its order: numbered per workspace in id order.
    op.execute(
        "UPDATE note_events SET seq = (SELECT count(*) FROM note_events AS older "
        "WHERE older.workspace_id = note_events.workspace_id AND older.id <= note_events.id)"
    )
    op.execute(
        "UPDATE workspaces SET event_seq = COALESCE((SELECT max(seq) FROM note_events "
        "WHERE note_events.workspace_id = workspaces.id), 0)"
    )
    with op.batch_alter_table("note_events") as batch:
        batch.alter_column("seq", existing_type=sa.Integer(), nullable=False)
        batch.create_index("ix_note_events_workspace_seq", ["workspace_id", "seq"], unique=True)


def downgrade() -> None:
    # Plain DROP COLUMN (SQLite 3.35+ and PostgreSQL): a batch copy of `workspaces` would drop
    # a table every other table refers to, which SQLite refuses as locked.
    op.drop_index("ix_note_events_workspace_seq", table_name="note_events")
    op.execute("ALTER TABLE note_events DROP COLUMN seq")
    op.execute("ALTER TABLE workspaces DROP COLUMN event_seq")
