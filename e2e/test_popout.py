"""Pop-out: a frame moves to a window of its own (own page, own Pyodide) and keeps working."""

from __future__ import annotations

import time
import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import Server, wait_ready

FRAMES = "[data-testid=frame]"


def saved_text(page: Page, server: Server, path: str) -> str:
    return page.request.get(f"{server.url}/api/workspaces/personal/documents/{path}").text()


def test_inbox_popout_keeps_editing_and_saving(alice: Page, server: Server) -> None:
    path = f"popout/{uuid.uuid4().hex[:6]}.md"
    alice.request.put(
        f"{server.url}/api/workspaces/personal/documents/{path}",
        data=b"# Pop\n",
        headers={"Content-Type": "text/markdown"},
    )
    alice.locator("[data-testid=open-frame][data-kind=files]").click()
    alice.locator(f"[data-testid=file-link][data-path='{path}']").click()
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox][data-path='{path}']")
    frame.locator("[data-testid=view-button][data-view=preview]").click()
    frame.locator("[data-testid=view-button][data-view=edit]").click()
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+End")
    alice.keyboard.insert_text("typed before the pop-out")
    frame_id = frame.get_attribute("data-frame-id")

    with alice.expect_popup() as info:
        frame.get_by_test_id("frame-popout").click()  # flushes first: nothing is lost
    popup = info.value
    wait_ready(popup)
    # The frame left the main window and lives on in the new one, same id, note and view.
    expect(alice.locator(f"{FRAMES}[data-frame-id='{frame_id}']")).to_have_count(0)
    moved = popup.locator(f"{FRAMES}[data-frame-id='{frame_id}']")
    expect(moved).to_have_attribute("data-path", path)
    expect(moved).to_have_attribute("data-view", "edit")
    expect(moved.locator(".cm-content")).to_contain_text("typed before the pop-out")
    assert "typed before the pop-out" in saved_text(alice, server, path)
    assert popup.evaluate("window.opener !== null")
    assert popup.evaluate("document.documentElement.dataset.ready") == "true"

    moved.locator(".cm-content").click()
    popup.keyboard.press("Control+End")
    popup.keyboard.insert_text(" and after it")
    deadline = time.monotonic() + 20
    while "after it" not in saved_text(alice, server, path):
        assert time.monotonic() < deadline, "the popped-out note did not save"
        popup.wait_for_timeout(100)
    moved.locator("[data-testid=view-button][data-view=preview]").click()
    expect(moved.locator(".preview")).to_contain_text("typed before the pop-out and after it")
    popup.close()


def test_assistant_popout_chats_in_its_new_window(alice: Page) -> None:
    assistant = alice.locator(f"{FRAMES}[data-frame-kind=assistant]")
    with alice.expect_popup() as info:
        assistant.get_by_test_id("frame-popout").click()
    popup = info.value
    wait_ready(popup)
    expect(alice.locator(f"{FRAMES}[data-frame-kind=assistant]")).to_have_count(0)
    moved = popup.locator(f"{FRAMES}[data-frame-kind=assistant]")
    expect(moved).to_have_count(1)
    moved.get_by_test_id("assistant-input").fill("What can you do?")
    moved.get_by_test_id("assistant-send").click()
    expect(moved.locator("[data-testid=assistant-message][data-role=user]")).to_contain_text(
        "What can you do?"
    )
    expect(moved.locator("[data-testid=assistant-message][data-role=assistant]")).not_to_have_count(
        0
    )
    popup.close()


def test_a_popout_says_whose_it_is_and_returns_to_the_main_window(
    alice: Page, server: Server
) -> None:
    path = f"popout/{uuid.uuid4().hex[:6]}.md"
    alice.request.put(
        f"{server.url}/api/workspaces/personal/documents/{path}",
        data=b"# Back\n",
        headers={"Content-Type": "text/markdown"},
    )
    alice.locator("[data-testid=open-frame][data-kind=files]").click()
    alice.locator(f"[data-testid=file-link][data-path='{path}']").click()
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox][data-path='{path}']")
    frame.locator("[data-testid=view-button][data-view=preview]").click()
    frame_id = frame.get_attribute("data-frame-id")
    with alice.expect_popup() as info:
        frame.get_by_test_id("frame-popout").click()
    popup = info.value
    wait_ready(popup)
    expect(popup.get_by_test_id("popout-origin")).to_contain_text("alice’s main window")
    expect(popup.get_by_test_id("popout-origin")).to_contain_text("Personal")
    expect(popup.get_by_test_id("popout-scope")).to_have_text(
        "The main window's assistant no longer calls this note “this note”."
    )
    moved = popup.locator(f"{FRAMES}[data-frame-id='{frame_id}']")
    moved.locator("[data-testid=view-button][data-view=edit]").click()
    moved.locator(".cm-content").click()
    popup.keyboard.press("Control+End")
    popup.keyboard.insert_text("typed in the pop-out")
    with popup.expect_event("close"):
        popup.get_by_test_id("popout-return").click()  # saves, then the window closes
    back = alice.locator(f"{FRAMES}[data-frame-id='{frame_id}']")
    expect(back).to_have_attribute("data-path", path)  # the same frame, back in the main window
    expect(back).to_have_attribute("data-view", "edit")
    expect(back.locator(".cm-content")).to_contain_text("typed in the pop-out")
    assert "typed in the pop-out" in saved_text(alice, server, path)
