"""Invitation links (SPEC §17): owners make and revoke them; anyone holding one may join."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from sqlalchemy.exc import IntegrityError

from backend.api.deps import (
    NOT_SIGNED_IN,
    CurrentUser,
    OptionalUser,
    OwnerWorkspace,
    PasswordsDep,
    SessionDep,
    SettingsDep,
)
from backend.api.routes.session import set_session_cookie
from backend.db import utcnow
from backend.errors import Conflict, NotFound, Unauthorized, error_responses
from backend.limits.throttle import Throttle, client_address
from backend.services import invitations as invitations_service
from backend.services import sessions as sessions_service
from backend.services import users as users_service
from backend.services.workspaces import audit

router = APIRouter(prefix="/api", tags=["invitations"])

# Where the page reads the secret: in the fragment, which no browser sends to a server (so no
# access log or Referer header ever holds it).
URL_FRAGMENT = "#invite="

Role = Literal["owner", "editor", "reader"]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)


class InvitationIn(_Camel):
    role: Role = "editor"
    # Strict: JSON's true is not 1 (nor "7" a number of days).
    expires_in_days: int = Field(default=7, strict=True, ge=1, le=7)
    max_uses: int = Field(default=1, strict=True, ge=1, le=100)


class InvitationCreatedOut(_Camel):
    id: str
    url: str = Field(description="The link to hand over; its secret is shown only this once.")
    expires_at: datetime


class InvitationOut(_Camel):
    id: str
    role: str
    expires_at: datetime
    max_uses: int
    uses: int
    invited_by: str | None = Field(description="The owner who made it (null: account deleted).")
    created_at: datetime


class InvitationsOut(_Camel):
    invitations: list[InvitationOut]


class InvitationInfoOut(_Camel):
    workspace: str = Field(description="The workspace's name.")
    workspace_id: str
    role: str
    invited_by: str | None
    expires_at: datetime


class AcceptIn(BaseModel):
    username: str = Field(max_length=1000)
    password: str = Field(max_length=1024)


class AcceptedOut(_Camel):
    workspace_id: str
    role: str


@router.post(
    "/workspaces/{ws}/invitations",
    status_code=201,
    response_model=InvitationCreatedOut,
    summary="Create an invitation link",
    description="Owners only. The URL holds a secret shown only in this answer; the server "
    "keeps its SHA-256.",
    responses=error_responses(401, 403, 422),
)
def create_invitation(
    ws: OwnerWorkspace,
    request: Request,
    user: CurrentUser,
    db: SessionDep,
    body: InvitationIn | None = None,
) -> InvitationCreatedOut:
    body = body or InvitationIn()
    invitation, secret = invitations_service.create(
        db,
        workspace_id=ws,
        role=body.role,
        expires_in_days=body.expires_in_days,
        max_uses=body.max_uses,
        created_by=user.id,
        now=utcnow(),
    )
    origin = str(request.base_url).rstrip("/")
    return InvitationCreatedOut(
        id=invitation.id, url=f"{origin}/{URL_FRAGMENT}{secret}", expires_at=invitation.expires_at
    )


@router.get(
    "/workspaces/{ws}/invitations",
    response_model=InvitationsOut,
    summary="List a workspace's invitation links",
    description="Owners only. Only links that still work (not revoked, expired or used up), "
    "newest first; never their secret.",
    responses=error_responses(401, 403),
)
def list_invitations(ws: OwnerWorkspace, db: SessionDep) -> InvitationsOut:
    rows = invitations_service.list_live(db, workspace_id=ws, now=utcnow())
    return InvitationsOut(
        invitations=[
            InvitationOut(
                id=row.invitation.id,
                role=row.invitation.role,
                expires_at=row.invitation.expires_at,
                max_uses=row.invitation.max_uses,
                uses=row.invitation.uses,
                invited_by=row.invited_by,
                created_at=row.invitation.created_at,
            )
            for row in rows
        ]
    )


@router.delete(
    "/workspaces/{ws}/invitations/{invitation_id}",
    status_code=204,
    response_class=Response,
    summary="Revoke an invitation link",
    description="Owners only. The link stops working at once.",
    responses=error_responses(401, 403, 404),
)
def revoke_invitation(
    ws: OwnerWorkspace, invitation_id: str, user: CurrentUser, db: SessionDep
) -> Response:
    invitations_service.revoke(
        db, workspace_id=ws, invitation_id=invitation_id, actor=user.id, now=utcnow()
    )
    return Response(status_code=204)


def _counted(request: Request, address: str, error: NotFound) -> NotFound:
    """A link that did not work counts against the client address (then 404)."""
    throttle: Throttle = request.app.state.throttle
    throttle.invitation_failed(address)
    return error


@router.get(
    "/invitations/{secret}",
    response_model=InvitationInfoOut,
    summary="What an invitation link offers",
    description="No sign-in needed. One 404 message for a link that is unknown, used up, "
    "revoked or expired. After 20 such links from one client address within a minute, "
    "further tries get 429 with Retry-After.",
    responses=error_responses(404, 429),
)
def read_invitation(secret: str, request: Request, db: SessionDep) -> InvitationInfoOut:
    address = client_address(request)
    request.app.state.throttle.check_invitation(address)
    try:
        found = invitations_service.find(db, secret=secret, now=utcnow())
    except NotFound as error:
        raise _counted(request, address, error) from None
    return InvitationInfoOut(
        workspace=found.workspace_name,
        workspace_id=found.invitation.workspace_id,
        role=found.invitation.role,
        invited_by=found.invited_by,
        expires_at=found.invitation.expires_at,
    )


@router.post(
    "/invitations/{secret}/accept",
    response_model=AcceptedOut,
    summary="Accept an invitation",
    description="Signed in: adds the membership (a member keeps the higher of the two roles) "
    "and answers 200. Signed out, with a username and password: creates that account, signs "
    "it in (the session cookie) and adds the membership: 201. Link failures count as for "
    "reading a link (429 with Retry-After).",
    status_code=200,
    responses={
        201: {"model": AcceptedOut, "description": "A new account, signed in and a member"},
        **error_responses(401, 404, 409, 422, 429),
    },
)
def accept_invitation(
    secret: str,
    request: Request,
    response: Response,
    user: OptionalUser,
    db: SessionDep,
    settings: SettingsDep,
    passwords: PasswordsDep,
    body: AcceptIn | None = None,
) -> AcceptedOut:
    throttle: Throttle = request.app.state.throttle
    address = client_address(request)
    throttle.check_invitation(address)
    now = utcnow()
    if user is not None:
        try:
            workspace_id, role = invitations_service.use(
                db, secret=secret, user_id=user.id, now=now
            )
            db.commit()
        except NotFound as error:
            raise _counted(request, address, error) from None
        except IntegrityError:  # another link made this user a member a moment ago
            db.rollback()
            raise Conflict("You joined this workspace a moment ago. Reload the page.") from None
        audit(
            "invitation.accept",
            actor=user.id,
            workspace=workspace_id,
            target=user.username,
            role=role,
        )
        return AcceptedOut(workspace_id=workspace_id, role=role)
    if body is None:
        raise Unauthorized(NOT_SIGNED_IN)
    # A link that does not work creates nothing: look first, before the password's hash.
    try:
        invitations_service.find(db, secret=secret, now=now)
    except NotFound as error:
        raise _counted(request, address, error) from None
    finally:
        db.rollback()
    users_service.check_new_account(body.username, body.password)
    if users_service.get_by_username(db, username=body.username) is not None:
        raise Conflict(invitations_service.USERNAME_TAKEN)  # before the hash's cost
    db.rollback()
    with throttle.password_slots:  # argon2's memory, one hash at a time (as for sign-ins)
        password_hash = passwords.hash(body.password)
    try:
        account, workspace_id, role = invitations_service.join_with_new_account(
            db, secret=secret, username=body.username, password_hash=password_hash, now=now
        )
    except NotFound as error:  # used up by someone else meanwhile: no account either
        raise _counted(request, address, error) from None
    ttl = timedelta(hours=settings.session_ttl_hours)
    token = sessions_service.create_session(
        db,
        user_id=account.id,
        ttl=ttl,
        now=utcnow(),
        secret=settings.secret_key,
        user_agent=request.headers.get("user-agent"),
    )
    set_session_cookie(response, request, settings, token)
    request.state.user_id = account.id
    response.status_code = 201
    audit(
        "invitation.accept",
        actor=account.id,
        workspace=workspace_id,
        target=body.username,
        role=role,
    )
    return AcceptedOut(workspace_id=workspace_id, role=role)
