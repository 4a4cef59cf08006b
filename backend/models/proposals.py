"""Edit proposals made by the assistant's `propose_edit` tool (SPEC §8)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from backend.db import utcnow
from backend.models import Base


class EditProposal(Base):
    """A proposed edit of one note; `diff` and `edits` hold note text (the proposal itself).

    The assistant's proposals belong to a conversation; an outside agent's (SPEC §14) have
    no conversation and name the token (`token_id`, `agent_name`: its name when proposed)
    and may carry the agent's one-line `summary`.

    `status` is pending, applied or discarded; `applied_via` records how it was applied
    ("server" through the apply endpoint, "editor" through the page's live editor).
    """

    __tablename__ = "edit_proposals"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    conversation_id: Mapped[str | None] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(Text)
    edits: Mapped[str] = mapped_column(Text)
    base_revision: Mapped[int] = mapped_column(Integer)
    # The note it was made on (Document.uid): apply refuses any other note at that path.
    document_uid: Mapped[str | None] = mapped_column(String(32))
    diff: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    applied_via: Mapped[str | None] = mapped_column(String(16))
    applied_revision: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    token_id: Mapped[str | None] = mapped_column(String(36))
    agent_name: Mapped[str | None] = mapped_column(String(100))
    summary: Mapped[str | None] = mapped_column(String(200))
