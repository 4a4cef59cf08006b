"""Helpers for the reliability tests: the assistant helpers plus sessions, clients, log capture."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from assistant_helpers import (  # noqa: F401 - re-exported for the reliability modules
    CAVEAT,
    ambient,
    call_tool,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    raw_header,
    row,
    set_row,
    tool,
    turn,
)
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from backend.api.deps import SESSION_COOKIE
from backend.models import UserSession
from backend.services.sessions import token_id

TOOLS = ("list_documents", "read_document", "read_active_note")


def expire_session(app: FastAPI, client: TestClient) -> None:
    """Move the client's user_sessions row's expires_at into the past, through the ORM."""
    token = client.cookies[SESSION_COOKIE]
    with app.state.sessionmaker() as db:
        result = db.execute(
            update(UserSession)
            .where(UserSession.id == token_id(token, app.state.settings.secret_key))
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        db.commit()
        assert result.rowcount == 1


@contextmanager
def all_logs(*, force: bool) -> Iterator[io.StringIO]:
    """Every log record that reaches a handler, formatted with all its fields, into one buffer.

    A DEBUG handler goes on the root logger and on `ambient` (which does not propagate), and
    uvicorn's loggers are set to DEBUG as `--log-level DEBUG` does. With `force`, the root
    logger is lowered to DEBUG too, as `logging.basicConfig(level=logging.DEBUG)` would do in
    an operator's wrapper: every logger the app leaves unset (sqlalchemy, fastapi, starlette,
    asyncio, ...) then logs at DEBUG, while a level the app pins on purpose is kept.
    """
    from backend.logging import JsonFormatter

    stream = io.StringIO()
    plain = logging.StreamHandler(stream)
    plain.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s %(args)s"))
    plain.setLevel(logging.DEBUG)
    structured = logging.StreamHandler(stream)
    structured.setFormatter(JsonFormatter())
    structured.setLevel(logging.DEBUG)
    names = ["uvicorn", "uvicorn.error", "uvicorn.access", "ambient"]
    if force:
        names.append("")
    touched = []
    for name in dict.fromkeys(names):
        logger = logging.getLogger(name)
        touched.append((logger, logger.level))
        logger.setLevel(logging.DEBUG)
    root, app_logger = logging.getLogger(""), logging.getLogger("ambient")
    root.addHandler(plain)
    app_logger.addHandler(structured)
    try:
        yield stream
    finally:
        for logger, level in touched:
            logger.setLevel(level)
        root.removeHandler(plain)
        app_logger.removeHandler(structured)


def server_lines(text: str) -> list[str]:
    """Captured lines without the test client's own (httpx logs the URLs it requests)."""
    return [line for line in text.splitlines() if not line.startswith(("httpx ", "httpcore"))]
