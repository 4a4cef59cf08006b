"""The streamed turn (Accept: text/event-stream): deltas, tool events, done, and Stop."""

from __future__ import annotations

import json
import time
from contextlib import closing

import pytest
from assistant_helpers import header_for, key_session, new_id, pointer, put_note
from live_helpers import Live
from test_assistant_llm import (
    NOTE,
    FakeChat,
    _text,
    _tool_call,
    make_world,
)

SSE = {"Accept": "text/event-stream"}


def events_of(body: str) -> list[tuple[str, dict]]:
    out = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def stream_turn(client, cid, message, key, note=None):
    headers = {**SSE, "X-Key-Session": key, **({"X-Ambient-Note": note} if note else {})}
    r = client.post(
        "/api/assistant/turns",
        json={"conversationId": cid, "workspaceId": "personal", "message": message},
        headers=headers,
    )
    return r


@pytest.fixture
def fake():
    server = FakeChat()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def llm_world(app_factory, fake):
    return make_world(app_factory, fake, llm_model="m", llm_timeout_seconds=5)


def test_a_model_reply_streams_as_deltas_then_done(llm_world, fake):
    _, client, key, cid = llm_world
    fake.script = [_tool_call("read_active_note"), _text("You need to pack the passport.")]
    r = stream_turn(client, cid, "summarise this", key, header_for(pointer(NOTE, "trip.md")))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = events_of(r.text)
    kinds = [k for k, _ in events]
    assert kinds[0] == "tool" and kinds[-1] == "done"
    assert events[0][1]["tool"] == "read_active_note"
    assert events[0][1]["result"]["content"] == NOTE
    deltas = [d["text"] for k, d in events if k == "delta"]
    assert len(deltas) == 6 and "".join(deltas) == "You need to pack the passport."
    done = events[-1][1]
    assert done["conversationId"] == cid and done["reply"] == "You need to pack the passport."
    assert [c["tool"] for c in done["toolCalls"]] == ["read_active_note"]
    assert all(req.get("stream") is True for req in fake.requests)
    stored = client.get(f"/api/assistant/conversations/{cid}").json()["messages"]
    assert [m["content"] for m in stored] == ["summarise this", done["reply"]]


def test_a_streamed_failure_ends_with_a_clear_reply(llm_world, fake):
    _, client, key, cid = llm_world
    fake.script = [lambda _b: (500, {"error": "boom"})]
    events = events_of(stream_turn(client, cid, "hello", key).text)
    assert [k for k, _ in events] == ["done"]
    assert "HTTP 500" in events[0][1]["reply"]


def test_the_offline_agent_streams_one_delta_and_the_json_form_stays(app, alice_client):
    put_note(alice_client, "personal", "plan.md", "# Plan\n\n- [ ] buy milk\n")
    key = key_session(alice_client)
    cid = new_id()
    note = header_for(pointer("# Plan\n\n- [ ] buy milk\n", "plan.md"))
    events = events_of(stream_turn(alice_client, cid, "add a todo: sunscreen", key, note).text)
    assert [k for k, _ in events] == ["delta", "done"]
    done = events[-1][1]
    assert events[0][1]["text"] == done["reply"] and "sunscreen" in done["reply"]
    assert [c["tool"] for c in done["toolCalls"]] == ["read_active_note", "propose_edit"]
    plain = alice_client.post(
        "/api/assistant/turns",
        json={"conversationId": cid, "workspaceId": "personal", "message": "hello"},
        headers={"X-Key-Session": key},
    )
    assert plain.headers["content-type"] == "application/json"
    assert set(plain.json()) == {"conversationId", "reply", "toolCalls"}


def test_checks_answer_before_any_event(app, alice_client, bob_client):
    cid = new_id()
    key = key_session(alice_client)
    assert stream_turn(alice_client, cid, "hi", key).status_code == 200
    r = stream_turn(bob_client, cid, "hi", key)  # another user's conversation
    assert r.status_code == 404 and r.headers["content-type"] == "application/json"


def test_stop_ends_the_model_stream_and_keeps_what_was_said(llm_world, fake):
    app, _, _, cid = llm_world
    words = " ".join(f"word{i}" for i in range(40))
    fake.chunk_delay = 0.1
    fake.script = [_text(words)]
    live = Live(app)
    try:
        with closing(live.client("alice")) as client:
            key = client.post("/api/workspaces/personal/key-sessions").json()["id"]
            body = {"conversationId": cid, "workspaceId": "personal", "message": "write on"}
            headers = {**SSE, "X-Key-Session": key}
            seen = ""
            with client.stream("POST", "/api/assistant/turns", json=body, headers=headers) as s:
                for line in s.iter_lines():
                    if line.startswith("data: "):
                        seen += json.loads(line[6:]).get("text", "")
                    if "word2" in seen:
                        break  # the Stop button: the page aborts the request
            assert fake.aborted.wait(10), "the model's stream was not closed"
            deadline = time.monotonic() + 10
            stored = []
            while time.monotonic() < deadline and len(stored) < 2:
                stored = client.get(f"/api/assistant/conversations/{cid}").json()["messages"]
                time.sleep(0.1)
    finally:
        live.stop()
    reply = stored[1]["content"]
    assert reply.startswith("word0 word1 word2")
    assert reply.endswith("(Stopped before the answer was complete.)")
    assert "word39" not in reply
