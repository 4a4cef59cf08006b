"""The chat as a user meets it: Enter to send, folded tool calls, New chat, links to notes,
replies in Markdown, the focus after Apply, and a chip that says when the note is open in
another window."""

from __future__ import annotations

import json
from contextlib import suppress

import pytest
from playwright.sync_api import Page, expect

from backend.assistant.messages import say
from e2e.ambient_helpers import (
    TURNS,
    chip,
    frames,
    inbox,
    open_note,
    put_note,
    reload_list,
    send,
)
from e2e.conftest import Server, new_context, sign_in, wait_ready

CURSOR_LINE = """el => { const v = el.cmTile.root.view;
    return v.state.doc.lineAt(v.state.selection.main.head).number; }"""


def assistant(page: Page):
    return frames(page, "assistant").first


def replies(page: Page):
    return assistant(page).locator('[data-testid="assistant-message"][data-role="assistant"]')


def test_enter_sends_and_shift_enter_adds_a_line(alice: Page):
    box = assistant(alice).get_by_test_id("assistant-input")
    box.click()
    box.press_sequentially("first line")
    box.press("Shift+Enter")
    box.press_sequentially("second line")
    assert box.input_value() == "first line\nsecond line"
    with alice.expect_request(lambda r: r.url.endswith(TURNS) and r.method == "POST") as info:
        box.press("Enter")
    assert json.loads(info.value.post_data)["message"] == "first line\nsecond line"
    expect(replies(alice)).to_have_count(1, timeout=30_000)
    expect(box).to_have_value("")


def test_enter_that_ends_an_ime_composition_does_not_send(alice: Page):
    sent: list[str] = []
    alice.on("request", lambda r: sent.append(r.url) if r.url.endswith(TURNS) else None)
    box = assistant(alice).get_by_test_id("assistant-input")
    box.fill("今日のメモ")
    box.evaluate("""el => el.dispatchEvent(new KeyboardEvent('keydown',
        {key: 'Enter', keyCode: 229, isComposing: true, bubbles: true, cancelable: true}))""")
    box.press("End")
    box.press_sequentially("を要約して")
    box.press("Enter")  # the real send: exactly one turn, with the whole text
    expect(replies(alice)).to_have_count(1, timeout=30_000)
    assert len(sent) == 1
    expect(assistant(alice).locator('[data-role="user"]')).to_have_text("今日のメモを要約して")


@pytest.mark.parametrize("size", [(1440, 900), (1024, 768), (390, 844)])
def test_the_placeholder_shows_the_shortcut_on_every_screen_size(browser, server: Server, size):
    context = new_context(browser)
    page = context.new_page()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    sign_in(page, server)
    tab = page.locator('[data-testid="pane-tab"][data-pane="frame"]', has_text="Assistant")
    if size[0] < 500:  # a phone: one pane at a time, the Assistant behind its tab
        tab.click()
    box = page.get_by_test_id("assistant-input").first
    expect(box).to_be_visible()
    expect(box).to_have_attribute(
        "placeholder", "Ask about this note… (Enter to send, Shift+Enter for a new line)"
    )
    shown = box.evaluate("""el => { const s = getComputedStyle(el, '::placeholder');
        return s.display !== 'none' && s.visibility !== 'hidden' && s.color !== 'transparent'
            && el.clientWidth >= 120; }""")
    assert shown
    context.close()


def test_tool_calls_fold_into_one_line_per_turn(alice: Page):
    open_note(alice, "todo.md")
    send(alice, "what are my open todos?")
    reply = replies(alice).last
    fold = reply.get_by_test_id("tool-calls")
    expect(fold).to_have_count(1)
    calls = reply.get_by_test_id("tool-call")
    assert calls.count() >= 1 and calls.first.get_attribute("data-tool")
    expect(calls.first).to_be_hidden()  # folded: not shown, so not a Tab stop either
    stops = reply.evaluate("""el => [...el.querySelectorAll('a, button, summary, [tabindex]')]
        .filter(x => x.checkVisibility()).length""")
    assert stops == 1 + reply.locator("a.note-ref").count()  # the fold's own line only
    expect(fold.locator("summary")).to_contain_text("Used")
    fold.locator("summary").click()
    expect(calls.first).to_be_visible()


def test_new_chat_starts_a_new_conversation_that_a_reload_keeps(alice: Page):
    first = send(alice, "hello")
    expect(replies(alice)).to_have_count(1)
    assistant(alice).get_by_test_id("conversation-new").click()
    expect(assistant(alice).get_by_test_id("assistant-message")).to_have_count(0)
    expect(assistant(alice).get_by_test_id("assistant-input")).to_be_focused()
    second = send(alice, "hello again")
    assert second.body["conversationId"] != first.body["conversationId"]
    alice.reload()
    wait_ready(alice)
    messages = assistant(alice).get_by_test_id("assistant-message")
    expect(messages).to_have_count(2)
    expect(messages.first).to_have_text("hello again")


def test_paths_and_lines_in_a_reply_open_the_note_there(alice: Page):
    turn = send(alice, "what are the todos in todo.md?")
    assert "(line 5)" in turn.reply
    reply = replies(alice).last
    expect(reply.locator('a.note-ref[data-path="todo.md"]:not([data-line])').first).to_be_visible()
    reply.locator('[data-testid="chat-note-link"][data-path="todo.md"][data-line="5"]').click()
    frame = inbox(alice, "todo.md")
    expect(frame).to_have_attribute("data-view", "edit")
    editor = frame.locator(".cm-content")
    expect(editor).to_be_focused()
    assert editor.evaluate(CURSOR_LINE) == 5
    assert "#" not in alice.url  # the link opened the note, not an address
    # A line in another reply opens that note at its line too, in the same frame.
    send(alice, "which notes mention roadmap?")
    link = replies(alice).last.locator('[data-testid="chat-note-link"][data-line]').first
    path, line = link.get_attribute("data-path"), int(link.get_attribute("data-line"))
    link.click()
    expect(inbox(alice, path)).to_have_count(1)
    assert inbox(alice, path).locator(".cm-content").evaluate(CURSOR_LINE) == line


def test_a_note_name_in_a_reply_opens_the_note_without_an_error(alice: Page):
    errors: list[str] = []
    alice.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    send(alice, "summarise todo.md")
    link = replies(alice).last.locator('a.note-ref[data-path="todo.md"]:not([data-line])').first
    expect(link).to_be_visible()
    link.click()
    frame = inbox(alice, "todo.md")
    expect(frame).to_have_count(1)
    expect(frame.locator(".cm-content")).to_be_visible()
    expect(alice.get_by_test_id("app-message")).to_be_hidden()
    assert not [e for e in errors if "AttributeError" in e], errors
    assert "#" not in alice.url


def test_a_reply_is_markdown_and_a_list_renders_as_a_list(alice: Page):
    send(alice, "what notes do I have?")
    reply = replies(alice).last
    items = reply.locator(".message-text ul > li")
    expect(items.first).to_be_visible()
    assert items.count() >= 2
    expect(items.locator('a.note-ref[data-path="welcome.md"]')).to_have_count(1)
    assert not reply.inner_text().lstrip().startswith("- ")
    assert "\n- " not in reply.inner_text()


def test_after_apply_the_focus_goes_to_the_editor_or_back_to_the_chat_box(
    alice: Page, server: Server
):
    put_note(alice, server.url, "personal", "chat-focus.md", "# F\n\n- [ ] buy milk\n")
    reload_list(alice)
    frame = open_note(alice, "chat-focus.md")
    send(alice, "mark buy milk as done")
    card = assistant(alice).get_by_test_id("proposal").last
    card.get_by_test_id("proposal-apply").click()
    expect(card).to_have_attribute("data-status", "applied")
    expect(frame.locator(".cm-content")).to_be_focused()  # Ctrl+Z is right there
    # With the note closed, Apply goes through the server: the chat box gets the focus.
    send(alice, "add a todo: call the bank")
    second = assistant(alice).get_by_test_id("proposal").last
    expect(second).to_have_attribute("data-status", "pending")
    frame.get_by_test_id("frame-close").click()
    expect(inbox(alice, "chat-focus.md")).to_have_count(0)
    second.get_by_test_id("proposal-apply").click()
    expect(second).to_have_attribute("data-status", "applied")
    expect(assistant(alice).get_by_test_id("assistant-input")).to_be_focused()
    assert alice.evaluate("document.activeElement !== document.body")


def test_the_main_chip_says_when_the_note_is_open_in_another_window(alice: Page):
    note = open_note(alice, "welcome.md")
    with alice.expect_popup() as info:
        note.get_by_test_id("frame-popout").click()
    popup = info.value
    wait_ready(popup)
    expect(chip(alice)).to_have_attribute("data-path", "")
    expect(chip(alice)).to_contain_text("welcome.md is open in another window")
    expect(chip(alice)).to_have_attribute("data-elsewhere", "true")
    popup.close()
    expect(chip(alice)).to_contain_text("No note open")
    expect(chip(alice)).not_to_contain_text("another window")


def test_switched_off_the_reply_says_this_note_is_off(alice: Page):
    open_note(alice, "welcome.md")
    assistant(alice).get_by_test_id("ambient-toggle").click()
    expect(chip(alice)).to_have_attribute("data-enabled", "false")
    turn = send(alice, "summarise this")
    assert turn.headers.get("x-ambient-off") == "1"
    assert "x-ambient-note" not in turn.headers  # nothing captured
    text = replies(alice).last.locator(".message-text")
    expect(text).to_have_text(say("no_note_off", "en"))  # not "I don't see a note open"


def test_stop_abandons_a_turn_in_flight_and_frees_the_composer(alice: Page):
    held: list = []
    alice.route(f"**{TURNS}", lambda route: held.append(route))  # the model never answers
    scope = assistant(alice)
    stop = scope.get_by_test_id("assistant-stop")
    expect(stop).to_be_hidden()
    scope.get_by_test_id("assistant-input").fill("think hard about this")
    with alice.expect_request(lambda r: r.url.endswith(TURNS) and r.method == "POST"):
        scope.get_by_test_id("assistant-send").click()
    expect(stop).to_be_visible()
    expect(scope.get_by_test_id("assistant-send")).to_be_disabled()
    with alice.expect_event("requestfailed", lambda r: r.url.endswith(TURNS)):
        stop.click()  # the fetch itself is aborted, not only ignored
    expect(stop).to_be_hidden()
    messages = scope.get_by_test_id("assistant-message")
    expect(messages).to_have_count(2)
    expect(messages.first).to_have_text("think hard about this")  # the user's message stays
    expect(messages.last).to_have_text("Stopped.")
    expect(scope.get_by_test_id("assistant-send")).to_be_enabled()
    expect(scope.get_by_test_id("assistant-input")).to_be_focused()
    assert len(held) == 1
    alice.unroute(f"**{TURNS}")
    with suppress(Exception):  # the aborted request is gone; releasing it must not matter
        held[0].abort()
    send(alice, "hello again")  # the next send works normally
    expect(scope.get_by_test_id("assistant-message")).to_have_count(4)


def test_a_line_link_belongs_to_the_note_the_tool_read(alice: Page):
    """A task in todo.md that mentions projects/roadmap.md: its "(line N)" is todo.md's line."""
    open_note(alice, "todo.md")
    send(alice, "what are the open todos here?")
    reply = replies(alice).last
    task = reply.locator("li", has_text="projects/roadmap.md")
    expect(task).to_have_count(1)
    link = task.locator('[data-testid="chat-note-link"][data-line]')
    expect(link).to_have_attribute("data-path", "todo.md")
    line = int(link.get_attribute("data-line"))
    link.click()
    frame = inbox(alice, "todo.md")
    editor = frame.locator(".cm-content")
    expect(editor).to_be_focused()
    assert editor.evaluate(CURSOR_LINE) == line
    active_line = frame.locator(".cm-activeLine")
    expect(active_line).to_contain_text("projects/roadmap.md")


def test_a_chat_link_to_a_note_already_open_goes_to_its_frame(alice: Page):
    open_note(alice, "todo.md")
    open_note(alice, "welcome.md", new_frame=True)  # now the active frame shows another note
    notes = alice.locator('[data-testid="frame"][data-frame-kind="inbox"]')
    expect(notes).to_have_count(2)
    send(alice, "what are the todos in todo.md?")
    link = replies(alice).last.locator(
        '[data-testid="chat-note-link"][data-path="todo.md"][data-line]'
    )
    link.first.click()
    expect(notes).to_have_count(2)  # no second frame of todo.md
    expect(inbox(alice, "todo.md")).to_have_count(1)
    expect(inbox(alice, "todo.md")).to_have_attribute("data-active", "true")
    expect(inbox(alice, "welcome.md")).to_have_count(1)  # the other frame kept its note
