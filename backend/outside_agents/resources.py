"""MCP resources (SPEC §19): the notes a token reaches, as `note://{workspaceId}/{path}`.

`resources/list` answers at most PAGE notes per page, ordered by workspace id then path,
with an opaque cursor naming the last note of the page (the next page starts after it, so
a note saved or deleted between two pages moves nothing else). `resources/read` answers
the saved text as `text/markdown`.

In the URI the workspace id and each path segment are percent-encoded as UTF-8 (a space is
`%20`, 計画.md is `%E8%A8%88%E7%94%BB.md`); a read decodes them. A URI that is not of this
form, or names a note the token does not reach (another workspace, outside its folder) or
that does not exist, is an MCP error with one plain sentence, the same for all three: the
agent never learns whether a note it may not read exists.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any
from urllib.parse import quote, unquote

from mcp import MCPError
from mcp.types import INVALID_PARAMS
from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session, defer

from ambient.paths import PathError, normalize_path
from backend.models import Document
from backend.services import documents, workspaces
from backend.services.tokens import Authority

SCHEME = "note://"
MIME = "text/markdown"
PAGE = 100  # most notes per resources/list page (SPEC §19)
BATCH = 500  # rows read at a time while filling a page (a folder token skips some)

BAD_URI = "That is not a note URI: they look like note://{workspaceId}/{path}, percent-encoded."
NO_NOTE = "There is no note at that URI that this token can read."
BAD_CURSOR = "That cursor is not one resources/list gave; list again without a cursor."


def note_uri(workspace_id: str, path: str) -> str:
    segments = "/".join(quote(part, safe="") for part in path.split("/"))
    return f"{SCHEME}{quote(workspace_id, safe='')}/{segments}"


def parse_uri(uri: object) -> tuple[str, str] | None:
    """(workspace id, NFC path) of a note URI, or None when it is not one."""
    if not isinstance(uri, str) or not uri.startswith(SCHEME):
        return None
    parts = uri[len(SCHEME) :].split("/")
    if len(parts) < 2 or any(part == "" for part in parts):
        return None
    try:
        decoded = [unquote(part, errors="strict") for part in parts]
    except UnicodeDecodeError:
        return None
    if any("/" in part for part in decoded):  # an encoded slash is no segment of a path
        return None
    workspace_id, path = decoded[0], "/".join(decoded[1:])
    try:
        return workspace_id, normalize_path(path)
    except PathError:
        return None


def _encode_cursor(workspace_id: str, path: str) -> str:
    raw = json.dumps([workspace_id, path], ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode_cursor(cursor: str) -> tuple[str, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value = json.loads(raw.decode("utf-8"))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        value = None
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise MCPError(code=INVALID_PARAMS, message=BAD_CURSOR)
    return value[0], value[1]


def reached_workspaces(db: Session, auth: Authority) -> list[str]:
    listed = workspaces.list_for_user(db, user_id=auth.user_id)
    return sorted(ws.id for ws, _role in listed if auth.reaches(ws.id))


def list_page(db: Session, auth: Authority, cursor: object) -> dict[str, Any]:
    """One page: `resources` (uri, name, mimeType, size) and `nextCursor` when more follow."""
    if cursor is not None and not isinstance(cursor, str):
        raise MCPError(code=INVALID_PARAMS, message=BAD_CURSOR)
    after = _decode_cursor(cursor) if cursor else None
    reached = reached_workspaces(db, auth)
    found: list[Document] = []
    while reached and len(found) <= PAGE:
        query = (
            select(Document)
            .where(Document.workspace_id.in_(reached))
            .options(defer(Document.content))
            .order_by(Document.workspace_id, Document.path)
            .limit(BATCH)
        )
        if after is not None:
            ws, path = after
            query = query.where(
                or_(
                    Document.workspace_id > ws,
                    and_(Document.workspace_id == ws, Document.path > path),
                )
            )
        rows = list(db.scalars(query))
        found += [d for d in rows if auth.reaches(d.workspace_id, d.path)]
        if len(rows) < BATCH:
            break
        after = (rows[-1].workspace_id, rows[-1].path)
    page = found[:PAGE]
    listed = [
        {
            "uri": note_uri(d.workspace_id, d.path),
            "name": d.path,
            "title": f"{d.path} ({d.workspace_id})",
            "mimeType": MIME,
            "size": d.bytes,
        }
        for d in page
    ]
    more = len(found) > PAGE
    return {
        "resources": listed,
        "nextCursor": _encode_cursor(page[-1].workspace_id, page[-1].path) if more else None,
    }


def read(db: Session, auth: Authority, uri: object) -> dict[str, Any]:
    """The note's saved text, or an MCP error (the same one for any note it may not read)."""
    parsed = parse_uri(uri)
    if parsed is None:
        raise MCPError(code=INVALID_PARAMS, message=BAD_URI)
    workspace_id, path = parsed
    if not auth.reaches(workspace_id, path) or not workspaces.is_member(
        db, user_id=auth.user_id, workspace_id=workspace_id
    ):
        raise MCPError(code=INVALID_PARAMS, message=NO_NOTE)
    doc = documents.find_document(db, workspace_id=workspace_id, path=path)
    if doc is None:
        raise MCPError(code=INVALID_PARAMS, message=NO_NOTE)
    return {"contents": [{"uri": uri, "mimeType": MIME, "text": doc.content}]}
