"""Structured logs: one JSON object per line, never a request body, header value or note text."""

from __future__ import annotations

import json
import logging
import sys
import time
from datetime import UTC, datetime
from typing import IO, Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOGGER_NAME = "ambient"
_RESERVED = set(vars(logging.LogRecord("", 0, "", 0, "", (), None)))


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON line: ts, level, logger, event, then the `fields` extra.

    Exception messages are left out on purpose (a database error can quote the parameters,
    which may be note text); only the exception type is written.
    """

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "event": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info and record.exc_info[0] is not None:
            out["error_type"] = record.exc_info[0].__name__
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(level: str = "INFO", stream: IO[str] | None = None) -> logging.Logger:
    """(Re)configure the `ambient` logger tree with one JSON handler; returns that logger."""
    logger = logging.getLogger(LOGGER_NAME)
    for handler in list(logger.handlers):
        if getattr(handler, "_ambient", False):
            logger.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler._ambient = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    logger.propagate = False
    return logger


def uvicorn_log_config(level: str = "INFO") -> dict[str, Any]:
    """A logging.dictConfig for uvicorn's own loggers, in the same JSON format."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {
            "json": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["json"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
        },
    }


class RequestLogMiddleware:
    """Log one line per HTTP request: method, route template, status, duration, user id.

    The route is the template (`/api/workspaces/{ws}/documents/{path}`), not the URL, so
    neither note paths nor query strings end up in the log.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.log = logging.getLogger(f"{LOGGER_NAME}.request")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            state = scope.get("state") or {}
            self.log.info(
                "request",
                extra={
                    "fields": {
                        "method": scope.get("method"),
                        "route": getattr(route, "path_format", None) or _route_fallback(scope),
                        "status": status,
                        "duration_ms": round((time.perf_counter() - start) * 1000, 2),
                        "user_id": state.get("user_id"),
                    }
                },
            )


def _route_fallback(scope: Scope) -> str:
    """No route matched (404, static files): log the first path segment only."""
    path = scope.get("path") or "/"
    first = path.lstrip("/").split("/", 1)[0]
    return f"/{first}/…" if "/" in path.lstrip("/") else f"/{first}"
