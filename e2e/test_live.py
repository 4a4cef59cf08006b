"""Live notes in the page (SPEC §13): a change saved elsewhere reaches every open editor, merged
with the keystrokes on screen; a conflict is shown with both versions and never loses one."""

from __future__ import annotations

import hashlib
import uuid

from playwright.sync_api import Browser, Page, expect

from e2e.ambient_helpers import frames, inbox, open_note, put_note, saved_text, send
from e2e.conftest import Server, new_context, sign_in, wait_ready
from e2e.live_helpers import (
    WS,
    back_online,
    content,
    editor_text,
    fresh_note,
    note_url,
    type_at_line_end,
    type_offline,
    wait_editor,
    wait_saved,
)


def unique(stem: str) -> str:
    return f"live/{stem}-{uuid.uuid4().hex[:6]}.md"


def test_two_windows_converge(alice: Page, server: Server) -> None:
    path = unique("two")
    frame_a = fresh_note(alice, server.url, path, "one\ntwo\nthree\n")
    other = alice.context.new_page()  # a second tab of the same signed-in browser
    other.goto(server.url + "/")
    wait_ready(other)
    frame_b = fresh_note(other, server.url, path, "one\ntwo\nthree\n")

    type_at_line_end(frame_a, 1, " A")
    wait_saved(alice, server.url, path, "one A\ntwo\nthree\n")
    wait_editor(frame_b, "one A\ntwo\nthree\n", timeout=2_000)  # within 2 s of the save

    # Both type at once on different lines: every keystroke ends up everywhere.
    type_at_line_end(frame_a, 1, "+a")
    type_at_line_end(frame_b, 3, "+b")
    both = "one A+a\ntwo\nthree+b\n"
    wait_saved(alice, server.url, path, both)
    wait_editor(frame_a, both)
    wait_editor(frame_b, both)
    for frame in (frame_a, frame_b):
        expect(frame.get_by_test_id("note-conflict")).to_be_hidden()
    other.close()


def test_main_window_and_popout_typing_at_once_keep_every_keystroke(
    alice: Page, server: Server
) -> None:
    """Both windows type at the same time, interleaved key by key over several autosaves, on
    different lines: each window's saves race the other's and are merged, never refused."""
    path = unique("atonce")
    start = "main types here:\nmiddle\npop-out types here:\n"
    first = fresh_note(alice, server.url, path, start)
    with alice.expect_popup() as info:
        first.get_by_test_id("frame-popout").click()  # the frame moves to a window of its own
    popup = info.value
    wait_ready(popup)
    popped = inbox(popup, path)
    wait_editor(popped, start)
    expect(inbox(alice, path)).to_have_count(0)
    main = open_note(alice, path)  # and the main window opens the note again
    wait_editor(main, start)

    type_at_line_end(main, 1, "")  # each window's cursor on its own line
    type_at_line_end(popped, 3, "")
    mine, theirs = [], []
    for n in range(16):  # ~4 s of typing in both: several autosaves cross on the way
        for page, words, letter in ((alice, mine, "m"), (popup, theirs, "p")):
            word = f" {letter}{n:02}"
            page.keyboard.type(word, delay=30)
            words.append(word)
    expected = f"main types here:{''.join(mine)}\nmiddle\npop-out types here:{''.join(theirs)}\n"
    wait_saved(alice, server.url, path, expected)
    wait_editor(main, expected)
    wait_editor(popped, expected)
    for frame in (main, popped):
        expect(frame.get_by_test_id("note-conflict")).to_be_hidden()
        expect(frame.get_by_test_id("save-status")).to_have_attribute("data-state", "saved")
    popup.close()


def test_an_endpoint_apply_shows_in_the_open_editor_and_ctrl_z_keeps_it(
    alice: Page, server: Server
) -> None:
    path = unique("apply")
    frame = fresh_note(alice, server.url, path, "# Errands\n\n- [ ] buy milk\n")
    type_at_line_end(frame, 1, "!")  # the user's own edit, saved
    wait_saved(alice, server.url, path, "# Errands!\n\n- [ ] buy milk\n")
    turn = send(alice, "add a todo: buy eggs")
    card = frames(alice, "assistant").first.get_by_test_id("proposal").last
    proposal = card.get_attribute("data-proposal-id")
    applied = alice.request.post(
        f"{server.url}/api/assistant/conversations/{turn.body['conversationId']}"
        f"/proposals/{proposal}/apply",
        data={},
    )
    assert applied.ok, applied.text()
    expected = "# Errands!\n\n- [ ] buy milk\n- [ ] buy eggs\n"
    wait_editor(frame, expected, timeout=2_000)
    expect(frame.get_by_test_id("save-status")).to_have_attribute("data-state", "saved")

    content(frame).click()
    alice.keyboard.press("Control+z")  # undoes the user's "!", not the change made elsewhere
    wait_editor(frame, "# Errands\n\n- [ ] buy milk\n- [ ] buy eggs\n")
    wait_saved(alice, server.url, path, "# Errands\n\n- [ ] buy milk\n- [ ] buy eggs\n")

    # The pointer a turn sends describes the text now on screen (bytes and SHA-256).
    pointer = send(alice, "what does this note say?").pointer_json
    assert pointer is not None and pointer["path"] == path
    data = editor_text(frame).encode()
    assert (pointer["bytes"], pointer["sha256"]) == (
        len(data),
        hashlib.sha256(data).hexdigest()[:16],
    )


def test_unsaved_keystrokes_and_a_change_on_another_line_both_survive(
    alice: Page, server: Server
) -> None:
    path = unique("merge")
    frame = fresh_note(alice, server.url, path, "first\nsecond\nthird\n")
    type_offline(frame, 1, " typed here")
    put_note(alice, server.url, WS, path, "first\nsecond\nthird, changed elsewhere\n")
    back_online(alice)
    merged = "first typed here\nsecond\nthird, changed elsewhere\n"
    wait_editor(frame, merged)
    wait_saved(alice, server.url, path, merged)
    expect(frame.get_by_test_id("note-conflict")).to_be_hidden()


def _conflict(page: Page, server: Server, path: str):
    """A same-line change on both sides: the page shows `note-conflict` and saves nothing."""
    frame = fresh_note(page, server.url, path, "title\nthe line\n")
    type_offline(frame, 2, " (mine)")
    put_note(page, server.url, WS, path, "title\nthe line (theirs)\n")
    back_online(page)
    conflict = frame.get_by_test_id("note-conflict")
    expect(conflict).to_be_visible()
    expect(conflict).to_have_attribute("role", "alert")
    # The other save was this user's own (through the API): the panel says so, not "someone".
    expect(conflict).to_contain_text("Another window of yours saved this note")
    expect(conflict.locator(".cm-content")).to_contain_text("the line (mine)")  # both sides
    expect(conflict.locator(".cm-deletedChunk")).to_contain_text("the line (theirs)")
    assert editor_text(frame) == "title\nthe line (mine)\n"  # nothing changed on screen
    assert saved_text(page, server.url, WS, path) == "title\nthe line (theirs)\n"  # nor saved
    return frame


def test_a_same_line_conflict_keep_mine_saves_the_screen(alice: Page, server: Server) -> None:
    path = unique("keep")
    frame = _conflict(alice, server, path)
    frame.get_by_test_id("conflict-keep-mine").click()
    expect(frame.get_by_test_id("note-conflict")).to_be_hidden()
    wait_saved(alice, server.url, path, "title\nthe line (mine)\n")
    assert editor_text(frame) == "title\nthe line (mine)\n"


def test_a_same_line_conflict_take_theirs_is_undoable(alice: Page, server: Server) -> None:
    path = unique("take")
    frame = _conflict(alice, server, path)
    frame.get_by_test_id("conflict-take-theirs").click()
    expect(frame.get_by_test_id("note-conflict")).to_be_hidden()
    wait_editor(frame, "title\nthe line (theirs)\n")
    content(frame).click()
    alice.keyboard.press("Control+z")  # one step back: my text again, and it is saved
    wait_editor(frame, "title\nthe line (mine)\n")
    wait_saved(alice, server.url, path, "title\nthe line (mine)\n")


def test_a_conflict_can_keep_mine_as_a_copy(alice: Page, server: Server) -> None:
    path = unique("copy")
    frame = _conflict(alice, server, path)
    frame.get_by_test_id("conflict-save-copy").click()
    copy = path.replace(".md", " (conflict copy).md")
    expect(inbox(alice, copy)).to_have_count(1)
    assert saved_text(alice, server.url, WS, copy) == "title\nthe line (mine)\n"
    assert saved_text(alice, server.url, WS, path) == "title\nthe line (theirs)\n"


def test_rename_and_delete_elsewhere_are_followed(alice: Page, server: Server) -> None:
    path, moved = unique("rename"), unique("renamed")
    fresh_note(alice, server.url, path, "keep this\n")
    reply = alice.request.post(f"{note_url(server.url, path)}/move", data={"to": moved})
    assert reply.ok, reply.text()
    followed = inbox(alice, moved)
    expect(followed).to_have_count(1)  # the same frame, now showing the new path
    expect(followed.locator(".frame-title")).to_have_text(moved)
    type_at_line_end(followed, 1, " and this")
    wait_saved(alice, server.url, moved, "keep this and this\n")

    assert alice.request.delete(note_url(server.url, moved)).ok
    status = followed.get_by_test_id("save-status")
    expect(status).to_have_attribute("data-state", "deleted")
    expect(status).to_contain_text("Deleted elsewhere")
    assert editor_text(followed) == "keep this and this\n"  # the text stays on screen
    type_at_line_end(followed, 1, "!")  # saving it again recreates the note
    wait_saved(alice, server.url, moved, "keep this and this!\n")


def test_the_stream_reconnects_after_the_server_restarts(
    browser: Browser, fresh_server: Server
) -> None:
    context = new_context(browser)
    try:
        page = sign_in(context.new_page(), fresh_server)
        path = unique("restart")
        frame = fresh_note(page, fresh_server.url, path, "before\n")
        live = page.get_by_test_id("live-status")
        expect(live).to_have_attribute("data-state", "open")
        fresh_server.stop()
        expect(live).to_be_visible(timeout=20_000)  # says so while it cannot reconnect
        expect(live).to_contain_text("reconnecting")
        fresh_server.start()
        expect(live).to_be_hidden(timeout=30_000)
        put_note(page, fresh_server.url, WS, path, "after the restart\n")
        wait_editor(frame, "after the restart\n", timeout=5_000)
    finally:
        context.close()
