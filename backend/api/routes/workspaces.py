"""Workspaces and their members (SPEC §6, §17): list, create, rename, delete; roles."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from backend.api.deps import CurrentUser, MemberWorkspace, OwnerWorkspace, SessionDep
from backend.errors import Forbidden, error_responses
from backend.services import members as members_service
from backend.services import workspaces as workspaces_service
from backend.services.workspaces import OWNER

router = APIRouter(prefix="/api/workspaces", tags=["workspaces"])


class WorkspaceOut(BaseModel):
    id: str
    name: str
    role: str = Field(description="The signed-in user's role here: owner, editor or reader.")


@router.get(
    "",
    response_model=list[WorkspaceOut],
    summary="List my workspaces",
    responses=error_responses(401),
)
def list_workspaces(user: CurrentUser, db: SessionDep) -> list[WorkspaceOut]:
    return [
        WorkspaceOut(id=w.id, name=w.name, role=role)
        for w, role in workspaces_service.list_for_user(db, user_id=user.id)
    ]


class NewWorkspace(BaseModel):
    name: str = Field(
        max_length=1000, description="1 to 200 characters once trimmed; the id is made from it."
    )


class ConfirmDelete(BaseModel):
    confirm: str = Field(max_length=1000, description="The workspace's current name, exactly.")


@router.post(
    "",
    status_code=201,
    response_model=WorkspaceOut,
    summary="Create a workspace",
    description="Any signed-in user may create one and becomes its owner. The id is a slug "
    "of the name (lowercase a-z, 0-9 and '-'), made unique with -2, -3...",
    responses=error_responses(401, 409, 422),
)
def create_workspace(body: NewWorkspace, user: CurrentUser, db: SessionDep) -> WorkspaceOut:
    name = workspaces_service.clean_name(body.name)
    workspace = workspaces_service.create_owned(db, name=name, owner_id=user.id)
    return WorkspaceOut(id=workspace.id, name=workspace.name, role=workspaces_service.OWNER)


@router.patch(
    "/{ws}",
    response_model=WorkspaceOut,
    summary="Rename a workspace",
    description="Owners only. The id stays.",
    responses=error_responses(401, 403, 422),
)
def rename_workspace(
    ws: OwnerWorkspace, body: NewWorkspace, user: CurrentUser, db: SessionDep
) -> WorkspaceOut:
    name = workspaces_service.clean_name(body.name)
    workspace = workspaces_service.rename(db, workspace_id=ws, name=name, actor=user.id)
    return WorkspaceOut(id=workspace.id, name=workspace.name, role=workspaces_service.OWNER)


@router.delete(
    "/{ws}",
    status_code=204,
    response_class=Response,
    summary="Delete a workspace",
    description="Owners only, with the workspace's current name as `confirm`. Its notes, "
    "history, members, invitations, key sessions and conversations go with it, as do tokens "
    "restricted to it; every open event stream of it gets `reset` and ends.",
    responses=error_responses(401, 403, 422),
)
def delete_workspace(
    ws: OwnerWorkspace, body: ConfirmDelete, user: CurrentUser, db: SessionDep
) -> Response:
    workspaces_service.delete_workspace(db, workspace_id=ws, confirm=body.confirm, actor=user.id)
    return Response(status_code=204)


class MemberOut(BaseModel):
    username: str
    role: str = Field(description="owner, editor or reader.")


class MembersOut(BaseModel):
    members: list[MemberOut]


class RoleIn(BaseModel):
    role: Literal["owner", "editor", "reader"]


@router.get(
    "/{ws}/members",
    response_model=MembersOut,
    summary="List a workspace's members",
    description="Any member. By username.",
    responses=error_responses(401, 403),
)
def list_members(ws: MemberWorkspace, db: SessionDep) -> MembersOut:
    rows = members_service.list_members(db, workspace_id=ws)
    db.rollback()  # end the read: the session then holds no connection while answering
    return MembersOut(members=[MemberOut(username=u, role=r) for u, r in rows])


@router.patch(
    "/{ws}/members/{username}",
    response_model=MemberOut,
    summary="Change a member's role",
    description="Owners only. The last owner cannot be demoted (409). The member's key "
    "sessions and event streams of the workspace end at once.",
    responses=error_responses(401, 403, 404, 409, 422),
)
def change_role(
    ws: OwnerWorkspace, username: str, body: RoleIn, user: CurrentUser, db: SessionDep
) -> MemberOut:
    role = members_service.set_role(
        db, workspace_id=ws, username=username, role=body.role, actor=user.id
    )
    return MemberOut(username=username, role=role)


@router.delete(
    "/{ws}/members/{username}",
    status_code=204,
    response_class=Response,
    summary="Remove a member",
    description="Owners may remove anyone; any member may remove themselves. The last owner "
    "cannot be removed (409). The member's key sessions and event streams of the workspace "
    "end at once, and their tokens stop reaching it.",
    responses=error_responses(401, 403, 404, 409),
)
def remove_member(
    ws: MemberWorkspace, username: str, request: Request, user: CurrentUser, db: SessionDep
) -> Response:
    role = request.state.role
    if username != user.username and not workspaces_service.allows(role, OWNER):
        raise Forbidden(workspaces_service.refusal(role, OWNER))
    members_service.remove(db, workspace_id=ws, username=username, actor=user.id)
    return Response(status_code=204)
