"""OAuth 2.1 for /mcp (SPEC §19): clients, authorization codes, grants, access and refresh
tokens (only SHA-256 of each secret).

Revision ID: 0011_oauth
Revises: 0010_event_sequence
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_oauth"
down_revision = "0010_event_sequence"
branch_labels = None
depends_on = None


def _when(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _fk(column: str, table: str, target: str, referred: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column],
        [f"{referred}.{target}"],
        name=f"fk_{table}_{column}_{referred}",
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "oauth_clients",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("redirect_uris", sa.Text(), nullable=False),
        _when("created_at"),
        _when("last_used_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_oauth_clients"),
    )
    op.create_table(
        "oauth_grants",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.String(36), nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("workspace_id", sa.String(64), nullable=True),
        sa.Column("folder", sa.Text(), nullable=True),
        sa.Column("resource", sa.Text(), nullable=False),
        _when("created_at"),
        _when("last_used_at", nullable=True),
        _when("revoked_at", nullable=True),
        _fk("user_id", "oauth_grants", "id", "users"),
        _fk("client_id", "oauth_grants", "id", "oauth_clients"),
        _fk("workspace_id", "oauth_grants", "id", "workspaces"),
        sa.PrimaryKeyConstraint("id", name="pk_oauth_grants"),
    )
    op.create_index("ix_oauth_grants_user_id", "oauth_grants", ["user_id"])
    op.create_index("ix_oauth_grants_client_id", "oauth_grants", ["client_id"])
    op.create_table(
        "oauth_codes",
        sa.Column("code_sha256", sa.String(64), nullable=False),
        sa.Column("client_id", sa.String(36), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("redirect_uri", sa.Text(), nullable=False),
        sa.Column("code_challenge", sa.String(128), nullable=False),
        sa.Column("resource", sa.Text(), nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("workspace_id", sa.String(64), nullable=True),
        sa.Column("folder", sa.Text(), nullable=True),
        _when("created_at"),
        _when("expires_at"),
        _when("used_at", nullable=True),
        sa.Column("grant_id", sa.String(36), nullable=True),
        _fk("client_id", "oauth_codes", "id", "oauth_clients"),
        _fk("user_id", "oauth_codes", "id", "users"),
        _fk("workspace_id", "oauth_codes", "id", "workspaces"),
        sa.PrimaryKeyConstraint("code_sha256", name="pk_oauth_codes"),
    )
    op.create_index("ix_oauth_codes_client_id", "oauth_codes", ["client_id"])
    op.create_index("ix_oauth_codes_user_id", "oauth_codes", ["user_id"])
    for table in ("oauth_access_tokens", "oauth_refresh_tokens"):
        extra = _when("expires_at") if table == "oauth_access_tokens" else _when("used_at", True)
        op.create_table(
            table,
            sa.Column("token_sha256", sa.String(64), nullable=False),
            sa.Column("grant_id", sa.String(36), nullable=False),
            _when("created_at"),
            extra,
            _fk("grant_id", table, "id", "oauth_grants"),
            sa.PrimaryKeyConstraint("token_sha256", name=f"pk_{table}"),
        )
        op.create_index(f"ix_{table}_grant_id", table, ["grant_id"])


def downgrade() -> None:
    for table in ("oauth_refresh_tokens", "oauth_access_tokens"):
        op.drop_index(f"ix_{table}_grant_id", table_name=table)
        op.drop_table(table)
    op.drop_index("ix_oauth_codes_user_id", table_name="oauth_codes")
    op.drop_index("ix_oauth_codes_client_id", table_name="oauth_codes")
    op.drop_table("oauth_codes")
    op.drop_index("ix_oauth_grants_client_id", table_name="oauth_grants")
    op.drop_index("ix_oauth_grants_user_id", table_name="oauth_grants")
    op.drop_table("oauth_grants")
    op.drop_table("oauth_clients")
