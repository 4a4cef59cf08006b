"""Attachments (SPEC §18): files a note shows (images, PDFs), stored in the database.

A file's bytes are kept once per workspace and content (`attachment_blobs`, keyed by
SHA-256); `attachments` names them by path. Two paths holding the same picture share one blob.
"""

from __future__ import annotations

import builtins
from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.db import utcnow
from backend.models import Base


class AttachmentBlob(Base):
    """The bytes of one file, once per workspace and SHA-256 (BLOB / bytea)."""

    __tablename__ = "attachment_blobs"

    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.id", ondelete="CASCADE"), primary_key=True
    )
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    bytes: Mapped[int] = mapped_column(Integer)
    data: Mapped[builtins.bytes] = mapped_column(LargeBinary)  # `bytes` above is a column


class Attachment(Base):
    """A file at a path of a workspace. `path_sha256` is unique per workspace, as for notes
    (`backend.models.path_key`). `unreferenced_since` is when the purge job first found no
    note referring to it (cleared when one does again); 30 days later it is purged."""

    __tablename__ = "attachments"
    __table_args__ = (
        UniqueConstraint("workspace_id", "path_sha256", name="uq_attachments_workspace_path"),
        Index("ix_attachments_workspace_sha256", "workspace_id", "sha256"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(Text)
    path_sha256: Mapped[str] = mapped_column(String(64))
    sha256: Mapped[str] = mapped_column(String(64))
    bytes: Mapped[int] = mapped_column(Integer)
    content_type: Mapped[str] = mapped_column(String(64))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    unreferenced_since: Mapped[datetime | None]
