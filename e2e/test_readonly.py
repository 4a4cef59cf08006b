"""A reader's read-only notes and roles that change while the page is open (SPEC §17).

Alice owns `team`; bob is its editor. Alice changes bob's role through the members API
(`PATCH/DELETE /api/workspaces/team/members/bob`) while bob's page is open: the server ends
bob's event stream of `team`, and his page turns read-only, editable again, or leaves the
workspace, all without a reload.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from e2e.ambient_helpers import inbox, put_note, saved_text
from e2e.conftest import Server, new_context, sign_in
from e2e.live_helpers import (
    back_online,
    content,
    editor_text,
    type_at_line_end,
    type_offline,
    wait_editor,
)

WS = "team"
MEMBER = f"{WS}/members/bob"


def unique(stem: str) -> str:
    return f"readonly/{stem}-{uuid.uuid4().hex[:6]}.md"


@pytest.fixture
def alice(browser: Browser, fresh_server: Server) -> Iterator[Page]:
    """Alice, team's owner, signed in on a server of the test's own (roles change in it)."""
    context = new_context(browser)
    page = sign_in(context.new_page(), fresh_server, "alice")
    yield page
    context.close()


@pytest.fixture
def bob(browser: Browser, fresh_server: Server) -> Iterator[Page]:
    context = new_context(browser)
    yield context.new_page()
    context.close()


def set_role(alice: Page, server: Server, role: str) -> None:
    response = alice.request.patch(f"{server.url}/api/workspaces/{MEMBER}", data={"role": role})
    assert response.ok, response.text()


def remove_bob(alice: Page, server: Server) -> None:
    response = alice.request.delete(f"{server.url}/api/workspaces/{MEMBER}")
    assert response.ok, response.text()


def wait_saved(page: Page, server: Server, path: str, expected: str) -> None:
    """Poll team's copy of the note (a condition with a deadline) until it is `expected`."""
    deadline = time.monotonic() + 20
    while (text := saved_text(page, server.url, WS, path)) != expected:
        assert time.monotonic() < deadline, f"the server still has {text!r}, not {expected!r}"
        page.wait_for_timeout(100)


def bob_opens(bob: Page, server: Server, path: str) -> Locator:
    """Bob signs in, goes to team and opens `path` in Edit; returns its frame."""
    sign_in(bob, server, "bob")
    bob.get_by_test_id("workspace-select").select_option(WS)
    bob.locator(f'[data-testid="note-link"][data-path="{path}"]').click()
    frame = inbox(bob, path)
    expect(frame.locator(".editor-host .cm-content")).to_be_visible()
    return frame


def expect_read_only(frame: Locator) -> None:
    expect(frame.get_by_test_id("note-readonly")).to_be_visible()
    expect(frame.get_by_test_id("note-readonly")).to_contain_text("reader")
    expect(content(frame)).to_have_attribute("contenteditable", "false")


def expect_editable(frame: Locator) -> None:
    expect(frame.get_by_test_id("note-readonly")).to_be_hidden()
    expect(content(frame)).to_have_attribute("contenteditable", "true")


def typing_changes_nothing(frame: Locator, server: Server, path: str, text: str) -> None:
    page = frame.page
    content(frame).click()
    page.keyboard.press("Control+End")
    page.keyboard.type("typed by a reader")
    page.keyboard.press("Enter")
    page.keyboard.press("Backspace")
    assert editor_text(frame) == text
    expect(frame.get_by_test_id("save-status")).to_have_attribute("data-state", "saved")
    assert saved_text(page, server.url, WS, path) == text


def test_a_readers_note_is_read_only_and_typing_changes_nothing(
    alice: Page, bob: Page, fresh_server: Server
) -> None:
    path, text = unique("reader"), "# Plan\n\nline one\n"
    put_note(alice, fresh_server.url, WS, path, text)
    set_role(alice, fresh_server, "reader")
    frame = bob_opens(bob, fresh_server, path)
    expect_read_only(frame)
    typing_changes_nothing(frame, fresh_server, path, text)
    # No write control for a reader: no New note, no rename or delete in the list.
    expect(bob.get_by_test_id("note-new")).to_be_hidden()
    expect(bob.get_by_test_id("note-rename")).to_have_count(0)
    expect(bob.get_by_test_id("note-delete")).to_have_count(0)


def test_a_reader_promoted_to_editor_can_edit_without_a_reload(
    alice: Page, bob: Page, fresh_server: Server
) -> None:
    path, text = unique("promoted"), "first\nsecond\n"
    put_note(alice, fresh_server.url, WS, path, text)
    set_role(alice, fresh_server, "reader")
    frame = bob_opens(bob, fresh_server, path)
    expect_read_only(frame)
    bob.evaluate("window.__not_reloaded = true")
    set_role(alice, fresh_server, "editor")
    expect_editable(frame)
    expect(bob.get_by_test_id("note-new")).to_be_visible()
    type_at_line_end(frame, 1, " and more")
    wait_saved(bob, fresh_server, path, "first and more\nsecond\n")
    assert bob.evaluate("window.__not_reloaded === true")


def test_an_editor_demoted_to_reader_turns_read_only_without_a_reload(
    alice: Page, bob: Page, fresh_server: Server
) -> None:
    path, text = unique("demoted"), "alpha\nbeta\n"
    put_note(alice, fresh_server.url, WS, path, text)
    frame = bob_opens(bob, fresh_server, path)
    expect_editable(frame)
    bob.evaluate("window.__not_reloaded = true")
    set_role(alice, fresh_server, "reader")
    expect_read_only(frame)
    typing_changes_nothing(frame, fresh_server, path, text)
    expect(bob.get_by_test_id("note-new")).to_be_hidden()
    # A change saved elsewhere still reaches the reader's editor.
    put_note(alice, fresh_server.url, WS, path, "alpha\nbeta\ngamma\n")
    wait_editor(frame, "alpha\nbeta\ngamma\n")
    assert bob.evaluate("window.__not_reloaded === true")


def test_unsaved_keystrokes_of_a_demoted_editor_stay_on_screen(
    alice: Page, bob: Page, fresh_server: Server
) -> None:
    path, text = unique("kept"), "one\ntwo\n"
    put_note(alice, fresh_server.url, WS, path, text)
    frame = bob_opens(bob, fresh_server, path)
    type_offline(frame, 1, " mine")  # typed, never saved: this window is offline
    set_role(alice, fresh_server, "reader")
    back_online(bob)
    expect_read_only(frame)
    status = frame.get_by_test_id("save-status")
    expect(status).to_have_attribute("data-state", "unsavable")
    expect(status).to_contain_text("cannot be saved")
    expect(frame.get_by_test_id("unsaved-copy")).to_be_visible()
    assert editor_text(frame) == "one mine\ntwo\n"  # kept in the editor, never discarded
    assert saved_text(bob, fresh_server.url, WS, path) == text
    # Promoted again, the kept keystrokes are saved.
    set_role(alice, fresh_server, "editor")
    expect_editable(frame)
    wait_saved(bob, fresh_server, path, "one mine\ntwo\n")


def test_a_removed_member_leaves_the_workspace_without_a_reload(
    alice: Page, bob: Page, fresh_server: Server
) -> None:
    path = unique("removed")
    put_note(alice, fresh_server.url, WS, path, "secret plans\n")
    frame = bob_opens(bob, fresh_server, path)
    bob.evaluate("window.__not_reloaded = true")
    remove_bob(alice, fresh_server)
    expect(bob.get_by_test_id("app-message")).to_contain_text("You were removed from Team")
    expect(bob.get_by_test_id("workspace-select")).to_have_value("bob-notes")
    expect(bob.locator(f'#workspace-select option[value="{WS}"]')).to_have_count(0)
    expect(frame).to_have_count(0)
    expect(bob.locator(f'[data-testid="note-link"][data-path="{path}"]')).to_have_count(0)
    assert bob.evaluate("window.__not_reloaded === true")
