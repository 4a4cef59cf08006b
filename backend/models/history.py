"""Note history (SPEC §15) and the event backlog of live notes (SPEC §13)."""

from __future__ import annotations

import builtins
from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.db import utcnow
from backend.models import Base


class NoteRevision(Base):
    """The text one change replaced: revision `revision` of the note `document_uid`.

    `body` is zstd-compressed: a keyframe (`base_id` null) holds the whole text, any other row
    a delta against its keyframe's text (backend.services.revisions explains). `path` is the
    note's path at that revision, so a rename keeps the history; `gone_at` is set when the
    note is deleted, and such rows are purged 30 days later.
    """

    __tablename__ = "note_revisions"
    __table_args__ = (
        UniqueConstraint("document_uid", "revision", name="uq_note_revisions_document_revision"),
        Index("ix_note_revisions_workspace_path", "workspace_id", "path_sha256"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    document_uid: Mapped[str] = mapped_column(String(32))
    revision: Mapped[int] = mapped_column(Integer)
    path: Mapped[str] = mapped_column(Text)
    path_sha256: Mapped[str] = mapped_column(String(64))
    saved_at: Mapped[datetime] = mapped_column(default=utcnow)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    source_kind: Mapped[str] = mapped_column(String(16))
    source_name: Mapped[str | None] = mapped_column(Text)
    action: Mapped[str] = mapped_column(String(16))
    bytes: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(16))
    base_id: Mapped[int | None] = mapped_column(Integer)
    body: Mapped[builtins.bytes] = mapped_column(LargeBinary)  # `bytes` above is a column
    gone_at: Mapped[datetime | None]


class NoteEvent(Base):
    """One `saved`/`moved`/`deleted` event. `seq` is the stream's event id: numbered per
    workspace in commit order (migration 0010); `id` is internal (the hub's wake-ups).

    `data` is the event's JSON (paths, revision, sizes, source: never note text). The table
    is a bounded backlog for `Last-Event-ID`: each workspace's old rows are pruned by seq.
    """

    __tablename__ = "note_events"
    __table_args__ = (Index("ix_note_events_workspace_seq", "workspace_id", "seq", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.id", ondelete="CASCADE"), index=True
    )
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    data: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
