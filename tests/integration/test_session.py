"""Sign-in, sign-out and the session cookie."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import PASSWORDS, TEST_SECRET, open_db, seed_world, sign_in
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from backend.api.deps import SESSION_COOKIE
from backend.models import UserSession
from backend.services.sessions import token_id


def _cookie_header(response) -> str:
    headers = [v for k, v in response.headers.multi_items() if k.lower() == "set-cookie"]
    assert len(headers) == 1, headers
    return headers[0]


def test_sign_in_sets_httponly_lax_cookie_backed_by_a_row(client, db_session):
    response = client.post("/api/session", json={"username": "alice", "password": "alice-password"})
    assert response.status_code == 200
    assert response.json() == {"username": "alice", "admin": True}
    cookie = _cookie_header(response)
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    assert "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()
    assert "Secure" not in cookie  # plain http test server
    token = client.cookies[SESSION_COOKIE]
    row_id = token_id(token, TEST_SECRET)
    row = db_session.scalar(select(UserSession).where(UserSession.id == row_id))
    assert row is not None
    # The raw token is never stored.
    assert db_session.scalar(select(UserSession).where(UserSession.id == token)) is None
    assert client.get("/api/session").json() == {"username": "alice", "admin": True}


def test_cookie_is_secure_over_https(app):
    https = TestClient(app, base_url="https://testserver")
    assert "Secure" in _cookie_header(
        https.post("/api/session", json={"username": "bob", "password": "bob-password"})
    )


BOB = {"username": "bob", "password": "bob-password"}
HTTPS_PROXY = {"X-Forwarded-Proto": "https"}


def test_cookie_is_secure_behind_a_tls_proxy(app_factory):
    app = app_factory(trusted_proxies="127.0.0.1, 10.0.0.0/8")
    seed_world(app)
    for peer in ("127.0.0.1", "10.1.2.3"):
        proxy = TestClient(app, client=(peer, 1234))
        response = proxy.post("/api/session", json=BOB, headers=HTTPS_PROXY)
        assert "Secure" in _cookie_header(response), peer
        # A trusted proxy saying plain http is believed too.
        plain = proxy.post("/api/session", json=BOB, headers={"X-Forwarded-Proto": "http"})
        assert "Secure" not in _cookie_header(plain), peer


@pytest.mark.parametrize("trusted", ["", "127.0.0.1, 10.0.0.0/8"])
def test_x_forwarded_proto_from_an_untrusted_peer_is_ignored(app_factory, trusted):
    # No trusted proxies (the default), or a list the peer is not in: anyone could send it.
    app = app_factory(trusted_proxies=trusted)
    seed_world(app)
    for peer in (("203.0.113.5", 1234), ("testclient", 50000)):
        response = TestClient(app, client=peer).post("/api/session", json=BOB, headers=HTTPS_PROXY)
        assert response.status_code == 200
        assert "Secure" not in _cookie_header(response), (trusted, peer)


def test_cookie_secure_setting_forces_it(app_factory):
    app = app_factory(cookie_secure=True)
    seed_world(app)
    response = TestClient(app).post(
        "/api/session", json={"username": "alice", "password": "alice-password"}
    )
    assert "Secure" in _cookie_header(response)


def test_wrong_password_and_unknown_user_get_the_same_401(client):
    wrong = client.post("/api/session", json={"username": "alice", "password": "nope"})
    unknown = client.post("/api/session", json={"username": "mallory", "password": "nope"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert isinstance(wrong.json()["detail"], str)
    assert SESSION_COOKIE not in client.cookies


def test_sign_in_body_errors_are_plain_json(client):
    for body in (
        {},
        {"username": "alice"},
        {"username": "", "password": "x"},
        {"username": "a" * 65, "password": "x"},
        {"username": 5, "password": []},
    ):
        response = client.post("/api/session", json=body)
        assert response.status_code == 422, body
        assert isinstance(response.json()["detail"], str)
    response = client.post(
        "/api/session", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert isinstance(response.json()["detail"], str)


def test_sign_out_deletes_the_row_and_clears_the_cookie(alice_client, db_session):
    token = alice_client.cookies[SESSION_COOKIE]
    response = alice_client.delete("/api/session")
    assert response.status_code == 204
    cleared = _cookie_header(response)
    assert cleared.startswith(f'{SESSION_COOKIE}=""') or "Max-Age=0" in cleared
    assert db_session.get(UserSession, token_id(token, TEST_SECRET)) is None
    assert alice_client.get("/api/session").status_code == 401
    # The old token is dead even if a client keeps sending it.
    replay = TestClient(alice_client.app, cookies={SESSION_COOKIE: token})
    assert replay.get("/api/workspaces").status_code == 401


def test_sign_out_without_a_session_is_401(client):
    assert client.delete("/api/session").status_code == 401


def test_signing_in_again_replaces_the_old_session(alice_client, db_session):
    old = alice_client.cookies[SESSION_COOKIE]
    sign_in(alice_client, "alice")
    assert alice_client.cookies[SESSION_COOKIE] != old
    assert db_session.get(UserSession, token_id(old, TEST_SECRET)) is None


def test_expired_session_is_401(alice_client, db_session):
    db_session.execute(
        update(UserSession).values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
    )
    db_session.commit()
    response = alice_client.get("/api/workspaces")
    assert response.status_code == 401
    assert "sign in" in response.json()["detail"].lower()


def test_a_workspace_route_checks_the_sign_in_before_the_membership(alice_client, db_session):
    # Workspace routes look up the sign-in and the membership in one query: an expired
    # sign-in is still 401 (sign in again), never 403, even for a workspace alice is in.
    notes = "/api/workspaces/personal/documents"
    assert alice_client.get(notes).status_code == 200
    assert alice_client.get("/api/workspaces/bob-notes/documents").status_code == 403
    assert alice_client.get("/api/workspaces/no-such/documents").status_code == 403
    assert alice_client.get("/api/workspaces/%00/documents").status_code == 403
    db_session.execute(
        update(UserSession).values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
    )
    db_session.commit()
    for url in (notes, "/api/workspaces/bob-notes/documents"):
        response = alice_client.get(url)
        assert response.status_code == 401, url
        assert "sign in" in response.json()["detail"].lower()


def test_garbage_cookie_is_401(app):
    client = TestClient(app)
    for value in (b"", b"x", b"a" * 5000, "\u00e9t\u00e9".encode(), b"\xff\xfe", b'"quoted"'):
        cookie = SESSION_COOKIE.encode() + b"=" + value
        response = client.get("/api/session", headers={"Cookie": cookie})
        assert response.status_code == 401, value


def test_sessions_are_per_user(alice_client, bob_client):
    assert alice_client.get("/api/session").json() == {"username": "alice", "admin": True}
    assert bob_client.get("/api/session").json() == {"username": "bob", "admin": False}
    assert set(PASSWORDS) == {"alice", "bob"}


def test_a_password_hash_made_with_older_parameters_is_upgraded_at_sign_in(app_factory):
    """argon2id at the product's parameters (users.HASH_PARAMETERS); a hash stored with
    others (argon2-cffi's defaults, as accounts made before had) is replaced on sign-in."""
    from argon2 import PasswordHasher

    from backend.models import User
    from backend.services.users import HASH_PARAMETERS, Passwords, default_hasher

    app = app_factory()
    app.state.passwords = Passwords()  # the production hasher, not the tests' cheap one
    seed_world(app)
    old = PasswordHasher().hash("alice-password")
    with open_db(app) as db:
        db.execute(update(User).where(User.username == "alice").values(password_hash=old))
        db.commit()
    sign_in(TestClient(app), "alice")
    with open_db(app) as db:
        stored = db.scalar(select(User.password_hash).where(User.username == "alice"))
    assert stored != old and stored.startswith("$argon2id$")
    assert not default_hasher().check_needs_rehash(stored)
    assert f"$m={HASH_PARAMETERS['memory_cost']},t={HASH_PARAMETERS['time_cost']},p=1$" in stored
    sign_in(TestClient(app), "alice")  # and the upgraded hash still signs in
