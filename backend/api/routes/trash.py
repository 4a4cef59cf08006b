"""The trash (SPEC §18): notes deleted in the last 30 days, listed and restored."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from backend.api.deps import (
    CurrentUser,
    EditorWorkspace,
    MemberWorkspace,
    SessionDep,
    SettingsDep,
)
from backend.errors import error_responses
from backend.services import trash as trash_service

router = APIRouter(prefix="/api/workspaces/{ws}/trash", tags=["trash"])


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, extra="forbid")


class TrashedNote(_Camel):
    path: str = Field(description="The note's path when it was deleted.")
    deleted_at: datetime
    bytes: int = Field(description="The size of its last text, in UTF-8 bytes.")
    id: str = Field(
        description="Names this deleted note when several were deleted at one path "
        "(`POST …/trash/restore` takes it)."
    )


class TrashList(BaseModel):
    notes: list[TrashedNote]


class RestoreIn(_Camel):
    path: str = Field(description="The deleted note's path, as listed.", max_length=8192)
    to: str | None = Field(
        None, description="Where to bring it back (default: `path`).", max_length=8192
    )
    id: str | None = Field(
        None,
        description="Which of the notes deleted at `path` (default: the last deleted).",
        max_length=64,
    )


class RestoredNote(_Camel):
    path: str
    revision: int
    bytes: int


@router.get(
    "",
    response_model=TrashList,
    summary="The notes deleted in the last 30 days, the newest delete first",
    responses=error_responses(401, 403),
)
def list_trash(ws: MemberWorkspace, db: SessionDep) -> TrashList:
    notes = [
        TrashedNote(path=e.path, deleted_at=e.deleted_at, bytes=e.bytes, id=e.uid)
        for e in trash_service.list_trash(db, workspace_id=ws)
    ]
    db.rollback()
    return TrashList(notes=notes)


@router.post(
    "/restore",
    response_model=RestoredNote,
    status_code=201,
    summary="Bring a deleted note back with its last text and its history",
    description="409 and nothing changed when a note exists at `to` (or at `path` when no "
    "`to` is given); 404 when the trash holds no note deleted at `path`.",
    responses=error_responses(400, 401, 403, 404, 409, 413, 422),
)
def restore(
    ws: EditorWorkspace,
    user: CurrentUser,
    body: RestoreIn,
    db: SessionDep,
    settings: SettingsDep,
    response: Response,
) -> RestoredNote:
    doc = trash_service.restore(
        db,
        workspace_id=ws,
        path=body.path,
        to=body.to,
        uid=body.id,
        user_id=user.id,
        max_bytes=settings.max_note_bytes,
    )
    response.headers["ETag"] = f'"{doc.revision}"'
    return RestoredNote(path=doc.path, revision=doc.revision, bytes=doc.bytes)
