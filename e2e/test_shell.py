"""The shell: sign-in and sign-out, workspace switching, the note list's create/rename/delete."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import Server, sign_in, wait_ready

FRAMES = "[data-testid=frame]"


def test_sign_in_shows_the_note_list_and_one_assistant_frame(alice: Page, server: Server) -> None:
    listed = [
        d["path"]
        for d in alice.request.get(f"{server.url}/api/workspaces/personal/documents").json()
    ]
    links = alice.get_by_test_id("note-link")
    expect(links.first).to_be_visible()
    assert sorted(links.evaluate_all("els => els.map(e => e.dataset.path)")) == sorted(listed)
    # Folders are shown as such: a tree item that folds the group of its notes.
    folder = alice.locator("li.folder:has(> [data-folder='projects/'])")
    expect(folder.get_by_test_id("note-link")).to_have_attribute("data-path", "projects/roadmap.md")
    folder.get_by_test_id("note-folder").first.click()
    expect(folder.get_by_test_id("note-link")).to_be_hidden()
    frames = alice.locator(FRAMES)
    expect(frames).to_have_count(1)
    expect(frames).to_have_attribute("data-frame-kind", "assistant")
    expect(frames).to_have_attribute("data-active", "true")
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(0)


def test_wrong_password_is_refused_in_words(page: Page, server: Server) -> None:
    page.goto(server.url + "/")
    wait_ready(page)
    page.get_by_test_id("login-username").fill("alice")
    page.get_by_test_id("login-password").fill("not-her-password")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_role("alert")).to_contain_text("not correct")
    expect(page.get_by_test_id("workspace-select")).to_have_count(0)


def test_sign_out_ends_the_session(alice: Page, server: Server) -> None:
    alice.get_by_test_id("sign-out").click()
    expect(alice.get_by_test_id("login-username")).to_be_visible()
    expect(alice.locator(FRAMES)).to_have_count(0)
    assert alice.request.get(f"{server.url}/api/session").status == 401
    alice.reload()
    wait_ready(alice)
    expect(alice.get_by_test_id("login-username")).to_be_visible()


def test_leaving_the_page_as_sign_out_is_sent_still_signs_out(alice: Page, server: Server) -> None:
    """A person who presses Sign out and at once goes elsewhere is signed out all the same:
    the request outlives the page (it was once aborted by the navigation)."""
    with alice.expect_request(lambda r: r.method == "DELETE" and r.url.endswith("/api/session")):
        alice.get_by_test_id("sign-out").click()
    alice.goto(server.url + "/")  # at once, as a person clicking a bookmark would
    wait_ready(alice)
    expect(alice.get_by_test_id("login-username")).to_be_visible()
    assert alice.request.get(f"{server.url}/api/session").status == 401


def test_workspace_switch_shows_that_workspaces_notes(alice: Page, server: Server) -> None:
    alice.get_by_test_id("note-link").and_(alice.locator("[data-path='todo.md']")).click()
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_attribute(
        "data-path", "todo.md"
    )
    select = alice.get_by_test_id("workspace-select")
    assert select.locator("option").evaluate_all("os => os.map(o => o.value)") == [
        "personal",
        "team",
    ]
    select.select_option("team")
    team = sorted(
        d["path"] for d in alice.request.get(f"{server.url}/api/workspaces/team/documents").json()
    )
    links = alice.get_by_test_id("note-link")
    expect(links).to_have_count(len(team))
    assert sorted(links.evaluate_all("els => els.map(e => e.dataset.path)")) == team
    # A note belongs to its workspace: its frame closed; the assistant stays.
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(0)
    expect(alice.locator(f"{FRAMES}[data-frame-kind=assistant]")).to_have_count(1)


def test_create_rename_and_delete_a_note(alice: Page, server: Server) -> None:
    name = f"shell-{uuid.uuid4().hex[:6]}"
    docs = f"{server.url}/api/workspaces/personal/documents"
    alice.get_by_test_id("note-new").click()
    alice.get_by_label("Name of the new note").fill(f"scratch/{name}")
    alice.get_by_test_id("note-create").click()
    created = f"scratch/{name}.md"
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")
    expect(frame).to_have_attribute("data-path", created)
    expect(frame.locator(".cm-content")).to_contain_text(f"# {name}")
    assert alice.request.get(f"{docs}/{created}").ok

    alice.get_by_test_id("note-rename").and_(alice.locator(f"[data-path='{created}']")).click()
    alice.get_by_test_id("note-rename-path").fill(f"scratch/{name}-renamed.md")
    alice.get_by_test_id("note-rename-save").click()
    renamed = f"scratch/{name}-renamed.md"
    expect(
        alice.get_by_test_id("note-link").and_(alice.locator(f"[data-path='{renamed}']"))
    ).to_be_visible()
    expect(frame).to_have_attribute("data-path", renamed)  # the open note follows the move
    assert alice.request.get(f"{docs}/{created}").status == 404

    alice.get_by_test_id("note-delete").and_(alice.locator(f"[data-path='{renamed}']")).click()
    alice.get_by_test_id("row-delete-confirm").click()
    expect(alice.locator(f"[data-testid=note-link][data-path='{renamed}']")).to_have_count(0)
    expect(frame).to_have_attribute("data-path", "")
    expect(frame).to_contain_text("was deleted")
    assert alice.request.get(f"{docs}/{renamed}").status == 404


def test_a_taken_name_is_refused_in_words(alice: Page) -> None:
    alice.get_by_test_id("note-new").click()
    alice.get_by_label("Name of the new note").fill("todo")
    alice.get_by_test_id("note-create").click()
    expect(alice.locator(".new-note [role=alert]")).to_contain_text("exists")


def test_narrow_window_stacks_frames_without_sideways_scrolling(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 420, "height": 800})
    sign_in(page, server)
    page.get_by_test_id("note-link").and_(page.locator("[data-path='welcome.md']")).click()
    inbox = page.locator(f"{FRAMES}[data-frame-kind=inbox]")
    expect(inbox.locator(".cm-content")).to_be_visible()
    # One pane at a time (the Notes tab or one frame): every frame shown fits the width.
    shown = [frame for frame in page.locator(FRAMES).all() if frame.is_visible()]
    assert shown
    for frame in shown:
        box = frame.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 420
    assert page.evaluate("document.documentElement.scrollWidth") <= 420
