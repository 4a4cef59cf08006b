"""The --demo seed: exactly SPEC §6's users and workspaces, notes worth trying, idempotent."""

from __future__ import annotations

from conftest import open_db
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from backend.models import Document, Membership, User, Workspace
from backend.seed import long_reference_note


def _demo_app(app_factory):
    app = app_factory(demo=True)
    return app


def _signed_in(app, username):
    client = TestClient(app)
    response = client.post("/api/session", json={"username": username, "password": username})
    assert response.status_code == 200
    return client


def test_demo_users_workspaces_and_memberships(app_factory):
    app = _demo_app(app_factory)
    with open_db(app) as db:
        assert sorted(db.scalars(select(User.username))) == ["alice", "bob"]
        assert {w.id: w.name for w in db.scalars(select(Workspace))}.keys() == {
            "personal",
            "team",
            "bob-notes",
        }
        members = {(m.workspace_id, m.user_id) for m in db.scalars(select(Membership))}
        ids = {u.username: u.id for u in db.scalars(select(User))}
        assert members == {
            ("personal", ids["alice"]),
            ("team", ids["alice"]),
            ("team", ids["bob"]),
            ("bob-notes", ids["bob"]),
        }
    # The demo passwords are the usernames, hashed with argon2.
    alice = _signed_in(app, "alice")
    assert [w["id"] for w in alice.get("/api/workspaces").json()] == ["personal", "team"]
    bob = _signed_in(app, "bob")
    assert [w["id"] for w in bob.get("/api/workspaces").json()] == ["bob-notes", "team"]
    with open_db(app) as db:
        assert db.scalar(select(User.password_hash).where(User.username == "alice")).startswith(
            "$argon2id$"
        )


def test_demo_notes_are_worth_trying(app_factory):
    app = _demo_app(app_factory)
    alice = _signed_in(app, "alice")
    listing = {d["path"]: d for d in alice.get("/api/workspaces/personal/documents").json()}
    assert {
        "welcome.md",
        "todo.md",
        "日記/今日のメモ.md",
        "projects/roadmap.md",
        "reference/long-notes.md",
    } <= set(listing)

    japanese = alice.get("/api/workspaces/personal/documents/日記/今日のメモ.md").text
    assert japanese.startswith("# ") and "- [ ]" in japanese and "## " in japanese
    assert any("\u3040" <= ch <= "\u30ff" for ch in japanese)

    todo = alice.get("/api/workspaces/personal/documents/todo.md").text
    assert "- [ ] " in todo and "- [x] " in todo

    long_note = listing["reference/long-notes.md"]
    assert long_note["bytes"] > 64 * 1024
    text = alice.get("/api/workspaces/personal/documents/reference/long-notes.md").text
    assert len(text.encode()) == long_note["bytes"] and text.count("\n## ") > 20

    # Some note has headings nested at least three levels deep (for the mind map).
    depths = set()
    for path in listing:
        body = alice.get(f"/api/workspaces/personal/documents/{path}").text
        depths |= {
            len(line) - len(line.lstrip("#")) for line in body.splitlines() if line.startswith("#")
        }
    assert {1, 2, 3} <= depths

    for ws, client in (("team", alice), ("bob-notes", _signed_in(app, "bob"))):
        assert len(client.get(f"/api/workspaces/{ws}/documents").json()) >= 2


def test_long_note_is_deterministic():
    assert long_reference_note() == long_reference_note()


def test_seed_is_idempotent_and_respects_user_changes(app_factory):
    first = _demo_app(app_factory)
    alice = _signed_in(first, "alice")
    assert alice.delete("/api/workspaces/personal/documents/welcome.md").status_code == 204
    with open_db(first) as db:
        counts = (
            db.scalar(select(func.count()).select_from(User)),
            db.scalar(select(func.count()).select_from(Document)),
        )

    second = _demo_app(app_factory)  # a restart on the same database
    with open_db(second) as db:
        assert (
            db.scalar(select(func.count()).select_from(User)),
            db.scalar(select(func.count()).select_from(Document)),
        ) == counts
        assert db.scalar(select(Document).where(Document.path == "welcome.md")) is None


def test_no_seed_outside_demo(app_factory):
    app = app_factory()
    with open_db(app) as db:
        assert db.scalar(select(func.count()).select_from(User)) == 0


def test_a_second_seeder_that_loses_the_race_backs_off(app_factory, monkeypatch):
    """Two instances starting together: the one whose inserts collide seeds nothing, no crash."""
    from backend import seed
    from backend.services.users import Passwords

    app = app_factory(demo=True)
    with open_db(app) as db:
        before = db.scalar(select(func.count()).select_from(Document))
    monkeypatch.setattr(seed, "_has_users", lambda db: False)  # it looked empty a moment ago
    with open_db(app) as db:
        assert seed.seed_demo(db, passwords=Passwords()) is False
    with open_db(app) as db:
        assert db.scalar(select(func.count()).select_from(User)) == 2
        assert db.scalar(select(func.count()).select_from(Document)) == before


def test_the_demo_notes_history_names_the_demo_not_a_member(app_factory):
    """Issue 34: a seeded note's one revision has no user; its source says it is the demo's
    (kind page, name "demo", action create), so History words it as the demo's sample."""
    app = _demo_app(app_factory)
    alice = _signed_in(app, "alice")
    reply = alice.get("/api/workspaces/personal/documents/todo.md/revisions")
    assert reply.status_code == 200
    (first,) = reply.json()["revisions"]
    assert first["source"] == {"kind": "page", "name": "demo"}
    assert first["action"] == "create"
    assert not first.get("user") and not first.get("byYou")
