"""A returning, signed-in person sees the note list and reads the last note before Python is
ready (issue 35; web/static/workspace-early.js). Python is held back by holding the
interpreter's WebAssembly (e2e/test_signin_early.py's `Held`) until the test has looked."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Request, expect

from e2e.ambient_helpers import inbox, open_note
from e2e.conftest import Server, new_context, put_note, sign_in, wait_ready
from e2e.test_accessibility import audit
from e2e.test_signin_early import Held

NOTE = "early/early-plan.md"
# Markup in a note is text: it must show as typed, never be parsed.
TEXT = '# Plan\n\n<b>not bold</b> & <img src="x" alt="">\n\n  indented line\n'
OTHER = "early/early-other.md"
STARTING = "Starting the editor and the assistant…"


def remembered(
    browser: Browser, server: Server, path: str, text: str
) -> tuple[BrowserContext, Page]:
    """Alice signed in with `path` open after a reload: the next visit's early view shows it
    (and, from that reload's early view, remembers her workspace)."""
    context = new_context(browser)
    page = sign_in(context.new_page(), server)
    put_note(page, server, path, text)
    page.reload()
    wait_ready(page)
    open_note(page, path)
    return context, page


def documents_of(page: Page, server: Server, ws: str) -> list[str]:
    response = page.request.get(f"{server.url}/api/workspaces/{ws}/documents")
    assert response.ok
    return sorted(doc["path"] for doc in response.json())


def test_a_signed_in_reload_shows_the_notes_and_the_last_note_before_python(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    page = sign_in(context.new_page(), server)
    put_note(page, server, NOTE, TEXT)
    put_note(page, server, OTHER, "The other note.\n")
    page.reload()
    wait_ready(page)
    open_note(page, NOTE)  # the page remembers it for the next visit
    paths = documents_of(page, server, "personal")

    held = Held(page, context.new_cdp_session(page))
    asked: list[str] = []

    def on_request(request: Request) -> None:
        if request.url.endswith("/api/workspaces/personal/documents"):
            asked.append(request.url)

    page.on("request", on_request)
    page.reload(wait_until="commit")

    early = page.get_by_test_id("early-note-list")
    expect(early.get_by_role("button", name=NOTE, exact=True)).to_be_visible()
    expect(early.get_by_role("button")).to_have_text(paths)
    expect(early.get_by_role("button", name=NOTE, exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    note = page.get_by_test_id("early-note")
    expect(note).to_contain_text(STARTING)
    expect(note.get_by_role("heading", name=NOTE)).to_be_visible()
    text = note.locator("pre")
    expect(text).to_be_visible()
    page.wait_for_function(  # as typed, markup and spaces kept as text
        "text => document.querySelector('[data-testid=early-note] pre').textContent === text",
        arg=TEXT,
    )
    expect(note.locator("b, img")).to_have_count(0)
    expect(page.get_by_test_id("note-link")).to_have_count(0)
    held.not_ready()
    assert audit(page, "the note list and the last note before Python") == []

    # Another note of the early list shows the same way, still before Python.
    early.locator(f'[data-testid="early-note-open"][data-path="{OTHER}"]').click()
    expect(note.locator("pre")).to_have_text("The other note.")
    expect(note.get_by_role("heading", name=OTHER)).to_be_visible()
    expect(early.get_by_role("button", name=OTHER, exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    held.not_ready()

    held.release()
    wait_ready(page)
    expect(page.get_by_test_id("early-note-list")).to_have_count(0)
    expect(page.get_by_test_id("early-note")).to_have_count(0)
    expect(page.locator(f'[data-testid="note-link"][data-path="{NOTE}"]')).to_be_visible()
    expect(inbox(page, NOTE)).to_have_count(1)  # the app opens the remembered note
    expect(page.locator("#early-notes-title")).to_have_count(0)
    # The app took the list the early view fetched rather than asking for it again.
    assert len(asked) == 1, asked
    context.close()


def test_with_no_note_remembered_only_the_list_shows_and_a_phone_sees_it(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    response = page.request.post(
        server.url + "/api/session", data={"username": "alice", "password": "alice"}
    )
    assert response.ok
    first = page.request.get(server.url + "/api/workspaces").json()[0]["id"]
    paths = documents_of(page, server, first)
    held = Held(page, context.new_cdp_session(page))
    page.goto(server.url + "/", wait_until="commit")

    early = page.get_by_test_id("early-note-list")
    expect(early.get_by_role("button")).to_have_text(paths)
    expect(early.get_by_role("button").first).to_be_in_viewport()
    expect(page.get_by_test_id("early-note")).to_have_count(0)
    expect(page.locator("#early-signin")).to_have_count(0)
    held.not_ready()
    assert audit(page, "the note list before Python on a phone") == []

    held.release()
    wait_ready(page)
    expect(page.get_by_test_id("workspace-select")).to_be_attached()
    expect(page.get_by_test_id("early-note-list")).to_have_count(0)
    context.close()


def test_the_last_used_workspace_shows_early_and_its_list_is_fetched_once(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    page = sign_in(context.new_page(), server)
    page.get_by_test_id("workspace-select").select_option("team")
    paths = documents_of(page, server, "team")
    open_note(page, paths[0])  # the page remembers the Team workspace and this note
    held = Held(page, context.new_cdp_session(page))
    asked: list[str] = []
    page.on(
        "request",
        lambda request: (
            asked.append(request.url.split("/api/workspaces/")[1])
            if request.url.endswith("/documents")
            else None
        ),
    )
    page.reload(wait_until="commit")

    expect(page.get_by_test_id("early-note-list").get_by_role("button")).to_have_text(paths)
    expect(page.get_by_text("Workspace: Team")).to_be_visible()
    expect(page.get_by_test_id("early-note").get_by_role("heading")).to_have_text(paths[0])
    held.not_ready()

    held.release()
    wait_ready(page)
    expect(page.get_by_test_id("workspace-select")).to_have_value("team")
    expect(inbox(page, paths[0])).to_have_count(1)
    expect(page.get_by_test_id("early-note-list")).to_have_count(0)
    assert asked == ["team/documents"], asked  # the app took the early answer
    context.close()


# Each largest-contentful-paint entry as it is reported: (tag.class, size).
LARGEST = """() => {
  window.anaLargest = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const el = entry.element;
      window.anaLargest.push([el ? `${el.tagName}.${el.className}` : "", entry.size]);
    }
  }).observe({ type: "largest-contentful-paint", buffered: true });
}"""


# Three frames presented after the editor shows: its paints' entries have been reported.
FRAMES_DRAWN = """() => new Promise((done) => {
  let left = 3;
  const next = () => (--left ? requestAnimationFrame(next) : setTimeout(done, 0));
  requestAnimationFrame(next);
})"""


def test_the_note_shown_before_python_is_the_pages_largest_paint(
    browser: Browser, server: Server
) -> None:
    """What Lighthouse times as the largest paint of a returning user's visit is the note read
    before Python, not something Python draws later (it was 'No note open here', then an
    editor line, which put the largest paint after the whole runtime had loaded)."""
    context = new_context(browser)
    page = sign_in(context.new_page(), server)
    put_note(page, server, NOTE, TEXT * 6)  # a note of a few screens' lines
    page.reload()
    wait_ready(page)
    open_note(page, NOTE)
    page.add_init_script(f"({LARGEST})()")
    held = Held(page, context.new_cdp_session(page))
    page.reload(wait_until="commit")
    expect(page.get_by_test_id("early-note").locator("pre")).to_contain_text("indented line")
    held.not_ready()
    held.release()
    wait_ready(page)
    expect(inbox(page, NOTE).locator(".cm-content")).to_contain_text("indented line")
    page.evaluate(FRAMES_DRAWN)  # the editor's paints are in, and so are their entries
    largest = page.evaluate("window.anaLargest")
    assert largest and largest[-1][0] == "PRE.early-text", largest
    context.close()


RUNTIME_FILES = (
    "pyodide.snapshot",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "app.zip",
    "editor.js",
    "view.js",  # CodeMirror: a signed-in window preloads it (a sign-in page waits for typing)
    "workspace.zip",  # and the workspace's Python, likewise
)


def test_the_last_note_arrives_before_the_runtime_is_asked_for(
    browser: Browser, server: Server
) -> None:
    """On a slow link the note a person reads first must not queue behind 7 MB of runtime:
    the main window asks for the runtime only once the note's answer is in, and still starts
    (an empty HTTP cache, as on a first visit of the day)."""
    first, page = remembered(browser, server, "early/early-order.md", "Read me first.\n")
    context = new_context(browser, storage_state=first.storage_state())  # cookie and layout
    first.close()
    page = context.new_page()
    seen = early_asks(page)
    page.goto(server.url + "/", wait_until="commit")
    expect(page.get_by_test_id("early-note").locator("pre")).to_have_text("Read me first.")
    wait_ready(page)
    expect(inbox(page, "early/early-order.md").locator(".cm-content")).to_contain_text(
        "Read me first."
    )

    note_answered = seen.index(("answered", f"{server.url}{DOC_URL}"))
    runtime = [
        i for i, (kind, url) in enumerate(seen) if kind == "asked" and url.endswith(RUNTIME_FILES)
    ]
    assert len(runtime) == len(RUNTIME_FILES), seen
    assert note_answered < min(runtime), seen
    context.close()


DOC_URL = "/api/workspaces/personal/documents/early/early-order.md"


# Every layout shift the browser reports (not after input): (value, the nodes that moved).
SHIFTS = """() => {
  window.anaShifts = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      const nodes = (entry.sources || []).map((s) => (s.node && s.node.nodeName) || "");
      window.anaShifts.push([entry.value, nodes.join(" ")]);
    }
  }).observe({ type: "layout-shift", buffered: true });
}"""


@pytest.mark.parametrize("size", [(412, 823), (1350, 940)], ids=["phone", "desktop"])
def test_nothing_jumps_while_the_early_view_and_then_the_app_draw(
    browser: Browser, server: Server, size: tuple[int, int]
) -> None:
    """The boot screen stood at the top and jumped to the foot when the early view went in
    above it (a layout shift of 0.38 on a phone, 0.24 on a desktop, which Lighthouse counts
    against the page), and the chat's composer jumped down when its conversation arrived."""
    width, height = size
    context, page = remembered(browser, server, "early/early-still.md", TEXT * 4)
    page.get_by_test_id("assistant-input").fill("what is this note about?")
    page.get_by_test_id("assistant-send").click()
    expect(page.locator("[data-testid=assistant-message][data-role=assistant]")).to_have_count(1)
    page.set_viewport_size({"width": width, "height": height})
    page.add_init_script(f"({SHIFTS})()")
    held = Held(page, context.new_cdp_session(page))
    page.reload(wait_until="commit")
    expect(page.get_by_test_id("early-note").locator("pre")).to_contain_text("indented line")
    held.release()
    wait_ready(page)
    expect(inbox(page, "early/early-still.md").locator(".cm-content")).to_contain_text("Plan")
    expect(page.locator("[data-testid=assistant-message][data-role=assistant]")).to_have_count(1)
    page.evaluate(FRAMES_DRAWN)
    shifts = page.evaluate("window.anaShifts")
    assert sum(value for value, _ in shifts) < 0.1, shifts  # Lighthouse's "good"
    assert all("FOOTER" not in nodes and "FORM" not in nodes for _, nodes in shifts), shifts
    context.close()


def early_asks(page: Page) -> list[tuple[str, str]]:
    """Every request asked for and answered, in order, from now on."""
    seen: list[tuple[str, str]] = []
    page.on("request", lambda request: seen.append(("asked", request.url)))
    page.on("requestfinished", lambda request: seen.append(("answered", request.url)))
    return seen


def test_a_returning_visit_asks_for_its_note_beside_the_session_check(
    browser: Browser, server: Server
) -> None:
    """The note and the list of the last visit's early view are asked for at once, not one
    round trip after the session's answer (150 ms round trips here), and asked only once."""
    context, page = remembered(browser, server, "early/early-beside.md", "Beside the check.\n")
    held = Held(page, context.new_cdp_session(page))
    seen = early_asks(page)
    page.reload(wait_until="commit")
    expect(page.get_by_test_id("early-note").locator("pre")).to_have_text("Beside the check.")
    expect(page.get_by_test_id("early-note-list").get_by_role("button").first).to_be_visible()
    held.not_ready()

    note = f"{server.url}/api/workspaces/personal/documents/early/early-beside.md"
    session = f"{server.url}/api/session"
    assert seen.index(("asked", note)) < seen.index(("answered", session)), seen
    assert seen.count(("asked", note)) == 1, seen
    assert seen.count(("asked", f"{server.url}/api/workspaces/personal/documents")) == 1, seen
    held.release()
    wait_ready(page)
    context.close()


def test_another_person_in_the_same_browser_never_sees_the_last_persons_note(
    browser: Browser, server: Server
) -> None:
    """What the last visit remembered is asked for with the new person's cookie (and refused
    or answered for them only) and shown only once the session says whose visit this is."""
    context, page = remembered(browser, server, "early/early-alices.md", "Only alice reads this.\n")
    page.get_by_test_id("sign-out").click()
    expect(page.get_by_test_id("login-username")).to_be_visible()
    page.get_by_test_id("login-username").fill("bob")
    page.get_by_test_id("login-password").fill("bob")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("workspace-select")).to_be_visible()
    bobs = sorted(
        doc["path"]
        for doc in page.request.get(
            f"{server.url}/api/workspaces/{page.get_by_test_id('workspace-select').input_value()}/documents"
        ).json()
    )
    held = Held(page, context.new_cdp_session(page))
    page.reload(wait_until="commit")
    expect(page.get_by_test_id("early-note-list").get_by_role("button")).to_have_text(bobs)
    expect(page.get_by_text("Only alice reads this.")).to_have_count(0)
    expect(page.get_by_text("early/early-alices.md")).to_have_count(0)
    held.not_ready()
    held.release()
    wait_ready(page)
    expect(page.get_by_text("Only alice reads this.")).to_have_count(0)
    context.close()
