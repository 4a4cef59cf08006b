"""The sharing switch and publishing the active note over the page's session (SPEC §10)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from assistant_helpers import pointer
from sqlalchemy import select

from backend.db import utcnow
from backend.models.outside_agents import ActiveNotePublication
from backend.services import active_note as service

WIRE = pointer("hello\n", "notes/plan.md", selection=(1, 3)).to_wire()


def publish(client, wire, window="w1", ws="personal"):
    return client.put(
        "/api/active-note", json={"windowId": window, "workspaceId": ws, "pointer": wire}
    )


def rows(db):
    db.expire_all()
    return list(db.scalars(select(ActiveNotePublication)))


def test_sharing_is_off_by_default_and_per_user(alice_client, bob_client):
    assert alice_client.get("/api/active-note/sharing").json() == {"enabled": False}
    r = alice_client.put("/api/active-note/sharing", json={"enabled": True})
    assert r.status_code == 200 and r.json() == {"enabled": True}
    assert alice_client.get("/api/active-note/sharing").json() == {"enabled": True}
    assert bob_client.get("/api/active-note/sharing").json() == {"enabled": False}


@pytest.mark.parametrize("value", ["yes", "true", 1, 0, None])
def test_the_sharing_switch_takes_true_or_false_only(bob_client, value):
    r = bob_client.put("/api/active-note/sharing", json={"enabled": value})
    assert r.status_code == 422 and r.json()["detail"].startswith("The request is invalid")
    assert bob_client.get("/api/active-note/sharing").json() == {"enabled": False}


def test_with_sharing_off_a_publication_gets_409_and_stores_nothing(alice_client, db_session):
    r = publish(alice_client, WIRE)
    assert r.status_code == 409 and "switched off" in r.json()["detail"]
    assert rows(db_session) == []


def test_a_publication_stores_the_pointer_and_switching_off_forgets_it(
    app, alice_client, db_session
):
    alice_client.put("/api/active-note/sharing", json={"enabled": True})
    assert publish(alice_client, WIRE).status_code == 204
    (row,) = rows(db_session)
    assert (row.workspace_id, row.pointer_path, row.pointer_view) == (
        "personal",
        "notes/plan.md",
        "edit",
    )
    active = service.active_note(db_session, user_id=row.user_id, now=utcnow())
    assert active is not None and active.pointer.to_wire() == WIRE

    # null withdraws this window's pointer.
    assert publish(alice_client, None).status_code == 204
    assert rows(db_session) == []

    publish(alice_client, WIRE)
    alice_client.put("/api/active-note/sharing", json={"enabled": False})
    assert rows(db_session) == []
    assert publish(alice_client, WIRE).status_code == 409


def test_a_heartbeat_refreshes_without_reordering(alice_client, db_session):
    alice_client.put("/api/active-note/sharing", json={"enabled": True})
    publish(alice_client, WIRE, window="a")
    other = pointer("x", "other.md").to_wire()
    publish(alice_client, other, window="b")
    first = {r.window_id: (r.chosen_at, r.refreshed_at) for r in rows(db_session)}
    publish(alice_client, WIRE, window="a")  # the same pointer again: a heartbeat
    after = {r.window_id: (r.chosen_at, r.refreshed_at) for r in rows(db_session)}
    assert after["a"][0] == first["a"][0] and after["a"][1] > first["a"][1]
    user_id = rows(db_session)[0].user_id
    assert service.active_note(db_session, user_id=user_id, now=utcnow()).window_id == "b"
    # Anything new from window a (a fresh capture) makes it the chosen one.
    publish(alice_client, pointer("hello\n", "notes/plan.md").to_wire(), window="a")
    assert service.active_note(db_session, user_id=user_id, now=utcnow()).window_id == "a"


def test_publications_older_than_10_minutes_do_not_count_and_are_purged(alice_client, db_session):
    alice_client.put("/api/active-note/sharing", json={"enabled": True})
    publish(alice_client, WIRE, window="old")
    (row,) = rows(db_session)
    user_id = row.user_id
    later = utcnow() + service.FRESH_FOR + timedelta(seconds=1)
    assert service.active_note(db_session, user_id=user_id, now=later) is None
    row.refreshed_at = utcnow() - service.FRESH_FOR - timedelta(seconds=1)
    db_session.commit()
    publish(alice_client, pointer("x", "other.md").to_wire(), window="new")
    assert [r.window_id for r in rows(db_session)] == ["new"]


@pytest.mark.parametrize(
    "change",
    [
        {"v": 2},
        {"path": "../up.md"},
        {"path": "/abs.md"},
        {"view": "raw"},
        {"sha256": "ABCDEF0123456789"},
        {"bytes": -1},
        {"flushed": "yes"},
        {"capturedAt": "yesterday"},
        {"selection": {"anchor": -1, "head": 0}},
        {"frameId": ""},
        {"path": "a/" * 900 + "b.md"},  # valid path, but the pointer would pass 2,048 bytes
    ],
)
def test_a_pointer_breaking_the_codecs_rules_is_refused_with_a_reason(
    alice_client, db_session, change
):
    alice_client.put("/api/active-note/sharing", json={"enabled": True})
    r = publish(alice_client, {**WIRE, **change})
    assert r.status_code == 400, r.text
    assert r.json()["detail"].startswith("The pointer is not valid:")
    assert "hello" not in r.text and "up.md" not in r.text
    assert rows(db_session) == []


def test_missing_fields_text_and_foreign_workspaces_are_refused(alice_client, db_session):
    alice_client.put("/api/active-note/sharing", json={"enabled": True})
    missing = {k: v for k, v in WIRE.items() if k != "sha256"}
    assert publish(alice_client, missing).status_code == 400
    assert publish(alice_client, "text of the note").status_code == 422
    assert publish(alice_client, WIRE, ws="bob-notes").status_code == 403
    assert publish(alice_client, WIRE, window="").status_code == 422
    assert publish(alice_client, WIRE, window="w" * 65).status_code == 422
    r = alice_client.put("/api/active-note", json={"windowId": "w1", "pointer": WIRE})
    assert r.status_code == 422
    # Unknown fields are ignored and not stored, as at the ingress.
    assert publish(alice_client, {**WIRE, "text": "secret body"}).status_code == 204
    (row,) = rows(db_session)
    assert "secret body" not in row.pointer_meta


def test_signed_out_and_cross_origin_publications_are_refused(client, alice_client):
    assert client.get("/api/active-note/sharing").status_code == 401
    assert client.put("/api/active-note/sharing", json={"enabled": True}).status_code == 401
    assert publish(client, WIRE).status_code == 401
    r = alice_client.put(
        "/api/active-note/sharing",
        json={"enabled": True},
        headers={"Origin": "http://evil.example"},
    )
    assert r.status_code == 403
    assert alice_client.get("/api/active-note/sharing").json() == {"enabled": False}
