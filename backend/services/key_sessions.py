"""Key sessions: let the agent read a workspace on the user's behalf until they expire."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from backend.db import storable
from backend.models import KeySession
from backend.services.workspaces import require_member


def create_key_session(
    db: Session,
    *,
    user_id: int,
    workspace_id: str,
    ttl: timedelta,
    now: datetime,
    user_session_id: str | None = None,
) -> KeySession:
    """Open a key session for a member (Forbidden otherwise).

    `user_session_id` is the sign-in it is opened under: signing out revokes it.
    """
    require_member(db, user_id=user_id, workspace_id=workspace_id)
    key = KeySession(
        id=secrets.token_urlsafe(32),
        user_id=user_id,
        workspace_id=workspace_id,
        created_at=now,
        expires_at=now + ttl,
        user_session_id=user_session_id,
    )
    db.add(key)
    # Expired keys grant nothing; delivery rows pointing at them are set to NULL by the FK.
    db.execute(
        delete(KeySession).where(KeySession.user_id == user_id, KeySession.expires_at <= now)
    )
    db.commit()
    return key


def get_valid(
    db: Session, *, key_session_id: str, user_id: int, workspace_id: str, now: datetime
) -> KeySession | None:
    """The key session when it exists, belongs to this user and workspace, and has not expired."""
    if not key_session_id or not storable(key_session_id, max_length=64):
        return None
    if not storable(workspace_id, max_length=64):
        return None
    key = db.scalar(select(KeySession).where(KeySession.id == key_session_id))
    if key is None or key.user_id != user_id or key.workspace_id != workspace_id:
        return None
    if key.expires_at <= now:
        return None
    return key
