"""Key sessions: open one per workspace so the agent may read it on the user's behalf."""

from __future__ import annotations

from datetime import datetime, timedelta

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from backend.api.deps import CurrentUser, MemberWorkspace, SessionDep, SettingsDep
from backend.db import utcnow
from backend.errors import error_responses
from backend.services import key_sessions as key_sessions_service

router = APIRouter(prefix="/api/workspaces/{ws}/key-sessions", tags=["key sessions"])


class KeySessionOut(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)

    id: str
    expires_at: datetime


@router.post(
    "",
    status_code=201,
    response_model=KeySessionOut,
    summary="Open a key session for this workspace",
    responses=error_responses(401, 403),
)
def open_key_session(
    ws: MemberWorkspace,
    user: CurrentUser,
    db: SessionDep,
    settings: SettingsDep,
    request: Request,
) -> KeySessionOut:
    key = key_sessions_service.create_key_session(
        db,
        user_id=user.id,
        workspace_id=ws,
        ttl=timedelta(minutes=settings.key_session_ttl_minutes),
        now=utcnow(),
        user_session_id=getattr(request.state, "user_session_id", None),  # revoked at sign-out
    )
    return KeySessionOut(id=key.id, expires_at=key.expires_at)
