"""Every control of the shell, the note list and the frames is clicked here, with its effect.

`test_every_control_in_the_page_has_a_test` walks the page through its states and fails when a
control appears that no test below uses (or that has no test id at all), so a button whose
click breaks cannot ship unnoticed again. Controls of the assistant, the inline command and
the sharing panel are tested by their own e2e files (`OTHERS`).
"""

from __future__ import annotations

import sys
import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import Server, put_note, sign_in, wait_ready

FRAMES = "[data-testid=frame]"

# test id → the test in this file that clicks or uses it
OWN = {
    "login-username": "test_sign_in_switch_and_sign_out",
    "login-password": "test_sign_in_switch_and_sign_out",
    "login-submit": "test_sign_in_switch_and_sign_out",
    "workspace-select": "test_sign_in_switch_and_sign_out",
    "sign-out": "test_sign_in_switch_and_sign_out",
    "open-frame": "test_frame_toolbar_and_frame_buttons",
    "frame-close": "test_frame_toolbar_and_frame_buttons",
    "frame-popout": "test_frame_toolbar_and_frame_buttons",
    "popout-return": "test_frame_toolbar_and_frame_buttons",
    "view-button": "test_frame_toolbar_and_frame_buttons",
    "frame-back": "test_frame_toolbar_and_frame_buttons",
    "frame-forward": "test_frame_toolbar_and_frame_buttons",
    "note-new": "test_note_list_controls",
    "note-new-path": "test_note_list_controls",
    "note-new-cancel": "test_note_list_controls",
    "note-create": "test_note_list_controls",
    "note-link": "test_note_list_controls",
    "note-folder": "test_note_list_controls",
    "note-open-frame": "test_note_list_controls",
    "note-rename": "test_note_list_controls",
    "note-rename-path": "test_note_list_controls",
    "note-rename-save": "test_note_list_controls",
    "row-cancel": "test_note_list_controls",
    "note-delete": "test_note_list_controls",
    "row-delete-confirm": "test_note_list_controls",
    "app-message-dismiss": "test_banner_search_and_quick_open",
    "search-input": "test_banner_search_and_quick_open",
    "search-result": "test_banner_search_and_quick_open",
    "quick-open-input": "test_banner_search_and_quick_open",
    "quick-open-item": "test_banner_search_and_quick_open",
    "todo-checkbox": "test_view_controls",
    "backlink": "test_view_controls",
    "file-link": "test_view_controls",
    "files-refresh": "test_view_controls",
    "save-retry": "test_view_controls",
    "pane-tab": "test_pane_tabs_of_a_narrow_window",
    # issue 24's controls, each driven by the e2e file that proves its feature
    "skip-to-chat": "test_note_tree.py",
    "missing-create": "test_preview_links.py",
    "popout-open-note": "test_layout.py",
    # the conflict panel's three choices: e2e/test_live.py drives them in a real conflict
    "conflict-keep-mine": "test_live.py",
    "conflict-take-theirs": "test_live.py",
    "conflict-save-copy": "test_live.py",
    # a note's history: e2e/test_history.py lists, compares and restores
    "history-open": "test_history.py",
    "history-item": "test_history.py",
    "history-restore": "test_history.py",
    # the Files frame's attachments (SPEC §18): e2e/test_attachments.py uploads and lists one
    "attachment-file": "test_attachments.py",
    "attach-choose": "test_attachments.py",
    "attach-file-input": "test_attachments.py",  # the file chooser the button opens
    # organising (SPEC §18): e2e/test_organise.py makes folders, moves, and uses the Trash
    "folder-new": "test_organise.py",
    "folder-new-path": "test_organise.py",
    "folder-create": "test_organise.py",
    "folder-new-cancel": "test_organise.py",
    "note-move": "test_organise.py",
    "rename-update-links": "test_organise.py",
    "trash-open": "test_organise.py",
    "trash-close": "test_organise.py",
    # export and import (SPEC §18): e2e/test_transfer.py
    "export-workspace": "test_transfer.py",
    "import-open": "test_transfer.py",
    "import-file": "test_transfer.py",
    "import-folder": "test_transfer.py",
    "import-conflict": "test_transfer.py",
    "import-submit": "test_transfer.py",
    "import-dialog-close": "test_transfer.py",
    # settings (issue 34): e2e/test_settings.py switches the theme and font size, folds the list
    "settings-open": "test_settings.py",
    "settings-theme": "test_settings.py",
    "settings-font-size": "test_settings.py",
    "settings-close": "test_settings.py",
    "sidebar-toggle": "test_settings.py",
    # the note list before Python (issue 35): e2e/test_workspace_early.py reads a note with it
    "early-note-open": "test_workspace_early.py",
}
# Controls of the other parts of the page, each tested in its own e2e file.
OTHERS = (
    "assistant-",
    "ambient-",
    "tool-call",
    "proposal",
    "inline-command-",
    "editor-help",
    "active-note-sharing",
    "sharing-",
    "token-",
    "chat-",
    "new-chat",
    "conversation-",
    # people and workspaces (SPEC §17): e2e/test_people.py
    "account-",
    "password-",
    "session",
    "workspace-new",
    "workspace-name-input",
    "workspace-create",
    "workspace-rename",
    "workspace-delete",
    "members-",
    "member-",
    "invite-",
    "users-",
    "user-",
    "setup-",
)
# Where every button and field must carry a test id (the assistant's frame body is not ours).
OURS = (
    ".topbar",
    ".app-banner",
    ".pane-tabs",
    ".sidebar",
    ".frame-bar",
    ".view-switch",
    ".save-status",
    ".render-host",
    ".files-bar",
    ".files-table",
    ".quick-open",
    ".signin",
)
CONTROLS = "button, input, select, textarea, a[href], summary, [role=option]"


def reload(page: Page) -> None:
    page.reload()
    wait_ready(page)
    expect(page.get_by_test_id("workspace-select")).to_be_visible()


def row(page: Page, testid: str, path: str):
    return page.locator(f"[data-testid={testid}][data-path='{path}']")


def controls_now(page: Page) -> list[tuple[str, str]]:
    """(test id or '', a description) of every control in our parts of the page now."""
    return page.evaluate(
        """([ours, controls, others]) => {
        const theirs = (el) => {  // inside a part another e2e file tests (e.g. editor-help)
            for (let up = el.parentElement; up; up = up.parentElement) {
                const id = up.dataset.testid;
                if (id && others.some((prefix) => id.startsWith(prefix))) return true;
            }
            return false;
        };
        const found = [];
        for (const area of document.querySelectorAll(ours.join(","))) {
            if (area.closest('.frame-assistant .frame-body')) continue;
            for (const el of area.querySelectorAll(controls)) {
                if (el.closest('.preview a') === el && !el.dataset.testid) continue;
                if (!el.dataset.testid && theirs(el)) continue;
                found.push([el.dataset.testid || "", el.outerHTML.slice(0, 120)]);
            }
        }
        for (const el of document.querySelectorAll('[data-testid]')) {
            if (el.matches(controls)) found.push([el.dataset.testid, el.outerHTML.slice(0, 80)]);
        }
        return found;
    }""",
        [list(OURS), CONTROLS, list(OTHERS)],
    )


def test_every_control_in_the_page_has_a_test(page: Page, server: Server) -> None:
    seen: list[tuple[str, str]] = []
    page.goto(server.url + "/")
    wait_ready(page)
    seen += controls_now(page)  # the sign-in form
    sign_in(page, server)
    path = f"controls/{uuid.uuid4().hex[:6]}.md"
    put_note(page, server, path, "# c\n\n- [ ] task [[todo]]\n")
    put_note(page, server, f"controls/from-{path[9:]}", f"[[{path[9:-3]}]]\n")
    reload(page)
    page.locator("[data-testid=open-frame][data-kind=files]").click()
    row(page, "note-link", "welcome.md").click()
    row(page, "note-link", path).click()
    frame = page.locator(f"{FRAMES}[data-path='{path}']")
    seen += controls_now(page)
    frame.locator("[data-view=preview]").click()
    expect(frame.get_by_test_id("backlink")).to_have_count(1)
    seen += controls_now(page)
    frame.locator("[data-view=todo]").click()
    seen += controls_now(page)
    page.get_by_test_id("note-new").click()
    seen += controls_now(page)
    row(page, "note-rename", "todo.md").click()
    seen += controls_now(page)
    row(page, "note-delete", "welcome.md").click()
    seen += controls_now(page)
    page.get_by_test_id("search-input").fill("Welcome")
    page.get_by_test_id("search-input").press("Enter")
    expect(page.get_by_test_id("search-result").first).to_be_visible()
    page.evaluate("window.ana_ctx.say('a message')")
    seen += controls_now(page)
    page.keyboard.press("Control+o")
    expect(page.get_by_test_id("quick-open-item").first).to_be_visible()
    seen += controls_now(page)
    module = sys.modules[__name__]
    unnamed = sorted({html for testid, html in seen if not testid})
    assert not unnamed, f"controls without a data-testid: {unnamed}"
    ids = {testid for testid, _ in seen}
    untested = sorted(t for t in ids if t not in OWN and not t.startswith(OTHERS))
    assert not untested, f"controls that no e2e test clicks: {untested}"
    for testid, where in OWN.items():
        assert where.endswith(".py") or callable(getattr(module, where, None)), testid


def test_sign_in_switch_and_sign_out(page: Page, server: Server) -> None:
    page.goto(server.url + "/")
    wait_ready(page)
    page.get_by_test_id("login-username").fill("alice")
    page.get_by_test_id("login-password").fill("alice")
    page.get_by_test_id("login-submit").click()
    select = page.get_by_test_id("workspace-select")
    expect(select).to_have_value("personal")
    expect(row(page, "note-link", "welcome.md")).to_be_visible()
    select.select_option("team")
    team = [
        d["path"] for d in page.request.get(f"{server.url}/api/workspaces/team/documents").json()
    ]
    expect(page.get_by_test_id("note-link")).to_have_count(len(team))
    page.get_by_test_id("sign-out").click()
    expect(page.get_by_test_id("login-username")).to_be_visible()
    expect(select).to_have_count(0)


def test_frame_toolbar_and_frame_buttons(alice: Page, server: Server) -> None:
    frames = alice.locator(FRAMES)
    expect(frames).to_have_count(1)
    for number, kind in enumerate(("inbox", "assistant", "files"), start=2):
        alice.locator(f"[data-testid=open-frame][data-kind={kind}]").click()
        expect(frames).to_have_count(number)
        expect(frames.nth(number - 1)).to_have_attribute("data-frame-kind", kind)
        expect(frames.nth(number - 1)).to_have_attribute("data-active", "true")
    frames.nth(3).get_by_test_id("frame-close").click()  # the Files frame
    expect(alice.locator(f"{FRAMES}[data-frame-kind=files]")).to_have_count(0)
    frames.nth(2).get_by_test_id("frame-close").click()  # the second Assistant
    expect(frames).to_have_count(2)
    inbox = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")
    expect(inbox).to_contain_text("No note open here")
    row(alice, "note-link", "welcome.md").click()
    # A note joins Back's history once it shows: one still on its way when the next is asked
    # for is dropped, as a person never saw it (so a fast second click would leave no Back).
    expect(inbox).to_have_attribute("data-path", "welcome.md")
    row(alice, "note-link", "todo.md").click()
    expect(inbox).to_have_attribute("data-path", "todo.md")
    for view, shown in (
        ("preview", ".preview"),
        ("todo", ".todo"),
        ("mindmap", ".mindmap"),
        ("edit", ".cm-content"),
    ):
        inbox.locator(f"[data-testid=view-button][data-view={view}]").click()
        expect(inbox).to_have_attribute("data-view", view)
        expect(inbox.locator(f"[data-view={view}]")).to_have_attribute("aria-pressed", "true")
        expect(inbox.locator(shown)).to_be_visible()
    inbox.get_by_test_id("frame-back").click()
    expect(inbox).to_have_attribute("data-path", "welcome.md")
    inbox.get_by_test_id("frame-forward").click()
    expect(inbox).to_have_attribute("data-path", "todo.md")
    frame_id = inbox.get_attribute("data-frame-id")
    with alice.expect_popup() as info:
        inbox.get_by_test_id("frame-popout").click()
    popup = info.value
    wait_ready(popup)
    expect(alice.locator(f"{FRAMES}[data-frame-id='{frame_id}']")).to_have_count(0)
    expect(popup.locator(f"{FRAMES}[data-frame-id='{frame_id}']")).to_have_attribute(
        "data-path", "todo.md"
    )
    with popup.expect_event("close"):
        popup.get_by_test_id("popout-return").click()
    expect(alice.locator(f"{FRAMES}[data-frame-id='{frame_id}']")).to_have_attribute(
        "data-path", "todo.md"
    )


def test_note_list_controls(alice: Page, server: Server) -> None:
    name = f"ctl-{uuid.uuid4().hex[:6]}"
    docs = f"{server.url}/api/workspaces/personal/documents"
    alice.get_by_test_id("note-new").click()
    field = alice.get_by_test_id("note-new-path")
    expect(field).to_be_visible()
    alice.get_by_test_id("note-new-cancel").click()
    expect(field).to_be_hidden()
    alice.get_by_test_id("note-new").click()
    field.fill(f"controls/{name}")
    alice.get_by_test_id("note-create").click()
    path = f"controls/{name}.md"
    frame = alice.locator(f"{FRAMES}[data-path='{path}']")
    expect(frame.locator(".cm-content")).to_contain_text(f"# {name}")
    assert alice.request.get(f"{docs}/{path}").ok

    folder = alice.locator("li.folder:has(> [data-folder='projects/'])")
    folder.get_by_test_id("note-folder").first.click()
    expect(row(alice, "note-link", "projects/roadmap.md")).to_be_hidden()
    folder.get_by_test_id("note-folder").first.click()
    expect(row(alice, "note-link", "projects/roadmap.md")).to_be_visible()
    row(alice, "note-link", "welcome.md").click()
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(1)
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_attribute(
        "data-path", "welcome.md"
    )
    row(alice, "note-open-frame", path).click()
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(2)

    row(alice, "note-rename", path).click()
    rename = alice.get_by_test_id("note-rename-path")
    alice.get_by_test_id("row-cancel").click()
    expect(rename).to_have_count(0)
    row(alice, "note-rename", path).click()
    rename.fill(f"controls/{name}-2.md")
    with alice.expect_response(lambda r: r.request.method == "POST" and "/move" in r.url):
        alice.get_by_test_id("note-rename-save").click()
    renamed = f"controls/{name}-2.md"
    expect(row(alice, "note-link", renamed)).to_be_visible()
    assert alice.request.get(f"{docs}/{path}").status == 404

    row(alice, "note-delete", renamed).click()
    alice.get_by_test_id("row-cancel").click()
    expect(alice.get_by_test_id("row-delete-confirm")).to_have_count(0)
    row(alice, "note-delete", renamed).click()
    with alice.expect_response(lambda r: r.request.method == "DELETE"):  # the row may go first
        alice.get_by_test_id("row-delete-confirm").click()
    expect(row(alice, "note-link", renamed)).to_have_count(0)
    assert alice.request.get(f"{docs}/{renamed}").status == 404
    expect(alice.get_by_test_id("app-message")).to_be_hidden()  # no error on the way


def test_banner_search_and_quick_open(alice: Page, server: Server) -> None:
    alice.evaluate("window.ana_ctx.say('Something to dismiss.')")
    expect(alice.get_by_test_id("app-message")).to_be_visible()
    alice.get_by_test_id("app-message-dismiss").click()
    expect(alice.get_by_test_id("app-message")).to_be_hidden()

    word = f"kiwi{uuid.uuid4().hex[:6]}"
    path = f"controls/{word}.md"
    put_note(alice, server, path, f"one\ntwo {word}\n")
    reload(alice)
    alice.get_by_test_id("search-input").fill(word)
    alice.get_by_test_id("search-input").press("Enter")
    result = alice.get_by_test_id("search-result")
    expect(result).to_have_attribute("data-line", "2")
    result.click()
    frame = alice.locator(f"{FRAMES}[data-path='{path}']")
    expect(frame.locator(".cm-activeLine")).to_have_text(f"two {word}")

    alice.keyboard.press("Control+o")
    alice.get_by_test_id("quick-open-input").fill("todo")
    alice.get_by_test_id("quick-open-item").and_(alice.locator("[data-path='todo.md']")).click()
    expect(alice.get_by_test_id("quick-open-input")).to_be_hidden()
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_attribute(
        "data-path", "todo.md"
    )


def test_view_controls(alice: Page, server: Server) -> None:
    name = uuid.uuid4().hex[:6]
    path = f"controls/views-{name}.md"
    put_note(alice, server, path, "# v\n\n- [ ] first\n- [ ] second\n")
    alice.locator("[data-testid=open-frame][data-kind=files]").click()
    files = alice.locator(f"{FRAMES}[data-frame-kind=files]")
    expect(files.locator(f"[data-testid=file-link][data-path='{path}']")).to_be_visible()
    linking = f"controls/to-{name}.md"
    put_note(alice, server, linking, f"see [[views-{name}]]\n")
    expect(files.locator(f"[data-testid=file-link][data-path='{linking}']")).to_have_count(0)
    files.get_by_test_id("files-refresh").click()
    expect(files.locator(f"[data-testid=file-link][data-path='{linking}']")).to_be_visible()
    files.locator(f"[data-testid=file-link][data-path='{path}']").click()
    frame = alice.locator(f"{FRAMES}[data-path='{path}']")
    frame.locator("[data-view=todo]").click()
    frame.get_by_test_id("todo-checkbox").first.check()
    expect(frame.locator(".todo-count")).to_have_text("1 of 2 done")
    frame.locator("[data-view=preview]").click()
    frame.get_by_test_id("todo-checkbox").nth(1).check()
    expect(frame.get_by_test_id("todo-checkbox").nth(1)).to_be_checked()
    frame.locator("[data-view=todo]").click()
    expect(frame.locator(".todo-count")).to_have_text("2 of 2 done")
    frame.locator("[data-view=preview]").click()
    frame.get_by_test_id("backlink").click()
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")  # the same frame, another note
    expect(frame).to_have_attribute("data-path", linking)

    # Retry after a save that failed for good (here: refused once by a stand-in server answer).
    frame.locator("[data-view=edit]").click()
    alice.route(
        f"**/documents/{linking}",
        lambda route: (
            route.fulfill(
                status=403,
                content_type="application/json",
                body='{"detail": "You do not have access to that workspace."}',
            )
            if route.request.method == "PUT"
            else route.continue_()
        ),
    )
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+End")
    alice.keyboard.insert_text("retried")
    status = frame.get_by_test_id("save-status")
    expect(status).to_contain_text("Not saved", timeout=15_000)
    alice.unroute(f"**/documents/{linking}")
    frame.get_by_test_id("save-retry").click()
    expect(status).to_have_text("Saved", timeout=15_000)
    assert (
        alice.request.get(f"{server.url}/api/workspaces/personal/documents/{linking}")
        .text()
        .endswith("retried")
    )


def test_pane_tabs_of_a_narrow_window(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, server)
    tabs = page.get_by_test_id("pane-tab")
    notes_tab = tabs.and_(page.locator("[data-pane=notes]"))
    expect(notes_tab).to_have_attribute("aria-current", "true")
    row(page, "note-link", "todo.md").click()
    inbox = page.locator(f"{FRAMES}[data-frame-kind=inbox]")
    expect(inbox).to_be_visible()
    frame_id = inbox.get_attribute("data-frame-id")
    inbox_tab = tabs.and_(page.locator(f"[data-for-frame='{frame_id}']"))
    expect(inbox_tab).to_have_attribute("aria-current", "true")
    notes_tab.click()
    expect(inbox).to_be_hidden()
    expect(row(page, "note-link", "todo.md")).to_be_visible()
    inbox_tab.click()
    expect(inbox).to_be_visible()
    expect(row(page, "note-link", "todo.md")).to_be_hidden()
