"""Sign-in sessions: a random cookie token whose HMAC (keyed with the server secret) is the row id.

Keying the id with `secret_key` means the database alone cannot mint or use a sign-in, and
changing the secret signs everyone out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, select, update
from sqlalchemy.orm import Session

from backend.db import storable
from backend.models import KeySession, Membership, User, UserSession
from backend.services import events


def token_id(token: str, secret: str) -> str:
    """The user_sessions row id for a cookie token: HMAC-SHA256 with the server secret."""
    key = secret.encode("utf-8", "surrogatepass")
    return hmac.new(key, token.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


MAX_USER_AGENT = 200
# Writing last_seen_at on every request would be one UPDATE per request; once a minute is
# precise enough for the list of sign-ins (SPEC §17).
LAST_SEEN_RESOLUTION = timedelta(minutes=1)


def create_session(
    db: Session,
    *,
    user_id: int,
    ttl: timedelta,
    now: datetime,
    secret: str,
    user_agent: str | None = None,
) -> str:
    """Store a new session and return the raw token for the cookie (it is not stored)."""
    token = secrets.token_urlsafe(32)
    agent = user_agent[:MAX_USER_AGENT] if user_agent and storable(user_agent) else None
    db.add(
        UserSession(
            id=token_id(token, secret),
            user_id=user_id,
            created_at=now,
            expires_at=now + ttl,
            last_seen_at=now,
            user_agent=agent,
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
) -> tuple[User | None, str | None]:
    """The signed-in user for a cookie token (None when unknown, expired or disabled) and
    their role in `workspace_id` (None when not a member), in one query: a workspace route's
    fixed cost per request."""
    if not token or not storable(token, max_length=256):
        return None, None
    # An id no row can hold (workspaces.is_member's rule) matches no membership.
    ws = workspace_id if storable(workspace_id, max_length=64) else None
    session_id = token_id(token, secret)
    query = select(User, UserSession.expires_at, UserSession.last_seen_at).join(
        UserSession, UserSession.user_id == User.id
    )
    if ws is not None:
        query = query.add_columns(Membership.role.label("role")).outerjoin(
            Membership, and_(Membership.user_id == User.id, Membership.workspace_id == ws)
        )
    row = db.execute(query.where(UserSession.id == session_id)).first()
    if row is None or row.expires_at <= now or row.User.disabled:
        return None, None
    user: User = row.User
    if row.last_seen_at is None or now - row.last_seen_at >= LAST_SEEN_RESOLUTION:
        db.execute(update(UserSession).where(UserSession.id == session_id).values(last_seen_at=now))
        db.commit()
    return user, (row.role if ws is not None else None)


def delete_session(db: Session, *, token: str, secret: str) -> None:
    """End a sign-in and revoke the key sessions opened under it (SPEC §12)."""
    session_id = token_id(token, secret)
    db.execute(delete(KeySession).where(KeySession.user_session_id == session_id))
    db.execute(delete(UserSession).where(UserSession.id == session_id))
    events.session_ended(db, user_session_id=session_id)  # its event streams close (§13)
    db.commit()
