"""The inline AI command in the page: prompt, preview, accept, reject, undo, a moved range."""

from __future__ import annotations

import time
import uuid

from playwright.sync_api import Page, Route, expect

from e2e.conftest import Server, put_note, wait_ready

FRAMES = "[data-testid=frame]"
DOC = "el => el.cmTile.root.view.state.doc.toString()"


def open_note(page: Page, server: Server, text: str):
    """A fresh note holding `text`, opened in an Inbox frame (through a Files frame)."""
    path = f"inline/{uuid.uuid4().hex[:8]}.md"
    put_note(page, server, path, text)
    page.locator("[data-testid=open-frame][data-kind=files]").click()
    page.locator(f"[data-testid=file-link][data-path='{path}']").click()
    frame = page.locator(f"{FRAMES}[data-frame-kind=inbox][data-path='{path}']")
    expect(frame.locator(".cm-content")).to_be_visible()
    return frame


def select_lines(page: Page, frame, first: int, count: int) -> None:
    """Select `count` whole lines from 0-based line `first`, with the keyboard."""
    frame.locator(".cm-content").click()
    page.keyboard.press("Control+Home")
    for _ in range(first):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Home")
    for _ in range(count):
        page.keyboard.press("Shift+ArrowDown")


def ask(page: Page, frame, instruction: str) -> None:
    page.keyboard.press("Control+k")
    field = frame.get_by_test_id("inline-command-input")
    expect(field).to_be_focused()
    page.keyboard.type(instruction)
    page.keyboard.press("Enter")


def text_of(frame) -> str:
    return frame.locator(".cm-content").evaluate(DOC)


def test_accept_replaces_the_selection_and_one_undo_reverts_it(alice: Page, server: Server):
    canary = f"zq{uuid.uuid4().hex[:8]}"
    frame = open_note(alice, server, f"# Shopping\napples\npears\n\n{canary}\n")
    button = frame.get_by_test_id("inline-command-open")
    assert "Ctrl+K" in button.get_attribute("title")
    frame.get_by_test_id("editor-help").locator("summary").click()
    expect(frame.get_by_test_id("editor-help")).to_contain_text("Ctrl+K")
    select_lines(alice, frame, 1, 2)
    ask(alice, frame, "make this a bullet list")
    preview = frame.get_by_test_id("inline-command-preview")
    expect(preview).to_be_visible()
    assert preview.evaluate("el => el.textContent") == "- apples\n- pears\n"
    expect(frame.get_by_test_id("inline-command-accept")).to_be_visible()
    expect(frame.get_by_test_id("inline-command-reject")).to_be_visible()
    alice.keyboard.press("Enter")  # accepts
    expect(preview).to_be_hidden()
    assert text_of(frame) == f"# Shopping\n- apples\n- pears\n\n{canary}\n"
    expect(frame.locator(".cm-content")).to_be_focused()  # the focus is back in the editor
    alice.keyboard.press("Control+z")  # one undo reverts exactly the accepted change
    assert text_of(frame) == f"# Shopping\napples\npears\n\n{canary}\n"
    alice.keyboard.press("Control+Shift+z")
    assert text_of(frame) == f"# Shopping\n- apples\n- pears\n\n{canary}\n"
    assert canary not in server.log()  # it rode in the request's body (as context), never a log


def test_reject_with_the_button_and_with_escape_changes_nothing(alice: Page, server: Server):
    original = "🙂 ok\n日本語のメモ\nりんご\nみかん\n"
    frame = open_note(alice, server, original)
    panel = frame.locator(".inline-panel")
    # The button opens the prompt too; Escape there closes it without sending anything.
    select_lines(alice, frame, 2, 2)
    frame.get_by_test_id("inline-command-open").click()
    expect(frame.get_by_test_id("inline-command-input")).to_be_focused()
    alice.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    expect(frame.locator(".cm-content")).to_be_focused()

    # Japanese text after an emoji: CodeMirror's UTF-16 positions agree with the server.
    ask(alice, frame, "箇条書きにして")
    preview = frame.get_by_test_id("inline-command-preview")
    expect(preview).to_be_visible()
    assert preview.evaluate("el => el.textContent") == "- りんご\n- みかん\n"
    frame.get_by_test_id("inline-command-reject").click()
    expect(preview).to_have_count(0)
    assert text_of(frame) == original

    ask(alice, frame, "番号付きリストにして")
    expect(preview).to_contain_text("1. りんご")
    alice.keyboard.press("Escape")  # rejects
    expect(preview).to_have_count(0)
    expect(frame.locator(".cm-content")).to_be_focused()
    assert text_of(frame) == original


def test_an_instruction_that_needs_a_model_is_explained(alice: Page, server: Server):
    frame = open_note(alice, server, "Good morning\n")
    select_lines(alice, frame, 0, 1)
    ask(alice, frame, "translate this into French")
    panel = frame.locator(".inline-panel")
    expect(panel).to_have_attribute("data-state", "message")
    expect(panel).to_contain_text("language model")
    expect(frame.get_by_test_id("inline-command-accept")).to_be_hidden()
    alice.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    assert text_of(frame) == "Good morning\n"


def test_an_empty_selection_works_on_the_cursors_line(alice: Page, server: Server):
    frame = open_note(alice, server, "first\nbuy milk\nlast\n")
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+Home")
    alice.keyboard.press("ArrowDown")
    ask(alice, frame, "todo list")
    expect(frame.get_by_test_id("inline-command-preview")).to_have_text("- [ ] buy milk")
    alice.keyboard.press("Enter")
    assert text_of(frame) == "first\n- [ ] buy milk\nlast\n"


def wait_held(page: Page, held: list[Route], seconds: float = 15) -> None:
    """Wait, with a deadline, until the route handler has caught the inline request."""
    deadline = time.monotonic() + seconds
    while not held:
        assert time.monotonic() < deadline, f"the inline request was not sent within {seconds} s"
        page.wait_for_timeout(50)


def test_accept_is_refused_when_the_range_changed_while_the_request_was_out(
    alice: Page, server: Server
):
    frame = open_note(alice, server, "intro\nbeta\nalpha\noutro\n")
    held: list[Route] = []
    alice.route("**/api/assistant/inline", lambda route: held.append(route))
    try:
        select_lines(alice, frame, 1, 2)
        ask(alice, frame, "sort lines")
        expect(frame.locator(".inline-panel")).to_have_attribute("data-state", "waiting")
        wait_held(alice, held)
        # The user goes back to the editor and types inside the range meanwhile.
        frame.locator(".cm-line", has_text="alpha").click()
        alice.keyboard.press("End")
        alice.keyboard.type("!")
        held[0].continue_()
        preview = frame.get_by_test_id("inline-command-preview")
        expect(preview).to_be_visible()
        expect(frame.locator(".cm-content")).to_be_focused()  # the answer took no keystroke
        frame.get_by_test_id("inline-command-accept").click()
        expect(alice.get_by_test_id("app-message")).to_contain_text("nothing was replaced")
        assert text_of(frame) == "intro\nbeta\nalpha!\noutro\n"
    finally:
        alice.unroute("**/api/assistant/inline")


def test_text_typed_before_the_range_does_not_stop_accept(alice: Page, server: Server):
    frame = open_note(alice, server, "intro\nbeta\nalpha\n")
    held: list[Route] = []
    alice.route("**/api/assistant/inline", lambda route: held.append(route))
    try:
        select_lines(alice, frame, 1, 2)
        ask(alice, frame, "sort lines")
        wait_held(alice, held)
        frame.locator(".cm-line", has_text="intro").click()
        alice.keyboard.press("Home")
        alice.keyboard.type("An ")  # outside the range: it moves, and still holds the text
        held[0].continue_()
        expect(frame.get_by_test_id("inline-command-preview")).to_be_visible()
        frame.get_by_test_id("inline-command-accept").click()
        expect(frame.get_by_test_id("inline-command-preview")).to_have_count(0)
        assert text_of(frame) == "An intro\nalpha\nbeta\n"
    finally:
        alice.unroute("**/api/assistant/inline")


def test_the_command_works_in_a_popped_out_window(alice: Page, server: Server):
    frame = open_note(alice, server, "# Pop\nzeta\neta\n")
    with alice.expect_popup() as info:
        frame.get_by_test_id("frame-popout").click()
    popup = info.value
    wait_ready(popup)
    moved = popup.locator(f"{FRAMES}[data-frame-kind=inbox]")
    expect(moved.locator(".cm-content")).to_be_visible()
    select_lines(popup, moved, 1, 2)
    ask(popup, moved, "UPPERCASE")
    expect(moved.get_by_test_id("inline-command-preview")).to_have_text("ZETA\nETA")
    popup.keyboard.press("Enter")
    assert text_of(moved) == "# Pop\nZETA\nETA\n"
    expect(moved.locator(".cm-content")).to_be_focused()
    popup.close()
