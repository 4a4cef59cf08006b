"""The sharing switch and published active-note pointers (SPEC §10)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from ambient import pointer as codec
from backend.api.deps import CurrentUser, SessionDep
from backend.db import utcnow
from backend.errors import BadRequest, error_responses
from backend.services import active_note as active_note_service
from backend.services import workspaces as workspaces_service

router = APIRouter(prefix="/api/active-note", tags=["active-note"])


class SharingIO(BaseModel):
    enabled: bool = Field(strict=True)  # true or false only: "yes" and 1 are 422


class PublicationIn(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)

    window_id: Annotated[str, Field(min_length=1, max_length=64)]
    workspace_id: Annotated[str, Field(min_length=1, max_length=64)]
    pointer: dict[str, Any] | None = Field(
        description="The pointer object of the X-Ambient-Note header (never note text), "
        "or null when the window names no note or closes."
    )


@router.get(
    "/sharing",
    response_model=SharingIO,
    summary="Whether the active note is shared with your own agents (off by default)",
    responses=error_responses(401),
)
def get_sharing(user: CurrentUser, db: SessionDep) -> SharingIO:
    return SharingIO(enabled=active_note_service.is_enabled(db, user_id=user.id))


@router.put(
    "/sharing",
    response_model=SharingIO,
    summary="Switch sharing on or off; off forgets the published pointer at once",
    responses=error_responses(401, 422),
)
def put_sharing(body: SharingIO, user: CurrentUser, db: SessionDep) -> SharingIO:
    active_note_service.set_enabled(db, user_id=user.id, enabled=body.enabled, now=utcnow())
    return SharingIO(enabled=body.enabled)


@router.put(
    "",
    status_code=204,
    response_class=Response,
    summary="Publish what this window names as the active note (or null)",
    responses=error_responses(400, 401, 403, 409, 422),
)
def publish(body: PublicationIn, user: CurrentUser, db: SessionDep) -> Response:
    if not active_note_service.valid_window_id(body.window_id):
        raise BadRequest("The window id is not valid.")
    pointer = None
    if body.pointer is not None:
        pointer = _checked_pointer(body.pointer)
        workspaces_service.require_member(db, user_id=user.id, workspace_id=body.workspace_id)
    active_note_service.publish(
        db,
        user_id=user.id,
        window_id=body.window_id,
        workspace_id=body.workspace_id,
        pointer=pointer,
        now=utcnow(),
    )
    return Response(status_code=204)


def _checked_pointer(obj: dict[str, Any]) -> codec.Pointer:
    """The header codec's own rules, including its size limit; the reason names no value."""
    try:
        pointer = codec.from_columns(obj.get("path"), obj.get("view"), json.dumps(obj))
        fits = codec.encode(pointer) is not None
    except codec.PointerError as exc:
        raise BadRequest(f"The pointer is not valid: {exc}.") from None
    if not fits:
        raise BadRequest(
            f"The pointer is not valid: longer than {codec.MAX_HEADER_BYTES} bytes once encoded."
        )
    return pointer
