"""The notes workspace of issue 14: prompts, the banner, layout, links, history and focus."""

from __future__ import annotations

import re
import time
import uuid

from playwright.sync_api import Page, Route, expect

from e2e.conftest import Server, put_note, sign_in, wait_ready

FRAMES = "[data-testid=frame]"


def until(page: Page, check, seconds: float = 15.0) -> None:
    """Wait, letting the page's events in, until `check()` holds (or fail at the deadline)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out waiting"
        page.wait_for_timeout(50)


def row_button(page: Page, testid: str, path: str):
    return page.locator(f"[data-testid={testid}][data-path='{path}']")


def fresh_note(page: Page, server: Server, text: str = "# note\n", folder: str = "ws") -> str:
    """A note of the test's own, listed after a reload (the list loads at sign-in)."""
    path = f"{folder}/{uuid.uuid4().hex[:6]}.md"
    put_note(page, server, path, text)
    page.reload()
    wait_ready(page)
    expect(row_button(page, "note-link", path)).to_be_visible()
    return path


def no_banner(page: Page) -> None:
    expect(page.get_by_test_id("app-message")).to_be_hidden()


# -- 1. the note list's prompts and the banner -------------------------------------------------


def test_cancel_closes_the_rename_and_delete_prompts_without_an_error(
    alice: Page, server: Server
) -> None:
    path = fresh_note(alice, server)
    row_button(alice, "note-rename", path).click()
    expect(alice.get_by_test_id("note-rename-path")).to_be_focused()
    alice.get_by_test_id("row-cancel").click()
    expect(alice.get_by_test_id("note-rename-path")).to_have_count(0)
    expect(row_button(alice, "note-rename", path)).to_be_focused()  # back where it was
    row_button(alice, "note-delete", path).click()
    alice.get_by_test_id("row-cancel").click()
    expect(alice.get_by_test_id("row-delete-confirm")).to_have_count(0)
    expect(row_button(alice, "note-link", path)).to_be_visible()
    no_banner(alice)
    assert alice.request.get(f"{server.url}/api/workspaces/personal/documents/{path}").ok


def test_rename_selects_the_name_and_shows_no_error(alice: Page, server: Server) -> None:
    path = fresh_note(alice, server)
    folder, name = path.split("/")
    row_button(alice, "note-rename", path).click()
    field = alice.get_by_test_id("note-rename-path")
    selected = field.evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)")
    assert selected == name.removesuffix(".md")
    alice.keyboard.type("renamed")  # typing replaces the name only
    expect(field).to_have_value(f"{folder}/renamed.md")
    alice.get_by_test_id("note-rename-save").click()
    expect(row_button(alice, "note-link", f"{folder}/renamed.md")).to_be_visible()
    no_banner(alice)
    alice.request.delete(f"{server.url}/api/workspaces/personal/documents/{folder}/renamed.md")


def test_escape_closes_every_prompt_and_form(alice: Page, server: Server) -> None:
    path = fresh_note(alice, server)
    row_button(alice, "note-rename", path).click()
    alice.keyboard.press("Escape")
    expect(alice.get_by_test_id("note-rename-path")).to_have_count(0)
    row_button(alice, "note-delete", path).click()
    alice.keyboard.press("Escape")
    expect(alice.get_by_test_id("row-delete-confirm")).to_have_count(0)
    alice.get_by_test_id("note-new").click()
    expect(alice.get_by_test_id("note-new-path")).to_be_focused()
    alice.keyboard.press("Escape")
    expect(alice.get_by_test_id("note-new-path")).to_be_hidden()
    expect(alice.get_by_test_id("note-new")).to_be_focused()
    no_banner(alice)


def test_the_banner_is_dismissible_and_keeps_send_on_screen(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 1024, "height": 768})
    sign_in(page, server)
    page.evaluate(
        "window.ana_ctx.say('Something went wrong, and this sentence is long "
        "enough to take a line of its own in the window.')"
    )
    message = page.get_by_test_id("app-message")
    expect(message).to_be_visible()
    send = page.get_by_test_id("assistant-send")
    box = send.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 768, box
    assert page.evaluate("document.documentElement.scrollHeight") <= 768
    page.get_by_test_id("app-message-dismiss").click()
    expect(message).to_be_hidden()
    page.evaluate("window.ana_ctx.say('Once more.')")
    expect(message).to_be_visible()
    page.keyboard.press("Escape")  # Escape with nothing else open dismisses it too
    expect(message).to_be_hidden()


def test_a_refused_switch_message_goes_away_once_saved(alice: Page, server: Server) -> None:
    path = fresh_note(alice, server, "start\n")
    row_button(alice, "note-link", path).click()
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox][data-path='{path}']")
    expect(frame.locator(".cm-content")).to_be_visible()
    alice.route(
        "**/api/workspaces/personal/documents/**",
        lambda route: route.abort() if route.request.method == "PUT" else route.continue_(),
    )
    frame.locator(".cm-content").click()
    alice.keyboard.insert_text("offline words ")
    expect(frame.get_by_test_id("save-status")).to_have_text("offline — retrying", timeout=20_000)
    alice.get_by_test_id("workspace-select").select_option("team")
    message = alice.get_by_test_id("app-message")
    expect(message).to_contain_text("not switched", timeout=20_000)
    alice.unroute("**/api/workspaces/personal/documents/**")
    expect(message).to_be_hidden(timeout=30_000)  # resolved by itself once the save landed
    expect(alice.get_by_test_id("workspace-select")).to_have_value("personal")


# -- 3. layout and marks ------------------------------------------------------------------------


def in_viewport(page: Page, locator, height: int) -> None:
    box = locator.bounding_box()
    assert box is not None and 0 <= box["y"] < height - 40, box


def test_a_third_frame_at_1024_px_is_scrolled_into_view(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 1024, "height": 768})
    sign_in(page, server)
    for _ in range(2):
        page.locator("[data-testid=open-frame][data-kind=files]").click()
    expect(page.locator(FRAMES)).to_have_count(3)
    third = page.locator(FRAMES).nth(2)
    expect(third).to_have_attribute("data-active", "true")
    page.wait_for_function("document.querySelectorAll('[data-testid=file-link]').length > 0")
    in_viewport(page, third.locator(".frame-bar"), 768)


def test_a_phone_works_one_pane_at_a_time(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, server)
    assistant = page.locator(f"{FRAMES}[data-frame-kind=assistant]")
    expect(assistant).to_be_hidden()  # the note list shows first
    row_button(page, "note-link", "welcome.md").click()
    editor = page.locator(f"{FRAMES}[data-frame-kind=inbox] .cm-content")
    expect(editor).to_be_visible()
    in_viewport(page, editor, 844)
    expect(assistant).to_be_hidden()
    expect(row_button(page, "note-link", "welcome.md")).to_be_hidden()
    tabs = page.get_by_test_id("pane-tab")
    expect(tabs).to_have_count(3)  # Notes, the Assistant, the note
    tabs.and_(page.locator("[data-for-frame]")).first.click()  # the Assistant's tab
    expect(page.get_by_test_id("assistant-send")).to_be_visible()
    in_viewport(page, page.get_by_test_id("assistant-input"), 844)
    expect(editor).to_be_hidden()
    tabs.and_(page.locator("[data-pane=notes]")).click()
    expect(row_button(page, "note-link", "welcome.md")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_list_marks_the_open_note_and_shows_whole_names(alice: Page, server: Server) -> None:
    long_name = "a note with a long name that would never fit in the sidebar at all"
    path = fresh_note(alice, server, folder=f"marks/{long_name}")
    link = row_button(alice, "note-link", path)
    expect(link).not_to_have_attribute("aria-current", "page")
    link.click()
    expect(link).to_have_attribute("aria-current", "page")
    # The whole name is shown: nothing is cut off with an ellipsis.
    assert link.evaluate("el => el.scrollWidth <= el.clientWidth")
    folder = alice.locator(f"[data-testid=note-folder][data-folder='marks/{long_name}/']")
    assert folder.evaluate("el => el.scrollWidth <= el.clientWidth")
    row_button(alice, "note-link", "welcome.md").click()
    expect(link).not_to_have_attribute("aria-current", "page")
    expect(row_button(alice, "note-link", "welcome.md")).to_have_attribute("aria-current", "page")


def test_tasks_in_preview_are_checkboxes(alice: Page, server: Server) -> None:
    path = fresh_note(alice, server, "# tasks\n\n- [ ] open task\n- [x] done task\n- plain\n")
    row_button(alice, "note-link", path).click()
    frame = alice.locator(f"{FRAMES}[data-path='{path}']")
    frame.locator("[data-view=preview]").click()
    boxes = frame.locator(".preview input[type=checkbox]")
    expect(boxes).to_have_count(2)
    expect(boxes.nth(0)).not_to_be_checked()
    expect(boxes.nth(1)).to_be_checked()
    expect(frame.locator(".preview")).not_to_contain_text("[ ]")
    boxes.nth(0).check()  # ticking it edits the note like the Todo view does
    expect(frame.locator(".preview input[type=checkbox]").nth(0)).to_be_checked()
    frame.locator("[data-view=edit]").click()
    expect(frame.locator(".cm-content")).to_contain_text("- [x] open task")


# -- 4. links between notes ---------------------------------------------------------------------


def test_links_in_preview_open_notes_and_missing_ones_are_marked(
    alice: Page, server: Server
) -> None:
    tag = uuid.uuid4().hex[:6]
    folder = f"links-{tag}"
    put_note(alice, server, f"{folder}/sub/target.md", "# target\n")
    put_note(alice, server, f"{folder}/other-{tag}.md", "# other\n")
    source = fresh_note(
        alice,
        server,
        (
            f"# source\n\n[sibling](target.md) · [from the root]({folder}/other-{tag}.md) · "
            f"[[other-{tag}]] · [gone](gone.md) · [[nowhere-{tag}]]\n"
        ),
        folder=f"{folder}/sub",
    )
    row_button(alice, "note-link", source).click()
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")  # the one Inbox, whatever it shows
    expect(frame).to_have_attribute("data-path", source)
    frame.locator("[data-view=preview]").click()
    preview = frame.locator(".preview")
    missing = preview.locator("a[data-missing=true]")
    expect(missing).to_have_count(2)
    missing.first.click()  # a missing target is said, and the open note stays
    expect(frame).to_have_attribute("data-path", source)
    expect(frame.get_by_test_id("save-status")).to_contain_text("does not exist")
    preview.get_by_role("link", name="sibling").click()  # against the note's own folder
    expect(frame).to_have_attribute("data-path", f"{folder}/sub/target.md")
    # Its backlinks list names the source; a click goes back there.
    backlink = frame.get_by_test_id("backlink")
    expect(backlink).to_have_attribute("data-path", source)
    backlink.click()
    expect(frame).to_have_attribute("data-path", source)
    frame.locator(".preview").get_by_role(
        "link", name=f"other-{tag}", exact=True
    ).click()  # [[other-…]]
    expect(frame).to_have_attribute("data-path", f"{folder}/other-{tag}.md")
    frame.get_by_test_id("frame-back").click()
    expect(frame).to_have_attribute("data-path", source)
    frame.locator(".preview").get_by_role("link", name="from the root").click()
    expect(frame).to_have_attribute("data-path", f"{folder}/other-{tag}.md")
    expect(frame.get_by_test_id("backlink")).to_have_attribute("data-path", source)


# -- 5. search ----------------------------------------------------------------------------------


def test_search_opens_the_note_at_the_line(alice: Page, server: Server) -> None:
    word = f"zebra{uuid.uuid4().hex[:6]}"
    lines = [f"line {n}" for n in range(1, 80)]
    lines[59] = f"the {word} is here"
    path = fresh_note(alice, server, "\n".join(lines) + "\n", folder="search")
    box = alice.get_by_test_id("search-input")
    box.fill(word)
    box.press("Enter")
    result = alice.get_by_test_id("search-result")
    expect(result).to_have_count(1)
    expect(result).to_have_attribute("data-path", path)
    expect(result).to_have_attribute("data-line", "60")
    expect(result).to_contain_text(word)
    result.click()
    frame = alice.locator(f"{FRAMES}[data-path='{path}']")
    editor = frame.locator(".cm-content")
    expect(editor).to_be_focused()
    expect(frame.locator(".cm-activeLine")).to_have_text(f"the {word} is here")
    expect(frame.locator(".cm-activeLine")).to_be_in_viewport()
    box.fill("no-such-words-anywhere-at-all")
    box.press("Enter")
    expect(result).to_have_count(0)
    expect(alice.locator(".sidebar [role=status]").first).to_contain_text("No note")


# -- 6. quick switcher --------------------------------------------------------------------------


def test_the_quick_switcher_opened_before_the_list_arrives_still_finds_notes(
    page: Page, server: Server
) -> None:
    held = []
    page.route("**/api/workspaces/personal/documents", lambda route: held.append(route))
    sign_in(page, server)
    page.keyboard.press("Control+o")
    field = page.get_by_test_id("quick-open-input")
    expect(field).to_be_focused()
    field.type("rdmp")
    expect(page.get_by_test_id("quick-open-item")).to_have_count(0)
    until(page, lambda: held)  # the held list requests have arrived
    for route in held:
        route.continue_()
    page.unroute("**/api/workspaces/personal/documents")
    item = page.get_by_test_id("quick-open-item").first
    expect(item).to_have_attribute("data-path", "projects/roadmap.md")


def test_the_quick_switcher_says_it_is_loading_and_why_it_found_no_notes(
    page: Page, server: Server
) -> None:
    """Opened before any list of the notes had come, the switcher said "No note matches." while
    its own read was out, and nothing more when that read failed. Now it says it is loading,
    then why it could not list them; opened again, it reads again and finds them."""
    held, failing = [], []

    def hold(route) -> None:
        (route.abort() if failing else held.append(route))

    page.route("**/api/workspaces/personal/documents", hold)
    sign_in(page, server)
    page.keyboard.press("Control+o")
    field = page.get_by_test_id("quick-open-input")
    expect(field).to_be_focused()
    empty = page.locator(".quick-open-list li.empty")
    expect(empty).to_have_text("Loading notes…")
    field.type("rdmp")
    expect(empty).to_have_text("Loading notes…")  # not "No note matches." yet
    until(page, lambda: len(held) >= 2)  # the note list's read and the switcher's own
    failing.append(True)
    for route in held:
        route.abort("connectionfailed")
    expect(empty).to_contain_text("Could not list the notes")
    page.unroute("**/api/workspaces/personal/documents")
    page.keyboard.press("Escape")
    page.keyboard.press("Control+o")
    field.type("rdmp")
    expect(page.get_by_test_id("quick-open-item").first).to_have_attribute(
        "data-path", "projects/roadmap.md"
    )


def test_quick_switcher_on_ctrl_o_and_ctrl_p(alice: Page) -> None:
    alice.keyboard.press("Control+o")
    field = alice.get_by_test_id("quick-open-input")
    expect(field).to_be_focused()
    field.type("rdmp")
    items = alice.get_by_test_id("quick-open-item")
    expect(items.first).to_have_attribute("data-path", "projects/roadmap.md")
    alice.keyboard.press("Enter")
    expect(field).to_be_hidden()
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")
    expect(frame).to_have_attribute("data-path", "projects/roadmap.md")
    expect(frame).to_have_attribute("data-active", "true")
    expect(frame.locator(".cm-content")).to_be_focused()  # Enter put the cursor in the note
    alice.keyboard.press("Control+p")  # from inside the editor too
    expect(field).to_be_focused()
    field.type("md")
    first = items.first.get_attribute("data-path")
    second = items.nth(1).get_attribute("data-path")
    expect(items.first).to_have_attribute("aria-selected", "true")
    alice.keyboard.press("ArrowDown")
    expect(items.nth(1)).to_have_attribute("aria-selected", "true")
    alice.keyboard.press("ArrowUp")
    alice.keyboard.press("ArrowDown")
    alice.keyboard.press("Enter")
    expect(frame).to_have_attribute("data-path", second)  # in the same (active) frame
    assert first != second
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(1)
    alice.keyboard.press("Control+o")
    expect(field).to_be_visible()
    alice.keyboard.press("Escape")
    expect(field).to_be_hidden()
    expect(frame).to_have_attribute("data-path", second)


# -- 7. reload and history ----------------------------------------------------------------------


def test_reload_restores_frames_views_and_the_active_one(alice: Page) -> None:
    row_button(alice, "note-link", "todo.md").click()
    todo = alice.locator(f"{FRAMES}[data-path='todo.md']")
    todo.locator("[data-view=todo]").click()
    row_button(alice, "note-open-frame", "projects/roadmap.md").click()
    roadmap = alice.locator(f"{FRAMES}[data-path='projects/roadmap.md']")
    roadmap.locator("[data-view=mindmap]").click()
    alice.locator("[data-testid=open-frame][data-kind=files]").click()
    todo.locator(".frame-bar").click()  # the todo frame is the active one
    expect(todo).to_have_attribute("data-active", "true")
    before = alice.locator(FRAMES).evaluate_all(
        "els => els.map(e => [e.dataset.frameKind, e.dataset.path || '', e.dataset.view || ''])"
    )
    alice.reload()
    wait_ready(alice)
    expect(alice.locator(FRAMES)).to_have_count(len(before))
    after = alice.locator(FRAMES).evaluate_all(
        "els => els.map(e => [e.dataset.frameKind, e.dataset.path || '', e.dataset.view || ''])"
    )
    assert after == before
    expect(alice.locator(f"{FRAMES}[data-path='todo.md']")).to_have_attribute("data-active", "true")
    expect(
        alice.locator(f"{FRAMES}[data-path='todo.md'] [data-testid=todo-checkbox]").first
    ).to_be_visible()
    # Per workspace: the team workspace has its own (none yet), and personal comes back.
    alice.get_by_test_id("workspace-select").select_option("team")
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(0)
    alice.get_by_test_id("workspace-select").select_option("personal")
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(2)


def test_a_frame_picked_while_the_layout_comes_back_keeps_the_focus(alice: Page) -> None:
    # Three frames; the first is the active one when the page reloads.
    row_button(alice, "note-link", "todo.md").click()
    for path in ("welcome.md", "projects/roadmap.md"):
        row_button(alice, "note-open-frame", path).click()
        expect(alice.locator(f"{FRAMES}[data-path='{path}']")).to_be_visible()
    todo = alice.locator(f"{FRAMES}[data-path='todo.md']")
    todo.locator(".frame-bar").click()
    expect(todo).to_have_attribute("data-active", "true")
    # The last frame's note is held on its way, so the page is still restoring its frames.
    held: list[Route] = []
    roadmap_note = re.compile(r"/documents/projects/roadmap\.md(\?|$)")
    alice.route(roadmap_note, lambda route: held.append(route))
    alice.reload()
    until(alice, lambda: bool(held))
    welcome = alice.locator(f"{FRAMES}[data-path='welcome.md']")
    welcome.locator(".frame-bar").click()  # meanwhile, the person picks the middle frame
    expect(welcome).to_have_attribute("data-active", "true")
    for route in held:
        route.continue_()
    alice.unroute(roadmap_note)
    wait_ready(alice)
    roadmap = alice.locator(f"{FRAMES}[data-path='projects/roadmap.md']")
    expect(roadmap.locator(".cm-content")).to_be_visible()
    # The saved choice (todo) does not take the frame the person picked back.
    expect(todo).to_have_attribute("data-active", "false")
    expect(welcome).to_have_attribute("data-active", "true")


def test_back_and_forward_move_between_a_frames_notes(alice: Page) -> None:
    for path in ("welcome.md", "todo.md", "projects/roadmap.md"):
        row_button(alice, "note-link", path).click()
        expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_attribute(
            "data-path", path
        )
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")
    back, forward = frame.get_by_test_id("frame-back"), frame.get_by_test_id("frame-forward")
    expect(back).to_have_attribute("aria-label", "Back to the previous note")
    expect(forward).to_be_disabled()
    back.click()
    expect(frame).to_have_attribute("data-path", "todo.md")
    back.click()
    expect(frame).to_have_attribute("data-path", "welcome.md")
    expect(back).to_be_disabled()
    forward.click()
    expect(frame).to_have_attribute("data-path", "todo.md")
    alice.reload()  # the history survives a reload too
    wait_ready(alice)
    frame.get_by_test_id("frame-forward").click()
    expect(frame).to_have_attribute("data-path", "projects/roadmap.md")


# -- 8. focus -----------------------------------------------------------------------------------


def test_focus_starts_at_the_page_after_sign_in_and_goes_to_a_new_notes_editor(
    alice: Page, server: Server
) -> None:
    # After sign-in the keyboard starts at the top of the page: its first Tab is the skip
    # link (issue 34; e2e/test_keyboard.py), not the Assistant's ↗ past the note list.
    alice.keyboard.press("Tab")
    expect(alice.get_by_test_id("skip-to-chat")).to_be_focused()
    alice.get_by_test_id("note-new").click()
    name = f"focus-{uuid.uuid4().hex[:6]}"
    alice.get_by_test_id("note-new-path").fill(name)
    alice.get_by_test_id("note-create").click()
    frame = alice.locator(f"{FRAMES}[data-path='{name}.md']")
    expect(frame.locator(".cm-content")).to_be_focused()
    alice.keyboard.type("typed at once")
    expect(frame.locator(".cm-content")).to_contain_text("typed at once")
    text = frame.locator(".cm-content").evaluate("el => el.cmTile.root.view.state.doc.toString()")
    assert text == f"# {name}\n\ntyped at once"


# -- 9. closing a frame whose save is retrying ---------------------------------------------------


def test_closing_a_frame_that_is_still_retrying_warns_and_says_where_the_text_is(
    alice: Page, server: Server
) -> None:
    path = fresh_note(alice, server, "start\n")
    row_button(alice, "note-link", path).click()
    frame = alice.locator(f"{FRAMES}[data-path='{path}']")
    expect(frame.locator(".cm-content")).to_be_visible()
    url = f"**/api/workspaces/personal/documents/{path}"
    alice.route(
        url, lambda route: route.abort() if route.request.method == "PUT" else route.continue_()
    )
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+End")
    alice.keyboard.insert_text("kept words")
    expect(frame.get_by_test_id("save-status")).to_have_text("offline — retrying", timeout=20_000)
    frame.get_by_test_id("frame-close").click()
    message = alice.get_by_test_id("app-message")
    expect(message).to_contain_text("not saved yet")
    expect(frame).to_have_count(1)
    frame.get_by_test_id("frame-close").click()
    expect(frame).to_have_count(0)
    expect(message).to_contain_text("kept in this window")
    alice.unroute(url)
    expect(message).to_be_hidden(timeout=30_000)
    saved = alice.request.get(f"{server.url}/api/workspaces/personal/documents/{path}").text()
    assert saved == "start\nkept words"
