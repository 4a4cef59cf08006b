"""Autosave: a backend outage loses no keystroke (conflicts: e2e/test_live.py)."""

from __future__ import annotations

import time
import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import Server, put_note, sign_in, wait_ready


def saved_text(page: Page, server: Server, path: str) -> str:
    return page.request.get(f"{server.url}/api/workspaces/personal/documents/{path}").text()


def wait_saved(page: Page, server: Server, path: str, part: str, timeout: float = 30) -> str:
    """Poll the document API (a condition, not a sleep) until the note contains `part`."""
    deadline = time.monotonic() + timeout
    while part not in (text := saved_text(page, server, path)):
        assert time.monotonic() < deadline, f"saved text is still {text!r}"
        page.wait_for_timeout(100)
    return text


def open_via_files(page: Page, path: str):
    """Open `path` through a Files frame (it lists what exists now) and return its frame."""
    page.locator("[data-testid=open-frame][data-kind=files]").click()
    page.locator(f"[data-testid=file-link][data-path='{path}']").click()
    frame = page.locator(f"[data-testid=frame][data-frame-kind=inbox][data-path='{path}']")
    expect(frame.locator(".cm-content")).to_be_visible()
    return frame


def type_at_start(page: Page, frame, text: str) -> None:
    frame.locator(".cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.insert_text(text)


def test_backend_stopped_and_restarted_while_typing(page: Page, fresh_server: Server) -> None:
    path = "outage.md"
    sign_in(page, fresh_server)
    put_note(page, fresh_server, path, "end\n")
    frame = open_via_files(page, path)
    status = frame.get_by_test_id("save-status")

    type_at_start(page, frame, "one ")
    wait_saved(page, fresh_server, path, "one end")

    fresh_server.stop()
    type_at_start(page, frame, "two ")
    expect(status).to_have_text("offline — retrying", timeout=20_000)
    type_at_start(page, frame, "three ")
    # Leaving now would lose text: the page asks first (the dialog is dismissed: we stay).
    dialogs: list[str] = []
    page.once("dialog", lambda dialog: (dialogs.append(dialog.type), dialog.dismiss()))
    page.close(run_before_unload=True)
    expect(status).to_have_text("offline — retrying")
    assert dialogs == ["beforeunload"]

    fresh_server.start()
    assert wait_saved(page, fresh_server, path, "three two one end") == "three two one end\n"
    expect(status).to_have_text("Saved")


def test_closing_a_note_whose_save_failed_for_good_warns_before_discarding(
    alice: Page, server: Server
) -> None:
    path = f"e2e-{uuid.uuid4().hex[:6]}-refused.md"
    put_note(alice, server, path, "# Refused\n")
    alice.reload()
    wait_ready(alice)
    alice.route(
        f"**/documents/{path}",
        lambda route: (
            route.fulfill(
                status=403,
                content_type="application/json",
                body='{"detail": "You do not have access to that workspace."}',
            )
            if route.request.method == "PUT"
            else route.continue_()
        ),
    )
    alice.locator(f'[data-testid="note-link"][data-path="{path}"]').click()
    frame = alice.locator(f'[data-testid="frame"][data-path="{path}"]')
    frame.locator(".cm-content").click()
    alice.keyboard.type("words the server refuses")
    expect(frame.get_by_test_id("save-status")).to_contain_text("Not saved", timeout=15_000)

    frame.get_by_test_id("frame-close").click()
    expect(alice.get_by_role("alert").filter(has_text="closing it would lose")).to_be_visible()
    expect(frame).to_have_count(1)  # still open: the text is still there to copy
    frame.get_by_test_id("frame-close").click()  # a second press discards on purpose
    expect(frame).to_have_count(0)
