"""POST /api/assistant/turns: the delivery row's rules (SPEC §4) on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from assistant_helpers import (
    ambient,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    raw_header,
    row,
    turn,
)
from sqlalchemy import select, update

from ambient import pointer as codec
from backend.assistant import deliveries
from backend.models import Conversation, KeySession, Message

TEXT = "# Plan\n\nShip it.\n"


def wire(**overrides):
    obj = {
        "v": 1,
        "path": "plan.md",
        "view": "edit",
        "frameId": "frame-1",
        "selection": {"anchor": 0, "head": 4},
        "bytes": 17,
        "sha256": "0123456789abcdef",
        "flushed": True,
        "capturedAt": "2026-11-29T20:46:45.123Z",
    }
    obj.update(overrides)
    return {k: v for k, v in obj.items() if v is not None}


def _without(name):
    obj = wire()
    del obj[name]
    return obj


def _long_path_header(length):
    """A valid pointer whose header value is exactly `length` characters."""
    for n in range(1, 2000):
        path = "/".join(["d" * 200] * (n // 200) + ["n" * (n % 200 or 1)]) + ".md"
        value = raw_header(wire(path=path))
        if len(value) == length:
            return value, path
    raise AssertionError("no such length")


MALFORMED = {
    "bad base64": "%%%not base64%%%",
    "padded base64": raw_header(wire()) + "=",
    "not JSON": "bm90IGpzb24",  # "not json"
    "a JSON array": raw_header([wire()]),
    "missing path": raw_header(_without("path")),
    "missing v": raw_header(_without("v")),
    "missing sha256": raw_header(_without("sha256")),
    "missing capturedAt": raw_header(_without("capturedAt")),
    "bytes as string": raw_header(wire(bytes="17")),
    "flushed as string": raw_header(wire(flushed="yes")),
    "frameId as number": raw_header(wire(frameId=7)),
    "selection as list": raw_header(wire(selection=[0, 4])),
    "path ../x": raw_header(wire(path="../x")),
    "path /etc/passwd": raw_header(wire(path="/etc/passwd")),
    "path with CR LF": raw_header(wire(path="a\r\nb.md")),
    "unknown view": raw_header(wire(view="raw")),
    "v 2": raw_header(wire(v=2)),
    "bad sha256": raw_header(wire(sha256="XYZ")),
    "uppercase sha256": raw_header(wire(sha256="0123456789ABCDEF")),
    "capturedAt not UTC ms": raw_header(wire(capturedAt="2026-11-29 20:46")),
    "more than 2048 bytes": _long_path_header(2050)[0],
}


@pytest.fixture
def setup(app, alice_client):
    put_note(alice_client, "personal", "plan.md", TEXT)
    return app, alice_client, key_session(alice_client, "personal"), new_id()


def test_first_turn_creates_conversation_row_and_messages(setup):
    app, client, key, cid = setup
    p = pointer(TEXT, "plan.md", selection=(2, 6))
    before = datetime.now(UTC)
    body = ok_turn(client, cid, "hello", key=key, note=header_for(p))
    after = datetime.now(UTC)
    assert body["conversationId"] == cid
    assert isinstance(body["reply"], str) and body["reply"]
    assert isinstance(body["toolCalls"], list)
    r = row(app, cid)
    assert r["key_session_id"] == key and r["workspace_id"] == "personal"
    assert r["user_id"] == app.state.test_user_ids["alice"]
    assert before + timedelta(minutes=15) <= r["expires_at"] <= after + timedelta(minutes=15)
    path, view, meta = ambient(app, cid)
    assert (path, view) == ("plan.md", "edit")
    assert meta == p.to_meta()
    assert set(meta) == {"v", "frameId", "selection", "bytes", "sha256", "flushed", "capturedAt"}
    with app.state.sessionmaker() as db:
        conv = db.get(Conversation, cid)
        assert conv.user_id == app.state.test_user_ids["alice"]
        roles = [m.role for m in db.scalars(select(Message).where(Message.conversation_id == cid))]
        assert roles == ["user", "assistant"]


def test_each_send_replaces_the_ambient_columns(setup):
    app, client, key, cid = setup
    put_note(client, "personal", "other.md", "other")
    first = pointer(TEXT, "plan.md", selection=(1, 2))
    ok_turn(client, cid, "hi", key=key, note=header_for(first))
    expires_first = row(app, cid)["expires_at"]
    second = pointer("other", "other.md", view="preview", flushed=False)
    ok_turn(client, cid, "hi", key=key, note=header_for(second))
    path, view, meta = ambient(app, cid)
    assert (path, view, meta) == ("other.md", "preview", second.to_meta())
    assert "selection" not in meta
    assert row(app, cid)["expires_at"] >= expires_first
    # A send without the header clears all three columns; the row (authority) stays.
    ok_turn(client, cid, "hi", key=key)
    assert ambient(app, cid) == (None, None, None)
    assert row(app, cid)["key_session_id"] == key


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_header_is_treated_as_absent(setup, name):
    app, client, key, cid = setup
    ok_turn(client, cid, "hi", key=key, note=header_for(pointer(TEXT, "plan.md")))
    assert ambient(app, cid)[0] == "plan.md"
    body = ok_turn(client, cid, "hi", key=key, note=MALFORMED[name])
    assert body["conversationId"] == cid
    assert ambient(app, cid) == (None, None, None)
    assert row(app, cid)["key_session_id"] == key


def test_header_of_exactly_2048_bytes_is_accepted(setup):
    app, client, key, cid = setup
    value, path = _long_path_header(2048)
    assert len(value.encode("ascii")) == codec.MAX_HEADER_BYTES
    ok_turn(client, cid, "hi", key=key, note=value)
    assert ambient(app, cid)[0] == path


def test_unknown_fields_are_ignored_and_not_stored(setup):
    app, client, key, cid = setup
    ok_turn(client, cid, "hi", key=key, note=raw_header(wire(secret="s3cr3t", extra={"a": 1})))
    path, _, meta = ambient(app, cid)
    assert path == "plan.md"
    assert "secret" not in meta and "extra" not in meta
    assert "s3cr3t" not in row(app, cid)["ambient_meta"]


def test_selection_outside_edit_view_is_not_stored(setup):
    app, client, key, cid = setup
    ok_turn(client, cid, "hi", key=key, note=raw_header(wire(view="todo")))
    _, view, meta = ambient(app, cid)
    assert view == "todo" and "selection" not in meta


def _expire_key(app, key):
    with app.state.sessionmaker() as db:
        db.execute(
            update(KeySession)
            .where(KeySession.id == key)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        db.commit()


@pytest.mark.parametrize(
    "case", ["none", "empty", "unknown", "other user", "other workspace", "expired"]
)
def test_send_without_valid_key_session_deletes_the_row(setup, bob_client, case):
    app, client, key, cid = setup
    note = header_for(pointer(TEXT, "plan.md"))
    ok_turn(client, cid, "hi", key=key, note=note)
    assert row(app, cid) is not None
    bad = {
        "none": None,
        "empty": "",
        "unknown": "no-such-key-session",
        "other user": key_session(bob_client, "team"),
        "other workspace": key_session(client, "team"),
        "expired": key,
    }[case]
    if case == "expired":
        _expire_key(app, key)
    body = ok_turn(client, cid, "hi", key=bad, note=note)
    assert body["conversationId"] == cid
    assert row(app, cid) is None


def test_no_key_session_on_first_turn_makes_no_row(setup):
    app, client, _, cid = setup
    ok_turn(client, cid, "hi", note=header_for(pointer(TEXT, "plan.md")))
    assert row(app, cid) is None


def test_unauthenticated_turn_is_401(client):
    r = turn(client, new_id(), "hi")
    assert r.status_code == 401


def test_another_users_conversation_is_404(setup, bob_client):
    app, client, key, cid = setup
    ok_turn(client, cid, "hi", key=key)
    r = turn(bob_client, cid, "hi", ws="team", key=key_session(bob_client, "team"))
    assert r.status_code == 404
    assert bob_client.get(f"/api/assistant/conversations/{cid}").status_code == 404
    # Nothing changed for alice.
    assert row(app, cid)["user_id"] == app.state.test_user_ids["alice"]


def test_non_member_workspace_is_403(setup):
    _app, client, _, cid = setup
    assert turn(client, cid, "hi", ws="bob-notes").status_code == 403
    assert turn(client, cid, "hi", ws="no-such-workspace").status_code == 403


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"conversationId": "not-a-uuid", "workspaceId": "personal", "message": "hi"},
        {"conversationId": "00000000-0000-0000-0000-000000000001", "workspaceId": "personal"},
        {"conversationId": "00000000-0000-0000-0000-000000000001", "message": "hi"},
        {
            "conversationId": "00000000-0000-0000-0000-000000000001",
            "workspaceId": "personal",
            "message": 7,
        },
        {
            "conversationId": "00000000-0000-0000-0000-000000000001",
            "workspaceId": "personal",
            "message": "",
        },
        [1, 2],
    ],
)
def test_bad_body_is_422(alice_client, body):
    r = alice_client.post("/api/assistant/turns", json=body)
    assert r.status_code == 422
    assert "detail" in r.json()


def test_conversation_follows_the_workspace(setup):
    app, client, key, cid = setup
    ok_turn(client, cid, "hi", key=key)
    team_key = key_session(client, "team")
    ok_turn(client, cid, "hi", ws="team", key=team_key)
    r = row(app, cid)
    assert (r["workspace_id"], r["key_session_id"]) == ("team", team_key)
    got = client.get(f"/api/assistant/conversations/{cid}").json()
    assert got["workspaceId"] == "team"


def test_uppercase_uuid_is_the_same_conversation(setup):
    app, client, key, cid = setup
    ok_turn(client, cid.upper(), "hi", key=key)
    assert row(app, cid) is not None
    assert client.get(f"/api/assistant/conversations/{cid.upper()}").status_code == 200


def test_purge_expired_removes_only_expired_rows(setup):
    app, client, key, cid = setup
    other = new_id()
    ok_turn(client, cid, "hi", key=key)
    ok_turn(client, other, "hi", key=key)
    with app.state.sessionmaker() as db:
        gone = deliveries.purge_expired(db, now=datetime.now(UTC) + timedelta(minutes=16))
    assert gone == 2
    assert row(app, cid) is None and row(app, other) is None


def test_turns_purge_other_expired_rows(setup):
    from assistant_helpers import set_row

    app, client, key, cid = setup
    old = new_id()
    ok_turn(client, old, "hi", key=key)
    set_row(app, old, expires_at=datetime.now(UTC) - timedelta(seconds=1))
    ok_turn(client, cid, "hi", key=key)
    assert row(app, old) is None
    assert row(app, cid) is not None


def test_conversation_survives_a_reload(setup):
    _app, client, key, cid = setup
    note = header_for(pointer(TEXT, "plan.md"))
    first = ok_turn(client, cid, "summarise this", key=key, note=note)
    ok_turn(client, cid, "what notes do I have", key=key)
    got = client.get(f"/api/assistant/conversations/{cid}")
    assert got.status_code == 200
    messages = got.json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0]["content"] == "summarise this"
    assert messages[1]["content"] == first["reply"]
    call = messages[1]["toolCalls"][0]
    assert call["tool"] == "read_active_note"
    assert call["result"]["ok"] is True and call["result"]["path"] == "plan.md"
    # Stored tool results never hold the note text.
    assert "content" not in call["result"] and "text" not in call["result"]
    assert messages[3]["toolCalls"][0]["tool"] == "list_documents"
    assert client.get(f"/api/assistant/conversations/{new_id()}").status_code == 404
