"""SPEC §3 under a slow save: the send waits at most 1.5 s, says `flushed: false`, and the
assistant relays the caveat; a note switched during the wait voids the capture."""

from __future__ import annotations

import time
import uuid
from urllib.parse import quote

from playwright.sync_api import Page, Route, expect

from ambient.pointer import decode
from e2e.ambient_helpers import (
    CAVEAT,
    TURNS,
    digest,
    editor_text,
    open_note,
    put_note,
    reload_list,
    saved_text,
    send,
)
from e2e.conftest import Server


def hold_saves(page: Page, path: str) -> list[Route]:
    """Hold every PUT of `path` until the test lets it go (a document store stuck for seconds)."""
    held: list[Route] = []

    def handler(route: Route) -> None:
        if route.request.method == "PUT":
            held.append(route)
        else:
            route.continue_()

    page.route(f"**/documents/{quote(path)}", handler)
    return held


def start_note(page: Page, server: Server) -> tuple[str, object]:
    path = f"e2e-{uuid.uuid4().hex[:6]}-held.md"
    put_note(page, server.url, "personal", path, "# Held\n\nsaved line\n")
    reload_list(page)
    return path, open_note(page, path)


def test_a_held_save_gives_flushed_false_within_the_limit_and_the_caveat(alice: Page, server):
    path, frame = start_note(alice, server)
    held = hold_saves(alice, path)
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+End")
    alice.keyboard.type("unsaved words")
    assistant = alice.locator('[data-testid="frame"][data-frame-kind="assistant"]').first
    assistant.get_by_test_id("assistant-input").fill("summarise this")

    with alice.expect_request(lambda r: r.url.endswith(TURNS), timeout=10_000) as info:
        clicked = time.monotonic()
        assistant.get_by_test_id("assistant-send").click()
    waited = time.monotonic() - clicked
    turn = info.value
    pointer = turn.header_value("x-ambient-note")
    assert pointer is not None
    decoded = decode(pointer)
    assert decoded.flushed is False
    assert (decoded.bytes, decoded.sha256) == digest(editor_text(frame))
    assert held, "the save never reached the document store"
    assert 1.2 <= waited <= 3.5, f"the turn left after {waited:.2f} s"

    reply = assistant.locator('[data-testid="assistant-message"][data-role="assistant"]').last
    expect(reply).to_contain_text(CAVEAT, timeout=30_000)

    for route in held:  # the store recovers: the held save lands, nothing typed is lost
        route.continue_()
    alice.unroute(f"**/documents/{quote(path)}")
    deadline = time.monotonic() + 15
    while saved_text(alice, server.url, "personal", path) != editor_text(frame):
        assert time.monotonic() < deadline, "the held save never completed"
        alice.wait_for_timeout(200)


def test_opening_another_note_while_the_flush_is_held_sends_no_header(alice: Page, server):
    path, frame = start_note(alice, server)
    frame = alice.locator(f'[data-frame-id="{frame.get_attribute("data-frame-id")}"]')
    assistant = alice.locator('[data-testid="frame"][data-frame-kind="assistant"]').first
    # A first turn opens the workspace's key session, so the next send captures at once (the
    # first send's capture begins only once its key session has come back).
    first = send(alice, "hello", assistant=assistant)
    assert first.pointer_json is not None
    held = hold_saves(alice, path)
    frame.locator(".cm-content").click()
    alice.keyboard.type("pending ")
    assistant.get_by_test_id("assistant-input").fill("summarise this")

    with alice.expect_request(lambda r: r.url.endswith(TURNS), timeout=10_000) as info:
        # Both clicks happen inside the page, in order: Send, whose capture resolves the held
        # note and waits on its save (1.5 s), then the other note's link 0.3 s later. Timers
        # fire in the order they fall due, so a busy machine delays both, never reorders them;
        # clicks from here would each be a round trip that load can stretch past the wait.
        assistant.get_by_test_id("assistant-send").evaluate(
            """(send, selector) => {
                send.click();
                setTimeout(() => document.querySelector(selector).click(), 300);
            }""",
            '[data-testid="note-link"][data-path="welcome.md"]',
        )
    assert "x-ambient-note" not in info.value.all_headers()
    expect(frame).to_have_attribute("data-path", "welcome.md")
    for route in held:  # the earlier note's pending save still lands once the store recovers
        route.continue_()
    alice.unroute(f"**/documents/{quote(path)}")
    deadline = time.monotonic() + 15
    while "pending" not in saved_text(alice, server.url, "personal", path):
        assert time.monotonic() < deadline, "the switched-away note lost its keystrokes"
        alice.wait_for_timeout(200)
