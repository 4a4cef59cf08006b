"""Stored conversations (SPEC §4): made on a first turn, owned by one user, and their messages."""

from __future__ import annotations

import json
import uuid
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from backend.db import dialect_insert
from backend.errors import NotFound
from backend.models import Conversation, Message
from backend.services import workspaces

CONVERSATION_NOT_FOUND = "There is no conversation with that id."


def canonical_id(conversation_id: str) -> str:
    """The canonical (lowercase, hyphenated) form of a client UUID, or NotFound."""
    try:
        return str(uuid.UUID(str(conversation_id)))
    except ValueError:
        raise NotFound(CONVERSATION_NOT_FOUND) from None


def get_owned(db: Session, *, conversation_id: str, user_id: int) -> Conversation:
    """The user's conversation; another user's (or a missing one) is NotFound, alike."""
    conv = db.get(Conversation, canonical_id(conversation_id))
    if conv is None or conv.user_id != user_id:
        raise NotFound(CONVERSATION_NOT_FOUND)
    return conv


def refuse_foreign(db: Session, *, conversation_id: str, user_id: int) -> None:
    """NotFound when the id is taken by another user's conversation (checked before 403s)."""
    owner = db.execute(
        select(Conversation.user_id).where(Conversation.id == canonical_id(conversation_id))
    ).scalar_one_or_none()
    if owner is not None and owner != user_id:
        raise NotFound(CONVERSATION_NOT_FOUND)


def open_conversation(
    db: Session, *, conversation_id: str, user_id: int, workspace_id: str, now: datetime
) -> Conversation:
    """Create the conversation on its first turn; NotFound when it belongs to someone else.

    A conversation follows the user's current workspace: a turn naming another workspace
    (one the user is a member of) moves it there. Authority never leaks across, because each
    turn rewrites or deletes the delivery row for the turn's own workspace.
    """
    cid = canonical_id(conversation_id)
    # INSERT ... ON CONFLICT DO NOTHING: concurrent first turns cannot collide.
    db.execute(
        dialect_insert(db)(Conversation)
        .values(id=cid, user_id=user_id, workspace_id=workspace_id, created_at=now, updated_at=now)
        .on_conflict_do_nothing(index_elements=["id"])
    )
    owner = db.execute(select(Conversation.user_id).where(Conversation.id == cid)).scalar_one()
    if owner != user_id:
        db.rollback()
        raise NotFound(CONVERSATION_NOT_FOUND)
    db.execute(
        update(Conversation)
        .where(Conversation.id == cid)
        .values(workspace_id=workspace_id, updated_at=now)
    )
    db.commit()
    return db.get(Conversation, cid, populate_existing=True)


def add_message(
    db: Session,
    *,
    conversation_id: str,
    role: str,
    content: str,
    tool_calls: list[dict] | None = None,
    now: datetime,
) -> Message:
    """Store one message; tool calls are stored as summaries that never hold note text."""
    msg = Message(
        conversation_id=conversation_id,
        role=role,
        content=content,
        tool_calls=json.dumps(tool_calls, ensure_ascii=False) if tool_calls else None,
        created_at=now,
    )
    db.add(msg)
    db.commit()
    return msg


def list_messages(db: Session, *, conversation_id: str, last: int | None = None) -> list[Message]:
    """The conversation's messages, oldest first; `last` keeps only the newest few (in SQL)."""
    query = select(Message).where(Message.conversation_id == conversation_id)
    if last is None:
        return list(db.scalars(query.order_by(Message.id)))
    newest = list(db.scalars(query.order_by(Message.id.desc()).limit(last)))
    return newest[::-1]


def message_tool_calls(msg: Message) -> list[dict]:
    if not msg.tool_calls:
        return []
    try:
        calls = json.loads(msg.tool_calls)
    except ValueError:
        return []
    return calls if isinstance(calls, list) else []


def check_member(db: Session, *, user_id: int, workspace_id: str) -> None:
    """Forbidden unless the sender may use the turn's workspace."""
    workspaces.require_member(db, user_id=user_id, workspace_id=workspace_id)
