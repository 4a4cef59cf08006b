"""A user's assistant conversations (SPEC §15): the listing with titles, and deletion."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, exists, func, select
from sqlalchemy.orm import Session

from backend.models import AgentDeliveryCredential, Conversation, Message
from backend.models.proposals import EditProposal

TITLE_CHARS = 80  # the title: the first user message, cut to this many characters
MAX_LISTED = 500  # the newest this many; older ones stay stored and resumable by id


@dataclass(frozen=True)
class Summary:
    """One line of the listing; no message text but the title."""

    conversation_id: str
    title: str
    updated_at: datetime
    message_count: int


def list_for(
    db: Session, *, user_id: int, workspace_id: str, limit: int = MAX_LISTED
) -> list[Summary]:
    """The user's conversations in the workspace that have a message, newest first.

    Title and count come from correlated subqueries, so no message is read whole: `substr`
    counts characters (not bytes) on SQLite and PostgreSQL alike.
    """
    of_conversation = Message.conversation_id == Conversation.id
    count = select(func.count(Message.id)).where(of_conversation).scalar_subquery()
    title = (
        select(func.substr(Message.content, 1, TITLE_CHARS))
        .where(of_conversation, Message.role == "user")
        .order_by(Message.id)
        .limit(1)
        .scalar_subquery()
    )
    rows = db.execute(
        select(Conversation.id, Conversation.updated_at, title, count)
        .where(
            Conversation.user_id == user_id,
            Conversation.workspace_id == workspace_id,
            exists().where(of_conversation),
        )
        .order_by(Conversation.updated_at.desc(), Conversation.created_at.desc(), Conversation.id)
        .limit(limit)
    )
    return [
        Summary(conversation_id=cid, title=text or "", updated_at=updated, message_count=n)
        for cid, updated, text, n in rows
    ]


def delete_conversation(db: Session, *, conversation_id: str) -> None:
    """Delete the conversation with its proposals, messages and delivery row, in one commit.

    Explicit deletes rather than relying on ON DELETE CASCADE, so the outcome does not hang
    on a connection pragma.
    """
    for model in (EditProposal, Message, AgentDeliveryCredential):
        db.execute(delete(model).where(model.conversation_id == conversation_id))
    db.execute(delete(Conversation).where(Conversation.id == conversation_id))
    db.commit()
