"""Logs are one JSON object per line and never contain a note's text, path or header values."""

from __future__ import annotations

import io
import json
import logging

from backend.logging import LOGGER_NAME, JsonFormatter

CANARY = "CANARY-7f3a9c-note-text-must-never-be-logged"
SECRET_HEADER = "CANARY-header-value-9d2e"


def _capture():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    return stream, handler


def test_saving_a_note_never_logs_its_text(app, alice_client, caplog):
    stream, handler = _capture()
    logger = logging.getLogger(LOGGER_NAME)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    caplog.set_level(logging.DEBUG)  # everything else that propagates to the root logger
    try:
        url = f"/api/workspaces/personal/documents/{CANARY}-path.md"
        headers = {"X-Custom": SECRET_HEADER, "If-Match": '"1"'}
        alice_client.put(url, content=CANARY)  # create
        alice_client.put(url, content=CANARY + " v2", headers=headers)  # update
        alice_client.put(url, content=CANARY + " stale", headers=headers)  # 409
        alice_client.put(url, content=(CANARY + "\xff").encode("latin-1"))  # 400 invalid UTF-8
        alice_client.put(url, content=CANARY.encode() + b"\x00")  # 400 NUL
        alice_client.get(url)
        alice_client.get("/api/workspaces/personal/documents")
        alice_client.post(url + "/move", json={"to": CANARY + "-moved.md"})
        alice_client.post("/api/session", json={"username": "alice", "password": CANARY})
    finally:
        logger.removeHandler(handler)
    ours = stream.getvalue()
    # httpx here is the test's own client logging the URL it requests, not the server.
    server_side = [
        caplog.handler.format(r) for r in caplog.records if not r.name.startswith("httpx")
    ]
    everything = ours + "\n".join(server_side)
    assert CANARY not in everything
    assert SECRET_HEADER not in everything
    records = [json.loads(line) for line in ours.splitlines()]
    requests = [r for r in records if r["event"] == "request"]
    assert len(requests) >= 9
    for record in requests:
        assert set(record) >= {"ts", "level", "method", "route", "status", "duration_ms", "user_id"}
    put = next(r for r in requests if r["method"] == "PUT")
    assert put["route"] == "/api/workspaces/{ws}/documents/{path}"
    assert put["user_id"] == app.state.test_user_ids["alice"]
    assert {r["status"] for r in requests} >= {200, 201, 400, 401, 409}


def test_unhandled_errors_log_the_type_not_the_message(app, alice_client, monkeypatch):
    from backend.services import documents

    def boom(*args, **kwargs):
        raise RuntimeError(CANARY)

    monkeypatch.setattr(documents, "list_documents", boom)
    stream, handler = _capture()
    logger = logging.getLogger(LOGGER_NAME)
    logger.addHandler(handler)
    try:
        from fastapi.testclient import TestClient

        client = TestClient(app, raise_server_exceptions=False, cookies=alice_client.cookies)
        response = client.get("/api/workspaces/personal/documents")
    finally:
        logger.removeHandler(handler)
    assert response.status_code == 500
    assert CANARY not in response.text and isinstance(response.json()["detail"], str)
    assert CANARY not in stream.getvalue()
    assert "RuntimeError" in stream.getvalue()
