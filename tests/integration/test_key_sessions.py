"""Key sessions: members only, with an expiry; `get_valid` is what the agent relies on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conftest import seed_world, sign_in
from fastapi.testclient import TestClient

from backend.models import KeySession
from backend.services import key_sessions


def test_member_opens_a_key_session_with_an_expiry(alice_client, db_session):
    before = datetime.now(UTC)
    response = alice_client.post("/api/workspaces/personal/key-sessions")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "expiresAt"}
    expires = datetime.fromisoformat(body["expiresAt"])
    assert timedelta(minutes=59) < expires - before <= timedelta(minutes=61)
    row = db_session.get(KeySession, body["id"])
    assert row.workspace_id == "personal" and row.expires_at == expires
    assert len(body["id"]) >= 40  # unguessable


def test_each_call_opens_a_new_key_session(alice_client):
    first = alice_client.post("/api/workspaces/team/key-sessions").json()["id"]
    second = alice_client.post("/api/workspaces/team/key-sessions").json()["id"]
    assert first != second


def test_non_member_and_unknown_workspace_get_403(alice_client, bob_client, db_session):
    assert alice_client.post("/api/workspaces/bob-notes/key-sessions").status_code == 403
    assert alice_client.post("/api/workspaces/nowhere/key-sessions").status_code == 403
    assert db_session.query(KeySession).count() == 0
    assert bob_client.post("/api/workspaces/bob-notes/key-sessions").status_code == 201


def test_ttl_setting_is_used(app_factory):
    app = app_factory(key_session_ttl_minutes=5)
    seed_world(app)
    client = sign_in(TestClient(app), "alice")
    expires = client.post("/api/workspaces/personal/key-sessions").json()["expiresAt"]
    delta = datetime.fromisoformat(expires) - datetime.now(UTC)
    assert timedelta(minutes=4) < delta <= timedelta(minutes=5)


def test_get_valid_checks_owner_workspace_and_expiry(app, alice_client, db_session):
    ids = app.state.test_user_ids
    key_id = alice_client.post("/api/workspaces/team/key-sessions").json()["id"]
    now = datetime.now(UTC)

    def valid(**overrides):
        args = {
            "key_session_id": key_id,
            "user_id": ids["alice"],
            "workspace_id": "team",
            "now": now,
        }
        args.update(overrides)
        return key_sessions.get_valid(db_session, **args)

    assert valid().id == key_id
    assert valid(user_id=ids["bob"]) is None  # bob is a team member, but it is alice's key
    assert valid(workspace_id="personal") is None
    assert valid(key_session_id="nope") is None
    assert valid(key_session_id="") is None
    assert valid(key_session_id="x" * 500) is None
    assert valid(now=now + timedelta(minutes=61)) is None  # expired


def test_expired_key_sessions_are_cleaned_up(app, alice_client, db_session):
    old = alice_client.post("/api/workspaces/team/key-sessions").json()["id"]
    db_session.query(KeySession).filter_by(id=old).update(
        {"expires_at": datetime.now(UTC) - timedelta(minutes=1)}
    )
    db_session.commit()
    alice_client.post("/api/workspaces/team/key-sessions")
    db_session.expire_all()
    assert db_session.get(KeySession, old) is None
