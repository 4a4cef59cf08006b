"""ASGI guards for SPEC §12: request body size, and `nosniff` on every response."""

from __future__ import annotations

import re

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ambient.contract import MAX_ATTACHMENT_BYTES

MAX_JSON_BYTES = 1024 * 1024
# The one route whose body is a note (text/markdown), limited by max_note_bytes instead.
_NOTE_WRITE = re.compile(r"^/api/workspaces/[^/]+/documents/.")
# An attachment's upload (SPEC §18): the file's limit plus room for the form around it (more
# than a read chunk); the route itself refuses the file as soon as it passes
# MAX_ATTACHMENT_BYTES, so its own 413 comes first.
_ATTACHMENT_UPLOAD = re.compile(r"^/api/workspaces/[^/]+/attachments/?$")
ATTACHMENT_UPLOAD_BYTES = MAX_ATTACHMENT_BYTES + 1024 * 1024


class BodyTooLarge(HTTPException):
    """Raised from `receive` as soon as the running count passes the limit.

    An HTTPException, so FastAPI lets it through its body parsing and the app's handler
    answers 413 with `Connection: close` (the rest of the body is never read).
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large(limit), headers={"Connection": "close"})


def too_large(limit: int) -> str:
    return f"The request body is larger than the limit of {limit:,} bytes."


class BodyLimitMiddleware:
    """413 for a request body over the limit, before it is parsed or anyone is authenticated.

    A declared Content-Length over the limit is refused without calling the app; otherwise
    the `http.request` chunks are counted as the app reads them, so no more than the limit
    (plus one chunk) is ever held. The limit is MAX_JSON_BYTES, or the note limit for a
    note's PUT (that route then gives its own note-size message for smaller limits).
    """

    def __init__(self, app: ASGIApp, *, note_limit: int, json_limit: int = MAX_JSON_BYTES) -> None:
        self.app = app
        self.json_limit = json_limit
        self.note_limit = note_limit

    def limit_for(self, scope: Scope) -> int:
        if scope["method"] == "PUT" and _NOTE_WRITE.match(scope["path"]):
            return max(self.note_limit, self.json_limit)
        if scope["method"] == "POST" and _ATTACHMENT_UPLOAD.match(scope["path"]):
            return ATTACHMENT_UPLOAD_BYTES
        return self.json_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = Headers(scope=scope).get("content-length", "").strip()
        # isascii: str.isdigit() also accepts '²', which int() refuses (latin-1 header bytes).
        if declared.isascii() and declared.isdigit() and int(declared) > limit:
            response = JSONResponse(
                {"detail": too_large(limit)}, status_code=413, headers={"Connection": "close"}
            )
            await response(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, counted, send)


class NoSniffMiddleware:
    """`X-Content-Type-Options: nosniff` on every response the app sends (SPEC §12)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).setdefault("X-Content-Type-Options", "nosniff")
            await send(message)

        await self.app(scope, receive, with_header)
