"""Personal access tokens over the page's session (SPEC §10): shown once, stored hashed."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from backend.models.outside_agents import PersonalAccessToken

INVISIBLE = (
    "A token name cannot contain an invisible character "
    "(a bidirectional control or a zero-width character)."
)


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value)


def test_create_shows_the_token_once_and_stores_only_its_hash(alice_client, db_session):
    before = datetime.now(UTC)
    r = alice_client.post("/api/tokens", json={"name": "  Claude Code  ", "expiresInDays": 30})
    assert r.status_code == 201, r.text
    created = r.json()
    assert set(created) == {"id", "name", "token", "expiresAt", "scope", "workspaceId", "folder"}
    assert (created["scope"], created["workspaceId"], created["folder"]) == ("read", None, None)
    assert created["name"] == "Claude Code"
    assert created["token"].startswith("ana_pat_") and len(created["token"]) > 40
    expires = _parse(created["expiresAt"])
    assert before + timedelta(days=30) <= expires <= datetime.now(UTC) + timedelta(days=30)

    listed = alice_client.get("/api/tokens").json()
    assert listed == [
        {
            "id": created["id"],
            "kind": "personal",  # an OAuth grant is listed as "oauth" (test_oauth.py)
            "name": "Claude Code",
            "createdAt": listed[0]["createdAt"],
            "expiresAt": created["expiresAt"],
            "lastUsedAt": None,
            "scope": "read",
            "workspaceId": None,
            "folder": None,
        }
    ]
    row = db_session.scalars(select(PersonalAccessToken)).one()
    assert row.token_sha256 == hashlib.sha256(created["token"].encode()).hexdigest()
    stored = " ".join(str(getattr(row, c.key)) for c in PersonalAccessToken.__table__.columns)
    assert created["token"] not in stored and created["token"][8:] not in stored


def test_tokens_are_listed_newest_first_and_revoked_by_id(alice_client):
    ids = [
        alice_client.post("/api/tokens", json={"name": n, "expiresInDays": 1}).json()["id"]
        for n in ("one", "two")
    ]
    assert [t["name"] for t in alice_client.get("/api/tokens").json()] == ["two", "one"]
    assert alice_client.delete(f"/api/tokens/{ids[1]}").status_code == 204
    assert [t["id"] for t in alice_client.get("/api/tokens").json()] == [ids[0]]
    again = alice_client.delete(f"/api/tokens/{ids[1]}")
    assert again.status_code == 404 and again.json()["detail"] == "There is no such token."


def test_another_users_tokens_are_invisible_and_cannot_be_revoked(alice_client, bob_client):
    alice_id = alice_client.post("/api/tokens", json={"name": "a", "expiresInDays": 7}).json()["id"]
    assert bob_client.get("/api/tokens").json() == []
    assert bob_client.delete(f"/api/tokens/{alice_id}").status_code == 404
    assert [t["id"] for t in alice_client.get("/api/tokens").json()] == [alice_id]


@pytest.mark.parametrize(
    "body",
    [
        {"name": "", "expiresInDays": 7},
        {"name": "   ", "expiresInDays": 7},
        {"name": "x" * 101, "expiresInDays": 7},
        {"name": "ok", "expiresInDays": 0},
        {"name": "ok", "expiresInDays": 366},
        {"name": "ok", "expiresInDays": "soon"},
        {"name": "ok", "expiresInDays": True},  # not a 1-day token
        {"name": "ok", "expiresInDays": "7"},
        {"name": "ok", "expiresInDays": 7.0},
        {"name": "ok"},
        {"expiresInDays": 7},
    ],
)
def test_bad_token_requests_get_a_plain_422_and_create_nothing(alice_client, body):
    r = alice_client.post("/api/tokens", json=body)
    assert r.status_code == 422 and r.json()["detail"].startswith("The request is invalid")
    assert alice_client.get("/api/tokens").json() == []


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("a\u0007b", "A token name cannot contain a control character."),
        ("a\x00b", "A token name must be valid Unicode text without a NUL character."),
        ("a\x7fb", "A token name cannot contain a control character."),
        ("a\x85b", "A token name cannot contain a control character."),  # C1 (NEL)
        ("a\x9bb", "A token name cannot contain a control character."),  # C1 (CSI)
        ("tab\tname", "A token name cannot contain a control character."),
        ("a\u202eb", INVISIBLE),  # right-to-left override: shows "b" before "a"
        ("\u2066agent\u2069", INVISIBLE),  # isolate
        ("a\u200bb", INVISIBLE),  # zero-width space
        ("\ufeffagent", INVISIBLE),
    ],
)
def test_a_name_with_control_or_invisible_characters_is_a_422_that_says_why(
    alice_client, name, said
):
    # The name is shown to other members as the agent's name: the paths' character policy.
    r = alice_client.post(
        "/api/tokens",
        content=json.dumps({"name": name, "expiresInDays": 7}),
        headers={"Content-Type": "application/json"},
    )
    assert (r.status_code, r.json()["detail"]) == (422, said)
    assert alice_client.get("/api/tokens").json() == []


def test_a_name_with_a_lone_surrogate_is_refused_by_the_json_parser(alice_client):
    r = alice_client.post(
        "/api/tokens",
        content=json.dumps({"name": "a\ud800b", "expiresInDays": 7}),
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["detail"].startswith("The request is invalid")
    assert alice_client.get("/api/tokens").json() == []


def test_a_name_in_any_script_with_accents_and_emoji_is_kept(alice_client):
    name = "Agent d\u00e9j\u00e0 \u65e5\u672c \u0645\u0631\u062d\u0628\u0627 \U0001f916"
    r = alice_client.post("/api/tokens", json={"name": name, "expiresInDays": 7})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == name


def test_signed_out_and_cross_origin_requests_are_refused(client, alice_client):
    assert client.get("/api/tokens").status_code == 401
    assert client.post("/api/tokens", json={"name": "a", "expiresInDays": 7}).status_code == 401
    assert client.delete("/api/tokens/whatever").status_code == 401
    r = alice_client.post(
        "/api/tokens",
        json={"name": "a", "expiresInDays": 7},
        headers={"Origin": "http://evil.example"},
    )
    assert r.status_code == 403
    assert alice_client.get("/api/tokens").json() == []


def test_a_token_takes_a_scope_and_a_reach(alice_client):
    r = alice_client.post(
        "/api/tokens",
        json={
            "name": "writer",
            "expiresInDays": 7,
            "scope": "write",
            "workspaceId": "team",
            "folder": "projects/cafe\u0301/",
        },
    )
    assert r.status_code == 201, r.text
    reach = {k: r.json()[k] for k in ("scope", "workspaceId", "folder")}
    assert reach == {"scope": "write", "workspaceId": "team", "folder": "projects/caf\u00e9"}
    listed = alice_client.get("/api/tokens").json()
    assert {k: listed[0][k] for k in reach} == reach


@pytest.mark.parametrize(
    ("extra", "status"),
    [
        ({"scope": "admin"}, 422),
        ({"scope": None}, 422),
        ({"folder": "/abs"}, 400),
        ({"folder": "a/../b"}, 400),
        ({"folder": ""}, 400),
        ({"workspaceId": "nowhere"}, 403),
        ({"workspaceId": "bob-notes"}, 403),
    ],
)
def test_a_bad_scope_folder_or_workspace_is_refused_and_nothing_is_made(
    alice_client, extra, status
):
    r = alice_client.post("/api/tokens", json={"name": "x", "expiresInDays": 1, **extra})
    assert r.status_code == status, r.text
    assert alice_client.get("/api/tokens").json() == []
