"""The signed-in user's workspaces."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from backend.api.deps import CurrentUser, SessionDep
from backend.errors import error_responses
from backend.services import workspaces as workspaces_service

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
