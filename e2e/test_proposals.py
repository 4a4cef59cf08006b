"""Edit proposals in the page (SPEC §8): Apply through the live editor as one undoable step,
refused in words when the target changed, the endpoint when the note is closed, Discard, and
the outcome after a reload. No keystroke is lost and no edit lands over unseen text."""

from __future__ import annotations

import time

from playwright.sync_api import Locator, Page, expect

from e2e.ambient_helpers import (
    editor_text,
    frames,
    inbox,
    open_note,
    put_note,
    reload_list,
    saved_text,
    send,
)
from e2e.conftest import Server, wait_ready

NOTE = "# Errands\n\n- [ ] buy milk\n- [ ] call the bank\n"


def propose(page: Page, server: Server, path: str, message: str = "mark buy milk as done"):
    """A fresh note open in Edit, and the offline assistant's proposal card for it."""
    put_note(page, server.url, "personal", path, NOTE)
    reload_list(page)
    frame = open_note(page, path)
    send(page, message)
    return frame, last_card(page)


def last_card(page: Page) -> Locator:
    """The newest proposal card, pinned by its id (a `.last` locator would move on)."""
    newest = frames(page, "assistant").first.get_by_test_id("proposal").last
    expect(newest).to_have_attribute("data-status", "pending")
    card = page.locator(f'[data-proposal-id="{newest.get_attribute("data-proposal-id")}"]')
    return card


def eventually_saved(page: Page, server: Server, path: str, expected: str) -> None:
    """Autosave lands within a few seconds; poll the server until it has `expected`."""
    deadline = time.monotonic() + 15
    while (text := saved_text(page, server.url, "personal", path)) != expected:
        assert time.monotonic() < deadline, f"the server still has {text!r}"
        page.wait_for_timeout(200)


def type_at_end(frame: Locator, words: str) -> None:
    frame.locator(".cm-content").click()
    frame.page.keyboard.press("Control+End")
    frame.page.keyboard.type(words)


def test_typing_elsewhere_does_not_block_apply_and_one_undo_removes_only_the_edit(
    alice: Page, server: Server
):
    frame, card = propose(alice, server, "prop-typing.md")
    type_at_end(frame, "typed while pending")
    typed = NOTE + "typed while pending"
    assert editor_text(frame) == typed
    card.get_by_test_id("proposal-apply").click()
    expect(card).to_have_attribute("data-status", "applied")
    applied = typed.replace("- [ ] buy milk", "- [x] buy milk")
    assert editor_text(frame) == applied  # both the typing and the edit
    eventually_saved(alice, server, "prop-typing.md", applied)  # autosave saved it
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+z")  # one undo: the edit goes, the typing stays
    assert editor_text(frame) == typed
    eventually_saved(alice, server, "prop-typing.md", typed)


def test_a_changed_target_line_changes_nothing_and_the_card_says_why(alice: Page, server: Server):
    frame, card = propose(alice, server, "prop-changed.md")
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+Home")
    for _ in range(2):
        alice.keyboard.press("ArrowDown")
    alice.keyboard.press("End")
    alice.keyboard.press("ArrowLeft")
    alice.keyboard.press("ArrowLeft")
    alice.keyboard.press("ArrowLeft")
    alice.keyboard.press("ArrowLeft")
    alice.keyboard.type("oat ")  # the very line the proposal targets: "buy oat milk"
    changed = NOTE.replace("buy milk", "buy oat milk")
    assert editor_text(frame) == changed
    card.get_by_test_id("proposal-apply").click()
    expect(card.locator(".proposal-note")).to_contain_text("no longer in the note")
    expect(card.locator(".proposal-note")).to_contain_text("nothing was changed")
    expect(card).to_have_attribute("data-status", "pending")
    assert editor_text(frame) == changed
    eventually_saved(alice, server, "prop-changed.md", changed)


def test_with_the_note_closed_apply_uses_the_endpoint_and_never_loses_another_save(
    alice: Page, server: Server
):
    path = "prop-closed.md"
    frame, first = propose(alice, server, path)
    expect(first.locator(".proposal-diff")).to_contain_text("- [x] buy milk")
    send(alice, "mark call the bank as done")
    second = last_card(alice)
    expect(second.locator(".proposal-diff")).to_contain_text("- [x] call the bank")
    frame.get_by_test_id("frame-close").click()
    expect(inbox(alice, path)).to_have_count(0)
    # Another window saves meanwhile: a line the first proposal does not touch, and the very
    # line the second one targets.
    other = NOTE.replace("# Errands", "# Errands today").replace("call the bank", "call Bob")
    put_note(alice, server.url, "personal", path, other)
    first.get_by_test_id("proposal-apply").click()
    expect(first).to_have_attribute("data-status", "applied")
    after_first = other.replace("- [ ] buy milk", "- [x] buy milk")
    assert saved_text(alice, server.url, "personal", path) == after_first
    second.get_by_test_id("proposal-apply").click()
    expect(second.locator(".proposal-note")).to_contain_text("Not applied")
    expect(second).to_have_attribute("data-status", "pending")
    assert saved_text(alice, server.url, "personal", path) == after_first  # nothing lost


def test_discard_and_a_reload_shows_each_outcome(alice: Page, server: Server):
    path = "prop-reload.md"
    frame, applied = propose(alice, server, path)
    applied.get_by_test_id("proposal-apply").click()
    expect(applied).to_have_attribute("data-status", "applied")
    eventually_saved(alice, server, path, NOTE.replace("- [ ] buy milk", "- [x] buy milk"))
    send(alice, "mark call the bank as done")
    discarded = last_card(alice)
    discarded.get_by_test_id("proposal-discard").click()
    expect(discarded).to_have_attribute("data-status", "discarded")
    expect(discarded.get_by_test_id("proposal-apply")).to_be_hidden()
    assert "call the bank" in saved_text(alice, server.url, "personal", path)
    assert "- [ ] call the bank" in editor_text(frame)
    ids = [applied.get_attribute("data-proposal-id"), discarded.get_attribute("data-proposal-id")]
    alice.reload()
    wait_ready(alice)
    first = frames(alice, "assistant").first.locator(f'[data-proposal-id="{ids[0]}"]')
    second = frames(alice, "assistant").first.locator(f'[data-proposal-id="{ids[1]}"]')
    expect(first).to_have_attribute("data-status", "applied")
    expect(first.locator(".proposal-note")).to_contain_text("Applied in the editor")
    expect(first.locator(".proposal-diff")).to_contain_text("- [x] buy milk")  # re-read
    expect(second).to_have_attribute("data-status", "discarded")
    expect(second.get_by_test_id("proposal-apply")).to_be_hidden()


def test_after_apply_undo_and_a_reload_the_card_says_the_note_no_longer_holds_it(
    alice: Page, server: Server
):
    """Issue 34: Apply, Ctrl+Z, reload: the card no longer says "Applied in the editor" as if
    the note held the edit; it says what the saved note holds now."""
    path = "prop-undone.md"
    frame, card = propose(alice, server, path)
    pid = card.get_attribute("data-proposal-id")
    card.get_by_test_id("proposal-apply").click()
    expect(card).to_have_attribute("data-status", "applied")
    eventually_saved(alice, server, path, NOTE.replace("- [ ] buy milk", "- [x] buy milk"))
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+z")
    assert editor_text(frame) == NOTE
    eventually_saved(alice, server, path, NOTE)
    alice.reload()
    wait_ready(alice)
    again = frames(alice, "assistant").first.locator(f'[data-proposal-id="{pid}"]')
    expect(again).to_have_attribute("data-status", "applied")
    expect(again).to_have_attribute("data-holds", "false")
    note = again.locator(".proposal-note")
    expect(note).to_contain_text("the note no longer holds this edit")
    expect(note).not_to_have_text("Applied in the editor.")
