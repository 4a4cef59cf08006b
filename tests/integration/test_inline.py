"""POST /api/assistant/inline on both databases: access, limits, transforms, model, no logs."""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import seed_world, sign_in
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text

from ambient.inline_context import CONTEXT_BYTES, SELECTION_BYTES, utf16_len
from backend.logging import LOGGER_NAME, JsonFormatter
from support.servers import free_port

URL = "/api/assistant/inline"
CANARY = "CANARY-inline-5b1e-note-text"


def body(
    instruction: str,
    selection: str,
    *,
    before: str = "",
    after: str = "",
    ws: str = "personal",
    start: int = 0,
) -> dict:
    return {
        "workspaceId": ws,
        "path": "notes/today.md",
        "instruction": instruction,
        "selection": {"from": start, "to": start + utf16_len(selection), "text": selection},
        "before": before,
        "after": after,
    }


def test_the_offline_transforms_through_the_endpoint(alice_client):
    cases = [
        ("make this a bullet list", "one\ntwo\n", "- one\n- two\n"),
        ("箇条書きにして", "りんご\n\nみかん", "- りんご\n\n- みかん"),
        (
            "番号付きリストにして",
            "\n".join("abcdefghijk"),
            "\n".join(f"{n}. {c}" for n, c in enumerate("abcdefghijk", 1)),
        ),
        ("turn into a todo list", "- a\r\n- [x] b\r\n", "- [ ] a\r\n- [x] b\r\n"),
        ("sort lines", "pear\nApple\nfig", "Apple\nfig\npear"),
        ("重複を削除して", "a\nb\na\n", "a\nb\n"),
        ("UPPERCASE please", "- [x] done 🙂", "- [x] DONE 🙂"),
        ("join lines", "今日は\n晴れ\nthen rain", "今日は晴れ then rain"),
    ]
    for instruction, selection, expected in cases:
        r = alice_client.post(URL, json=body(instruction, selection, before="# Title\n"))
        assert r.status_code == 200, r.text
        assert r.json() == {"replacement": expected, "explanation": None}, instruction


def test_anything_else_says_a_language_model_is_needed(alice_client):
    r = alice_client.post(URL, json=body("translate this into French", "Good morning"))
    assert r.status_code == 200
    assert r.json()["replacement"] is None
    assert "language model" in r.json()["explanation"]
    r = alice_client.post(URL, json=body("フランス語に翻訳して", "おはよう"))
    assert r.json()["replacement"] is None and "言語モデル" in r.json()["explanation"]


def test_signed_out_is_401_and_a_non_member_403(client, bob_client):
    assert client.post(URL, json=body("sort lines", "b\na")).status_code == 401
    r = bob_client.post(URL, json=body("sort lines", "b\na", ws="personal"))
    assert r.status_code == 403
    assert bob_client.post(URL, json=body("sort", "b\na", ws="no-such")).status_code == 403
    assert bob_client.post(URL, json=body("sort lines", "b\na", ws="team")).status_code == 200


def test_limits_are_bytes_and_the_answer_is_a_plain_422(alice_client, bob_client):
    at_limit = "あ" * (SELECTION_BYTES // 3) + "a" * (SELECTION_BYTES % 3)  # 16,384 bytes
    assert alice_client.post(URL, json=body("uppercase", at_limit)).status_code == 200
    r = alice_client.post(URL, json=body("uppercase", at_limit + "a"))
    assert r.status_code == 422
    assert "16,384" in r.json()["detail"] and "あ" not in r.json()["detail"]
    context = "い\n" * (CONTEXT_BYTES // 4)  # 2,048 bytes exactly
    ok = body("sort lines", "b\na", before=context, after=context)
    assert alice_client.post(URL, json=ok).status_code == 200
    for side in ("before", "after"):
        over = body("sort lines", "b\na", **{side: context + "x"})
        r = alice_client.post(URL, json=over)
        assert r.status_code == 422 and "2,048" in r.json()["detail"], side
    # Positions are CodeMirror's UTF-16 units: an emoji counts two, and must match the text.
    good = body("uppercase", "🙂a", start=5)
    assert good["selection"]["to"] == 8
    assert alice_client.post(URL, json=good).status_code == 200
    good["selection"]["to"] = 7
    assert alice_client.post(URL, json=good).status_code == 422
    # A non-member learns nothing about limits: the 403 comes first.
    assert bob_client.post(URL, json=body("uppercase", at_limit * 2)).status_code == 403


def test_nothing_is_stored_and_no_text_is_logged(app, alice_client, caplog):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(LOGGER_NAME)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    caplog.set_level(logging.DEBUG)
    with app.state.engine.connect() as connection:
        tables = inspect(connection).get_table_names()
        before = {
            t: connection.execute(text(f'SELECT COUNT(*) FROM "{t}"')).scalar() for t in tables
        }
    try:
        for instruction in ("sort lines", "translate it", f"{CANARY} bullets"):
            alice_client.post(URL, json=body(instruction, CANARY, before=CANARY, after=CANARY))
        alice_client.post(URL, json=body("sort", CANARY * 2000))  # 422
    finally:
        logger.removeHandler(handler)
    ours = stream.getvalue()
    server_side = [
        caplog.handler.format(r) for r in caplog.records if not r.name.startswith("httpx")
    ]
    assert CANARY not in ours + "\n".join(server_side)
    lines = [json.loads(line) for line in ours.splitlines()]
    routes = [r for r in lines if r["event"] == "request" and r["route"] == URL]
    assert [r["status"] for r in routes] == [200, 200, 200, 422]
    with app.state.engine.connect() as connection:
        after = {
            t: connection.execute(text(f'SELECT COUNT(*) FROM "{t}"')).scalar() for t in tables
        }
    assert after == before


def test_bad_bodies_get_422_in_words(alice_client):
    missing = body("sort", "a")
    del missing["selection"]
    r = alice_client.post(URL, json=missing)
    assert r.status_code == 422 and "selection" in r.json()["detail"]
    assert alice_client.post(URL, json={**body("sort", "a"), "path": "../x.md"}).status_code == 422
    assert alice_client.post(URL, json={**body("sort", "a"), "instruction": ""}).status_code == 422


# -- a configured model (a simulated chat server on loopback) ------------------------------


class FakeModel:
    """Answers /v1/chat/completions with `reply` (a status and a body); records requests."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.reply: tuple[int, dict] = (200, {})
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                fake.requests.append(json.loads(self.rfile.read(length)))
                status, payload = fake.reply
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def model() -> Iterator[FakeModel]:
    fake = FakeModel()
    try:
        yield fake
    finally:
        fake.close()


def _content(text_: str) -> dict:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text_}}]}


def test_a_configured_model_answers_anything(app_factory, model):
    app = app_factory(llm_base_url=model.url, llm_model="m", llm_timeout_seconds=2)
    seed_world(app)
    alice = sign_in(TestClient(app), "alice")
    model.reply = (200, _content("```markdown\nBonjour\n```"))
    r = alice.post(URL, json=body("translate into French", "Hello", before="# A\n", after="end"))
    assert r.json() == {"replacement": "Bonjour", "explanation": None}
    sent = model.requests[-1]
    assert sent["model"] == "m"
    prompt = sent["messages"][-1]["content"]
    assert "translate into French" in prompt and "Hello" in prompt and "# A" in prompt
    model.reply = (500, {"error": "down"})
    r = alice.post(URL, json=body("translate into French", "Hello"))
    assert r.status_code == 200 and r.json()["replacement"] is None
    assert "HTTP 500" in r.json()["explanation"]
    model.reply = (200, {"choices": []})
    r = alice.post(URL, json=body("フランス語に", "Hello"))
    assert r.json()["replacement"] is None and "言語モデル" in r.json()["explanation"]


def test_a_lone_surrogate_is_a_422_not_a_crash(alice_client):
    good = json.dumps(body("sort lines", "a"))
    for field in ('"text": "a"', '"before": ""', '"instruction": "sort lines"'):
        name = field.split('"')[1]
        raw = good.replace(field, f'"{name}": "\\ud800"')
        assert raw != good
        r = alice_client.post(URL, content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 422, name
        assert name in r.json()["detail"]


def test_an_unreachable_model_is_explained_and_changes_nothing(app_factory):
    port = free_port()  # nothing listens on it
    app = app_factory(
        llm_base_url=f"http://127.0.0.1:{port}/v1", llm_model="m", llm_timeout_seconds=2
    )
    seed_world(app)
    alice = sign_in(TestClient(app), "alice")
    r = alice.post(URL, json=body("make this a bullet list", "a\nb"))
    assert r.status_code == 200
    assert r.json()["replacement"] is None and "unreachable" in r.json()["explanation"]
