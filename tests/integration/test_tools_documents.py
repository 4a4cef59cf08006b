"""The tools over HTTP (SPEC §5): read_active_note's reads, caveat and clamping; shared failures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from assistant_helpers import (
    CAVEAT,
    call_tool,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    set_row,
    tool,
)
from sqlalchemy import delete, update

from backend.assistant.tools import NO_POINTER_TEXT, access_failure_message
from backend.models import KeySession, Membership

TEXT = "# Plan\n\nShip the codec.\n- [ ] docs\n"
JA = "日本語のノート。" * 10  # 3 bytes per character


@pytest.fixture
def world(app, alice_client):
    put_note(alice_client, "personal", "plan.md", TEXT)
    put_note(alice_client, "personal", "ja.md", JA)
    return app, alice_client, key_session(alice_client, "personal"), new_id()


def send(client, cid, key, p=None):
    return ok_turn(client, cid, "hello", key=key, note=header_for(p) if p else None)


def test_complete_fresh_read(world):
    _, client, key, cid = world
    send(client, cid, key, pointer(TEXT, "plan.md"))
    r = tool(client, cid, "read_active_note")
    assert r["ok"] is True
    assert (r["path"], r["content"], r["bytes"]) == ("plan.md", TEXT, len(TEXT.encode()))
    assert (r["partial"], r["stale"], r["caveat"]) == (False, False, None)
    assert "plan.md" in r["text"] and TEXT in r["text"]
    assert CAVEAT not in r["text"]


def test_stale_by_hash(world):
    _, client, key, cid = world
    live = TEXT.replace("codec", "CODEC")  # same length, different bytes
    send(client, cid, key, pointer(live, "plan.md"))
    r = tool(client, cid, "read_active_note")
    assert r["content"] == TEXT
    assert (r["stale"], r["caveat"]) == (True, CAVEAT)
    assert r["text"].endswith(CAVEAT)


def test_stale_by_bytes(world):
    _, client, key, cid = world
    send(client, cid, key, pointer(TEXT + "more typing", "plan.md"))
    r = tool(client, cid, "read_active_note")
    assert r["stale"] is True and r["text"].endswith(CAVEAT)


def test_stale_by_flushed_false(world):
    _, client, key, cid = world
    send(client, cid, key, pointer(TEXT, "plan.md", flushed=False))
    r = tool(client, cid, "read_active_note")
    assert r["content"] == TEXT
    assert (r["stale"], r["caveat"]) == (True, CAVEAT)
    assert r["text"].endswith(CAVEAT)


def test_partial_read_cuts_on_utf8_boundary_and_is_not_compared(world):
    _, client, key, cid = world
    send(client, cid, key, pointer("something else entirely", "ja.md", flushed=False))
    r = tool(client, cid, "read_active_note", {"maxBytes": 10})
    assert r["ok"] is True and r["partial"] is True
    assert r["content"] == "日本語"  # 9 bytes: the 10th would split a character
    assert r["bytes"] == len(JA.encode())
    assert (r["stale"], r["caveat"]) == (False, None)
    assert CAVEAT not in r["text"]
    d = tool(client, cid, "read_document", {"path": "ja.md", "maxBytes": 11})
    assert d["content"] == "日本語" and d["partial"] is True


def test_exactly_max_bytes_is_complete(world):
    _, client, key, cid = world
    send(client, cid, key, pointer(JA, "ja.md"))
    r = tool(client, cid, "read_active_note", {"maxBytes": len(JA.encode())})
    assert (r["partial"], r["stale"], r["content"]) == (False, False, JA)


def test_max_bytes_clamping(world):
    _, client, key, cid = world
    big = "x" * 300_000
    put_note(client, "personal", "big.md", big)
    send(client, cid, key, pointer(big, "big.md"))
    assert tool(client, cid, "read_active_note", {"maxBytes": 0})["content"] == "x"
    assert tool(client, cid, "read_active_note", {"maxBytes": -5})["content"] == "x"
    huge = tool(client, cid, "read_active_note", {"maxBytes": 10**12})
    assert len(huge["content"]) == 262_144 and huge["partial"] is True
    default = tool(client, cid, "read_active_note")
    assert len(default["content"]) == 65_536
    assert len(tool(client, cid, "read_document", {"path": "big.md"})["content"]) == 65_536
    assert (
        len(tool(client, cid, "read_document", {"path": "big.md", "maxBytes": 0})["content"]) == 1
    )
    # 1 byte of Japanese text cannot hold a character: an empty, partial read.
    send(client, cid, key, pointer(JA, "ja.md"))
    r = tool(client, cid, "read_active_note", {"maxBytes": 1})
    assert (r["content"], r["partial"]) == ("", True)


def test_no_pointer_tells_the_assistant_to_ask(world):
    _, client, key, cid = world
    send(client, cid, key)
    r = tool(client, cid, "read_active_note")
    assert r["ok"] is False
    assert r["text"] == NO_POINTER_TEXT
    assert "no note is open" in r["text"].lower() or "No note is open" in r["text"]


def test_read_active_note_rereads_the_row_every_call(world):
    app, client, key, cid = world
    send(client, cid, key, pointer(TEXT, "plan.md"))
    assert tool(client, cid, "read_active_note")["path"] == "plan.md"
    set_row(app, cid, ambient_path="ja.md")
    assert tool(client, cid, "read_active_note")["path"] == "ja.md"


def test_list_documents(world):
    _, client, key, cid = world
    send(client, cid, key)
    r = tool(client, cid, "list_documents")
    assert r["ok"] is True
    assert [d["path"] for d in r["documents"]] == ["ja.md", "plan.md"]
    assert "plan.md" in r["text"]


# --- access failures: one message per failure, the same from every document tool -----------


def _no_row(app, client, key, cid):
    ok_turn(client, cid, "hello")  # no key session: no row


def _expired_row(app, client, key, cid):
    send(client, cid, key, pointer(TEXT, "plan.md"))
    set_row(app, cid, expires_at=datetime.now(UTC) - timedelta(seconds=1))


def _no_key_session(app, client, key, cid):
    send(client, cid, key, pointer(TEXT, "plan.md"))
    set_row(app, cid, key_session_id=None)


def _key_session_expired(app, client, key, cid):
    send(client, cid, key, pointer(TEXT, "plan.md"))
    with app.state.sessionmaker() as db:
        db.execute(
            update(KeySession)
            .where(KeySession.id == key)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        db.commit()


def _not_member(app, client, key, cid):
    send(client, cid, key, pointer(TEXT, "plan.md"))
    with app.state.sessionmaker() as db:
        db.execute(delete(Membership).where(Membership.workspace_id == "personal"))
        db.commit()


FAILURES = {
    "no_delivery_row": _no_row,
    "expired": _expired_row,
    "no_key_session": _no_key_session,
    "key_session_invalid": _key_session_expired,
    "not_member": _not_member,
}


@pytest.mark.parametrize("reason", sorted(FAILURES))
def test_access_failures_grant_nothing_and_share_one_message(world, reason):
    app, client, key, cid = world
    FAILURES[reason](app, client, key, cid)
    active = tool(client, cid, "read_active_note")
    named = tool(client, cid, "read_document", {"path": "plan.md"})
    listing = tool(client, cid, "list_documents")
    for result in (active, named, listing):
        assert result["ok"] is False
        assert result["reason"] == reason
        assert result["text"] == access_failure_message(reason)
        assert "content" not in result
    assert active["text"] == named["text"] == listing["text"]


def test_missing_document_same_text_from_both_tools(world):
    _, client, key, cid = world
    send(client, cid, key, pointer("gone", "gone.md"))
    active = tool(client, cid, "read_active_note")
    named = tool(client, cid, "read_document", {"path": "gone.md"})
    assert active["ok"] is named["ok"] is False
    assert active["text"] == named["text"] == access_failure_message("missing_document")


def test_bad_path_same_text_from_both_tools(world):
    app, client, key, cid = world
    send(client, cid, key, pointer(TEXT, "plan.md"))
    named = tool(client, cid, "read_document", {"path": "../x"})
    set_row(app, cid, ambient_path="/etc/passwd")  # only a corrupted row could hold this
    active = tool(client, cid, "read_active_note")
    assert active["ok"] is named["ok"] is False
    assert active["text"] == named["text"] == access_failure_message("bad_path")


def test_failure_messages_are_distinct_plain_sentences():
    reasons = [
        "no_delivery_row",
        "expired",
        "no_key_session",
        "key_session_invalid",
        "not_member",
        "missing_document",
        "bad_path",
    ]
    texts = [access_failure_message(r) for r in reasons]
    assert len(set(texts)) == len(texts)
    assert all(t.endswith(".") for t in texts)


# --- the HTTP endpoint --------------------------------------------------------------------


def test_tools_endpoint_is_owner_only(world, bob_client, client):
    _, alice, key, cid = world
    send(alice, cid, key, pointer(TEXT, "plan.md"))
    for name in ("read_active_note", "list_documents"):
        assert call_tool(bob_client, cid, name).status_code == 404
    assert call_tool(bob_client, cid, "read_document", {"path": "plan.md"}).status_code == 404
    assert call_tool(client, cid, "read_active_note").status_code == 401
    assert call_tool(alice, new_id(), "read_active_note").status_code == 404


def test_tools_endpoint_unknown_tool_and_bad_arguments(world):
    _, client, key, cid = world
    send(client, cid, key, pointer(TEXT, "plan.md"))
    assert call_tool(client, cid, "delete_everything").status_code == 404
    assert call_tool(client, cid, "read_document", {}).status_code == 422
    assert call_tool(client, cid, "read_document", {"path": 7}).status_code == 422
    assert call_tool(client, cid, "read_active_note", {"maxBytes": "10"}).status_code == 422
    assert call_tool(client, cid, "read_active_note", {"maxBytes": True}).status_code == 422
    assert call_tool(client, cid, "read_active_note", {"maxBytes": 1.5}).status_code == 422
    assert call_tool(client, cid, "read_active_note", {"maxBytes": 4096.0}).status_code == 422
    # The schema forbids other keys, and so does the check; the message is one plain sentence.
    r = call_tool(client, cid, "read_document", {"path": "plan.md", "mode": "raw"})
    assert r.status_code == 422
    assert r.json()["detail"] == "'mode' is not an argument of this tool."
    r = call_tool(client, cid, "read_active_note", {"maxBytes": "10"})
    assert r.json()["detail"] == "'maxBytes' must be an integer."
    r = client.post(f"/api/assistant/conversations/{cid}/tools/read_active_note", json=[1])
    assert r.status_code == 422
    r = client.post(
        f"/api/assistant/conversations/{cid}/tools/read_active_note",
        content=b"not json",
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 422
    # No body at all means no arguments.
    r = client.post(f"/api/assistant/conversations/{cid}/tools/read_active_note")
    assert r.status_code == 200 and r.json()["ok"] is True
