"""What the live-notes and history e2e tests share: waiting on the editor, the server, a cut."""

from __future__ import annotations

import time
from urllib.parse import quote

from playwright.sync_api import Locator, Page, expect

from e2e.ambient_helpers import open_note, put_note, reload_list

WS = "personal"
DOC_STATE = "el.cmTile.root.view.state.doc.toString()"


def content(frame: Locator) -> Locator:
    """The frame's editor (not the read-only diff views that may be shown above it)."""
    return frame.locator(".editor-host .cm-content")


def editor_text(frame: Locator) -> str:
    return content(frame).evaluate(f"el => {DOC_STATE}")


def note_url(server_url: str, path: str) -> str:
    return f"{server_url}/api/workspaces/{WS}/documents/{quote(path)}"


def fresh_note(page: Page, server_url: str, path: str, text: str) -> Locator:
    """Create the note through the API and open it in Edit; returns its frame."""
    put_note(page, server_url, WS, path, text)
    reload_list(page)
    return open_note(page, path)


def wait_editor(frame: Locator, expected: str, timeout: float = 15_000) -> None:
    """Wait until the frame's live CodeMirror document is exactly `expected`."""
    handle = content(frame).element_handle()
    try:
        frame.page.wait_for_function(
            f"([el, want]) => {DOC_STATE} === want", arg=[handle, expected], timeout=timeout
        )
    except Exception as exc:
        raise AssertionError(f"the editor holds {editor_text(frame)!r}, not {expected!r}") from exc


def saved_or_none(page: Page, server_url: str, path: str) -> str | None:
    """The saved copy, or None while there is no note at `path`."""
    response = page.request.get(note_url(server_url, path))
    if response.status == 404:
        return None
    assert response.ok, response.text()
    return response.text()


def wait_saved(
    page: Page, server_url: str, path: str, expected: str, timeout: float = 20.0
) -> None:
    """Poll the document API (a condition with a deadline) until it holds `expected`."""
    deadline = time.monotonic() + timeout
    while (text := saved_or_none(page, server_url, path)) != expected:
        assert time.monotonic() < deadline, f"the server still has {text!r}, not {expected!r}"
        page.wait_for_timeout(100)


def type_at_line_end(frame: Locator, line: int, words: str) -> None:
    """Put the cursor at the end of 1-based `line` and type `words` (real keystrokes)."""
    page = frame.page
    content(frame).click()
    page.keyboard.press("Control+Home")
    for _ in range(line - 1):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("End")
    page.keyboard.type(words)


def type_offline(frame: Locator, line: int, words: str) -> None:
    """Type while this window has no network, so the keystrokes stay unsaved (its saves fail
    and retry); the API requests the test makes itself still reach the server."""
    frame.page.context.set_offline(True)
    type_at_line_end(frame, line, words)
    expect(frame.get_by_test_id("save-status")).to_have_attribute("data-state", "offline")


def back_online(page: Page) -> None:
    page.context.set_offline(False)
