"""SPEC §14 in the page: an outside agent's proposal shows in every open window without a
reload, is applied through the live editor as one undoable step (or through the endpoint when
the note is not open), and the Agents dialog makes scoped tokens with ready-to-paste setup.

The agent is the official MCP SDK client (e2e/test_mcp.py's mcp_call) on this module's own
server, so its tokens and proposals touch no other test.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from e2e.ambient_helpers import editor_text, open_note, put_note, reload_list, saved_text
from e2e.conftest import Server, new_context, sign_in, wait_ready
from e2e.live_helpers import back_online, type_offline, wait_editor, wait_saved
from e2e.test_accessibility import audit
from e2e.test_mcp import mcp_call, open_panel

NOTE = "# Trip\n\nLeave on Friday.\n\n## Packing\n- [ ] passport\n"
SHOWS_WITHIN_MS = 5_000  # the contract: every open window within 5 seconds, no reload


@pytest.fixture(scope="module")
def agents_server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("agents") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture
def windows(browser: Browser, agents_server: Server) -> Iterator[tuple[Page, Page]]:
    """Two windows of alice's (one browser context, so one sign-in)."""
    context = new_context(browser)
    first = sign_in(context.new_page(), agents_server)
    second = context.new_page()
    second.goto(agents_server.url)
    wait_ready(second)
    yield first, second
    context.close()


def token(page: Page, server: Server, scope: str) -> str:
    r = page.request.post(
        f"{server.url}/api/tokens", data={"name": "Claude Code", "expiresInDays": 1, "scope": scope}
    )
    assert r.status == 201, r.text()
    return r.json()["token"]


def proposal_in(page: Page, proposal_id: str) -> Locator:
    return page.get_by_test_id("agent-proposals").locator(
        f'[data-testid="agent-proposal"][data-proposal-id="{proposal_id}"]'
    )


def eventually_saved(page: Page, server: Server, path: str, expected: str) -> None:
    deadline = time.monotonic() + 15
    while (text := saved_text(page, server.url, "personal", path)) != expected:
        assert time.monotonic() < deadline, f"the server still has {text!r}"
        page.wait_for_timeout(200)


def test_an_agent_proposal_shows_in_every_window_and_applies_as_one_undo(
    windows: tuple[Page, Page], agents_server: Server
):
    first, second = windows
    put_note(first, agents_server.url, "personal", "trip.md", NOTE)
    reload_list(first)
    frame = open_note(first, "trip.md")
    t = token(first, agents_server, "propose")

    made = mcp_call(
        agents_server.url,
        t,
        "propose_edit",
        workspaceId="personal",
        path="trip.md",
        edits=[{"find": "Friday", "replace": "Saturday"}],
        summary="Move the departure",
    )
    assert made["ok"], made
    shown = [proposal_in(page, made["proposalId"]) for page in (first, second)]
    for card in shown:  # no reload: the windows find it themselves
        expect(card).to_be_visible(timeout=SHOWS_WITHIN_MS)
        expect(card).to_contain_text("Claude Code proposes an edit of trip.md")
        expect(card).to_contain_text("Move the departure")
        expect(card).to_have_attribute("data-path", "trip.md")
        # The diff is drawn by @codemirror/merge (no "+" marks): the proposed words show.
        expect(card.locator(".proposal-diff")).to_contain_text("Leave on Saturday.")
    assert editor_text(frame) == NOTE  # nothing changed until Apply

    shown[0].get_by_test_id("proposal-apply").click()
    expect(shown[0]).to_have_attribute("data-status", "applied")
    expect(shown[0]).to_contain_text("Ctrl+Z")
    applied = NOTE.replace("Friday", "Saturday")
    assert editor_text(frame) == applied  # through the live editor
    eventually_saved(first, agents_server, "trip.md", applied)
    expect(shown[1]).to_have_count(0, timeout=SHOWS_WITHIN_MS)  # settled elsewhere: gone
    assert (
        mcp_call(agents_server.url, t, "get_proposal", proposalId=made["proposalId"])["status"]
        == "applied"
    )

    frame.locator(".cm-content").click()
    first.keyboard.press("Control+z")  # one undo reverts exactly the agent's edit
    assert editor_text(frame) == NOTE
    eventually_saved(first, agents_server, "trip.md", NOTE)


def test_a_proposal_for_a_note_not_open_applies_through_the_endpoint_or_is_discarded(
    windows: tuple[Page, Page], agents_server: Server
):
    first, _ = windows
    put_note(first, agents_server.url, "personal", "closed.md", NOTE)
    t = token(first, agents_server, "propose")
    ids = [
        mcp_call(
            agents_server.url,
            t,
            "propose_edit",
            workspaceId="personal",
            path="closed.md",
            edits=edits,
        )["proposalId"]
        for edits in ([{"append": "- [ ] tickets"}], [{"find": "passport", "replace": "visa"}])
    ]
    cards = [proposal_in(first, pid) for pid in ids]
    for card in cards:
        expect(card).to_be_visible(timeout=SHOWS_WITHIN_MS)
    cards[0].get_by_test_id("proposal-apply").click()
    expect(cards[0]).to_have_attribute("data-status", "applied")
    assert saved_text(first, agents_server.url, "personal", "closed.md") == NOTE + "- [ ] tickets"
    cards[1].get_by_test_id("proposal-discard").click()
    expect(cards[1]).to_have_attribute("data-status", "discarded")
    assert saved_text(first, agents_server.url, "personal", "closed.md") == NOTE + "- [ ] tickets"
    cards[1].get_by_test_id("agent-proposal-dismiss").click()
    expect(cards[1]).to_have_count(0)


def test_the_agents_dialog_makes_a_scoped_token_and_shows_the_setup(
    windows: tuple[Page, Page], agents_server: Server
):
    first, _ = windows
    panel = open_panel(first)
    expect(panel.get_by_test_id("token-scope")).to_have_value("read")  # read preselected
    address = f"{agents_server.url}/mcp"
    expect(panel.get_by_test_id("agent-setup")).to_be_visible()
    expect(panel.get_by_test_id("setup-claude-code")).to_contain_text(address)
    panel.get_by_test_id("token-name").fill("Cursor on the laptop")
    panel.get_by_test_id("token-scope").select_option("write")
    panel.get_by_test_id("token-workspace").select_option("personal")
    panel.get_by_test_id("token-folder").fill("projects/")
    panel.get_by_test_id("token-create").click()
    value = panel.get_by_test_id("token-value")
    expect(value).to_be_visible()
    secret = value.input_value()

    row = panel.get_by_test_id("token-list").locator(
        '[data-testid="token-row"]', has_text="Cursor on the laptop"
    )
    expect(row.get_by_test_id("token-scope-shown")).to_have_text("write")
    expect(row.get_by_test_id("token-reach")).to_have_text("personal / projects/")
    expect(panel.get_by_test_id("setup-claude-code")).to_have_text(
        f"claude mcp add --transport http ambient-notes {address} "
        f'--header "Authorization: Bearer {secret}"'
    )
    vscode = json.loads(panel.get_by_test_id("setup-vscode").inner_text())
    assert vscode["servers"]["ambient-notes"] == {
        "type": "http",
        "url": address,
        "headers": {"Authorization": f"Bearer {secret}"},
    }
    cursor = json.loads(panel.get_by_test_id("setup-cursor").inner_text())
    assert cursor["mcpServers"]["ambient-notes"]["url"] == address

    # The token does what the dialog said: write, only under personal/projects.
    put_note(first, agents_server.url, "personal", "outside.md", "x")
    assert (
        mcp_call(
            agents_server.url, secret, "read_document", workspaceId="personal", path="outside.md"
        )["ok"]
        is False
    )
    made = mcp_call(
        agents_server.url,
        secret,
        "create_note",
        workspaceId="personal",
        path="projects/new.md",
        text="hello",
    )
    assert made["ok"] and made["revision"] == 1
    first.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    panel = open_panel(first)
    assert secret not in panel.inner_text()  # shown once: gone from the setup text too


def test_a_write_scope_edit_note_on_a_note_with_unsaved_keystrokes_keeps_both(
    windows: tuple[Page, Page], agents_server: Server
):
    """§14 + §13: an agent's `edit_note` lands on the saved copy while the user has typed on
    another line and not saved yet; the editor and then the saved copy end with both."""
    page, _ = windows
    note = "# Trip\n\nLeave on Friday\n\n## Packing\n- [ ] passport\n\n## Notes\nCall it.\n"
    put_note(page, agents_server.url, "personal", "live-edit.md", note)
    reload_list(page)
    frame = open_note(page, "live-edit.md")
    t = token(page, agents_server, "write")

    # The window goes offline, so its saves fail and retry: these keystrokes stay unsaved.
    type_offline(frame, 3, " morning")
    read = mcp_call(
        agents_server.url, t, "read_document", workspaceId="personal", path="live-edit.md"
    )
    assert read["ok"] and read["content"] == note, read  # the agent sees no keystroke of hers
    edited = mcp_call(
        agents_server.url,
        t,
        "edit_note",
        workspaceId="personal",
        path="live-edit.md",
        baseSha256=read["sha256"],
        edits=[{"heading": "## Packing", "append": "- [ ] tickets"}],
    )
    assert edited["ok"] is True, edited
    theirs = note.replace("- [ ] passport\n", "- [ ] passport\n- [ ] tickets\n")
    assert saved_text(page, agents_server.url, "personal", "live-edit.md") == theirs

    back_online(page)
    both = theirs.replace("Leave on Friday", "Leave on Friday morning")
    wait_editor(frame, both)  # the live document: her keystrokes and the agent's line
    wait_saved(page, agents_server.url, "live-edit.md", both)
    expect(frame.get_by_test_id("note-conflict")).to_be_hidden()
    expect(frame.get_by_test_id("save-status")).to_have_attribute("data-state", "saved")


LONG = "".join(f"Line {i} of the plan.\n" for i in range(1, 25))
SIZES = [(1440, 900), (1024, 768)]

# The centre of `el` is `el` itself (or inside it): nothing covers it, no scrolling needed.
UNCOVERED = """el => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit !== null && (hit === el || el.contains(hit));
}"""

# Each shown line of a diff view with the label its gutter shows beside it.
NUMBERED = """el => {
  const gutter = [...el.querySelectorAll('.cm-lineNumbers .cm-gutterElement')]
    .filter((g) => g.style.visibility !== 'hidden');
  return [...el.querySelectorAll('.cm-content > .cm-line')].map((line) => {
    const top = line.getBoundingClientRect().top;
    const mark = gutter.find((g) => Math.abs(g.getBoundingClientRect().top - top) < 2);
    return [mark ? mark.textContent : '', line.textContent];
  });
}"""


# What a folded run of unchanged lines (the merge view's `.cm-collapsedLines`) is marked with.
FOLD_GLYPH = """ed => {
  const fold = document.createElement('div');
  fold.className = 'cm-collapsedLines';
  ed.querySelector('.cm-content').after(fold);
  const glyph = getComputedStyle(fold, '::before').content;
  fold.remove();
  return glyph;
}"""


def in_view_and_uncovered(control: Locator) -> None:
    expect(control).to_be_in_viewport(ratio=1)
    assert control.evaluate(UNCOVERED), "something covers it"


def test_two_proposals_are_readable_whole_with_the_notes_line_numbers(
    windows: tuple[Page, Page], agents_server: Server
):
    """Issue 34: each card's title, diff, Apply and Discard are in view and not covered at
    1440×900 and 1024×768; the diff numbers lines as the note does; the gap between hunks is
    a glyph the fonts have."""
    page, _ = windows
    put_note(page, agents_server.url, "personal", "plan.md", LONG)
    reload_list(page)
    open_note(page, "plan.md")
    t = token(page, agents_server, "propose")
    ids = [
        mcp_call(
            agents_server.url, t, "propose_edit", workspaceId="personal", path="plan.md", edits=e
        )["proposalId"]
        for e in (
            [
                {"find": "Line 3 of", "replace": "Line three of"},
                {"find": "Line 17 of", "replace": "Line seventeen of"},
            ],
            [{"find": "Line 10 of", "replace": "Line ten of"}],
        )
    ]
    cards = [proposal_in(page, pid) for pid in ids]
    for card in cards:
        expect(card).to_be_visible(timeout=SHOWS_WITHIN_MS)
        expect(card.locator(".cm-line").first).to_be_visible()
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for card in cards:
            for part in (
                card.locator(".proposal-title"),
                card.locator(".proposal-diff"),
                card.get_by_test_id("proposal-apply"),
                card.get_by_test_id("proposal-discard"),
            ):
                in_view_and_uncovered(part)
        # The frames keep room below the panel: the note's editor is still on screen.
        expect(page.locator(".cm-content[contenteditable='true']").first).to_be_in_viewport()
    # The diffs and the long note scroll: each scroller must hold a keyboard stop.
    audit(page, "two agents' proposals")

    proposed = LONG.replace("Line 3 of", "Line three of").replace("Line 17 of", "Line seventeen of")
    note_lines = proposed.split("\n")
    shown = cards[0].locator(".proposal-diff").evaluate(NUMBERED)
    numbered = [(label, text) for label, text in shown if label]
    assert [label for label, _ in numbered] == [str(n) for n in (*range(1, 7), *range(14, 21))]
    for label, text in numbered:  # each number is the note's own line of that text
        assert note_lines[int(label) - 1] == text
    # Between the hunks, an unnumbered gap line shows "…", which the page's fonts have.
    assert ["", "…"] in [list(pair) for pair in shown]
    folded = cards[0].locator(".cm-editor").evaluate(FOLD_GLYPH)
    assert folded == '"…"'  # a folded run of unchanged lines is marked with it too, not "⦚"
    numbers = cards[1].locator(".proposal-diff").evaluate(NUMBERED)
    assert [label for label, _ in numbers if label] == [str(n) for n in range(7, 14)]
    for card in cards:  # leave nothing pending for the other tests
        card.get_by_test_id("proposal-discard").click()
        expect(card).to_have_attribute("data-status", "discarded")
