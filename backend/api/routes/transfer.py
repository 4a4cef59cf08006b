"""Export a workspace as a zip and import a zip into one (SPEC §18, docs/import-export.md)."""

from __future__ import annotations

import functools
from typing import Annotated, Any
from urllib.parse import quote

import anyio.to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from python_multipart.multipart import Field as FormField
from python_multipart.multipart import File as FormFile
from python_multipart.multipart import create_form_parser

from ambient.paths import PathError, normalize_folder
from backend.api.deps import CurrentUser, EditorWorkspace, MemberWorkspace, SessionDep, SettingsDep
from backend.errors import BadPath, BadRequest, error_responses, file_upload_body
from backend.services import transfer
from backend.services.source import Source

router = APIRouter(prefix="/api/workspaces/{ws}", tags=["import and export"])

_IN_MEMORY = 1024 * 1024  # an upload larger than this is spooled to a file in the data dir
UPLOADS = "uploads"  # that folder, under the data dir


class RenamedOut(BaseModel):
    from_: str = Field(alias="from")
    to: str


class ImportOut(BaseModel):
    imported: list[str] = Field(description="Notes and attachments created at their path.")
    skipped: list[str] = Field(
        description="Paths already taken, left as they were (skip; or the same file there)."
    )
    replaced: list[str] = Field(
        description="Notes given the zip's text as a new revision; attachments replaced."
    )
    ignored: list[str] = Field(
        description="Entries not imported: dot files and folders, __MACOSX, other file types."
    )
    renamed: list[RenamedOut] = Field(
        description="Entries whose path was taken, imported at a free name (rename)."
    )


FolderQuery = Annotated[
    str | None,
    Query(description="Export only the notes in this folder (at their workspace paths)."),
]


def _disposition(filename: str) -> str:
    """`attachment` with an ASCII `filename` and, for other names, RFC 5987's `filename*`."""
    fallback = "".join(
        c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in filename
    )
    if fallback == filename:
        return f'attachment; filename="{filename}"'
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


@router.get(
    "/export",
    response_class=StreamingResponse,
    summary="Download the workspace's notes as a zip",
    responses={
        200: {
            "description": "A zip of every note and attachment at its path, bytes unchanged.",
            "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
        },
        **error_responses(400, 401, 403),
    },
)
def export_workspace(
    ws: MemberWorkspace, request: Request, db: SessionDep, folder: FolderQuery = None
) -> StreamingResponse:
    """Every note and attachment (or those in `folder`), streamed as the zip is written."""
    if folder is not None:
        try:
            folder = normalize_folder(folder)
        except PathError as exc:
            raise BadPath(str(exc)) from None
    listing = transfer.export_list(db, workspace_id=ws, folder=folder)
    return StreamingResponse(
        transfer.export_chunks(request.app.state.sessionmaker, workspace_id=ws, listing=listing),
        media_type="application/zip",
        headers={
            "Content-Disposition": _disposition(transfer.download_name(ws, folder)),
            "Cache-Control": "no-store",
        },
    )


_FORM = file_upload_body(
    {"description": "A .zip."},
    onConflict={
        "type": "string",
        "enum": list(transfer.ON_CONFLICT),
        "default": "skip",
        "description": "When a note already exists at an entry's path.",
    },
)


@router.post(
    "/import",
    response_model=ImportOut,
    summary="Import a zip of notes",
    responses=error_responses(400, 401, 403, 409, 413),
    openapi_extra=_FORM,
)
async def import_zip(
    ws: EditorWorkspace,
    user: CurrentUser,
    request: Request,
    db: SessionDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """`.md`/`.markdown` entries become notes byte for byte, images and PDFs attachments,
    all or nothing."""
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise BadRequest("Send the zip as multipart/form-data in a field named 'file'.")
    uploads = settings.data_dir / UPLOADS
    uploads.mkdir(parents=True, exist_ok=True)
    files: list[FormFile] = []
    fields: dict[str, bytes] = {}

    def on_field(form_field: FormField) -> None:
        if form_field.field_name == b"onConflict" and form_field.value is not None:
            fields["onConflict"] = form_field.value

    try:
        parser = create_form_parser(
            {"Content-Type": content_type.encode("latin-1")},
            on_field,
            files.append,
            config={"UPLOAD_DIR": str(uploads), "MAX_MEMORY_FILE_SIZE": _IN_MEMORY},
        )
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except (ValueError, UnicodeError) as exc:  # FormParserError is a ValueError
        _close(files)
        raise BadRequest("The upload is not a readable multipart form.") from exc
    except BaseException:
        _close(files)
        raise
    try:
        upload = next((f for f in files if f.field_name == b"file"), None)
        if upload is None:
            raise BadRequest("Send the zip in a multipart field named 'file'.")
        on_conflict = fields.get("onConflict", b"skip").decode("latin-1")
        if on_conflict not in transfer.ON_CONFLICT:
            raise BadRequest("onConflict must be skip, rename or replace.")
        name = transfer.zip_name(
            upload.file_name.decode("utf-8", "replace") if upload.file_name else None
        )
        stream = upload.file_object
        stream.seek(0)
        report = await anyio.to_thread.run_sync(
            functools.partial(
                transfer.import_zip,
                db,
                workspace_id=ws,
                file=stream,
                source=Source.imported(user.id, name),
                on_conflict=on_conflict,  # type: ignore[arg-type]
                max_note_bytes=settings.max_note_bytes,
            )
        )
    finally:
        _close(files)
    return report.public()


def _close(files: list[FormFile]) -> None:
    for upload in files:
        upload.close()  # a spooled file is deleted as it closes
