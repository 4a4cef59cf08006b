"""Two app instances on one PostgreSQL database share sessions, documents and delivery rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conftest import TEST_SECRET, cheap_passwords, seed_world, sign_in
from fastapi.testclient import TestClient

from backend.api.deps import SESSION_COOKIE
from backend.app import create_app
from backend.config import Settings
from backend.models import AgentDeliveryCredential, Conversation, KeySession


def _instance(pg_url, tmp_path, web_dir, name):
    app = create_app(
        Settings(
            database_url=pg_url,
            data_dir=tmp_path / name,
            secret_key=TEST_SECRET,
            web_dir=web_dir,
            allowed_hosts="testserver",
        )
    )
    app.state.passwords = cheap_passwords()
    return app


def test_two_instances_share_state(pg_url, tmp_path, fake_web_dir):
    one = _instance(pg_url, tmp_path, fake_web_dir, "one")
    two = _instance(pg_url, tmp_path, fake_web_dir, "two")  # migrations already applied: no-op
    try:
        ids = seed_world(one)
        assert one.state.engine.url.database == two.state.engine.url.database

        # A session made through instance one works on instance two.
        c1 = sign_in(TestClient(one), "alice")
        c2 = TestClient(two, cookies={SESSION_COOKIE: c1.cookies[SESSION_COOKIE]})
        assert c2.get("/api/session").json() == {"username": "alice", "admin": True}

        # A document saved through one is read (and its revision respected) through two.
        url = "/api/workspaces/team/documents/shared.md"
        assert c1.put(url, content="from one").status_code == 201
        got = c2.get(url)
        assert got.text == "from one" and got.headers["etag"] == '"1"'
        assert c2.put(url, content="from two", headers={"If-Match": '"1"'}).status_code == 200
        assert c1.put(url, content="stale", headers={"If-Match": '"1"'}).status_code == 409
        assert c1.get(url).text == "from two"

        # A delivery row written through instance one's ORM is read through instance two's.
        key_id = c1.post("/api/workspaces/team/key-sessions").json()["id"]
        expires = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=15)
        with one.state.sessionmaker() as db:
            db.add(
                Conversation(
                    id="11111111-2222-4333-8444-555555555555",
                    user_id=ids["alice"],
                    workspace_id="team",
                )
            )
            db.flush()
            db.add(
                AgentDeliveryCredential(
                    conversation_id="11111111-2222-4333-8444-555555555555",
                    user_id=ids["alice"],
                    workspace_id="team",
                    key_session_id=key_id,
                    expires_at=expires,
                    ambient_path="shared.md",
                    ambient_view="edit",
                    ambient_meta='{"bytes": 8}',
                )
            )
            db.commit()
        with two.state.sessionmaker() as db:
            row = db.query(AgentDeliveryCredential).one()
            got = (row.user_id, row.workspace_id, row.key_session_id)
            assert got == (ids["alice"], "team", key_id)
            assert (row.ambient_path, row.ambient_view, row.ambient_meta) == (
                "shared.md",
                "edit",
                '{"bytes": 8}',
            )
            assert row.expires_at == expires and row.expires_at.tzinfo is not None
            assert db.get(KeySession, key_id) is not None

        # Signing out on two ends the session on one.
        assert c2.delete("/api/session").status_code == 204
        assert c1.get("/api/session").status_code == 401
    finally:
        one.state.engine.dispose()
        two.state.engine.dispose()
