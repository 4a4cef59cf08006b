"""A user's own account (SPEC §17): password change and the list of sign-ins, on both
databases; audit lines; the throttle counts wrong current passwords."""

from __future__ import annotations

import pytest
from conftest import PASSWORDS, open_db, sign_in
from fastapi.testclient import TestClient
from live_helpers import Live
from people_helpers import audited
from sqlalchemy import func, select

from backend.models import KeySession, UserSession

NEW = "a-brand-new-password"


def count(app, model, **where) -> int:
    with open_db(app) as db:
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return db.scalar(query)


def test_password_change_ends_every_other_sign_in_and_keeps_this_one(app, audit):
    alice_id = app.state.test_user_ids["alice"]
    here = sign_in(TestClient(app), "alice")
    elsewhere = sign_in(TestClient(app), "alice")
    assert elsewhere.post("/api/workspaces/team/key-sessions").status_code in (200, 201)
    bob = sign_in(TestClient(app), "bob")

    r = here.put("/api/account/password", json={"current": PASSWORDS["alice"], "new": NEW})
    assert r.status_code == 204, r.text
    assert here.get("/api/session").status_code == 200  # this sign-in goes on
    assert elsewhere.get("/api/session").status_code == 401  # the other one ended
    assert bob.get("/api/session").status_code == 200  # other users are untouched
    assert count(app, UserSession, user_id=alice_id) == 1
    assert count(app, KeySession, user_id=alice_id) == 0  # opened under the ended sign-in

    fresh = TestClient(app)
    old = {"username": "alice", "password": PASSWORDS["alice"]}
    assert fresh.post("/api/session", json=old).status_code == 401
    assert (
        fresh.post("/api/session", json={"username": "alice", "password": NEW}).status_code == 200
    )
    [line] = [f for f in audited(audit) if f["action"] == "password changed"]
    assert line["actor"] == line["target"] == "alice" and line["sign_ins_ended"] == 1
    rendered = " ".join(str(r.fields) + r.getMessage() for r in audit)
    assert NEW not in rendered and PASSWORDS["alice"] not in rendered


def test_wrong_current_password_is_403_and_counts_as_a_failed_sign_in(app):
    alice = sign_in(TestClient(app), "alice")
    wrong = {"current": "not-the-password", "new": NEW}
    for _ in range(5):
        r = alice.put("/api/account/password", json=wrong)
        assert r.status_code == 403, r.text
        assert r.json()["detail"] == "The current password is not correct."
    r = alice.put("/api/account/password", json=wrong)
    assert r.status_code == 429 and r.headers["Retry-After"]
    # The username's failures also hold back sign-in itself.
    r = TestClient(app).post(
        "/api/session", json={"username": "alice", "password": PASSWORDS["alice"]}
    )
    assert r.status_code == 429
    assert alice.get("/api/session").status_code == 200  # nothing changed, nothing ended


@pytest.mark.parametrize("new", ["short", "alice"])
def test_a_new_password_breaking_the_rules_is_422(alice_client, new):
    r = alice_client.put("/api/account/password", json={"current": PASSWORDS["alice"], "new": new})
    assert r.status_code == 422
    assert "at least 10 characters" in r.json()["detail"]


def test_password_change_needs_a_sign_in(client):
    r = client.put("/api/account/password", json={"current": "x", "new": NEW})
    assert r.status_code == 401


def test_sign_ins_are_listed_with_a_public_id_and_this_one_marked(app):
    phone = TestClient(app, headers={"User-Agent": "Phone browser 1.0"})
    sign_in(phone, "alice")
    laptop = TestClient(app, headers={"User-Agent": "Laptop browser 2.0"})
    sign_in(laptop, "alice")
    r = laptop.get("/api/account/sessions")
    assert r.status_code == 200
    sessions = r.json()["sessions"]
    assert len(sessions) == 2
    for s in sessions:
        assert set(s) == {"id", "createdAt", "lastSeenAt", "userAgent", "current"}
        assert len(s["id"]) == 16
    by_agent = {s["userAgent"]: s for s in sessions}
    assert by_agent["Laptop browser 2.0"]["current"] is True
    assert by_agent["Phone browser 1.0"]["current"] is False
    with open_db(app) as db:
        row_ids = set(db.scalars(select(UserSession.id)))
    cookie_tokens = {phone.cookies["ana_session"], laptop.cookies["ana_session"]}
    for s in sessions:  # neither the row id nor the cookie is shown
        assert s["id"] not in row_ids and not any(s["id"] in v for v in row_ids | cookie_tokens)
    # bob sees only his own
    bob = sign_in(TestClient(app), "bob")
    assert len(bob.get("/api/account/sessions").json()["sessions"]) == 1


def test_ending_one_sign_in_by_its_id(app, audit):
    phone = sign_in(TestClient(app, headers={"User-Agent": "phone"}), "alice")
    laptop = sign_in(TestClient(app, headers={"User-Agent": "laptop"}), "alice")
    bob = sign_in(TestClient(app), "bob")
    listed = laptop.get("/api/account/sessions").json()["sessions"]
    phone_id = next(s["id"] for s in listed if s["userAgent"] == "phone")
    bob_id = bob.get("/api/account/sessions").json()["sessions"][0]["id"]

    assert laptop.delete(f"/api/account/sessions/{bob_id}").status_code == 404  # not hers
    assert bob.get("/api/session").status_code == 200
    assert laptop.delete("/api/account/sessions/0123456789abcdef").status_code == 404
    assert laptop.delete(f"/api/account/sessions/{phone_id}").status_code == 204
    assert phone.get("/api/session").status_code == 401
    assert laptop.get("/api/session").status_code == 200
    assert laptop.delete(f"/api/account/sessions/{phone_id}").status_code == 404
    assert [s["userAgent"] for s in laptop.get("/api/account/sessions").json()["sessions"]] == [
        "laptop"
    ]
    assert "sign-in ended" in [f["action"] for f in audited(audit)]


def test_ending_every_other_sign_in(app, audit):
    clients = [sign_in(TestClient(app), "alice") for _ in range(3)]
    for c in clients:
        assert c.post("/api/workspaces/personal/key-sessions").status_code in (200, 201)
    bob = sign_in(TestClient(app), "bob")
    assert clients[0].delete("/api/account/sessions").status_code == 204
    assert [c.get("/api/session").status_code for c in clients] == [200, 401, 401]
    assert bob.get("/api/session").status_code == 200
    alice_id = app.state.test_user_ids["alice"]
    assert count(app, KeySession, user_id=alice_id) == 1  # the one under the kept sign-in
    [line] = [f for f in audited(audit) if f["action"] == "other sign-ins ended"]
    assert line["count"] == 2 and line["actor"] == "alice"
    assert clients[0].get("/api/account/sessions").json()["sessions"][0]["current"] is True


def test_account_routes_need_a_sign_in(client):
    assert client.get("/api/account/sessions").status_code == 401
    assert client.delete("/api/account/sessions").status_code == 401
    assert client.delete("/api/account/sessions/0123456789abcdef").status_code == 401


def test_ended_sign_ins_close_their_event_streams(app_factory):
    from conftest import seed_world
    from test_events import stream

    app = app_factory(events_keepalive_seconds=0.5)
    seed_world(app)
    live = Live(app)
    try:
        here, there = live.client("alice"), live.client("alice")
        kept, ended = stream(live, here), stream(live, there)
        try:
            body = {"current": PASSWORDS["alice"], "new": NEW}
            assert here.put("/api/account/password", json=body).status_code == 204
            ended.wait_end(timeout=10)
            here.put("/api/workspaces/team/documents/z.md", content=b"z")
            assert kept.next_event().json()["path"] == "z.md"
        finally:
            kept.close()
            ended.close()
    finally:
        live.stop()
