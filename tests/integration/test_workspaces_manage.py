"""SPEC §17: creating, renaming and deleting workspaces, on both databases."""

from __future__ import annotations

import json
import logging
import threading

import pytest
from conftest import open_db, seed_world
from fastapi.testclient import TestClient
from live_helpers import END, Live, Stream
from sqlalchemy import func, select

from backend.models import KeySession, Membership, Workspace
from backend.models.history import NoteEvent, NoteRevision
from backend.models.people import Invitation


def create(client: TestClient, name: str) -> dict:
    response = client.post("/api/workspaces", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()


def test_anyone_signed_in_creates_a_workspace_and_owns_it(alice_client, bob_client, client):
    made = create(bob_client, "Garden Plans")
    assert made == {"id": "garden-plans", "name": "Garden Plans", "role": "owner"}
    listed = bob_client.get("/api/workspaces").json()
    assert {"id": "garden-plans", "name": "Garden Plans", "role": "owner"} in listed
    assert "garden-plans" not in {w["id"] for w in alice_client.get("/api/workspaces").json()}
    assert bob_client.get("/api/workspaces/garden-plans/documents").status_code == 200
    assert alice_client.get("/api/workspaces/garden-plans/documents").status_code == 403
    assert client.post("/api/workspaces", json={"name": "X"}).status_code == 401


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("  Café Crème  ", "cafe-creme"),
        ("Ｔｅａｍ ２", "team-2"),  # full-width letters fold to ASCII under NFKD
        ("日本語", "workspace"),
        ("---", "workspace"),
        ("A" * 200, "a" * 48),
        ("Notes: 2026/Q1!", "notes-2026-q1"),
    ],
)
def test_the_id_is_a_slug_of_the_name(alice_client, name, slug):
    made = create(alice_client, name)
    assert made["id"] == slug
    assert made["name"] == name.strip()


def test_a_taken_id_gets_a_number(alice_client, bob_client):
    assert create(alice_client, "Team")["id"] == "team-2"  # `team` exists in the test world
    assert create(bob_client, "team")["id"] == "team-3"
    assert create(alice_client, "Team!")["id"] == "team-4"
    names = {w["id"]: w["name"] for w in alice_client.get("/api/workspaces").json()}
    assert names["team"] == "Team" and names["team-2"] == "Team" and names["team-4"] == "Team!"


def test_parallel_creates_of_one_name_all_succeed_with_different_ids(app, alice_client):
    results: list[int] = []
    ids: list[str] = []
    lock = threading.Lock()

    def make() -> None:
        client = TestClient(app, cookies=alice_client.cookies)
        response = client.post("/api/workspaces", json={"name": "Race"})
        with lock:
            results.append(response.status_code)
            if response.status_code == 201:
                ids.append(response.json()["id"])

    threads = [threading.Thread(target=make) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [201] * 4
    assert sorted(ids) == ["race", "race-2", "race-3", "race-4"]


@pytest.mark.parametrize(
    "body",
    [
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 201},
        {"name": "a\x00b"},
        {"name": "a\nb"},
        {"name": "evil\u202eexe"},
        {"name": "zero\u200bwidth"},
        {"name": 5},
        {},
        {"name": "x" * 100_000},
    ],
)
def test_a_bad_name_is_422_and_creates_nothing(app, alice_client, body):
    response = alice_client.post("/api/workspaces", json=body)
    assert response.status_code in (413, 422), response.text
    assert isinstance(response.json()["detail"], str)
    with open_db(app) as db:
        assert db.scalar(select(func.count()).select_from(Workspace)) == 3


def test_malformed_bodies_are_4xx(alice_client):
    lone_surrogate = b'{"name": "\\ud800"}'
    for content in (b"{", b"\xff\xfe", b"null", b"[]", b'"name"', lone_surrogate):
        response = alice_client.post(
            "/api/workspaces", content=content, headers={"Content-Type": "application/json"}
        )
        assert 400 <= response.status_code < 500, (content, response.status_code)
        assert isinstance(response.json()["detail"], str)
    huge = b'{"name": "' + b"x" * 2_000_000 + b'"}'
    response = alice_client.post(
        "/api/workspaces", content=huge, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413


def test_owners_rename_and_the_id_stays(alice_client, bob_client):
    response = alice_client.patch("/api/workspaces/team", json={"name": "  Team Alpha "})
    assert response.status_code == 200
    assert response.json() == {"id": "team", "name": "Team Alpha", "role": "owner"}
    assert {"id": "team", "name": "Team Alpha", "role": "editor"} in bob_client.get(
        "/api/workspaces"
    ).json()
    # An editor, a non-member and an unknown workspace: 403, nothing renamed.
    assert bob_client.patch("/api/workspaces/team", json={"name": "Bob's"}).status_code == 403
    assert bob_client.patch("/api/workspaces/personal", json={"name": "B"}).status_code == 403
    assert bob_client.patch("/api/workspaces/nope", json={"name": "B"}).status_code == 403
    assert alice_client.patch("/api/workspaces/team", json={"name": "a\x00"}).status_code == 422
    names = {w["id"]: w["name"] for w in alice_client.get("/api/workspaces").json()}
    assert names["team"] == "Team Alpha"


def _fill(app, client: TestClient, ws: str) -> None:
    """Notes, history, a key session, an invitation and a token restricted to `ws`."""
    assert client.put(f"/api/workspaces/{ws}/documents/a.md", content=b"one").status_code == 201
    headers = {"If-Match": '"1"'}
    assert (
        client.put(f"/api/workspaces/{ws}/documents/a.md", content=b"two", headers=headers)
    ).status_code == 200
    assert client.post(f"/api/workspaces/{ws}/key-sessions").status_code in (200, 201)
    assert client.post(f"/api/workspaces/{ws}/invitations", json={}).status_code == 201
    token = client.post(
        "/api/tokens", json={"name": "agent", "expiresInDays": 3, "workspaceId": ws}
    )
    assert token.status_code == 201, token.text


def test_delete_needs_the_exact_name_and_cascades(app, alice_client, bob_client):
    _fill(app, alice_client, "team")
    _fill(app, alice_client, "personal")
    for confirm in ("team", "Team ", "TEAM", "", "Team\x00"):
        response = alice_client.request("DELETE", "/api/workspaces/team", json={"confirm": confirm})
        assert response.status_code == 422, (confirm, response.text)
        assert "name" in response.json()["detail"]
    assert alice_client.request("DELETE", "/api/workspaces/team").status_code == 422
    assert (
        bob_client.request("DELETE", "/api/workspaces/team", json={"confirm": "Team"})
    ).status_code == 403  # an editor
    assert alice_client.get("/api/workspaces/team/documents/a.md").text == "two"

    response = alice_client.request("DELETE", "/api/workspaces/team", json={"confirm": "Team"})
    assert response.status_code == 204
    assert "team" not in {w["id"] for w in alice_client.get("/api/workspaces").json()}
    assert "team" not in {w["id"] for w in bob_client.get("/api/workspaces").json()}
    assert alice_client.get("/api/workspaces/team/documents").status_code == 403
    with open_db(app) as db:
        for model in (Membership, KeySession, Invitation, NoteRevision, NoteEvent):
            left = db.scalar(
                select(func.count()).select_from(model).where(model.workspace_id == "team")
            )
            assert left == 0, model.__name__
        assert db.scalar(select(func.count()).select_from(NoteRevision)) > 0  # personal's
    tokens = alice_client.get("/api/tokens").json()
    tokens = tokens["tokens"] if isinstance(tokens, dict) else tokens
    assert [t["workspaceId"] for t in tokens] == ["personal"]
    # The id is free again.
    assert create(alice_client, "Team")["id"] == "team"
    assert alice_client.get("/api/workspaces/team/documents").json() in ([], {"documents": []})


def test_audit_lines_for_create_rename_delete(app, alice_client):
    stream = []
    handler = logging.Handler()
    handler.emit = lambda record: stream.append(record)  # type: ignore[method-assign]
    audit = logging.getLogger("ambient.audit")
    audit.addHandler(handler)
    try:
        made = create(alice_client, "Audit Me")
        alice_client.patch(f"/api/workspaces/{made['id']}", json={"name": "Renamed"})
        alice_client.request("DELETE", f"/api/workspaces/{made['id']}", json={"confirm": "Renamed"})
    finally:
        audit.removeHandler(handler)
    from backend.logging import JsonFormatter

    lines = [json.loads(JsonFormatter().format(r)) for r in stream]
    alice = app.state.test_user_ids["alice"]
    assert [(line["action"], line["actor"], line["workspace"]) for line in lines] == [
        ("workspace.create", alice, "audit-me"),
        ("workspace.rename", alice, "audit-me"),
        ("workspace.delete", alice, "audit-me"),
    ]
    assert all(line["logger"] == "ambient.audit" for line in lines)


def test_deleting_a_workspace_resets_every_open_stream_of_it(app_factory):
    app = app_factory(events_keepalive_seconds=0.5)
    seed_world(app)
    live = Live(app)
    streams: list[Stream] = []
    try:
        alice, bob = live.client("alice"), live.client("bob")
        for client, ws in ((alice, "team"), (bob, "team"), (bob, "bob-notes")):
            s = Stream(live.url, ws, client.cookies)
            streams.append(s)
            assert s.status == 200
            first = s.next(timeout=10)
            assert first is not END and first.comment == "connected"
        response = alice.request("DELETE", "/api/workspaces/team", json={"confirm": "Team"})
        assert response.status_code == 204
        for s in streams[:2]:
            assert s.next_event().event == "reset"
            s.wait_end(timeout=10)
        bob.put("/api/workspaces/bob-notes/documents/b.md", content=b"b")
        assert streams[2].next_event().json()["path"] == "b.md"
    finally:
        for s in streams:
            s.close()
        live.stop()
