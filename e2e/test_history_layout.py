"""History and conflicts in the page (SPEC §13, §15; issue 34): a chosen version's diff and
Restore in view without scrolling, focus back in the editor after Restore, Take theirs and
Keep mine, clock times in the list, and Ctrl+Z that never removes the other window's text."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from ambient.contract import CONFLICT_RESOLUTION_HEADER, KEEP_MINE
from e2e.ambient_helpers import open_note, put_note
from e2e.conftest import Server, sign_in, wait_ready
from e2e.live_helpers import (
    WS,
    back_online,
    content,
    fresh_note,
    type_at_line_end,
    type_offline,
    wait_editor,
    wait_saved,
)

SIZES = {"1440x900": {"width": 1440, "height": 900}, "1024x768": {"width": 1024, "height": 768}}

# Is `el` inside the window and inside every scrolling box around it, as it is now (nothing
# is scrolled), with the point at its centre belonging to it?
IN_VIEW = """(el) => {
  const box = el.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return 'not shown';
  let clip = {top: 0, left: 0, bottom: innerHeight, right: innerWidth};
  for (let up = el.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (/(auto|scroll|hidden|clip)/.test(style.overflowY + style.overflowX)) {
      const r = up.getBoundingClientRect();
      clip = {top: Math.max(clip.top, r.top), left: Math.max(clip.left, r.left),
              bottom: Math.min(clip.bottom, r.bottom), right: Math.min(clip.right, r.right)};
    }
  }
  if (box.top < clip.top - 1 || box.bottom > clip.bottom + 1
      || box.left < clip.left - 1 || box.right > clip.right + 1) {
    return `clipped: ${JSON.stringify(box)} outside ${JSON.stringify(clip)}`;
  }
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return hit && (hit === el || el.contains(hit)) ? 'ok'
    : `covered by ${hit ? hit.className || hit.tagName : 'nothing'}`;
}"""


def in_view(locator: Locator) -> str:
    return locator.evaluate(IN_VIEW)


def put_version(page: Page, server: Server, path: str, text: str) -> None:
    """Save `text` as a version of its own (a page save that keeps the text it replaced, as
    Keep mine does; plain saves in a row are one run of typing, one version)."""
    response = page.request.put(
        f"{server.url}/api/workspaces/personal/documents/{path}",
        data=text.encode(),
        headers={"Content-Type": "text/markdown", CONFLICT_RESOLUTION_HEADER: KEEP_MINE},
    )
    assert response.ok, response.text()


@pytest.mark.parametrize("size", SIZES)
def test_a_chosen_versions_diff_and_restore_are_in_view_without_scrolling(
    browser: Browser, server: Server, size: str
) -> None:
    context = browser.new_context(viewport=SIZES[size], locale="en-US")
    try:
        page = sign_in(context.new_page(), server)
        path = f"history/layout-{size}-{uuid.uuid4().hex[:6]}.md"
        lines = [f"line {n}: rail pass, tickets, seats\n" for n in range(40)]
        for n in range(10):  # ten versions: a list longer than the panel's room
            put_version(page, server, path, "".join(lines[: 30 + n]))
        page.reload()
        frame = open_note(page, path)
        frame.get_by_test_id("history-open").click()
        items = frame.get_by_test_id("history-item")
        expect(items).to_have_count(10)
        items.nth(6).click()
        restore = frame.get_by_test_id("history-restore")
        expect(restore).to_be_visible()
        assert in_view(items.nth(6)) == "ok"  # the version picked still shows, pressed
        expect(items.nth(6)).to_have_attribute("aria-pressed", "true")
        diff = frame.locator(".history-diff .cm-changedLine").first
        expect(diff).to_be_attached()
        assert in_view(restore) == "ok"
        assert in_view(diff) == "ok"
        restore.click()
        expect(content(frame)).to_be_focused()  # back to the text, as restored
        wait_editor(frame, "".join(lines[:33]))
    finally:
        context.close()


def test_ctrl_z_never_removes_the_other_windows_text_on_a_shared_line(
    alice: Page, server: Server
) -> None:
    """Issue 34 ("Rail pass buy" → "Rail passbuy"): this window typed " pass"; the other
    window then typed on the same line before and after it, in one save. Ctrl+Z here takes
    back " pass" only: every character the other window typed stays."""
    path = f"history/undo-{uuid.uuid4().hex[:6]}.md"
    here = fresh_note(alice, server.url, path, "Rail\nnext line\n")
    other = alice.context.new_page()  # the same user's second window
    other.goto(server.url + "/")
    wait_ready(other)
    there = open_note(other, path)
    wait_editor(there, "Rail\nnext line\n")

    type_at_line_end(here, 1, " pass")
    wait_saved(alice, server.url, path, "Rail pass\nnext line\n")
    wait_editor(there, "Rail pass\nnext line\n")
    content(there).click()  # the other window rewrites the line at once: "Big … buy"
    other.keyboard.press("Control+Home")
    other.keyboard.press("Shift+End")
    other.keyboard.insert_text("Big Rail pass buy")
    wait_saved(alice, server.url, path, "Big Rail pass buy\nnext line\n")
    wait_editor(here, "Big Rail pass buy\nnext line\n")

    content(here).click()
    alice.keyboard.press("Control+z")
    wait_editor(here, "Big Rail buy\nnext line\n")  # "Big " and " buy" whole
    wait_saved(alice, server.url, path, "Big Rail buy\nnext line\n")
    wait_editor(there, "Big Rail buy\nnext line\n")
    other.close()


def _conflict(page: Page, server: Server) -> Locator:
    """A same-line change on both sides; the other one saved through this user's session."""
    path = f"history/conflict-{uuid.uuid4().hex[:6]}.md"
    frame = fresh_note(page, server.url, path, "title\nthe line\n")
    type_offline(frame, 2, " (mine)")
    put_note(page, server.url, WS, path, "title\nthe line (theirs)\n")
    back_online(page)
    conflict = frame.get_by_test_id("note-conflict")
    expect(conflict).to_contain_text(
        "Another window of yours saved this note while you were editing it here."
    )
    return frame


@pytest.mark.parametrize("choice", ["conflict-take-theirs", "conflict-keep-mine"])
def test_focus_is_back_in_the_editor_after_a_conflict_choice(
    alice: Page, server: Server, choice: str
) -> None:
    frame = _conflict(alice, server)
    frame.get_by_test_id(choice).click()
    expect(frame.get_by_test_id("note-conflict")).to_be_hidden()
    expect(content(frame)).to_be_focused()
    alice.keyboard.type("!")  # typing goes on in the note at once
    expect(content(frame)).to_contain_text("!")


def test_history_rows_show_a_clock_time_and_the_demo_seed_as_the_demos_sample(
    alice: Page, server: Server
) -> None:
    frame = open_note(alice, "todo.md")  # a demo note, never changed
    frame.get_by_test_id("history-open").click()
    items = frame.get_by_test_id("history-item")
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("the demo put it here as a sample note")
    expect(items.first).not_to_contain_text("another member")
    # "just now" (or "N min ago") comes with the clock time, to the second.
    expect(items.first).to_have_text(re.compile(r", \d\d:\d\d:\d\d( UTC)?, "))
