"""A user's display preferences (issue 34): theme, editor font size, sidebar collapsed.

Revision ID: 0012_preferences
Revises: 0011_attachments
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_preferences"
down_revision = "0011_attachments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "user_preferences",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("theme", sa.String(8), server_default="system", nullable=False),
        sa.Column("font_size", sa.Integer(), server_default="15", nullable=False),
        sa.Column("sidebar_collapsed", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name="fk_user_preferences_user_id_users",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name="pk_user_preferences"),
    )


def downgrade() -> None:
    op.drop_table("user_preferences")
