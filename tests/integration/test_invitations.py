"""SPEC §17: invitation links, from an owner's hands to a new member, on both databases."""

from __future__ import annotations

import hashlib
import io
import json
import logging
from datetime import UTC, datetime, timedelta

import pytest
from conftest import open_db, sign_in
from fastapi.testclient import TestClient
from people_helpers import at_once
from sqlalchemy import func, select, update

from backend.api.deps import SESSION_COOKIE
from backend.logging import LOGGER_NAME, JsonFormatter
from backend.models import Membership, User
from backend.models.people import Invitation

NOT_VALID = (
    "This invitation link is not valid: it may have expired, been used up or been revoked. "
    "Ask for a new one."
)


def invite(client: TestClient, ws: str = "team", **body) -> tuple[dict, str]:
    """Create an invitation; (the answer, the secret from its URL)."""
    response = client.post(f"/api/workspaces/{ws}/invitations", json=body)
    assert response.status_code == 201, response.text
    made = response.json()
    return made, made["url"].split("#invite=", 1)[1]


def role_in(app, username: str, ws: str) -> str | None:
    with open_db(app) as db:
        return db.scalar(
            select(Membership.role)
            .join(User, User.id == Membership.user_id)
            .where(User.username == username, Membership.workspace_id == ws)
        )


def test_an_owner_creates_a_link_whose_secret_is_kept_only_hashed(app, alice_client):
    before = datetime.now(UTC)
    made, secret = invite(alice_client)
    assert set(made) == {"id", "url", "expiresAt"}
    assert made["url"] == f"http://testserver/#invite={secret}"
    assert len(secret) >= 40
    expires = datetime.fromisoformat(made["expiresAt"])
    assert (
        timedelta(days=7) - timedelta(minutes=1) < expires - before <= timedelta(days=7, minutes=1)
    )
    with open_db(app) as db:
        row = db.get(Invitation, made["id"])
        assert row.secret_sha256 == hashlib.sha256(secret.encode()).hexdigest()
        assert (row.role, row.max_uses, row.uses, row.revoked_at) == ("editor", 1, 0, None)
        assert secret not in repr([getattr(row, c.key) for c in Invitation.__table__.columns])
    listed = alice_client.get("/api/workspaces/team/invitations")
    assert secret not in listed.text
    (item,) = listed.json()["invitations"]
    assert item == {
        "id": made["id"],
        "role": "editor",
        "expiresAt": item["expiresAt"],
        "maxUses": 1,
        "uses": 0,
        "invitedBy": "alice",
        "createdAt": item["createdAt"],
    }
    assert datetime.fromisoformat(item["expiresAt"]) == expires


def test_role_days_and_uses_are_checked(alice_client):
    invite(alice_client, role="reader", expiresInDays=1, maxUses=100)
    item = alice_client.get("/api/workspaces/team/invitations").json()["invitations"][0]
    assert (item["role"], item["maxUses"]) == ("reader", 100)
    for body in (
        {"role": "admin"},
        {"expiresInDays": 0},
        {"expiresInDays": 8},
        {"expiresInDays": True},
        {"expiresInDays": "7"},
        {"maxUses": 0},
        {"maxUses": 101},
        {"maxUses": 1.5},
    ):
        response = alice_client.post("/api/workspaces/team/invitations", json=body)
        assert response.status_code == 422, (body, response.text)
        assert isinstance(response.json()["detail"], str)
    for content in (b"{", b"[]", b"\xff"):
        response = alice_client.post(
            "/api/workspaces/team/invitations",
            content=content,
            headers={"Content-Type": "application/json"},
        )
        assert 400 <= response.status_code < 500


def test_only_owners_manage_invitations(app, alice_client, bob_client):
    made, _secret = invite(alice_client)
    assert bob_client.post("/api/workspaces/team/invitations", json={}).status_code == 403
    assert bob_client.get("/api/workspaces/team/invitations").status_code == 403
    assert bob_client.delete(f"/api/workspaces/team/invitations/{made['id']}").status_code == 403
    assert alice_client.post("/api/workspaces/bob-notes/invitations", json={}).status_code == 403
    assert TestClient(app).post("/api/workspaces/team/invitations", json={}).status_code == 401


def test_reading_a_link_needs_no_sign_in(app, alice_client):
    made, secret = invite(alice_client, role="reader")
    response = TestClient(app).get(f"/api/invitations/{secret}")
    assert response.status_code == 200
    assert response.json() == {
        "workspace": "Team",
        "workspaceId": "team",
        "role": "reader",
        "invitedBy": "alice",
        "expiresAt": made["expiresAt"],
    }


def test_unknown_used_up_revoked_and_expired_links_say_the_same(app, alice_client):
    client = TestClient(app)
    _used, used_secret = invite(alice_client)
    revoked, revoked_secret = invite(alice_client)
    expired, expired_secret = invite(alice_client)
    new = {"username": "carol", "password": "carol-password"}
    assert client.post(f"/api/invitations/{used_secret}/accept", json=new).status_code == 201
    assert (
        alice_client.delete(f"/api/workspaces/team/invitations/{revoked['id']}").status_code == 204
    )
    with open_db(app) as db:
        db.execute(
            update(Invitation)
            .where(Invitation.id == expired["id"])
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        db.commit()
    # 16 failures: under the address's limit of 20 a minute.
    for secret in (used_secret, revoked_secret, expired_secret, "nope"):
        for response in (
            TestClient(app).get(f"/api/invitations/{secret}"),
            alice_client.get(f"/api/invitations/{secret}"),
            alice_client.post(f"/api/invitations/{secret}/accept"),
            TestClient(app).post(
                f"/api/invitations/{secret}/accept",
                json={"username": "dave", "password": "dave-password"},
            ),
        ):
            assert response.status_code == 404, (secret, response.text)
            assert response.json() == {"detail": NOT_VALID}
    # None of those made an account or listed a dead link.
    with open_db(app) as db:
        assert db.scalar(select(func.count()).select_from(User)) == 3
    assert alice_client.get("/api/workspaces/team/invitations").json() == {"invitations": []}


@pytest.mark.parametrize("secret", ["x" * 1000, "a%00b", "%F0%9F%92%A9", "a b", "%ED%A0%80"])
def test_odd_secrets_are_404(app, secret):
    for response in (
        TestClient(app).get(f"/api/invitations/{secret}"),
        TestClient(app).post(
            f"/api/invitations/{secret}/accept",
            json={"username": "dave", "password": "dave-password"},
        ),
    ):
        assert response.status_code == 404, (secret, response.text)
        assert response.json() == {"detail": NOT_VALID}


def test_revoking_an_unknown_or_foreign_invitation_is_404(alice_client, bob_client):
    bobs, _secret = invite(bob_client, "bob-notes")
    for invitation_id in ("nope", bobs["id"], "x" * 500):
        response = alice_client.delete(f"/api/workspaces/team/invitations/{invitation_id}")
        assert response.status_code == 404
    assert bob_client.get("/api/workspaces/bob-notes/invitations").json()["invitations"]


def test_a_signed_in_user_joins_and_a_member_keeps_the_higher_role(app, alice_client, bob_client):
    _made, secret = invite(bob_client, "bob-notes", role="reader", maxUses=5)
    response = alice_client.post(f"/api/invitations/{secret}/accept")
    assert response.status_code == 200
    assert response.json() == {"workspaceId": "bob-notes", "role": "reader"}
    assert {"id": "bob-notes", "name": "Bob's notes", "role": "reader"} in alice_client.get(
        "/api/workspaces"
    ).json()
    # bob (an editor of team) accepting a reader link stays an editor; an owner link lifts him.
    _made, reader_link = invite(alice_client, role="reader")
    response = bob_client.post(f"/api/invitations/{reader_link}/accept")
    assert response.json() == {"workspaceId": "team", "role": "editor"}
    _made, owner_link = invite(alice_client, role="owner")
    response = bob_client.post(f"/api/invitations/{owner_link}/accept")
    assert response.json() == {"workspaceId": "team", "role": "owner"}
    assert role_in(app, "bob", "team") == "owner"


def test_a_signed_out_visitor_creates_an_account_and_is_signed_in(app, alice_client):
    _made, secret = invite(alice_client, role="reader", maxUses=2)
    visitor = TestClient(app)
    response = visitor.post(
        f"/api/invitations/{secret}/accept",
        json={"username": "carol", "password": "carol-password"},
    )
    assert response.status_code == 201, response.text
    assert response.json() == {"workspaceId": "team", "role": "reader"}
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()
    assert visitor.get("/api/session").json() == {"username": "carol", "admin": False}
    assert visitor.get("/api/workspaces").json() == [
        {"id": "team", "name": "Team", "role": "reader"}
    ]
    # The account signs in with its password too.
    sign_in(TestClient(app), "carol", "carol-password")
    item = alice_client.get("/api/workspaces/team/invitations").json()["invitations"][0]
    assert item["uses"] == 1


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"username": "bob", "password": "long-enough-1"}, 409),
        ({"username": "Carol", "password": "long-enough-1"}, 422),
        ({"username": "carol", "password": "short"}, 422),
        ({"username": "carol", "password": "carol"}, 422),
        ({"username": "", "password": "long-enough-1"}, 422),
        ({"username": "carol"}, 422),
        ({"username": "a\u0000b", "password": "long-enough-1"}, 422),
    ],
)
def test_a_refused_account_changes_nothing(app, alice_client, body, status):
    _made, secret = invite(alice_client)
    response = TestClient(app).post(f"/api/invitations/{secret}/accept", json=body)
    assert response.status_code == status, response.text
    assert isinstance(response.json()["detail"], str)
    assert "set-cookie" not in response.headers
    with open_db(app) as db:
        assert db.scalar(select(func.count()).select_from(User)) == 2
    assert (
        alice_client.get("/api/workspaces/team/invitations").json()["invitations"][0]["uses"] == 0
    )


def test_signed_out_without_an_account_is_401(app, alice_client):
    _made, secret = invite(alice_client)
    response = TestClient(app).post(f"/api/invitations/{secret}/accept")
    assert response.status_code == 401
    assert TestClient(app).get(f"/api/invitations/{secret}").status_code == 200  # not used


def test_two_accepts_of_a_one_use_link_never_both_win(app, alice_client):
    extra = [f"user{n}" for n in range(4)]
    from backend.services import users

    with open_db(app) as db:
        for name in extra:
            users.create_user(
                db, username=name, password=f"{name}-password", passwords=app.state.passwords
            )
    clients = [sign_in(TestClient(app), name, f"{name}-password") for name in extra]
    winners: set[int] = set()
    for _round in range(3):
        _made, secret = invite(alice_client)
        responses = at_once(
            *(lambda c=c, s=secret: c.post(f"/api/invitations/{s}/accept") for c in clients)
        )
        statuses = [r.status_code for r in responses]
        winners |= {i for i, r in enumerate(responses) if r.status_code == 200}
        assert sorted(statuses) == [200] + [404] * (len(clients) - 1), statuses
    with open_db(app) as db:
        joined = db.scalar(
            select(func.count())
            .select_from(Membership)
            .join(User, User.id == Membership.user_id)
            .where(Membership.workspace_id == "team", User.username.in_(extra))
        )
        assert joined == len(winners)
        assert set(db.scalars(select(Invitation.uses))) == {1}


def test_link_failures_from_one_address_are_throttled(app, alice_client):
    client = TestClient(app)
    for n in range(20):
        assert client.get(f"/api/invitations/guess-{n}").status_code == 404
    response = client.get("/api/invitations/guess-20")
    assert response.status_code == 429
    assert int(response.headers["retry-after"]) >= 1
    assert isinstance(response.json()["detail"], str)
    _made, secret = invite(alice_client)
    # The limit is the address's, for valid links too, and for accepting.
    assert client.get(f"/api/invitations/{secret}").status_code == 429
    assert client.post(f"/api/invitations/{secret}/accept").status_code == 429
    # Signing in keeps its own count.
    sign_in(TestClient(app), "bob")


def test_successes_do_not_count(app, alice_client):
    _made, secret = invite(alice_client)
    client = TestClient(app)
    for _n in range(30):
        assert client.get(f"/api/invitations/{secret}").status_code == 200


def test_audit_lines_and_the_secret_never_logged(app, alice_client, caplog):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(LOGGER_NAME)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    caplog.set_level(logging.DEBUG)
    try:
        made, secret = invite(alice_client, role="reader", maxUses=2)
        alice_client.get("/api/workspaces/team/invitations")
        visitor = TestClient(app)
        visitor.get(f"/api/invitations/{secret}")
        visitor.post(
            f"/api/invitations/{secret}/accept",
            json={"username": "carol", "password": "carol-password"},
        )
        visitor.post(f"/api/invitations/{secret}/accept")  # an existing member: keeps reader
        TestClient(app).get(f"/api/invitations/{secret}x")
        alice_client.delete(f"/api/workspaces/team/invitations/{made['id']}")
        TestClient(app).get(f"/api/invitations/{secret}")  # revoked: 404
    finally:
        logger.removeHandler(handler)
    ours = stream.getvalue()
    server_side = [
        caplog.handler.format(r) for r in caplog.records if not r.name.startswith("httpx")
    ]
    assert secret not in ours + "\n".join(server_side)
    assert "carol-password" not in ours + "\n".join(server_side)
    records = [json.loads(line) for line in ours.splitlines()]
    audit = [r for r in records if r["logger"] == "ambient.audit"]
    ids = app.state.test_user_ids
    with open_db(app) as db:
        carol = db.scalar(select(User.id).where(User.username == "carol"))
    assert [
        (r["action"], r["actor"], r["workspace"], r.get("target"), r.get("role")) for r in audit
    ] == [
        ("invitation.create", ids["alice"], "team", None, "reader"),
        ("invitation.accept", carol, "team", "carol", "reader"),
        ("invitation.accept", carol, "team", "carol", "reader"),
        ("invitation.revoke", ids["alice"], "team", None, None),
    ]


def test_two_new_accounts_racing_for_a_one_use_link_leave_one_account(app, alice_client):
    _made, secret = invite(alice_client)
    responses = at_once(
        *(
            lambda name=name: TestClient(app).post(
                f"/api/invitations/{secret}/accept",
                json={"username": name, "password": f"{name}-password"},
            )
            for name in ("carol", "dave", "erin")
        )
    )
    assert sorted(r.status_code for r in responses) == [201, 404, 404]
    with open_db(app) as db:
        names = set(db.scalars(select(User.username)))
    assert len(names - {"alice", "bob"}) == 1
    (joined,) = names - {"alice", "bob"}
    assert role_in(app, joined, "team") == "editor"
