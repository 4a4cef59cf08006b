"""A canary note in the real page: its text never rides in a request header or URL, the server
log or the delivery row, whether saved before or typed just before sending.
"""

from __future__ import annotations

import json
import uuid

from playwright.sync_api import Page, expect

from e2e.ambient_helpers import editor_text, open_note, put_note, reload_list, send
from e2e.conftest import Server

SAVED = f"zq9SAVED{uuid.uuid4().hex[:6]}"
TYPED = f"zq9TYPED{uuid.uuid4().hex[:6]}"
NOTE = f"# Launch\n\nThe code word is {SAVED}-秘密.\n\n- [ ] tell nobody\n"


def test_canary_never_leaves_through_headers_urls_logs_or_the_row(alice: Page, server: Server):
    path = f"e2e-leak-{uuid.uuid4().hex[:6]}.md"
    seen: list[tuple[str, str, dict[str, str]]] = []
    alice.on("request", lambda r: seen.append(("request", r.url, r.all_headers())))
    alice.on("response", lambda r: seen.append(("response", r.url, r.all_headers())))

    put_note(alice, server.url, "personal", path, NOTE)
    reload_list(alice)
    frame = open_note(alice, path)
    expect(frame.locator(".cm-content")).to_contain_text(SAVED)
    frame.locator(".cm-content").click()
    alice.keyboard.press("End")
    alice.keyboard.type(f" {TYPED}")  # typed, then sent at once: the capture must flush it
    assert TYPED in editor_text(frame)

    turns = [send(alice, "summarise this"), send(alice, "what are the todos here?")]
    conversation = turns[-1].body["conversationId"]
    assert all(t.pointer_json and t.pointer_json["path"] == path for t in turns)
    assert SAVED in turns[0].reply  # the agent did read the note, through its tool

    requests = [entry for entry in seen if entry[0] == "request"]
    assert any(url.endswith("/api/assistant/turns") for _, url, _ in requests)
    for canary in (SAVED, TYPED):
        for kind, url, headers in seen:
            assert canary not in url, (kind, url)
            for name, value in headers.items():
                assert canary not in value, (kind, url, name)
        assert canary not in server.log()
        row = server.delivery_row(conversation)
        assert row is not None and row["ambient_path"] == path
        assert canary not in json.dumps(dict(row), default=str, ensure_ascii=False)
    assert '"event": "turn"' in server.log()
