"""Folders (SPEC §18): moving (renaming) a folder moves its notes, the links following."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from backend.api.deps import CurrentUser, EditorWorkspace, SessionDep, SettingsDep
from backend.errors import error_responses
from backend.services import folders as folders_service
from backend.services import link_updates
from backend.services.source import Source

router = APIRouter(prefix="/api/workspaces/{ws}/folders", tags=["folders"])


class FolderMoveIn(BaseModel):
    model_config = ConfigDict(validate_by_name=True, extra="forbid")

    from_: str = Field(
        alias="from", description="The folder, e.g. `projects/2026`.", max_length=8192
    )
    to: str = Field(description='Its new path (`""`: the top).', max_length=8192)
    update_links: StrictBool = Field(
        True,
        alias="updateLinks",
        description="Rewrite the links to the moved notes (and theirs) so they still lead "
        "where they did.",
    )


class MovedNote(BaseModel):
    model_config = ConfigDict(validate_by_name=True)

    from_: str = Field(alias="from")
    to: str


class FolderMoved(BaseModel):
    model_config = ConfigDict(validate_by_name=True)

    moved: list[MovedNote]
    links_updated: list[str] = Field(alias="linksUpdated")


@router.post(
    "/move",
    response_model=FolderMoved,
    response_model_by_alias=True,
    summary="Move (rename) a folder: every note under it, links following",
    description="400 for a folder moved into itself; 404 when no note is in the folder; 409 "
    "and nothing moved when a note already exists where one would go.",
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
def move_folder(
    ws: EditorWorkspace,
    user: CurrentUser,
    body: FolderMoveIn,
    db: SessionDep,
    settings: SettingsDep,
) -> FolderMoved:
    moved = folders_service.move_folder(
        db, workspace_id=ws, folder=body.from_, to=body.to, source=Source.page(user.id)
    )
    updated: list[str] = []
    if body.update_links and moved:
        updated = link_updates.update_links(
            db,
            workspace_id=ws,
            moves=moved,
            source=Source.page(user.id),
            max_bytes=settings.max_note_bytes,
        )
    return FolderMoved(
        moved=[MovedNote(from_=old, to=new) for old, new in moved.items()],
        links_updated=updated,
    )
