"""Personal access tokens for the user's own agents (SPEC §10)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

from ambient.paths import PathError, normalize_folder
from backend.api.deps import CurrentUser, SessionDep
from backend.db import utcnow
from backend.errors import BadRequest, error_responses
from backend.services import tokens as tokens_service
from backend.services import workspaces

router = APIRouter(prefix="/api/tokens", tags=["tokens"])

TokenName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)


Scope = Literal["read", "propose", "write"]


class TokenIn(_Camel):
    name: TokenName
    # Strict: JSON's true is not 1 (nor "7" a number of days).
    expires_in_days: int = Field(strict=True, ge=1, le=tokens_service.MAX_EXPIRES_IN_DAYS)
    scope: Scope = Field(
        default="read",
        description="read: the four reading tools; propose: also propose_edit and "
        "get_proposal; write: also create_note and edit_note.",
    )
    workspace_id: str | None = Field(
        default=None, max_length=64, description="Reach only this workspace (null: all)."
    )
    folder: str | None = Field(
        default=None,
        max_length=4096,
        description="Reach only notes under this workspace-relative folder (null: all).",
    )


class _Reach(_Camel):
    scope: Scope
    workspace_id: str | None
    folder: str | None


class TokenCreatedOut(_Reach):
    id: str
    name: str
    token: str = Field(description="The token itself: shown only in this answer, never again.")
    expires_at: datetime


class TokenOut(_Reach):
    id: str
    kind: Literal["personal", "oauth"] = Field(
        default="personal",
        description="personal: a personal access token; oauth: an application's OAuth grant "
        "(its name is the application's; it lasts until revoked, so expiresAt is null).",
    )
    name: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None


@router.post(
    "",
    status_code=201,
    response_model=TokenCreatedOut,
    summary="Create a personal access token (shown once)",
    responses=error_responses(400, 401, 403, 422),
)
def create_token(body: TokenIn, user: CurrentUser, db: SessionDep) -> TokenCreatedOut:
    problem = tokens_service.name_problem(body.name)
    if problem is not None:
        raise HTTPException(status_code=422, detail=problem)
    folder = None
    if body.folder is not None:
        try:
            folder = normalize_folder(body.folder)
        except PathError as exc:
            raise BadRequest(f"That is not a valid folder: {exc}") from None
    if body.workspace_id is not None:
        workspaces.require_member(db, user_id=user.id, workspace_id=body.workspace_id)
    row, token = tokens_service.create_token(
        db,
        user_id=user.id,
        name=body.name,
        expires_in_days=body.expires_in_days,
        now=utcnow(),
        scope=body.scope,
        workspace_id=body.workspace_id,
        folder=folder,
    )
    return TokenCreatedOut(
        id=row.id,
        name=row.name,
        token=token,
        expires_at=row.expires_at,
        scope=row.scope,
        workspace_id=row.workspace_id,
        folder=row.folder,
    )


@router.get(
    "",
    response_model=list[TokenOut],
    summary="List your personal access tokens and OAuth grants (never the tokens themselves)",
    responses=error_responses(401),
)
def list_tokens(user: CurrentUser, db: SessionDep) -> list[TokenOut]:
    return [
        TokenOut(
            id=row.id,
            name=row.name,
            created_at=row.created_at,
            expires_at=row.expires_at,
            last_used_at=row.last_used_at,
            scope=row.scope,
            workspace_id=row.workspace_id,
            folder=row.folder,
        )
        for row in tokens_service.list_tokens(db, user_id=user.id)
    ] + [
        TokenOut(
            id=grant.id,
            kind="oauth",
            name=client_name,
            created_at=grant.created_at,
            expires_at=None,
            last_used_at=grant.last_used_at,
            scope=grant.scope,  # type: ignore[arg-type]  # one of SCOPES, set by the consent
            workspace_id=grant.workspace_id,
            folder=grant.folder,
        )
        for grant, client_name in tokens_service.list_grants(db, user_id=user.id)
    ]


@router.delete(
    "/{token_id}",
    status_code=204,
    response_class=Response,
    summary="Revoke a token (or an OAuth grant) at once",
    responses=error_responses(401, 404),
)
def revoke_token(token_id: str, user: CurrentUser, db: SessionDep) -> Response:
    tokens_service.revoke_token(db, user_id=user.id, token_id=token_id)
    return Response(status_code=204)
