"""axe-core audits every state a user meets: zero serious or critical violations.

The engine is the npm package `axe-core` (pinned in package.json, run from node_modules):
`@axe-core/playwright` only wraps it for Node's Playwright, and this suite drives the page
from Python. Each audit runs the WCAG 2.0/2.1 A and AA rules and axe's best practices over
the whole document (docs/accessibility.md lists them); a failure prints every violation.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from e2e.ambient_helpers import open_note, send
from e2e.conftest import Server, new_context, sign_in, wait_ready
from e2e.live_helpers import back_online, fresh_note, type_offline

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
BLOCKING = ("serious", "critical")
RUN = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                          resultTypes: ["violations"]});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(" "))}));
}"""


def audit(page: Page, where: str) -> list[dict]:
    """Run axe on the page as it is now; fail on a serious or critical violation."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())  # through DevTools: the page's CSP stays as it is
    violations = page.evaluate(RUN, TAGS)
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert blocking == [], f"{where}: {blocking}\n(all: {violations})"
    return violations


def test_the_sign_in_page_and_the_workspace_with_a_note_and_the_assistant(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    page = context.new_page()
    page.goto(server.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()
    assert audit(page, "sign-in") == []
    sign_in(page, server)
    open_note(page, "todo.md")
    send(page, "summarise this")
    assert audit(page, "workspace with a note and a reply") == []
    context.close()


def test_each_dialog_and_panel(alice: Page, server: Server) -> None:
    alice.get_by_test_id("sharing-open").click()
    expect(alice.get_by_test_id("sharing-panel")).to_be_visible()
    audit(alice, "the Agents dialog")
    alice.keyboard.press("Escape")

    alice.keyboard.press("Control+o")
    expect(alice.get_by_test_id("quick-open-input")).to_be_visible()
    audit(alice, "the quick switcher")
    alice.keyboard.press("Escape")

    for opener, dialog in (
        ("members-open", "members-dialog"),
        ("account-open", "account-dialog"),
        ("settings-open", "settings-dialog"),
        ("users-open", "users-dialog"),
        ("workspace-new", "workspace-new-dialog"),
    ):
        alice.get_by_test_id(opener).click()
        expect(alice.get_by_test_id(dialog)).to_be_visible()
        audit(alice, f"the {dialog} dialog")
        alice.keyboard.press("Escape")
        expect(alice.get_by_test_id(dialog)).to_be_hidden()

    frame = open_note(alice, "welcome.md")
    frame.get_by_test_id("history-open").click()
    items = frame.get_by_test_id("history-item")
    expect(items.first).to_be_visible()
    items.first.click()
    audit(alice, "the history panel with a version shown")

    path = f"a11y/{uuid.uuid4().hex[:6]}.md"
    conflicted = fresh_note(alice, server.url, path, "title\nthe line\n")
    type_offline(conflicted, 2, " (mine)")
    alice.request.put(
        f"{server.url}/api/workspaces/personal/documents/{path}",
        data=b"title\nthe line (theirs)\n",
        headers={"Content-Type": "text/markdown; charset=utf-8"},
    )
    back_online(alice)
    expect(conflicted.get_by_test_id("note-conflict")).to_be_visible()
    audit(alice, "the conflict panel")


def test_a_pop_out_and_the_phone_layout(browser: Browser, alice: Page, server: Server) -> None:
    note = open_note(alice, "todo.md")
    with alice.expect_popup() as info:
        note.get_by_test_id("frame-popout").click()
    popup = info.value
    wait_ready(popup)
    expect(popup.locator("[data-testid=frame]")).to_have_count(1)
    audit(popup, "a pop-out")

    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = sign_in(phone.new_page(), server)
    audit(page, "the phone's note list")
    tabs = page.get_by_test_id("pane-tab")
    tabs.last.click()
    audit(page, "the phone's frame pane")
    phone.close()
