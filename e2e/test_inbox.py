"""Inbox frames: opening notes into frames, activation, the four views, and a todo tick."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from playwright.sync_api import Page, expect

from e2e.ambient_helpers import send
from e2e.conftest import Server, sign_in
from e2e.test_mcp import mcp_call
from support.servers import REPO as ROOT

FRAMES = "[data-testid=frame]"


def put_note(page: Page, server: Server, path: str, text: str, ws: str = "personal") -> None:
    response = page.request.put(
        f"{server.url}/api/workspaces/{ws}/documents/{path}",
        data=text.encode(),
        headers={"Content-Type": "text/markdown"},
    )
    assert response.ok, response.text()


def saved_text(page: Page, server: Server, path: str, ws: str = "personal") -> str:
    return page.request.get(f"{server.url}/api/workspaces/{ws}/documents/{path}").text()


def wait_saved(
    page: Page, server: Server, path: str, expected: str, timeout: float = 20, *, part: bool = False
) -> None:
    """Poll the document API (a condition, not a sleep) until the note holds `expected`."""
    deadline = time.monotonic() + timeout
    while not ((text := saved_text(page, server, path)) == expected or (part and expected in text)):
        assert time.monotonic() < deadline, f"saved text is still {text!r}"
        page.wait_for_timeout(100)


def link(page: Page, testid: str, path: str):
    return page.locator(f"[data-testid={testid}][data-path='{path}']")


def inbox(page: Page, path: str):
    return page.locator(f"{FRAMES}[data-frame-kind=inbox][data-path='{path}']")


def test_note_link_reuses_the_last_active_inbox_frame(alice: Page) -> None:
    link(alice, "note-link", "todo.md").click()
    expect(inbox(alice, "todo.md")).to_have_attribute("data-active", "true")
    link(alice, "note-link", "welcome.md").click()  # same frame, another note
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(1)
    expect(inbox(alice, "welcome.md").locator(".cm-content")).to_contain_text("Welcome")
    link(alice, "note-open-frame", "projects/roadmap.md").click()  # a new frame
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(2)
    expect(inbox(alice, "projects/roadmap.md")).to_have_attribute("data-active", "true")
    # Activating the first frame makes it the target of the next note link.
    inbox(alice, "welcome.md").locator(".frame-title").click()
    expect(alice.locator(f"{FRAMES}[data-active=true]")).to_have_count(1)
    expect(inbox(alice, "welcome.md")).to_have_attribute("data-active", "true")
    link(alice, "note-link", "todo.md").click()
    expect(inbox(alice, "todo.md")).to_have_attribute("data-active", "true")
    expect(inbox(alice, "projects/roadmap.md")).to_have_count(1)
    # The keyboard reaches every frame: Ctrl+Alt+Arrow moves the focus (and activation).
    alice.keyboard.press("Control+Alt+ArrowRight")
    expect(inbox(alice, "projects/roadmap.md")).to_have_attribute("data-active", "true")
    alice.keyboard.press("Control+Alt+ArrowLeft")
    expect(inbox(alice, "todo.md")).to_have_attribute("data-active", "true")
    # An empty Inbox frame asks for a note; the Files frame opens one like a note link.
    inbox(alice, "todo.md").get_by_test_id("frame-close").click()
    alice.locator("[data-testid=open-frame][data-kind=inbox]").click()
    empty = inbox(alice, "")
    expect(empty).to_contain_text("No note open")
    alice.locator("[data-testid=open-frame][data-kind=files]").click()
    alice.get_by_test_id("file-link").and_(alice.locator("[data-path='welcome.md']")).click()
    expect(empty).to_have_count(0)
    expect(inbox(alice, "welcome.md")).to_have_count(1)


def test_views_render_from_the_live_editor_text(alice: Page, server: Server) -> None:
    path = f"views/{uuid.uuid4().hex[:6]}.md"
    put_note(alice, server, path, "# Plan\n\n- [ ] first\n")
    alice.locator("[data-testid=open-frame][data-kind=files]").click()
    link(alice, "file-link", path).click()
    frame = inbox(alice, path)
    editor = frame.locator(".cm-content")
    editor.click()
    alice.keyboard.press("Control+End")
    alice.keyboard.insert_text("\n## Typed just now\n\n- [x] second **bold**\n")
    buttons = frame.get_by_test_id("view-button")
    expect(buttons).to_have_count(4)

    frame.locator("[data-testid=view-button][data-view=preview]").click()
    expect(frame).to_have_attribute("data-view", "preview")
    expect(frame.locator("[data-view=preview]")).to_have_attribute("aria-pressed", "true")
    expect(frame.locator(".preview h2")).to_have_text("Typed just now")
    expect(frame.locator(".preview strong")).to_have_text("bold")
    expect(editor).to_be_hidden()  # still mounted, only hidden

    frame.locator("[data-testid=view-button][data-view=todo]").click()
    expect(frame.get_by_role("checkbox", name="first")).not_to_be_checked()
    expect(frame.get_by_role("checkbox", name="second **bold**")).to_be_checked()

    frame.locator("[data-testid=view-button][data-view=mindmap]").click()
    tree = frame.locator(".mindmap")
    expect(tree.locator(".node-heading")).to_have_text(["Plan", "Typed just now"])
    expect(tree.locator(".node-item")).to_have_count(2)

    frame.locator("[data-testid=view-button][data-view=edit]").click()
    expect(editor).to_be_visible()
    expect(frame.locator("[data-view=mindmap]")).to_have_attribute("aria-pressed", "false")
    wait_saved(alice, server, path, "## Typed just now\n\n- [x] second **bold**\n", part=True)


def test_todo_tick_changes_the_saved_note(alice: Page, server: Server) -> None:
    path = f"todos/{uuid.uuid4().hex[:6]}.md"
    put_note(alice, server, path, "# Chores\n\n- [ ] alpha\n- [ ] beta\n- [x] gamma\n")
    alice.locator("[data-testid=open-frame][data-kind=files]").click()
    link(alice, "file-link", path).click()
    frame = inbox(alice, path)
    frame.locator("[data-testid=view-button][data-view=todo]").click()
    frame.get_by_role("checkbox", name="beta").check()
    frame.get_by_role("checkbox", name="gamma").uncheck()
    wait_saved(alice, server, path, "# Chores\n\n- [ ] alpha\n- [x] beta\n- [ ] gamma\n")
    expect(frame.get_by_test_id("save-status")).to_have_text("Saved")
    frame.locator("[data-testid=view-button][data-view=edit]").click()
    expect(frame.locator(".cm-content")).to_contain_text("- [x] beta")


def test_screenshot_of_the_app(page: Page, fresh_server: Server) -> None:
    """docs/screenshot.png at 1440×900, on demo data: an agent's proposal in its panel, the
    roadmap with its History open on the demo's version (diff and Restore in view) beside
    todo.md's list, and the assistant with a short chat."""
    page.set_viewport_size({"width": 1440, "height": 900})
    alice = sign_in(page, fresh_server)
    roadmap = saved_text(alice, fresh_server, "projects/roadmap.md")
    put_note(alice, fresh_server, "projects/roadmap.md", roadmap + "- Ship the beta\n")
    link(alice, "note-link", "projects/roadmap.md").click()
    link(alice, "note-open-frame", "todo.md").click()
    inbox(alice, "todo.md").locator("[data-view=todo]").click()
    expect(alice.locator(f"{FRAMES}")).to_have_count(3)
    expect(inbox(alice, "todo.md").locator(".todo-item").first).to_be_visible()
    send(alice, "summarise this note")

    made = alice.request.post(
        f"{fresh_server.url}/api/tokens",
        data={"name": "Claude Code", "expiresInDays": 1, "scope": "propose"},
    )
    assert made.status == 201, made.text()
    mcp_call(
        fresh_server.url,
        made.json()["token"],
        "propose_edit",
        workspaceId="personal",
        path="todo.md",
        edits=[{"append": "- [ ] Book the hotel in Kyoto\n"}],
    )
    expect(alice.get_by_test_id("agent-proposal").first).to_be_visible(timeout=15_000)

    frame = inbox(alice, "projects/roadmap.md")
    frame.get_by_test_id("history-open").click()
    frame.get_by_test_id("history-item").last.click()  # the demo's version, against the screen
    expect(frame.get_by_test_id("history-restore")).to_be_in_viewport()
    expect(frame.locator(".history-diff .cm-line").first).to_be_in_viewport()
    boxes = alice.locator(FRAMES).evaluate_all(
        "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
    )
    assert len(set(boxes)) == 1, boxes  # one row: the layout the README shows
    alice.locator(".sidebar").click(position={"x": 5, "y": 5})  # no focus ring in the picture
    alice.screenshot(path=Path(ROOT, "docs", "screenshot.png"))
