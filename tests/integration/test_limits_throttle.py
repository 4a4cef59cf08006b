"""Throttle windows end when the minute has passed; expensive routes are limited per user."""

from __future__ import annotations

import time
import uuid

import limits.storage.memory as limits_memory
import pytest
from conftest import PASSWORDS, seed_world, sign_in
from fastapi.testclient import TestClient


class Clock:
    """time.time() as the limiter sees it, moved by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(limits_memory.time, "time", fake)
    monkeypatch.setattr("backend.limits.throttle.time.time", fake)
    return fake


def test_the_username_lock_lasts_until_the_minute_has_passed(app, clock):
    client = TestClient(app)
    wrong = {"username": "alice", "password": "wrong"}
    for _ in range(5):
        assert client.post("/api/session", json=wrong).status_code == 401
    clock.now += 30
    refused = client.post(
        "/api/session", json={"username": "alice", "password": PASSWORDS["alice"]}
    )
    assert refused.status_code == 429
    assert 29 <= int(refused.headers["Retry-After"]) <= 31
    clock.now += 31
    sign_in(client, "alice")


def test_turns_and_tool_calls_are_limited_per_user(app_factory):
    app = app_factory(route_rate_limit="3/minute")
    seed_world(app)
    alice, bob = sign_in(TestClient(app), "alice"), sign_in(TestClient(app), "bob")
    conversation = str(uuid.uuid4())
    turn = {"conversationId": conversation, "workspaceId": "team", "message": "hello"}
    assert [alice.post("/api/assistant/turns", json=turn).status_code for _ in range(4)] == [
        200,
        200,
        200,
        429,
    ]
    limited = alice.post("/api/assistant/turns", json=turn)
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) <= 60
    # Tools have their own count; bob has his own.
    tool = f"/api/assistant/conversations/{conversation}/tools/list_documents"
    assert alice.post(tool, json={}).status_code == 200
    bob_turn = {**turn, "conversationId": str(uuid.uuid4())}
    assert bob.post("/api/assistant/turns", json=bob_turn).status_code == 200
    # Signed out is still 401, never 429.
    assert TestClient(app).post("/api/assistant/turns", json=turn).status_code == 401


def test_the_inline_command_is_limited_per_user(app_factory):
    app = app_factory(route_rate_limit="3/minute")
    seed_world(app)
    alice, bob = sign_in(TestClient(app), "alice"), sign_in(TestClient(app), "bob")
    body = {
        "workspaceId": "team",
        "path": "a.md",
        "instruction": "uppercase",
        "selection": {"from": 0, "to": 2, "text": "hi"},
        "before": "",
        "after": "",
    }
    statuses = [alice.post("/api/assistant/inline", json=body).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert bob.post("/api/assistant/inline", json=body).json()["replacement"] == "HI"


def test_the_openapi_documents_429_where_it_can_happen(client):
    paths = client.get("/api/openapi.json").json()["paths"]
    assert "429" in paths["/api/session"]["post"]["responses"]
    assert "429" in paths["/api/assistant/turns"]["post"]["responses"]
    tools = paths["/api/assistant/conversations/{conversation_id}/tools/{name}"]["post"]
    assert "429" in tools["responses"]
    assert "429" in paths["/api/assistant/inline"]["post"]["responses"]


def test_mcp_requests_are_limited_per_user(app_factory):
    app = app_factory(route_rate_limit="3/minute")
    seed_world(app)
    with TestClient(app) as client:  # the MCP session manager runs in the lifespan
        sign_in(client, "alice")
        token = client.post("/api/tokens", json={"name": "t", "expiresInDays": 1}).json()["token"]
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
        }
        statuses = [client.post("/mcp", json=ping, headers=headers).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        limited = client.post("/mcp", json=ping, headers=headers)
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) <= 60
        # A bad token is still 401, never 429.
        bad = {**headers, "Authorization": "Bearer nope"}
        assert client.post("/mcp", json=ping, headers=bad).status_code == 401
