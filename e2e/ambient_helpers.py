"""What the ambient e2e tests observe: the real turn request, its decoded pointer, the editor."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import zlib
from dataclasses import dataclass
from urllib.parse import quote

from playwright.sync_api import Locator, Page, expect

from ambient.pointer import decode
from e2e.conftest import wait_ready

CAVEAT = (
    "The saved copy is behind what the user has on screen — their most recent keystrokes may "
    "be missing from the text above."
)
TURNS = "/api/assistant/turns"


@dataclass
class Turn:
    headers: dict[str, str]
    body: dict
    reply: str

    @property
    def pointer_json(self) -> dict | None:
        value = self.headers.get("x-ambient-note")
        if value is None:
            return None
        assert decode(value) is not None, "the page sent a header the ingress refuses"
        return json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))


def put_note(page: Page, server_url: str, workspace: str, path: str, text: str) -> None:
    """Create or overwrite a note through the real API, with the page's own session cookie."""
    response = page.request.put(
        f"{server_url}/api/workspaces/{workspace}/documents/{quote(path)}",
        data=text.encode(),
        headers={"Content-Type": "text/markdown; charset=utf-8"},
    )
    assert response.ok, response.text()


def saved_text(page: Page, server_url: str, workspace: str, path: str) -> str:
    response = page.request.get(f"{server_url}/api/workspaces/{workspace}/documents/{quote(path)}")
    assert response.ok, response.text()
    return response.text()


def reload_list(page: Page) -> None:
    """Notes made through the API appear after a reload (the session cookie keeps us in)."""
    page.reload()
    wait_ready(page)
    expect(page.get_by_test_id("workspace-select")).to_be_visible()


def frames(page: Page, kind: str | None = None) -> Locator:
    selector = '[data-testid="frame"]' + (f'[data-frame-kind="{kind}"]' if kind else "")
    return page.locator(selector)


def inbox(page: Page, path: str) -> Locator:
    return page.locator(f'[data-testid="frame"][data-frame-kind="inbox"][data-path="{path}"]')


def open_note(page: Page, path: str, *, new_frame: bool = False) -> Locator:
    testid = "note-open-frame" if new_frame else "note-link"
    page.locator(f'[data-testid="{testid}"][data-path="{path}"]').first.click()
    frame = inbox(page, path)
    expect(frame).to_have_count(1)
    if frame.get_attribute("data-view") == "edit":
        expect(frame.locator(".cm-content")).to_be_visible()
    return frame


def editor_text(frame: Locator) -> str:
    """The live CodeMirror document of a frame (its state, not the rendered lines)."""
    return frame.locator(".cm-content").evaluate("el => el.cmTile.root.view.state.doc.toString()")


def chip(page: Page) -> Locator:
    return page.get_by_test_id("ambient-chip").first


def send(page: Page, message: str, *, assistant: Locator | None = None) -> Turn:
    """Type and send a message; return the real request and the reply that came back."""
    scope = assistant or frames(page, "assistant").first
    replies = scope.locator('[data-testid="assistant-message"][data-role="assistant"]')
    before = replies.count()
    scope.get_by_test_id("assistant-input").fill(message)
    with page.expect_request(lambda r: r.url.endswith(TURNS) and r.method == "POST") as info:
        scope.get_by_test_id("assistant-send").click()
    request = info.value
    expect(replies).to_have_count(before + 1, timeout=30_000)
    # The turn is over (the reply shows a moment before): the next click is not refused as
    # "wait for the reply", and the conversation list's read after the turn has started.
    expect(scope.get_by_test_id("assistant-send")).to_be_enabled()
    return Turn(
        request.all_headers(),
        json.loads(request.post_data or "{}"),
        replies.nth(before).inner_text(),
    )


def digest(text: str) -> tuple[int, str]:
    data = text.encode("utf-8")
    return len(data), hashlib.sha256(data).hexdigest()[:16]


def png(width: int, height: int) -> bytes:
    """A valid RGB PNG of one colour, built with the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x20\x80\xff" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
