"""Personal access tokens, the sharing switch and published active-note pointers (SPEC §10)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from backend.db import utcnow
from backend.models import Base


class PersonalAccessToken(Base):
    """A token for the user's own agents; only the SHA-256 hex of the token is stored.

    `scope` is read, propose or write (SPEC §14); `workspace_id` and `folder` (NFC, no
    trailing '/') restrict its reach, null when unrestricted.
    """

    __tablename__ = "personal_access_tokens"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]
    scope: Mapped[str] = mapped_column(String(16), server_default="read")
    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    folder: Mapped[str | None] = mapped_column(Text)


class ActiveNoteSharing(Base):
    """One row per user who has switched sharing on (no row means off, the default)."""

    __tablename__ = "active_note_sharing"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    enabled: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ActiveNotePublication(Base):
    """The pointer one window last published (path, view, meta as in the delivery row).

    `chosen_at` moves only when the window publishes something new (a heartbeat that repeats
    the same pointer does not), so it orders windows; `refreshed_at` moves on every
    publication and decides the 10-minute freshness.
    """

    __tablename__ = "active_note_publications"
    __table_args__ = (Index("ix_active_note_publications_user_chosen", "user_id", "chosen_at"),)

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    window_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    pointer_path: Mapped[str] = mapped_column(Text)
    pointer_view: Mapped[str] = mapped_column(String(16))
    pointer_meta: Mapped[str] = mapped_column(Text)
    chosen_at: Mapped[datetime]
    refreshed_at: Mapped[datetime]
