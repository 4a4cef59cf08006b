"""OAuth 2.1 state in the database (SPEC §19): clients, codes, grants and their tokens.

Every function is synchronous and takes a Session; backend.oauth.provider runs them in a
worker thread for the SDK's handlers. Secrets (codes, access and refresh tokens) are random,
returned once and stored as SHA-256 only. Two writes are decided by the database itself so
that two server processes can never both win: a code's `used_at` and a refresh token's
`used_at` are set by a conditional UPDATE (`… WHERE used_at IS NULL`) whose row count says
who won; the loser's presentation counts as a reuse and revokes the grant.
"""

from __future__ import annotations

import json
import logging
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, func, select, update
from sqlalchemy.orm import Session

from backend.db import storable
from backend.models import User
from backend.models.oauth import (
    OAuthAccessToken,
    OAuthClient,
    OAuthCode,
    OAuthGrant,
    OAuthRefreshToken,
)
from backend.services.tokens import LAST_USED_RESOLUTION, Authority, token_sha256

log = logging.getLogger("ambient.oauth")

ACCESS_PREFIX = "ana_oat_"  # an OAuth access token (a personal token starts ana_pat_)
REFRESH_PREFIX = "ana_ort_"
ACCESS_TOKEN_LIFETIME = timedelta(hours=1)
CODE_LIFETIME = timedelta(minutes=5)
CLIENT_IDLE_DAYS = 30  # a client nobody used for this long is removed, with its grants
MAX_SECRET_CHARS = 256


@dataclass(frozen=True)
class Issued:
    """What the token endpoint answers: the raw secrets (never stored) and the grant."""

    access_token: str
    refresh_token: str
    expires_in: int
    scope: str
    grant_id: str


def _secret(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(32)


def _rowcount(result: Any) -> int:
    return cast(CursorResult[Any], result).rowcount


# --- clients ---


def register_client(
    db: Session, *, name: str, redirect_uris: list[str], now: datetime
) -> OAuthClient:
    row = OAuthClient(
        id=str(uuid.uuid4()),
        name=name,
        redirect_uris=json.dumps(redirect_uris),
        created_at=now,
        last_used_at=None,
    )
    db.add(row)
    db.commit()
    return row


def get_client(db: Session, client_id: str) -> OAuthClient | None:
    if not storable(client_id, max_length=36):
        return None
    return db.get(OAuthClient, client_id)


def redirect_uris(client: OAuthClient) -> list[str]:
    return list(json.loads(client.redirect_uris))


def purge_idle_clients(db: Session, *, now: datetime) -> int:
    """Remove clients unused for CLIENT_IDLE_DAYS (their grants and tokens go with them),
    and codes and access tokens past their time. Answers how many clients went."""
    cutoff = now - timedelta(days=CLIENT_IDLE_DAYS)
    idle = list(
        db.scalars(
            select(OAuthClient.id).where(
                func.coalesce(OAuthClient.last_used_at, OAuthClient.created_at) < cutoff
            )
        )
    )
    if idle:
        grants = select(OAuthGrant.id).where(OAuthGrant.client_id.in_(idle))
        db.execute(delete(OAuthAccessToken).where(OAuthAccessToken.grant_id.in_(grants)))
        db.execute(delete(OAuthRefreshToken).where(OAuthRefreshToken.grant_id.in_(grants)))
        db.execute(delete(OAuthGrant).where(OAuthGrant.client_id.in_(idle)))
        db.execute(delete(OAuthCode).where(OAuthCode.client_id.in_(idle)))
        db.execute(delete(OAuthClient).where(OAuthClient.id.in_(idle)))
    db.execute(delete(OAuthCode).where(OAuthCode.expires_at < now - CODE_LIFETIME))
    db.execute(delete(OAuthAccessToken).where(OAuthAccessToken.expires_at < now))
    db.commit()
    if idle:
        log.info("oauth removed %d clients unused for %d days", len(idle), CLIENT_IDLE_DAYS)
    return len(idle)


# --- authorization codes ---


def create_code(
    db: Session,
    *,
    client_id: str,
    user_id: int,
    redirect_uri: str,
    code_challenge: str,
    resource: str,
    scope: str,
    workspace_id: str | None,
    folder: str | None,
    now: datetime,
) -> str:
    code = _secret()
    db.add(
        OAuthCode(
            code_sha256=token_sha256(code),
            client_id=client_id,
            user_id=user_id,
            redirect_uri=redirect_uri,
            code_challenge=code_challenge,
            resource=resource,
            scope=scope,
            workspace_id=workspace_id,
            folder=folder,
            created_at=now,
            expires_at=now + CODE_LIFETIME,
            used_at=None,
            grant_id=None,
        )
    )
    db.commit()
    return code


def load_code(db: Session, *, code: str, client_id: str, now: datetime) -> OAuthCode | None:
    """The unused code of this client, or None. A code presented again after its use
    revokes the grant it made (OAuth 2.1 §4.1.3)."""
    if not storable(code, max_length=MAX_SECRET_CHARS):
        return None
    row = db.get(OAuthCode, token_sha256(code))
    if row is None or row.client_id != client_id:
        return None
    if row.used_at is not None:
        if row.grant_id is not None:
            revoke_grant(db, grant_id=row.grant_id, now=now, why="code reused")
        return None
    return row


def exchange_code(db: Session, *, code_sha256: str, now: datetime) -> Issued | None:
    """Use the code once: a new grant with its first tokens, or None when the code was used
    in the meantime (a parallel exchange won)."""
    won = _rowcount(
        db.execute(
            update(OAuthCode)
            .where(OAuthCode.code_sha256 == code_sha256, OAuthCode.used_at.is_(None))
            .values(used_at=now)
        )
    )
    if won != 1:
        db.rollback()
        return None
    code = db.get(OAuthCode, code_sha256)
    assert code is not None
    grant = OAuthGrant(
        id=str(uuid.uuid4()),
        user_id=code.user_id,
        client_id=code.client_id,
        scope=code.scope,
        workspace_id=code.workspace_id,
        folder=code.folder,
        resource=code.resource,
        created_at=now,
        last_used_at=now,
        revoked_at=None,
    )
    db.add(grant)
    db.flush()
    code.grant_id = grant.id
    _touch_client(db, code.client_id, now)
    issued = _issue(db, grant, now)
    db.commit()
    return issued


# --- tokens ---


def _issue(db: Session, grant: OAuthGrant, now: datetime) -> Issued:
    access, refresh = _secret(ACCESS_PREFIX), _secret(REFRESH_PREFIX)
    db.add(
        OAuthAccessToken(
            token_sha256=token_sha256(access),
            grant_id=grant.id,
            created_at=now,
            expires_at=now + ACCESS_TOKEN_LIFETIME,
        )
    )
    db.add(
        OAuthRefreshToken(
            token_sha256=token_sha256(refresh), grant_id=grant.id, created_at=now, used_at=None
        )
    )
    return Issued(
        access_token=access,
        refresh_token=refresh,
        expires_in=int(ACCESS_TOKEN_LIFETIME.total_seconds()),
        scope=grant.scope,
        grant_id=grant.id,
    )


def _touch_client(db: Session, client_id: str, now: datetime) -> None:
    db.execute(update(OAuthClient).where(OAuthClient.id == client_id).values(last_used_at=now))


def load_refresh(
    db: Session, *, token: str, client_id: str, now: datetime
) -> tuple[OAuthRefreshToken, OAuthGrant] | None:
    """The refresh token and its live grant, or None. One presented again after its use
    revokes the whole grant (its access tokens stop at once)."""
    if not token.startswith(REFRESH_PREFIX) or not storable(token, max_length=MAX_SECRET_CHARS):
        return None
    found = db.execute(
        select(OAuthRefreshToken, OAuthGrant)
        .join(OAuthGrant, OAuthGrant.id == OAuthRefreshToken.grant_id)
        .where(OAuthRefreshToken.token_sha256 == token_sha256(token))
    ).first()
    if found is None:
        return None
    row, grant = found.OAuthRefreshToken, found.OAuthGrant
    if grant.client_id != client_id or grant.revoked_at is not None:
        return None
    if row.used_at is not None:
        revoke_grant(db, grant_id=grant.id, now=now, why="refresh token reused")
        return None
    return row, grant


def refresh(db: Session, *, token_sha256_: str, now: datetime) -> Issued | None:
    """Rotate: mark the refresh token used (only if nobody did), issue a new pair. None when
    it was used meanwhile, which is a reuse: the grant is revoked."""
    won = _rowcount(
        db.execute(
            update(OAuthRefreshToken)
            .where(
                OAuthRefreshToken.token_sha256 == token_sha256_,
                OAuthRefreshToken.used_at.is_(None),
            )
            .values(used_at=now)
        )
    )
    row = db.get(OAuthRefreshToken, token_sha256_)
    grant = db.get(OAuthGrant, row.grant_id) if row is not None else None
    if grant is None:
        db.rollback()
        return None
    if won != 1 or grant.revoked_at is not None:
        grant_id = grant.id
        db.rollback()
        revoke_grant(db, grant_id=grant_id, now=now, why="refresh token reused")
        return None
    grant.last_used_at = now
    _touch_client(db, grant.client_id, now)
    issued = _issue(db, grant, now)
    db.commit()
    return issued


def revoke_grant(
    db: Session, *, grant_id: str, now: datetime, user_id: int | None = None, why: str = ""
) -> bool:
    """Revoke the grant and delete its tokens; False when there is no such live grant (of
    `user_id`, when given)."""
    query = update(OAuthGrant).where(OAuthGrant.id == grant_id, OAuthGrant.revoked_at.is_(None))
    if user_id is not None:
        query = query.where(OAuthGrant.user_id == user_id)
    done = _rowcount(db.execute(query.values(revoked_at=now)))
    if done:
        db.execute(delete(OAuthAccessToken).where(OAuthAccessToken.grant_id == grant_id))
        db.execute(delete(OAuthRefreshToken).where(OAuthRefreshToken.grant_id == grant_id))
    db.commit()
    if done and why:
        log.warning("oauth grant %s revoked: %s", grant_id, why)
    return bool(done)


def grant_of_token(db: Session, *, token: str, client_id: str) -> str | None:
    """The grant an access or refresh token of this client belongs to (for revocation)."""
    if not storable(token, max_length=MAX_SECRET_CHARS):
        return None
    digest = token_sha256(token)
    model = OAuthAccessToken if token.startswith(ACCESS_PREFIX) else OAuthRefreshToken
    found = db.execute(
        select(OAuthGrant.id, OAuthGrant.client_id)
        .join(model, model.grant_id == OAuthGrant.id)
        .where(model.token_sha256 == digest)
    ).first()
    if found is None or found.client_id != client_id:
        return None
    return str(found.id)


def access_token_client(db: Session, *, token: str) -> str | None:
    """The client an access token was issued to (expired or not), or None."""
    if not token.startswith(ACCESS_PREFIX) or not storable(token, max_length=MAX_SECRET_CHARS):
        return None
    return db.scalar(
        select(OAuthGrant.client_id)
        .join(OAuthAccessToken, OAuthAccessToken.grant_id == OAuthGrant.id)
        .where(OAuthAccessToken.token_sha256 == token_sha256(token))
    )


def authority_for_access_token(
    db: Session, *, token: str, resource: str, now: datetime
) -> Authority | None:
    """What an OAuth access token allows at `resource` (the /mcp URL it is presented to), or
    None when unknown, expired, revoked, issued for another resource or its user disabled.
    Records the use on the grant and the client (at most once per LAST_USED_RESOLUTION)."""
    if not token.startswith(ACCESS_PREFIX) or not storable(token, max_length=MAX_SECRET_CHARS):
        return None
    found = db.execute(
        select(OAuthAccessToken.expires_at, OAuthGrant, OAuthClient.name, User.disabled)
        .join(OAuthGrant, OAuthGrant.id == OAuthAccessToken.grant_id)
        .join(OAuthClient, OAuthClient.id == OAuthGrant.client_id)
        .join(User, User.id == OAuthGrant.user_id)
        .where(OAuthAccessToken.token_sha256 == token_sha256(token))
    ).first()
    if found is None or found.disabled or found.expires_at <= now:
        return None
    grant: OAuthGrant = found.OAuthGrant
    if grant.revoked_at is not None or grant.resource != resource:
        return None
    if grant.last_used_at is None or now - grant.last_used_at >= LAST_USED_RESOLUTION:
        grant.last_used_at = now
        _touch_client(db, grant.client_id, now)
        db.commit()
    return Authority(
        user_id=grant.user_id,
        token_id=grant.id,
        name=found.name,
        scope=grant.scope,
        workspace_id=grant.workspace_id,
        folder=grant.folder,
    )


def list_grants(db: Session, *, user_id: int) -> list[tuple[OAuthGrant, str]]:
    """The user's live grants with their client's name, newest first."""
    rows = db.execute(
        select(OAuthGrant, OAuthClient.name)
        .join(OAuthClient, OAuthClient.id == OAuthGrant.client_id)
        .where(OAuthGrant.user_id == user_id, OAuthGrant.revoked_at.is_(None))
        .order_by(OAuthGrant.created_at.desc(), OAuthGrant.id)
    )
    return [(grant, name) for grant, name in rows]
