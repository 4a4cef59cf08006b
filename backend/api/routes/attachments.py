"""Attachments API (SPEC §18): upload (multipart, streamed), list, read and delete files.

The upload is parsed as it arrives (python-multipart's push parser): the file's bytes are
counted chunk by chunk and the request is refused with 413 as soon as they pass
MAX_ATTACHMENT_BYTES, without reading the rest; nothing is written to disk on the way.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from python_multipart import MultipartParser
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import parse_options_header
from starlette.exceptions import HTTPException

from backend.api.deps import CurrentUser, EditorWorkspace, MemberWorkspace, NotePath, SessionDep
from backend.api.routes import documents as _documents  # noqa: F401 - registers `notepath`
from backend.errors import BadPath, BadRequest, NotFound, error_responses, file_upload_body
from backend.services import attachments as attachments_service
from backend.services.attachments import MAX_ATTACHMENT_BYTES
from backend.services.documents import valid_path

router = APIRouter(prefix="/api/workspaces/{ws}/attachments", tags=["attachments"])
# python-multipart logs what it found instead of a boundary: bytes of the body. A malformed
# form is answered 400 below; its bytes are never logged.
logging.getLogger("python_multipart").setLevel(logging.CRITICAL)

DEFAULT_FOLDER = "attachments"
MAX_FIELD_BYTES = 16 * 1024  # the `path` field (a path is at most 4,096 UTF-8 bytes)
MAX_PARTS = 8
TOO_LARGE = f"The file is larger than the limit of {MAX_ATTACHMENT_BYTES:,} bytes."


class AttachmentOut(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)

    path: str = Field(description="Where the file was kept (a free name when taken).")
    bytes: int
    sha256: str = Field(description="SHA-256 of the bytes, 64 hex characters.")
    content_type: str = Field(description="The type it is served as, from its extension.")


class AttachmentList(BaseModel):
    attachments: list[AttachmentOut]


@dataclass
class _Part:
    name: str = ""
    filename: str | None = None
    data: bytearray = field(default_factory=bytearray)


@dataclass
class Upload:
    """The form's `file` (its name and bytes) and optional `path`."""

    filename: str
    data: bytes
    path: str | None


class _FormReader:
    """python-multipart callbacks collecting `file` and `path`, with running limits."""

    def __init__(self) -> None:
        self.parts: list[_Part] = []
        self._header_field = bytearray()
        self._header_value = bytearray()
        self._headers: dict[bytes, bytes] = {}

    def callbacks(self) -> dict[str, Any]:
        return {
            "on_part_begin": self._part_begin,
            "on_header_field": lambda d, s, e: self._header_field.extend(d[s:e]),
            "on_header_value": lambda d, s, e: self._header_value.extend(d[s:e]),
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
        }

    def _part_begin(self) -> None:
        if len(self.parts) >= MAX_PARTS:
            raise BadRequest(f"The form has more than {MAX_PARTS} parts.")
        self.parts.append(_Part())
        self._headers = {}

    def _header_end(self) -> None:
        self._headers[bytes(self._header_field).lower()] = bytes(self._header_value)
        self._header_field.clear()
        self._header_value.clear()

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        part = self.parts[-1]
        part.name = options.get(b"name", b"").decode("utf-8", "replace")
        filename = options.get(b"filename")
        if filename is not None:
            part.filename = filename.decode("utf-8", "replace")

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        part = self.parts[-1]
        part.data.extend(data[start:end])
        if part.name == "file":
            if len(part.data) > MAX_ATTACHMENT_BYTES:
                # Connection: close, so the rest of the body is never read.
                raise HTTPException(413, TOO_LARGE, headers={"Connection": "close"})
        elif len(part.data) > MAX_FIELD_BYTES:
            raise BadRequest(f"The form field '{part.name[:40]}' is too long.")


def _boundary(request: Request) -> bytes:
    kind, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise BadRequest("Send the file as multipart/form-data with a 'file' field.")
    return boundary


async def read_upload(request: Request, ws: EditorWorkspace) -> Upload:
    """The multipart body, read as it arrives (after the role check: a reader's or a
    stranger's upload is refused before its body is read)."""
    reader = _FormReader()
    parser = MultipartParser(_boundary(request), reader.callbacks())
    try:
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except MultipartParseError:
        raise BadRequest("The multipart form could not be read.") from None
    files = [p for p in reader.parts if p.name == "file"]
    paths = [p for p in reader.parts if p.name == "path" and p.filename is None]
    if len(files) != 1 or files[0].filename is None:
        raise BadRequest("Send exactly one file, in the form field 'file'.")
    path = None
    if paths:
        try:
            path = paths[-1].data.decode("utf-8")
        except UnicodeDecodeError:
            raise BadPath("The path is not valid UTF-8.") from None
    return Upload(filename=files[0].filename, data=bytes(files[0].data), path=path or None)


def default_path(filename: str) -> str:
    """`attachments/<file name>`: the name's last segment (a browser may send a folder)."""
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if not name:
        raise BadRequest("The file has no name; give a 'path'.")
    return f"{DEFAULT_FOLDER}/{name}"


_UPLOAD_BODY = file_upload_body(
    {},
    path={"type": "string", "description": "Where to keep it; default attachments/<file name>."},
)


@router.post(
    "",
    status_code=201,
    response_model=AttachmentOut,
    summary="Upload an attachment (an image or a PDF, at most 20 MiB)",
    description="png, jpg, jpeg, gif, webp, svg or pdf (415 otherwise), at most 20 MiB (413, "
    "sent as soon as the file passes the limit). The same bytes already at the path are "
    "answered as they are; a different file (or a note) there gets a free name `name-1.png`.",
    responses=error_responses(400, 401, 403, 409, 413, 415),
    openapi_extra=_UPLOAD_BODY,
)
def upload_attachment(
    ws: EditorWorkspace,
    user: CurrentUser,
    upload: Annotated[Upload, Depends(read_upload)],
    db: SessionDep,
) -> AttachmentOut:
    path = upload.path or default_path(upload.filename)
    info = attachments_service.put_attachment(
        db, workspace_id=ws, path=path, data=upload.data, user_id=user.id
    )
    db.commit()
    return AttachmentOut(**_fields(info))


def _fields(info: attachments_service.AttachmentInfo) -> dict[str, Any]:
    return {
        "path": info.path,
        "bytes": info.bytes,
        "sha256": info.sha256,
        "content_type": info.content_type,
    }


@router.get(
    "",
    response_model=AttachmentList,
    summary="List the workspace's attachments",
    responses=error_responses(400, 401, 403),
)
def list_attachments(
    ws: MemberWorkspace,
    db: SessionDep,
    folder: Annotated[
        str | None, Query(description="Only those inside this folder.", max_length=8192)
    ] = None,
) -> AttachmentList:
    if folder:
        folder = folder.rstrip("/")
        valid_path(folder)
    items = attachments_service.list_attachments(db, workspace_id=ws, folder=folder or None)
    db.rollback()
    return AttachmentList(attachments=[AttachmentOut(**_fields(i)) for i in items])


@router.get(
    "/{path:notepath}",
    response_class=Response,
    summary="An attachment's bytes, with its type",
    description="Served with `X-Content-Type-Options: nosniff`; SVG also with "
    "`Content-Security-Policy: sandbox`. The ETag is the SHA-256; `If-None-Match` with it "
    "answers 304.",
    responses={
        200: {
            "content": {t: {} for t in sorted(set(attachments_service.ATTACHMENT_TYPES.values()))}
        },
        304: {"description": "Not modified"},
        **error_responses(400, 401, 403, 404),
    },
)
def get_attachment(
    ws: MemberWorkspace,
    path: NotePath,
    db: SessionDep,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    info = attachments_service.find_attachment(db, workspace_id=ws, path=path)
    if info is None:
        db.rollback()
        raise NotFound(attachments_service.NOT_FOUND)
    etag = f'"{info.sha256}"'
    headers = {
        "ETag": etag,
        "Cache-Control": "private, no-cache",
        "X-Content-Type-Options": "nosniff",
    }
    if info.content_type == "image/svg+xml":
        headers["Content-Security-Policy"] = "sandbox"
    if if_none_match is not None and etag in [t.strip() for t in if_none_match.split(",")]:
        db.rollback()
        return Response(status_code=304, headers=headers)
    _, data = attachments_service.read_attachment(db, workspace_id=ws, path=path)
    db.rollback()
    return Response(data, media_type=info.content_type, headers=headers)


@router.delete(
    "/{path:notepath}",
    status_code=204,
    response_class=Response,
    summary="Delete an attachment",
    responses=error_responses(400, 401, 403, 404),
)
def delete_attachment(ws: EditorWorkspace, path: NotePath, db: SessionDep) -> Response:
    attachments_service.delete_attachment(db, workspace_id=ws, path=path)
    db.commit()
    return Response(status_code=204)
