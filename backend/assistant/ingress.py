"""Agent ingress (SPEC §4): conversations, the delivery row upsert/delete, and stored messages."""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ambient import pointer as codec
from backend.errors import NotFound
from backend.models import AgentDeliveryCredential, Conversation, Message
from backend.services import key_sessions, workspaces

log = logging.getLogger("ambient.assistant.ingress")

DELIVERY_TTL = timedelta(minutes=15)
CONVERSATION_NOT_FOUND = "There is no conversation with that id."


@dataclass(frozen=True)
class Delivery:
    """What the ingress decided for this turn (for logs and tests; no header value)."""

    granted: bool
    pointer: codec.Pointer | None
    pointer_reason: str | None


def _insert(db: Session):
    dialect = db.get_bind().dialect.name
    if dialect == "postgresql":
        return postgresql.insert
    if dialect == "sqlite":
        return sqlite.insert
    raise RuntimeError(f"Unsupported database dialect: {dialect}")


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
        _insert(db)(Conversation)
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


def record_delivery(
    db: Session,
    *,
    conversation_id: str,
    user_id: int,
    workspace_id: str,
    key_session_id: str | None,
    ambient_header: str | bytes | None,
    now: datetime,
) -> Delivery:
    """Apply SPEC §4's row rules for one send, in one statement, and commit.

    Valid key session → one INSERT ... ON CONFLICT (conversation_id) DO UPDATE that replaces
    all three ambient columns (NULL when the header is absent or bad), the key session and
    the expiry, so concurrent sends can never leave a row mixing two pointers.
    No valid key session → the row is deleted.
    """
    pointer, reason = codec.decode_with_reason(ambient_header)
    key = None
    if key_session_id:
        key = key_sessions.get_valid(
            db, key_session_id=key_session_id, user_id=user_id, workspace_id=workspace_id, now=now
        )
    if key is None:
        db.execute(
            delete(AgentDeliveryCredential).where(
                AgentDeliveryCredential.conversation_id == conversation_id
            )
        )
        db.commit()
        return Delivery(granted=False, pointer=pointer, pointer_reason=reason)
    values = {
        "conversation_id": conversation_id,
        "user_id": user_id,
        "workspace_id": workspace_id,
        "key_session_id": key.id,
        "expires_at": now + DELIVERY_TTL,
        "ambient_path": pointer.path if pointer else None,
        "ambient_view": pointer.view if pointer else None,
        "ambient_meta": codec.meta_json(pointer) if pointer else None,
    }
    stmt = _insert(db)(AgentDeliveryCredential).values(**values)
    stmt = stmt.on_conflict_do_update(
        index_elements=["conversation_id"],
        set_={k: stmt.excluded[k] for k in values if k != "conversation_id"},
    )
    db.execute(stmt)
    db.commit()
    return Delivery(granted=True, pointer=pointer, pointer_reason=reason)


def purge_expired(db: Session, *, now: datetime) -> int:
    """Delete every expired delivery row (they grant nothing); returns how many went."""
    result = db.execute(
        delete(AgentDeliveryCredential).where(AgentDeliveryCredential.expires_at <= now)
    )
    db.commit()
    return result.rowcount or 0


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
