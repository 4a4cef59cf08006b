"""OAuth 2.1 for /mcp (SPEC §19): registered clients, authorization codes, grants and their
tokens. Only the SHA-256 hex of a code or token is stored, never the secret itself."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from backend.db import utcnow
from backend.models import Base


class OAuthClient(Base):
    """A public client registered dynamically (RFC 7591); removed after 30 days unused."""

    __tablename__ = "oauth_clients"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)  # the client_id
    name: Mapped[str] = mapped_column(String(100))
    redirect_uris: Mapped[str] = mapped_column(Text)  # a JSON list of strings
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None]


class OAuthGrant(Base):
    """What the user allowed one client on the consent page: scope and reach as a personal
    token's (SPEC §14), bound to one resource (the /mcp URL, RFC 8707)."""

    __tablename__ = "oauth_grants"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    client_id: Mapped[str] = mapped_column(
        ForeignKey("oauth_clients.id", ondelete="CASCADE"), index=True
    )
    scope: Mapped[str] = mapped_column(String(16))
    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    folder: Mapped[str | None] = mapped_column(Text)
    resource: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class OAuthCode(Base):
    """An authorization code: single use, a few minutes, with its PKCE S256 challenge.

    `used_at` is set by the one exchange that wins; `grant_id` names the grant it made, so a
    second use of the code revokes that grant (OAuth 2.1 §4.1.3)."""

    __tablename__ = "oauth_codes"

    code_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(
        ForeignKey("oauth_clients.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    redirect_uri: Mapped[str] = mapped_column(Text)
    code_challenge: Mapped[str] = mapped_column(String(128))
    resource: Mapped[str] = mapped_column(Text)
    scope: Mapped[str] = mapped_column(String(16))
    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    folder: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    grant_id: Mapped[str | None] = mapped_column(String(36))


class OAuthAccessToken(Base):
    """An access token of a grant: at most one hour."""

    __tablename__ = "oauth_access_tokens"

    token_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    grant_id: Mapped[str] = mapped_column(
        ForeignKey("oauth_grants.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]


class OAuthRefreshToken(Base):
    """A refresh token of a grant, good for one use: `used_at` is set by a conditional
    UPDATE (… WHERE used_at IS NULL), so of two processes refreshing at once only one wins;
    a token presented again after its use revokes the grant."""

    __tablename__ = "oauth_refresh_tokens"

    token_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    grant_id: Mapped[str] = mapped_column(
        ForeignKey("oauth_grants.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    used_at: Mapped[datetime | None]
