"""Documents API (SPEC §6, §15): list, raw get with ETag, conditional put, delete, move and
the history (list, read and restore revisions)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header, Response
from fastapi import Path as FastPath
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from pydantic.alias_generators import to_camel
from pydantic_core import to_json
from sqlalchemy.orm import Session
from starlette.convertors import Convertor, register_url_convertor

from ambient.contract import APPLIED_PROPOSAL_HEADER, CONFLICT_RESOLUTION_HEADER, KEEP_MINE
from backend.api.deps import (
    MAX_REVISION,
    CurrentUser,
    EditorWorkspace,
    MemberWorkspace,
    NoteBody,
    NotePath,
    SessionDep,
    SettingsDep,
    is_create_only,
    parse_if_match,
)
from backend.errors import error_responses
from backend.services import documents as documents_service
from backend.services import history as history_service
from backend.services import link_updates
from backend.services import proposals as proposals_service
from backend.services.source import Source


class NotePathConvertor(Convertor[str]):
    """Like Starlette's `path`, but also matches newlines, so `%0A` reaches the path check.

    (With `.*` a control character in the URL would fall through to a 404 instead of the
    clear 400 that ambient.paths gives.)
    """

    regex = "(?s:.*)"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("notepath", NotePathConvertor())

router = APIRouter(prefix="/api/workspaces/{ws}/documents", tags=["documents"])

MARKDOWN = "text/markdown; charset=utf-8"
IfMatch = Annotated[
    str | None, Header(description='Save/delete only this revision, e.g. "3" (409 if stale).')
]
IfNoneMatch = Annotated[
    str | None, Header(description="`*`: create only (412 if the note exists).")
]
ConflictResolution = Annotated[
    str | None,
    Header(
        alias=CONFLICT_RESOLUTION_HEADER,
        json_schema_extra={"enum": [KEEP_MINE]},
        description=(
            f"`{KEEP_MINE}`: this save resolves a conflict with the screen's text; the text it "
            "replaces is kept as its own revision (never coalesced). Any other value: 422."
        ),
    ),
]

AppliedProposal = Annotated[
    str | None,
    Header(
        alias=APPLIED_PROPOSAL_HEADER,
        max_length=36,
        pattern=r"^[0-9a-f-]{1,36}$",
        description=(
            "The id of the proposal the page applied in its live editor, on the one save that "
            "carries the applied edit: that revision is the assistant's (or the agent's). "
            "A proposal that is not this user's, not applied in the editor of this note, or "
            "already carried leaves the save the user's own."
        ),
    ),
]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)


class DocumentInfo(_Camel):
    path: str
    bytes: int
    revision: int
    updated_at: datetime


class SavedDocument(_Camel):
    path: str
    revision: int
    bytes: int


class MoveIn(BaseModel):
    model_config = ConfigDict(validate_by_name=True)

    to: str = Field(description="The new workspace-relative path.", max_length=8192)
    update_links: StrictBool = Field(
        True,
        alias="updateLinks",
        description="Rewrite the links to the note in the workspace's other notes (and the "
        "note's own relative links) so they lead to its new path (SPEC §18).",
    )


class MovedDocument(SavedDocument):
    links_updated: list[str] = Field(
        description="The notes saved again with their links rewritten (each its own "
        "revision, action `links`, announced by its `saved` event); empty when `updateLinks` "
        "was false. The moved note is among them when its own relative links changed: "
        "`revision` is then the move's, and the rewrite is the next one."
    )


_ETAG_HEADER = {
    "ETag": {"description": 'The revision in quotes, e.g. "3".', "schema": {"type": "string"}}
}


def _etag(revision: int) -> dict[str, str]:
    return {"ETag": f'"{revision}"'}


_TEXT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The note's raw text, UTF-8, at most 1 MiB by default (max_note_bytes).",
        "content": {"text/markdown": {"schema": {"type": "string"}}},
    }
}


@router.get(
    "",
    response_model=list[DocumentInfo],
    summary="List the workspace's notes",
    responses=error_responses(401, 403),
)
def list_documents(ws: MemberWorkspace, db: SessionDep) -> list[DocumentInfo]:
    return [
        DocumentInfo(path=d.path, bytes=d.bytes, revision=d.revision, updated_at=d.updated_at)
        for d in documents_service.list_documents(db, workspace_id=ws)
    ]


# Registered before the `{path}` routes; only POST goes here, so a note named "…/move"
# can still be read and written.
@router.post(
    "/{path:notepath}/move",
    response_model=MovedDocument,
    summary="Rename (move) a note; links to it follow unless updateLinks is false",
    responses=error_responses(400, 401, 403, 404, 409, 422),
)
def move_document(
    ws: EditorWorkspace,
    user: CurrentUser,
    path: NotePath,
    body: MoveIn,
    db: SessionDep,
    settings: SettingsDep,
    if_match: IfMatch = None,
) -> MovedDocument:
    doc = documents_service.move_document(
        db,
        workspace_id=ws,
        path=path,
        to=body.to,
        source=Source.page(user.id),
        if_match=parse_if_match(if_match),
    )
    moved = MovedDocument(path=doc.path, revision=doc.revision, bytes=doc.bytes, links_updated=[])
    if body.update_links:
        moved.links_updated = link_updates.update_links(
            db,
            workspace_id=ws,
            moves={documents_service.valid_path(path): doc.path},
            source=Source.page(user.id),
            max_bytes=settings.max_note_bytes,
        )
    return moved


class RevisionSource(BaseModel):
    kind: str = Field(description="page, assistant, agent or import.")
    name: str | None = Field(
        description="The token's name for an agent, the zip's file name for an import; null "
        "otherwise."
    )


class RevisionInfo(_Camel):
    revision: int = Field(description="The note's revision number (its ETag) for this text.")
    saved_at: datetime
    bytes: int
    sha256: str = Field(description="First 16 hex characters of SHA-256 of the text.")
    source: RevisionSource
    user: str | None = Field(description="Username of the member it was made by or for.")
    by_you: bool = Field(description="Whether that member is the signed-in user.")
    action: str = Field(description="edit, create, restore, move or delete.")
    path: str = Field(description="The note's path at that revision.")
    current: bool = Field(description="Whether this is the note's current text.")


class RevisionList(BaseModel):
    revisions: list[RevisionInfo]


_HISTORY_NOTE = (
    " When `path` names neither a note nor a deleted note's kept history, the GET routes "
    "below answer as `GET …/documents/{path}/revisions[/{n}]` would for a note of that name."
)


def _note_response(db: Session, ws: str, path: str) -> Response:
    """A note's raw text with its ETag; the read ends here (see `_read_done`)."""
    doc = documents_service.get_document(db, workspace_id=ws, path=path)
    return _read_done(
        db,
        Response(
            doc.content,
            media_type=MARKDOWN,
            headers={**_etag(doc.revision), "Cache-Control": "no-store"},
        ),
    )


def _read_done(db: Session, response: Response) -> Response:
    """End a read-only route's transaction in the route's own worker thread, once `response`
    holds everything read: the session then closes on the event loop (deps.get_db), one
    thread round trip fewer per request."""
    db.rollback()
    return response


@router.get(
    "/{path:notepath}/revisions",
    response_model=RevisionList,
    summary="A note's history, newest first (the current text first)",
    description="Kept revisions of the note at `path`, or of the note last deleted there "
    "(kept 30 days)." + _HISTORY_NOTE,
    responses={
        200: {
            "description": "The history (JSON), or a note's raw text (see above).",
            "content": {"text/markdown": {"schema": {"type": "string"}}},
        },
        **error_responses(400, 401, 403, 404),
    },
)
def list_revisions(ws: MemberWorkspace, user: CurrentUser, path: NotePath, db: SessionDep):
    try:
        current, kept = history_service.history_of(db, workspace_id=ws, path=path)
    except history_service.NoHistory:
        return _note_response(db, ws, f"{path}/revisions")
    # The body is RevisionList's own JSON (so `response_model` above describes it), made by
    # pydantic once per kept revision and process: see _rendered.
    items = [] if current is None else [_revision_json(current, user.id)]
    items += [
        f"{head}{'true' if uid == user.id else 'false'}{tail}"
        for head, uid, tail in _rendered(kept)
    ]
    body = f'{{"revisions":[{",".join(items)}]}}'
    return _read_done(db, Response(body, media_type="application/json"))


def _revision_json(e: history_service.Entry, user_id: int | None) -> str:
    """RevisionInfo's JSON for `e` (by alias), written by pydantic-core's serializer from a
    plain dict: validating a model per revision cost more than the rest of a listing. The
    values are the service's own, already of the model's types (tests check the body against
    RevisionList)."""
    return to_json(
        {
            "revision": e.revision,
            "savedAt": e.saved_at,
            "bytes": e.bytes,
            "sha256": e.sha256,
            "source": {"kind": e.kind, "name": e.name},
            "user": e.username,
            "byYou": e.user_id is not None and e.user_id == user_id,
            "action": e.action,
            "path": e.path,
            "current": e.current,
        }
    ).decode("utf-8")


_BY_NOBODY = '"byYou":false'
_rendered_lock = threading.Lock()
_rendered_lists: OrderedDict[int, tuple[tuple[Any, ...], list[tuple[str, int | None, str]]]] = (
    OrderedDict()
)


def _rendered(kept: tuple[history_service.Entry, ...]) -> list[tuple[str, int | None, str]]:
    """Each kept revision's JSON split around its `byYou` value: (before, author id, after).

    A kept revision never changes, and the history service hands out the same tuple for as
    long as a note's kept rows stay the same, so the JSON is made once per tuple instead of
    once per listing; only `byYou` depends on who asks.
    """
    with _rendered_lock:
        found = _rendered_lists.get(id(kept))
        if found is not None and found[0] is kept:
            _rendered_lists.move_to_end(id(kept))
            return found[1]
    parts = []
    for e in kept:
        head, tail = _revision_json(e, None).split(_BY_NOBODY, 1)  # the key is never in a value
        parts.append((f'{head}"byYou":', e.user_id, tail))
    with _rendered_lock:
        _rendered_lists[id(kept)] = (kept, parts)  # holding `kept` keeps its id unique
        while len(_rendered_lists) > 128:
            _rendered_lists.popitem(last=False)
    return parts


@router.get(
    "/{path:notepath}/revisions/{n:int}",
    response_class=Response,
    summary="The raw text of one revision of a note",
    responses={
        200: {"content": {"text/markdown": {"schema": {"type": "string"}}}},
        **error_responses(400, 401, 403, 404),
    },
)
def get_revision(
    ws: MemberWorkspace, path: NotePath, n: Annotated[int, FastPath(ge=0)], db: SessionDep
) -> Response:
    try:
        text = history_service.revision_text(
            db, workspace_id=ws, path=path, revision=min(n, MAX_REVISION)
        )
    except history_service.NoHistory:
        return _note_response(db, ws, f"{path}/revisions/{n}")
    return _read_done(
        db, Response(text, media_type=MARKDOWN, headers={"Cache-Control": "no-store"})
    )


@router.post(
    "/{path:notepath}/revisions/{n}/restore",
    response_model=SavedDocument,
    summary="Save a revision's text as a new revision (If-Match: the current revision)",
    description="409 and nothing changed when If-Match is not the current revision. A note "
    "deleted within 30 days comes back at its path, with its history.",
    responses={
        200: {"description": "Restored", "headers": _ETAG_HEADER},
        **error_responses(400, 401, 403, 404, 409, 413, 422),
    },
)
def restore_revision(
    ws: EditorWorkspace,
    user: CurrentUser,
    path: NotePath,
    n: Annotated[str, FastPath(pattern=r"^[0-9]{1,20}$", description="A revision number.")],
    db: SessionDep,
    settings: SettingsDep,
    response: Response,
    if_match: IfMatch = None,
) -> SavedDocument:
    doc = history_service.restore(
        db,
        workspace_id=ws,
        path=path,
        revision=min(int(n), MAX_REVISION),  # a larger one cannot exist: 404, not a DB error
        user_id=user.id,
        max_bytes=settings.max_note_bytes,
        if_match=parse_if_match(if_match),
    )
    response.headers.update(_etag(doc.revision))
    return SavedDocument(path=doc.path, revision=doc.revision, bytes=doc.bytes)


@router.get(
    "/{path:notepath}",
    response_class=Response,
    summary="Read a note's raw text",
    responses={
        200: {
            "description": 'The raw text; `ETag: "<revision>"`.',
            "content": {"text/markdown": {"schema": {"type": "string"}}},
            "headers": _ETAG_HEADER,
        },
        **error_responses(400, 401, 403, 404),
    },
)
def get_document(ws: MemberWorkspace, path: NotePath, db: SessionDep) -> Response:
    return _note_response(db, ws, path)


def _resolves_conflict(value: str | None) -> bool:
    """Whether the PUT resolves a conflict ("keep-mine"); any other value is a 422."""
    if value is None:
        return False
    if value != KEEP_MINE:
        raise RequestValidationError(
            [
                {
                    "type": "literal_error",
                    "loc": ("header", CONFLICT_RESOLUTION_HEADER),
                    "msg": f"Input should be '{KEEP_MINE}'",
                    "ctx": {"expected": f"'{KEEP_MINE}'"},
                }
            ]
        )
    return True


@router.put(
    "/{path:notepath}",
    response_model=SavedDocument,
    summary="Create or save a note (If-Match / If-None-Match)",
    openapi_extra=_TEXT_BODY,
    responses={
        200: {"description": "Saved", "headers": _ETAG_HEADER},
        201: {"model": SavedDocument, "description": "Created", "headers": _ETAG_HEADER},
        **error_responses(400, 401, 403, 409, 412, 413, 422),
    },
)
def put_document(
    ws: EditorWorkspace,
    user: CurrentUser,
    path: NotePath,
    text: NoteBody,
    db: SessionDep,
    settings: SettingsDep,
    response: Response,
    if_match: IfMatch = None,
    if_none_match: IfNoneMatch = None,
    conflict_resolution: ConflictResolution = None,
    applied_proposal: AppliedProposal = None,
) -> SavedDocument:
    keep_replaced = _resolves_conflict(conflict_resolution)
    source, then = Source.page(user.id), None
    if applied_proposal is not None:
        carried = proposals_service.carried_by_save(
            db, proposal_id=applied_proposal, user_id=user.id, workspace_id=ws, path=path
        )
        if carried is not None:
            source = proposals_service.source_of(carried)
            then = proposals_service.record_carried(carried.id)
    doc, created = documents_service.save_document(
        db,
        workspace_id=ws,
        path=path,
        content=text,
        max_bytes=settings.max_note_bytes,
        source=source,
        if_match=parse_if_match(if_match),
        create_only=is_create_only(if_none_match),
        keep_replaced=keep_replaced,
        then=then,
    )
    response.status_code = 201 if created else 200
    response.headers.update(_etag(doc.revision))
    return SavedDocument(path=doc.path, revision=doc.revision, bytes=doc.bytes)


@router.delete(
    "/{path:notepath}",
    status_code=204,
    response_class=Response,
    summary="Delete a note",
    responses=error_responses(400, 401, 403, 404, 409),
)
def delete_document(
    ws: EditorWorkspace, user: CurrentUser, path: NotePath, db: SessionDep, if_match: IfMatch = None
) -> Response:
    documents_service.delete_document(
        db,
        workspace_id=ws,
        path=path,
        source=Source.page(user.id),
        if_match=parse_if_match(if_match),
    )
    return Response(status_code=204)
