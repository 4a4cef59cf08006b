"""The body-size guard's Content-Length check, driven as the ASGI server would drive it."""

from __future__ import annotations

import asyncio

from backend.limits.guards import BodyLimitMiddleware


async def _ok(scope, receive, send):
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _status(content_length: bytes) -> int:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/session",
        "headers": [(b"content-length", content_length)],
    }
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(BodyLimitMiddleware(_ok, note_limit=10, json_limit=10)(scope, receive, send))
    return sent[0]["status"]


def test_a_declared_length_over_the_limit_is_refused():
    assert _status(b"11") == 413
    assert _status(b"10") == 200


def test_a_content_length_of_non_ascii_digits_is_not_a_server_error():
    # latin-1 '\xb2' is '²': str.isdigit() says yes, int() refuses it.
    assert _status(b"\xb2") == 200
