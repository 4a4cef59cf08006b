"""A configured model's reply streams into the chat as it is written, and Stop keeps what came.

Only the language model is simulated: an OpenAI-compatible chat server on loopback that writes
its reply as `chat.completion.chunk` events, holding back the rest until the test lets it go.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Page, expect

from e2e.ambient_helpers import frames, reload_list
from e2e.conftest import Server, sign_in

WORDS = [f"word{i} " for i in range(12)]
FIRST = 4  # words written before the model pauses
STOPPED = "(Stopped before the answer was complete.)"


class SlowModel:
    """Streams WORDS: FIRST of them, then waits for `go`, then the rest with small sleeps."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.aborted = threading.Event()  # the app server closed the model's stream
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for i, word in enumerate(WORDS):
                        if i == FIRST:
                            model.go.wait(60)
                        self.chunk({"role": "assistant", "content": word})
                        time.sleep(0.05)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    model.aborted.set()

            def chunk(self, delta: dict) -> None:
                chunk = {
                    "id": "c",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "m",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.go.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def model() -> Iterator[SlowModel]:
    fake = SlowModel()
    yield fake
    fake.close()


@pytest.fixture
def llm_server(tmp_path, model: SlowModel) -> Iterator[Server]:
    srv = Server(
        tmp_path / "data",
        env={"ANA_LLM_BASE_URL": model.url, "ANA_LLM_MODEL": "m", "ANA_LLM_TIMEOUT_SECONDS": "90"},
    ).start()
    yield srv
    srv.stop()


def start_turn(page: Page, message: str):
    scope = frames(page, "assistant").first
    scope.get_by_test_id("assistant-input").fill(message)
    scope.get_by_test_id("assistant-send").click()
    return scope, scope.get_by_test_id("assistant-message").last


def test_the_reply_shows_as_it_is_written_then_in_full(
    page: Page, llm_server: Server, model: SlowModel
):
    sign_in(page, llm_server)
    scope, bubble = start_turn(page, "tell me a story")
    partial = "".join(WORDS[:FIRST]).strip()
    expect(bubble).to_have_text(partial, timeout=30_000)  # before the model has finished
    expect(bubble).to_have_attribute("data-streaming", "true")
    expect(scope.get_by_test_id("assistant-stop")).to_be_visible()
    model.go.set()
    replies = scope.locator('[data-testid="assistant-message"][data-role="assistant"]')
    expect(replies).to_have_count(1)
    expect(replies.first).to_have_text("".join(WORDS).strip())
    expect(scope.get_by_test_id("assistant-message")).to_have_count(2)  # the user's and this
    expect(scope.get_by_test_id("assistant-stop")).to_be_hidden()


def test_stop_keeps_the_partial_reply_and_a_reload_shows_it_stored(
    page: Page, llm_server: Server, model: SlowModel
):
    sign_in(page, llm_server)
    scope, bubble = start_turn(page, "write at length")
    partial = "".join(WORDS[:FIRST]).strip()
    expect(bubble).to_have_text(partial, timeout=30_000)
    scope.get_by_test_id("assistant-stop").click()
    messages = scope.get_by_test_id("assistant-message")
    expect(messages).to_have_count(3)
    expect(messages.nth(1)).to_have_text(partial)  # what was said stays visible
    expect(messages.nth(1)).to_have_attribute("data-role", "assistant")
    expect(messages.last).to_have_text("Stopped.")
    expect(scope.get_by_test_id("assistant-send")).to_be_enabled()
    model.go.set()  # the model writes on, into a stream the app server has closed
    assert model.aborted.wait(30), "the model's stream was not closed"
    cid = page.evaluate("""() => Object.keys(localStorage).filter(
        k => k.startsWith('ana.conversation.alice.')).map(k => localStorage.getItem(k))[0]""")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:  # the server stores the stopped turn as it winds down
        got = page.request.get(f"{llm_server.url}/api/assistant/conversations/{cid}")
        if got.ok and len(got.json()["messages"]) == 2:
            break
        time.sleep(0.2)
    reload_list(page)
    stored = frames(page, "assistant").first.locator(
        '[data-testid="assistant-message"][data-role="assistant"]'
    )
    expect(stored).to_have_count(1)
    expect(stored.first).to_contain_text(partial)
    expect(stored.first).to_contain_text(STOPPED)
    expect(stored.first).not_to_contain_text(WORDS[-1].strip())
