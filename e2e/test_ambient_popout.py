"""SPEC §2 across realms: a popped-out window has its own store, in both directions."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.ambient_helpers import chip, frames, open_note, send
from e2e.conftest import Server, wait_ready


def pop_out(page: Page, frame) -> Page:
    with page.expect_popup() as info:
        frame.get_by_test_id("frame-popout").click()
    popup = info.value
    wait_ready(popup)
    return popup


def test_a_note_open_only_in_a_popout_is_not_the_main_assistants(alice: Page, server: Server):
    note = open_note(alice, "todo.md")
    expect(chip(alice)).to_have_attribute("data-path", "todo.md")
    popup = pop_out(alice, note)
    expect(popup.locator('[data-testid="frame"][data-frame-kind="inbox"]')).to_have_attribute(
        "data-path", "todo.md"
    )
    expect(frames(alice, "inbox")).to_have_count(0)  # the frame moved out of the main window
    expect(chip(alice)).to_have_attribute("data-path", "")
    turn = send(alice, "summarise this")
    assert "x-ambient-note" not in turn.headers
    assert server.delivery_row(turn.body["conversationId"])["ambient_path"] is None


def test_a_popped_out_assistant_without_an_inbox_has_no_ambient_note(alice: Page):
    open_note(alice, "welcome.md")
    expect(chip(alice)).to_have_attribute("data-path", "welcome.md")
    popup = pop_out(alice, frames(alice, "assistant").first)
    expect(chip(popup)).to_have_attribute("data-path", "")
    turn = send(popup, "summarise this")
    assert "x-ambient-note" not in turn.headers
    expect(frames(alice, "assistant")).to_have_count(0)  # the assistant moved out
    alice.locator('[data-testid="open-frame"][data-kind="assistant"]').click()
    expect(chip(alice)).to_have_attribute("data-path", "welcome.md")  # main keeps its own


def test_popping_out_the_active_note_falls_back_to_the_one_left_in_main(alice: Page):
    open_note(alice, "welcome.md")
    second = open_note(alice, "todo.md", new_frame=True)
    expect(chip(alice)).to_have_attribute("data-path", "todo.md")
    popup = pop_out(alice, second)
    expect(popup.locator('[data-testid="frame"][data-frame-kind="inbox"]')).to_have_attribute(
        "data-path", "todo.md"
    )
    expect(chip(alice)).to_have_attribute("data-path", "welcome.md")
    assert send(alice, "summarise this").pointer_json["path"] == "welcome.md"
