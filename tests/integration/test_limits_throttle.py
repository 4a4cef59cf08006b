"""Throttle windows end when the minute has passed; expensive routes are limited per user."""

from __future__ import annotations

import threading
import time
import uuid

import limits.storage.memory as limits_memory
import pytest
from conftest import PASSWORDS, seed_world, sign_in
from fastapi.testclient import TestClient

from backend.limits.throttle import SIGN_IN_PER_ADDRESS, SIGN_IN_PER_USERNAME

AT_ONCE = 8  # more than the 5 failures a username may have in a minute


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


class HeldSlot:
    """Stands in for the password slot: refuses everyone until `opened`, then one at a time,
    so requests sent at once really are in flight together when their passwords are checked."""

    def __init__(self) -> None:
        self.waiting: set[int] = set()  # each request runs on its own thread in TestClient
        self.opened = threading.Event()
        self.one_at_a_time = threading.Lock()

    def acquire(self, blocking: bool = True) -> bool:
        self.waiting.add(threading.get_ident())
        if not blocking:
            return self.opened.is_set() and self.one_at_a_time.acquire(blocking=False)
        assert self.opened.wait(timeout=60)
        return self.one_at_a_time.acquire()

    def release(self) -> None:
        self.one_at_a_time.release()

    def __enter__(self) -> None:
        self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _sign_ins_at_once(app, bodies: list[dict[str, str]]) -> list[int]:
    """POST every body in its own thread; the password checks start once all are in."""
    slot = HeldSlot()
    app.state.throttle.password_slots = slot
    statuses: list[int | None] = [None] * len(bodies)

    def send(i: int) -> None:
        statuses[i] = TestClient(app).post("/api/session", json=bodies[i]).status_code

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while len(slot.waiting) + sum(s is not None for s in statuses) < len(bodies):
        assert time.monotonic() < deadline, statuses
        time.sleep(0.01)
    slot.opened.set()
    for t in threads:
        t.join(timeout=60)
    assert all(s is not None for s in statuses), statuses
    return [s for s in statuses if s is not None]


def test_correct_sign_ins_at_once_are_never_refused(app):
    correct = {"username": "alice", "password": PASSWORDS["alice"]}
    assert _sign_ins_at_once(app, [correct] * AT_ONCE) == [200] * AT_ONCE


def test_correct_sign_ins_do_not_count_against_the_address(app):
    client = TestClient(app)
    for i in range(SIGN_IN_PER_ADDRESS.amount + 1):
        sign_in(client, ("alice", "bob")[i % 2])


def test_wrong_passwords_at_once_still_end_in_429(app):
    wrong = {"username": "alice", "password": "wrong"}
    statuses = sorted(_sign_ins_at_once(app, [wrong] * AT_ONCE))
    failures = SIGN_IN_PER_USERNAME.amount
    assert statuses == [401] * failures + [429] * (AT_ONCE - failures)
    # The username is locked now, even for the correct password.
    correct = {"username": "alice", "password": PASSWORDS["alice"]}
    assert TestClient(app).post("/api/session", json=correct).status_code == 429


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
