"""The OpenAI-compatible client against a simulated chat server on loopback, on both databases."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from assistant_helpers import CAVEAT, header_for, key_session, new_id, ok_turn, pointer, put_note
from conftest import seed_world, sign_in
from fastapi.testclient import TestClient

from backend.assistant.llm import MAX_ITERATIONS, SYSTEM_PROMPT, LLMAgent
from backend.assistant.model import (
    FALLBACK_MODEL,
    LIST_RETRY_SECONDS,
    OPENAI_BASE_URL,
    OPENAI_DEFAULT_MODEL,
)

NOTE = "# Trip\n\nPack the passport.\n"


class FakeChat:
    """Answers POST /v1/chat/completions from a script of callables; records each request."""

    def __init__(self) -> None:
        self.script: list[Callable[[dict], tuple[int, bytes | dict]]] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.chunk_delay = 0.0  # seconds between streamed chunks
        self.models: list[str] | None = ["llama3.2:3b", "qwen2.5:7b"]  # GET /v1/models
        self.gets: list[str] = []
        self.aborted = threading.Event()  # a streamed answer's reader went away
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                fake.requests.append(body)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path != "/v1/chat/completions":
                    status, payload = 404, {"error": "not found"}
                else:
                    step = fake.script.pop(0) if fake.script else _text("done")
                    status, payload = step(body)
                if body.get("stream") and status == 200 and isinstance(payload, dict):
                    self.stream(payload)
                    return
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the timeout test)

            def do_GET(self) -> None:
                fake.gets.append(self.path)
                data = json.dumps(
                    {
                        "object": "list",
                        "data": [
                            {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                            for m in fake.models or []
                        ],
                    }
                ).encode()
                listed = 200 if fake.models is not None else 503  # None: the listing fails
                self.send_response(listed if self.path == "/v1/models" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def stream(self, payload: dict) -> None:
                """The message as chat.completion.chunk events, the way real servers stream."""
                msg = payload["choices"][0]["message"]
                pieces = re.findall(r"\S+\s*", msg.get("content") or "")
                deltas: list[dict] = [{"content": piece} for piece in pieces]
                for i, tc in enumerate(msg.get("tool_calls") or []):
                    deltas.append({"tool_calls": [{"index": i, **tc}]})
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for delta in deltas:
                        chunk = {
                            "id": "c",
                            "object": "chat.completion.chunk",
                            "created": 0,
                            "model": "m",
                            "choices": [{"index": 0, "delta": delta}],
                        }
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        time.sleep(fake.chunk_delay)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    fake.aborted.set()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _message(msg: dict) -> Callable[[dict], tuple[int, dict]]:
    return lambda _body: (200, {"choices": [{"index": 0, "message": msg}]})


def _text(content: str) -> Callable[[dict], tuple[int, dict]]:
    return _message({"role": "assistant", "content": content})


def _tool_call(name: str, arguments: str = "{}", call_id: str = "call_1"):
    return _message(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            ],
        }
    )


@pytest.fixture
def fake() -> Iterator[FakeChat]:
    server = FakeChat()
    try:
        yield server
    finally:
        server.close()


def make_world(app_factory, fake: FakeChat, **settings):
    """An app talking to `fake`, alice signed in with trip.md, a key session, a new id."""
    app = app_factory(llm_base_url=fake.url, **settings)
    seed_world(app)
    client = sign_in(TestClient(app), "alice")
    put_note(client, "personal", "trip.md", NOTE)
    return app, client, key_session(client, "personal"), new_id()


@pytest.fixture
def world(app_factory, fake):
    # A generous timeout: a loaded CI machine must not turn a slow answer into a failure.
    # The timeout itself is tested with its own short one (test_a_model_too_slow_...).
    return make_world(
        app_factory, fake, llm_model="test-model", llm_api_key="k-123", llm_timeout_seconds=30
    )


def test_tool_call_round_trip(world, fake):
    _, client, key, cid = world
    fake.script = [_tool_call("read_active_note"), _text("You need to pack the passport.")]
    body = ok_turn(
        client, cid, "summarise this", key=key, note=header_for(pointer(NOTE, "trip.md"))
    )
    assert body["reply"] == "You need to pack the passport."
    assert [c["tool"] for c in body["toolCalls"]] == ["read_active_note"]
    assert body["toolCalls"][0]["result"]["content"] == NOTE

    first, second = fake.requests
    assert first["model"] == "test-model"
    assert first["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert "read_active_note first" in SYSTEM_PROMPT and "verbatim" in SYSTEM_PROMPT
    assert first["messages"][-1] == {"role": "user", "content": "summarise this"}
    names = [t["function"]["name"] for t in first["tools"]]
    assert names == [
        "list_documents",
        "read_document",
        "read_active_note",
        "search_notes",
        "propose_edit",
    ]
    read_doc = first["tools"][1]["function"]["parameters"]
    assert read_doc["required"] == ["path"] and "maxBytes" in read_doc["properties"]
    assert fake.headers[0]["authorization"] == "Bearer k-123"
    tool_msg = second["messages"][-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_1"
    assert "Pack the passport." in json.loads(tool_msg["content"])["text"]


def test_history_and_named_document(world, fake):
    _, client, key, cid = world
    fake.script = [_text("Hello!")]
    ok_turn(client, cid, "hi", key=key)
    fake.script = [_tool_call("read_document", json.dumps({"path": "trip.md"})), _text("Read it.")]
    body = ok_turn(client, cid, "read trip.md", key=key)
    assert body["toolCalls"][0]["arguments"] == {"path": "trip.md"}
    roles = [m["role"] for m in fake.requests[1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]


def test_caveat_is_added_when_the_model_leaves_it_out(world, fake):
    _, client, key, cid = world
    fake.script = [_tool_call("read_active_note"), _text("It is about a trip.")]
    stale = header_for(pointer(NOTE, "trip.md", flushed=False))
    body = ok_turn(client, cid, "summarise this", key=key, note=stale)
    assert body["reply"].startswith("It is about a trip.")
    assert body["reply"].endswith(CAVEAT)


def test_bad_tool_calls_are_answered_not_fatal(world, fake):
    _, client, key, cid = world
    fake.script = [
        _tool_call("drop_tables"),
        _tool_call("read_document", "not json"),
        _text("Sorry."),
    ]
    body = ok_turn(client, cid, "do something", key=key)
    assert body["reply"] == "Sorry."
    assert [c["result"]["ok"] for c in body["toolCalls"]] == [False, False]


def _stored(client, cid):
    return client.get(f"/api/assistant/conversations/{cid}").json()["messages"]


def _slow(_body):
    time.sleep(2.5)
    return 200, {"choices": [{"message": {"role": "assistant", "content": "late"}}]}


@pytest.mark.parametrize(
    "step,expected",
    [
        (lambda _b: (500, {"error": "boom"}), "HTTP 500"),
        (lambda _b: (200, b"this is not json"), "could not understand"),
        (lambda _b: (200, {"choices": []}), "could not understand"),
        (
            lambda _b: (200, {"choices": [{"message": {"role": "assistant"}}]}),
            "could not understand",
        ),
    ],
    ids=["500", "not-json", "no-choices", "no-content"],
)
def test_errors_become_a_clear_reply_and_nothing_is_lost(world, fake, step, expected):
    _, client, key, cid = world
    fake.script = [step]
    r = client.post(
        "/api/assistant/turns",
        json={"conversationId": cid, "workspaceId": "personal", "message": "summarise this"},
        headers={"X-Key-Session": key},
    )
    assert r.status_code == 200
    assert expected in r.json()["reply"]
    stored = _stored(client, cid)
    assert [m["role"] for m in stored] == ["user", "assistant"]
    assert stored[0]["content"] == "summarise this"
    assert expected in stored[1]["content"]


def test_a_model_too_slow_becomes_a_clear_reply(app_factory, fake):
    _, client, key, cid = make_world(
        app_factory, fake, llm_model="test-model", llm_api_key="k-123", llm_timeout_seconds=1
    )
    fake.script = [_slow]  # 2.5 s against a 1 s timeout
    body = ok_turn(client, cid, "summarise this", key=key)
    assert "did not answer in time" in body["reply"]
    assert [m["role"] for m in _stored(client, cid)] == ["user", "assistant"]


def test_japanese_error_message(world, fake):
    _, client, key, cid = world
    fake.script = [lambda _b: (503, {"error": "busy"})]
    body = ok_turn(client, cid, "このノートを要約して", key=key)
    assert "HTTP 503" in body["reply"] and "申し訳ありません" in body["reply"]


def test_unreachable_server(app_factory):
    app = app_factory(llm_base_url="http://127.0.0.1:9/v1", llm_timeout_seconds=1)
    seed_world(app)
    client = sign_in(TestClient(app), "alice")
    body = ok_turn(client, new_id(), "hello")
    assert "could not reach" in body["reply"]


def test_tool_loop_is_bounded(world, fake):
    _, client, key, cid = world
    fake.script = [_tool_call("list_documents", call_id=f"c{i}") for i in range(MAX_ITERATIONS + 3)]
    body = ok_turn(client, cid, "loop", key=key)
    assert "kept calling tools" in body["reply"]
    assert len(body["toolCalls"]) == MAX_ITERATIONS
    assert len(fake.requests) == MAX_ITERATIONS


def test_the_model_proposes_edits_under_the_same_rules(world, fake):
    _, client, key, cid = world
    ambiguous = json.dumps({"edits": [{"find": "a", "replace": "b"}]})
    good = json.dumps({"edits": [{"find": "Pack the passport.", "replace": "Pack the visa."}]})
    too_many = json.dumps({"edits": [{"append": "x"}] * 21})
    fake.script = [
        _tool_call("propose_edit", ambiguous, "c1"),
        _tool_call("propose_edit", too_many, "c2"),
        _tool_call("propose_edit", good, "c3"),
        _text("I proposed the change."),
    ]
    body = ok_turn(
        client, cid, "change passport to visa", key=key, note=header_for(pointer(NOTE, "trip.md"))
    )
    results = [c["result"] for c in body["toolCalls"]]
    assert results[0]["ok"] is False and results[0]["reason"] == "edit_ambiguous"
    assert results[1] == {
        "ok": False,
        "reason": "bad_arguments",
        "text": "Invalid arguments: There are 21 edits; at most 20 are allowed.",
    }
    assert results[2]["ok"] is True and "+Pack the visa." in results[2]["diff"]
    # The model read each answer, and the note itself is unchanged until the user applies it.
    last = fake.requests[3]["messages"]
    answered = [json.loads(m["content"]) for m in last if m["role"] == "tool"]
    assert answered[0]["text"].startswith("Edit 1:") and answered[2]["proposalId"]
    r = client.get("/api/workspaces/personal/documents/trip.md")
    assert r.text == NOTE
    pid = results[2]["proposalId"]
    got = client.get(f"/api/assistant/conversations/{cid}/proposals/{pid}").json()
    assert got["status"] == "pending" and got["path"] == "trip.md"


def test_one_setting_is_enough_the_model_is_the_first_the_server_lists(app_factory, fake):
    app = app_factory(llm_base_url=fake.url + "/", llm_timeout_seconds=5)  # no model set
    seed_world(app)
    client = sign_in(TestClient(app), "alice")
    fake.script = [_text("Hi."), _text("Hi again.")]
    ok_turn(client, new_id(), "hello")
    ok_turn(client, new_id(), "hello")
    assert [r["model"] for r in fake.requests] == ["llama3.2:3b", "llama3.2:3b"]
    assert fake.gets == ["/v1/models"]  # listed once, then remembered


def test_a_failing_model_list_is_asked_at_most_once_a_minute(app_factory, fake):
    fake.models = None  # GET /v1/models answers 503
    app = app_factory(llm_base_url=fake.url, llm_timeout_seconds=5)  # no model set
    now = [1000.0]
    app.state.model.clock = lambda: now[0]
    seed_world(app)
    client = sign_in(TestClient(app), "alice")
    ok_turn(client, new_id(), "hello")
    now[0] += LIST_RETRY_SECONDS - 1
    ok_turn(client, new_id(), "hello")
    assert fake.gets == ["/v1/models"]  # the failure is remembered: not asked every turn
    assert [r["model"] for r in fake.requests] == [FALLBACK_MODEL, FALLBACK_MODEL]
    fake.models = ["qwen2.5:7b"]  # the server recovers; after the interval it is asked again
    now[0] += 2
    ok_turn(client, new_id(), "hello")
    ok_turn(client, new_id(), "hello")
    assert fake.gets == ["/v1/models", "/v1/models"]
    assert [r["model"] for r in fake.requests][2:] == ["qwen2.5:7b", "qwen2.5:7b"]


def test_an_api_key_alone_selects_openai_itself(app_factory):
    app = app_factory(llm_api_key="sk-test")
    assert isinstance(app.state.agent, LLMAgent)
    assert str(app.state.model.client.base_url).rstrip("/") == OPENAI_BASE_URL
    assert app.state.model.name() == OPENAI_DEFAULT_MODEL  # no listing asked
    assert app_factory().state.agent.name == "offline"
    assert app_factory().state.model is None
