"""Organising notes in the page (SPEC §18): a rename updates the links to the note live in an
open editor (unless unticked), the Trash brings a deleted note back with its history, New
folder, and moving a note by dragging it onto a folder or from the keyboard."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from e2e.ambient_helpers import open_note, put_note, reload_list, saved_text
from e2e.conftest import Server
from e2e.live_helpers import WS, fresh_note, wait_editor


def unique() -> str:
    return uuid.uuid4().hex[:6]


def note_link(page: Page, path: str):
    return page.locator(f"[data-testid=note-link][data-path='{path}']")


def row_button(page: Page, path: str, test_id: str):
    return page.locator(f".note-row[data-path='{path}'] [data-testid={test_id}]")


def test_a_rename_updates_the_link_in_an_open_editor_live(alice: Page, server: Server) -> None:
    tag = unique()
    road, trip = f"org-{tag}/road-{tag}.md", f"org-{tag}/trip.md"
    put_note(alice, server.url, WS, road, "# Road\n")
    frame = fresh_note(alice, server.url, trip, f"See [[road-{tag}]] and [map](road-{tag}.md).\n")
    row_button(alice, road, "note-rename").click()
    expect(alice.get_by_test_id("rename-update-links")).to_be_checked()  # on by default
    alice.get_by_test_id("note-rename-path").fill(f"org-{tag}/plans/road {tag}.md")
    alice.get_by_test_id("note-rename-save").click()
    expect(note_link(alice, f"org-{tag}/plans/road {tag}.md")).to_be_visible()
    # The open editor of the note that links to it shows the rewritten links, no reload.
    wait_editor(frame, f"See [[road {tag}]] and [map](plans/road%20{tag}.md).\n")
    # Unticked: the links stay as they were.
    row_button(alice, f"org-{tag}/plans/road {tag}.md", "note-rename").click()
    alice.get_by_test_id("rename-update-links").uncheck()
    alice.get_by_test_id("note-rename-path").fill(f"org-{tag}/elsewhere.md")
    alice.get_by_test_id("note-rename-save").click()
    expect(note_link(alice, f"org-{tag}/elsewhere.md")).to_be_visible()
    assert saved_text(alice, server.url, WS, trip) == (
        f"See [[road {tag}]] and [map](plans/road%20{tag}.md).\n"
    )


def test_a_deleted_note_comes_back_from_the_trash_with_its_history(
    alice: Page, server: Server
) -> None:
    tag = unique()
    path = f"org-{tag}/gone.md"
    put_note(alice, server.url, WS, path, "first words\n")
    put_note(alice, server.url, WS, path, "first words\nand more\n")
    reload_list(alice)
    row_button(alice, path, "note-delete").click()
    alice.get_by_test_id("row-delete-confirm").click()
    expect(alice.locator(f".note-row[data-path='{path}']")).to_have_count(0)  # deleted, listed
    alice.get_by_test_id("trash-open").click()
    item = alice.get_by_test_id("trash-list").locator(
        f"[data-testid=trash-item][data-path='{path}']"
    )
    expect(item).to_be_visible()
    expect(item).to_contain_text("deleted just now")
    expect(item).to_contain_text("bytes")
    item.get_by_test_id("trash-restore").click()
    expect(item).to_have_count(0)
    alice.get_by_test_id("trash-close").click()
    expect(alice.get_by_test_id("trash")).to_be_hidden()
    frame = open_note(alice, path)
    frame.get_by_test_id("history-open").click()
    items = frame.get_by_test_id("history-item")
    expect(items.first).to_contain_text("restored")
    assert items.count() >= 2  # the restore and the revisions from before the delete
    assert saved_text(alice, server.url, WS, path) == "first words\nand more\n"


def test_restoring_onto_a_taken_path_asks_for_another(alice: Page, server: Server) -> None:
    tag = unique()
    path = f"org-{tag}/same.md"
    put_note(alice, server.url, WS, path, "the old one\n")
    response = alice.request.delete(f"{server.url}/api/workspaces/{WS}/documents/{path}")
    assert response.ok, response.text()
    put_note(alice, server.url, WS, path, "a new one\n")
    reload_list(alice)
    alice.get_by_test_id("trash-open").click()
    item = alice.locator(f"[data-testid=trash-item][data-path='{path}']")
    item.get_by_test_id("trash-restore").click()
    field = item.get_by_test_id("trash-restore-path")
    expect(field).to_be_focused()
    expect(field).to_have_value(f"org-{tag}/same (restored).md")
    item.get_by_test_id("trash-restore-save").click()
    expect(item).to_have_count(0)
    alice.keyboard.press("Escape")
    expect(note_link(alice, f"org-{tag}/same (restored).md")).to_be_visible()
    assert saved_text(alice, server.url, WS, f"org-{tag}/same (restored).md") == "the old one\n"
    assert saved_text(alice, server.url, WS, path) == "a new one\n"


def test_new_folder_and_dragging_a_note_onto_it(alice: Page, server: Server) -> None:
    tag = unique()
    loose = f"org-{tag}/loose.md"
    put_note(alice, server.url, WS, loose, "# Loose\n")
    reload_list(alice)
    alice.get_by_test_id("folder-new").click()
    alice.get_by_test_id("folder-new-cancel").click()
    expect(alice.get_by_test_id("folder-new-path")).to_be_hidden()
    alice.get_by_test_id("folder-new").click()
    alice.get_by_test_id("folder-new-path").fill(f"org-{tag}/box")
    alice.get_by_test_id("folder-create").click()
    folder = alice.locator(f"[data-testid=note-folder][data-folder='org-{tag}/box/']")
    expect(folder).to_be_visible()
    # The New note form opens in it: a folder lives through its notes.
    expect(alice.get_by_test_id("note-new-path")).to_have_value(f"org-{tag}/box/")
    alice.get_by_test_id("note-new-cancel").click()
    note_link(alice, loose).drag_to(folder)
    expect(note_link(alice, f"org-{tag}/box/loose.md")).to_be_visible()
    expect(note_link(alice, loose)).to_have_count(0)
    assert saved_text(alice, server.url, WS, f"org-{tag}/box/loose.md") == "# Loose\n"
    # A folder dragged onto another moves with its notes; the links to them follow.
    put_note(alice, server.url, WS, f"org-{tag}/shelf/keep.md", "# Keep\n")
    put_note(alice, server.url, WS, f"org-{tag}/index.md", "[l](box/loose.md)\n")
    reload_list(alice)
    box = alice.locator(f"[data-testid=note-folder][data-folder='org-{tag}/box/']")
    shelf = alice.locator(f"[data-testid=note-folder][data-folder='org-{tag}/shelf/']")
    box.drag_to(shelf)
    expect(note_link(alice, f"org-{tag}/shelf/box/loose.md")).to_be_visible()
    expect(box).to_have_count(0)
    assert saved_text(alice, server.url, WS, f"org-{tag}/index.md") == "[l](shelf/box/loose.md)\n"


def test_moving_a_note_from_the_keyboard(alice: Page, server: Server) -> None:
    tag = unique()
    path = f"org-{tag}/k.md"
    put_note(alice, server.url, WS, path, "# K\n")
    reload_list(alice)
    note_link(alice, path).focus()
    alice.keyboard.press("Shift+F2")  # Move to…: the rename form, its folder part selected
    field = alice.get_by_test_id("note-rename-path")
    expect(field).to_be_focused()
    assert field.evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)") == (
        f"org-{tag}/"
    )
    alice.keyboard.type(f"org-{tag}/kbd/")
    alice.keyboard.press("Enter")
    expect(note_link(alice, f"org-{tag}/kbd/k.md")).to_be_visible()
    # The row's Move button opens the same form, with the folder part selected.
    moved = f"org-{tag}/kbd/k.md"
    row_button(alice, moved, "note-move").click()
    field = alice.get_by_test_id("note-rename-path")
    expect(field).to_be_focused()
    assert field.evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)") == (
        f"org-{tag}/kbd/"
    )
    field.fill(f"org-{tag}/clicked/k.md")
    alice.keyboard.press("Enter")
    expect(note_link(alice, f"org-{tag}/clicked/k.md")).to_be_visible()
