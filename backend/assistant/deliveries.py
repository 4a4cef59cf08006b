"""Delivery rows (SPEC §4): the one row per conversation that grants a turn's tools their
authority, written or deleted by each send, and purged when expired."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlalchemy.orm import Session

from ambient import pointer as codec
from backend.db import dialect_insert
from backend.models import AgentDeliveryCredential
from backend.services import key_sessions

DELIVERY_TTL = timedelta(minutes=15)


@dataclass(frozen=True)
class Delivery:
    """What the ingress decided for this turn (for logs and tests; no header value)."""

    granted: bool
    pointer: codec.Pointer | None
    pointer_reason: str | None


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
    stmt = dialect_insert(db)(AgentDeliveryCredential).values(**values)
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
