"""Sign-in sessions: a random cookie token whose HMAC (keyed with the server secret) is the row id.

Keying the id with `secret_key` means the database alone cannot mint or use a sign-in, and
changing the secret signs everyone out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, select
from sqlalchemy.orm import Session

from backend.db import storable
from backend.models import KeySession, Membership, User, UserSession
from backend.services import events


def token_id(token: str, secret: str) -> str:
    """The user_sessions row id for a cookie token: HMAC-SHA256 with the server secret."""
    key = secret.encode("utf-8", "surrogatepass")
    return hmac.new(key, token.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def create_session(db: Session, *, user_id: int, ttl: timedelta, now: datetime, secret: str) -> str:
    """Store a new session and return the raw token for the cookie (it is not stored)."""
    token = secrets.token_urlsafe(32)
    db.add(
        UserSession(
            id=token_id(token, secret), user_id=user_id, created_at=now, expires_at=now + ttl
        )
    )
    # Opportunistic clean-up keeps the table from growing without a background job.
    expired = select(UserSession.id).where(
        UserSession.user_id == user_id, UserSession.expires_at <= now
    )
    db.execute(delete(KeySession).where(KeySession.user_session_id.in_(expired)))
    db.execute(
        delete(UserSession).where(UserSession.user_id == user_id, UserSession.expires_at <= now)
    )
    db.commit()
    return token


def user_for_token(db: Session, *, token: str, now: datetime, secret: str) -> User | None:
    """The signed-in user for a cookie token, or None when unknown or expired."""
    return member_for_token(db, token=token, now=now, secret=secret, workspace_id=None)[0]


def member_for_token(
    db: Session, *, token: str, now: datetime, secret: str, workspace_id: str | None
) -> tuple[User | None, bool]:
    """The signed-in user for a cookie token (None when unknown or expired) and whether they
    are a member of `workspace_id`, in one query: a workspace route's fixed cost per request."""
    if not token or not storable(token, max_length=256):
        return None, False
    # An id no row can hold (workspaces.is_member's rule) matches no membership.
    ws = workspace_id if storable(workspace_id, max_length=64) else None
    query = select(User, UserSession.expires_at).join(UserSession, UserSession.user_id == User.id)
    if ws is not None:
        query = query.add_columns(Membership.user_id.label("member")).outerjoin(
            Membership, and_(Membership.user_id == User.id, Membership.workspace_id == ws)
        )
    row = db.execute(query.where(UserSession.id == token_id(token, secret))).first()
    if row is None or row.expires_at <= now:
        return None, False
    user: User = row.User
    return user, ws is not None and row.member is not None


def delete_session(db: Session, *, token: str, secret: str) -> None:
    """End a sign-in and revoke the key sessions opened under it (SPEC §12)."""
    session_id = token_id(token, secret)
    db.execute(delete(KeySession).where(KeySession.user_session_id == session_id))
    db.execute(delete(UserSession).where(UserSession.id == session_id))
    events.session_ended(db, user_session_id=session_id)  # its event streams close (§13)
    db.commit()
