"""Domain errors raised by services, and the one place that maps them (and all others) to JSON."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("ambient.errors")

BUSY = "The server is busy right now; please try again in a moment."
BUSY_RETRY_S = 2


class DomainError(Exception):
    """Base class: `message` is plain language, safe to show, and never echoes note text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(DomainError):
    """The input is malformed (e.g. not UTF-8, a bad header value)."""


class BadPath(BadRequest):
    """A note path breaks the rules in ambient.paths."""


class Unauthorized(DomainError):
    """No valid sign-in."""


class Forbidden(DomainError):
    """Signed in, but not allowed (not a member, or the workspace does not exist)."""


class NotFound(DomainError):
    """The thing does not exist."""


class Conflict(DomainError):
    """The write lost a race or would overwrite something (stale revision, move target exists)."""


class PreconditionFailed(DomainError):
    """A create-only write found an existing note (If-None-Match: *)."""


class TooLarge(DomainError):
    """The body is larger than allowed."""


class UnsupportedType(DomainError):
    """A file of a type the route does not take (an attachment that is no image or PDF)."""


class Unprocessable(DomainError):
    """Well-formed, but breaks a rule of the thing asked for (a username or password rule)."""


class TooManyRequests(DomainError):
    """Throttled (backend.limits.throttle): try again after `retry_after` seconds."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


STATUS_BY_ERROR: dict[type[DomainError], int] = {
    BadRequest: 400,
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    PreconditionFailed: 412,
    TooLarge: 413,
    UnsupportedType: 415,
    Unprocessable: 422,
    TooManyRequests: 429,
}


class ErrorOut(BaseModel):
    """Every error body: one plain-language sentence."""

    detail: str


_DESCRIPTIONS = {
    400: "Bad request (invalid path, text or header)",
    401: "Not signed in",
    403: "Not allowed (cross-origin, not a member, or unknown workspace)",
    404: "Not found",
    409: "Conflict (stale revision or target exists)",
    412: "Precondition failed (the note already exists)",
    413: "Body too large",
    415: "Unsupported file type",
    422: "The request body or parameters are invalid",
    429: "Too many requests (throttled); see Retry-After",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries for the given error status codes."""
    return {code: {"model": ErrorOut, "description": _DESCRIPTIONS[code]} for code in codes}


def status_for(error: DomainError) -> int:
    for cls in type(error).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return 400


def describe_validation_error(exc: RequestValidationError) -> str:
    """Turn pydantic's error list into one sentence that names fields, never their values."""
    parts = []
    for err in exc.errors()[:3]:
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header")]
        where = ".".join(loc) or "the request body"
        kind = err.get("type", "")
        if kind == "missing":
            parts.append(f"'{where}' is required")
        elif kind == "json_invalid":
            parts.append("the body is not valid JSON")
        elif "string_too_long" in kind or "too_long" in kind:
            parts.append(f"'{where}' is too long")
        elif "string_too_short" in kind or "too_short" in kind:
            parts.append(f"'{where}' is too short")
        elif kind == "literal_error":
            parts.append(f"'{where}' must be {err.get('ctx', {}).get('expected', 'another value')}")
        else:
            parts.append(f"'{where}' has the wrong type or format")
    return "The request is invalid: " + "; ".join(parts) + "."


def use_error_model_for_422(app: FastAPI) -> None:
    """Make the OpenAPI say what the 422 handler sends: ErrorOut, not FastAPI's default list.

    Routes that declare no 422 of their own get FastAPI's `HTTPValidationError`; this swaps
    it for `ErrorOut` everywhere, so the schema stays accurate for every router.
    """
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.setdefault("ErrorOut", ErrorOut.model_json_schema())
        ref = "#/components/schemas/ErrorOut"
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                response = operation.get("responses", {}).get("422")
                if response is None:
                    continue
                content = response.setdefault("content", {}).setdefault("application/json", {})
                if content.get("schema", {}).get("$ref", "").endswith("/HTTPValidationError"):
                    content["schema"] = {"$ref": ref}
                    response["description"] = _DESCRIPTIONS[422]
        for unused in ("HTTPValidationError", "ValidationError"):
            components.pop(unused, None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


BODY_NOT_UTF8_JSON = "The request is invalid: the body is not JSON in UTF-8."


def install_error_handlers(app: FastAPI) -> None:
    """Map domain errors, HTTP errors, validation errors and crashes to `{"detail": "..."}`."""
    use_error_model_for_422(app)

    @app.exception_handler(DomainError)
    async def _domain(request: Request, exc: DomainError) -> JSONResponse:
        status = status_for(exc)
        headers = {"WWW-Authenticate": "Cookie"} if status == 401 else None
        if isinstance(exc, TooManyRequests):
            headers = {"Retry-After": str(exc.retry_after)}
        return JSONResponse({"detail": exc.message}, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": describe_validation_error(exc)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and isinstance(exc.__cause__, UnicodeDecodeError):
            # FastAPI answers a JSON body that is not UTF-8 with an undocumented 400 before
            # any dependency runs; treat it like any other unreadable JSON body (422).
            return JSONResponse({"detail": BODY_NOT_UTF8_JSON}, status_code=422)
        detail = exc.detail if isinstance(exc.detail, str) else "The request failed."
        return JSONResponse(
            {"detail": detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None)
        )

    @app.exception_handler(PoolTimeout)
    async def _busy(request: Request, exc: PoolTimeout) -> JSONResponse:
        # Every database connection stayed busy for the pool's whole wait: overload, not a
        # fault of the request, so say so and when to come back rather than a 500.
        log.warning("database_busy", extra={"fields": {"route": request.url.path}})
        return JSONResponse(
            {"detail": BUSY}, status_code=503, headers={"Retry-After": str(BUSY_RETRY_S)}
        )

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> JSONResponse:
        # Log the type only: an exception message could quote a request body.
        log.error("unhandled_error", extra={"fields": {"error_type": type(exc).__name__}})
        return JSONResponse(
            {"detail": "Something went wrong on the server. Please try again."}, status_code=500
        )


def file_upload_body(file: dict[str, Any], **fields: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI `requestBody` of a multipart/form-data upload: a required `file` part
    (with `file`'s extra schema keys) and optional text `fields` (a route's `openapi_extra`;
    the route reads the stream itself, so FastAPI cannot describe it)."""
    properties = {"file": {"type": "string", "format": "binary", **file}, **fields}
    schema = {"type": "object", "required": ["file"], "properties": properties}
    return {
        "requestBody": {
            "required": True,
            "content": {"multipart/form-data": {"schema": schema}},
        }
    }
