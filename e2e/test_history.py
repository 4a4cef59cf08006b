"""A note's history in the page (SPEC §15), and the proposal card's coloured diff (§8)."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from e2e.ambient_helpers import frames, send
from e2e.conftest import Server
from e2e.live_helpers import content, fresh_note, type_at_line_end, wait_editor, wait_saved
from e2e.test_mcp import mcp_call

NOTE = "# Errands\n\n- [ ] buy milk\n"


def test_history_lists_who_changed_what_and_restore_is_one_undo_step(
    alice: Page, server: Server
) -> None:
    path = f"history/{uuid.uuid4().hex[:6]}.md"
    frame = fresh_note(alice, server.url, path, NOTE)
    type_at_line_end(frame, 1, " today")  # a page edit
    edited = "# Errands today\n\n- [ ] buy milk\n"
    wait_saved(alice, server.url, path, edited)
    turn = send(alice, "add a todo: buy eggs")  # an applied proposal: the assistant
    card = frames(alice, "assistant").first.get_by_test_id("proposal").last
    applied = alice.request.post(
        f"{server.url}/api/assistant/conversations/{turn.body['conversationId']}"
        f"/proposals/{card.get_attribute('data-proposal-id')}/apply",
        data={},
    )
    assert applied.ok, applied.text()
    latest = edited + "- [ ] buy eggs\n"
    wait_saved(alice, server.url, path, latest)

    frame.get_by_test_id("history-open").click()
    items = frame.get_by_test_id("history-item")
    expect(items.first).to_have_attribute("data-source", "assistant")
    expect(items.first).to_contain_text("the assistant")
    expect(items.first).to_have_attribute("data-current", "true")
    expect(frame.locator("[data-testid=history-item][data-source=page]").first).to_contain_text(
        "you"
    )
    oldest = items.last
    expect(oldest).to_contain_text("created")

    oldest.click()  # the first version against the text on screen, as a coloured diff
    diff = frame.locator(".history-diff")
    expect(diff.locator(".cm-deletedChunk").first).to_contain_text("# Errands")
    expect(diff.locator(".cm-changedLine").first).to_be_visible()
    frame.get_by_test_id("history-restore").click()
    wait_editor(frame, NOTE)
    wait_saved(alice, server.url, path, NOTE)
    expect(frame.get_by_test_id("save-status")).to_have_attribute("data-state", "saved")
    expect(items.first).to_contain_text("restored")

    content(frame).click()
    alice.keyboard.press("Control+z")  # one step: the restore goes, and that is saved too
    wait_editor(frame, latest)
    wait_saved(alice, server.url, path, latest)


def test_history_names_you_the_assistant_applied_in_the_editor_and_the_agent_by_name(
    alice: Page, server: Server
) -> None:
    """A page edit, the in-app assistant's proposal applied through the card (the live
    editor; its autosave is the assistant's), and an outside agent's proposal applied
    through the endpoint: each revision names who made it."""
    path = f"history/{uuid.uuid4().hex[:6]}.md"
    frame = fresh_note(alice, server.url, path, NOTE)
    type_at_line_end(frame, 1, " today")
    edited = "# Errands today\n\n- [ ] buy milk\n"
    wait_saved(alice, server.url, path, edited)

    send(alice, "add a todo: buy eggs")
    card = frames(alice, "assistant").first.get_by_test_id("proposal").last
    card.get_by_test_id("proposal-apply").click()  # the note is open here: in the editor
    expect(card).to_have_attribute("data-status", "applied")
    expect(card.locator(".proposal-note")).to_contain_text("Applied in the editor")
    by_assistant = edited + "- [ ] buy eggs\n"
    wait_saved(alice, server.url, path, by_assistant)

    made = alice.request.post(
        f"{server.url}/api/tokens",
        data={"name": "History bot", "expiresInDays": 1, "scope": "propose"},
    )
    assert made.status == 201, made.text()
    try:
        proposed = mcp_call(
            server.url,
            made.json()["token"],
            "propose_edit",
            workspaceId="personal",
            path=path,
            edits=[{"find": "buy milk", "replace": "buy oat milk"}],
        )
        assert proposed["ok"], proposed
        applied = alice.request.post(
            f"{server.url}/api/proposals/{proposed['proposalId']}/apply", data={}
        )
        assert applied.ok, applied.text()
    finally:  # the session's server is shared: leave no token behind
        alice.request.delete(f"{server.url}/api/tokens/{made.json()['id']}")
    by_agent = by_assistant.replace("buy milk", "buy oat milk")
    wait_saved(alice, server.url, path, by_agent)
    wait_editor(frame, by_agent)  # the open editor took the agent's change (no reload)

    frame.get_by_test_id("history-open").click()
    items = frame.get_by_test_id("history-item")
    expect(items).to_have_count(4)  # typing was one revision; nothing saved twice
    expect(items.nth(0)).to_have_attribute("data-source", "agent")
    expect(items.nth(0)).to_contain_text("the agent “History bot” edited")
    expect(items.nth(0)).to_have_attribute("data-current", "true")
    expect(items.nth(1)).to_have_attribute("data-source", "assistant")
    expect(items.nth(1)).to_contain_text("the assistant edited")
    expect(items.nth(2)).to_have_attribute("data-source", "page")
    expect(items.nth(2)).to_contain_text("you edited")
    expect(items.nth(3)).to_have_attribute("data-source", "page")
    expect(items.nth(3)).to_contain_text("you created it")
    items.nth(1).click()  # the assistant's version: only the agent's change differs
    diff = frame.locator(".history-diff")
    expect(diff.locator(".cm-deletedChunk").first).to_contain_text("buy milk")


def test_the_proposal_card_shows_a_coloured_diff_gives_focus_back_and_notices_undo(
    alice: Page, server: Server
) -> None:
    path = f"history/{uuid.uuid4().hex[:6]}.md"
    frame = fresh_note(alice, server.url, path, "# Errands\n\n- [ ] buy milk")  # no last break
    send(alice, "add a todo: buy eggs")
    card = frames(alice, "assistant").first.get_by_test_id("proposal").last
    diff = card.locator(".proposal-diff")
    expect(diff.locator(".cm-changedText").first).to_be_visible()  # changes inside a line
    expect(diff.locator(".cm-content")).to_contain_text("- [ ] buy eggs")
    expect(card).not_to_contain_text("No newline at end of file")

    type_at_line_end(frame, 1, "!")  # the focus is in the editor when Apply is pressed
    card.get_by_test_id("proposal-apply").click()
    expect(card).to_have_attribute("data-status", "applied")
    expect(content(frame)).to_be_focused()  # back where it was
    wait_editor(frame, "# Errands!\n\n- [ ] buy milk\n- [ ] buy eggs")

    alice.keyboard.press("Control+z")  # undoes the applied proposal: the card says so
    wait_editor(frame, "# Errands!\n\n- [ ] buy milk")
    expect(card).to_have_attribute("data-undone", "true")
    expect(card.locator(".proposal-note")).to_contain_text("Undone")


def test_keystrokes_typed_just_before_apply_stay_yours_and_only_the_edit_is_the_assistants(
    alice: Page, server: Server
) -> None:
    """The save that carries an in-editor Apply names the proposal; the user's own keystrokes
    (not saved yet when Apply was clicked, and typed after it) are the user's revisions."""
    path = f"history/{uuid.uuid4().hex[:6]}.md"
    frame = fresh_note(alice, server.url, path, NOTE)
    send(alice, "add a todo: buy eggs")
    card = frames(alice, "assistant").first.get_by_test_id("proposal").last
    expect(card.get_by_test_id("proposal-apply")).to_be_visible()
    type_at_line_end(frame, 1, " now")  # within the autosave's pause: not saved yet
    card.get_by_test_id("proposal-apply").click()
    expect(card).to_have_attribute("data-status", "applied")
    applied = "# Errands now\n\n- [ ] buy milk\n- [ ] buy eggs\n"
    wait_saved(alice, server.url, path, applied)
    type_at_line_end(frame, 1, "!")
    wait_saved(alice, server.url, path, applied.replace("now", "now!"))

    base = f"{server.url}/api/workspaces/personal/documents/{path}/revisions"
    revisions = alice.request.get(base).json()["revisions"]
    kinds = [r["source"]["kind"] for r in revisions]
    assert kinds[:2] == ["page", "assistant"] and "assistant" not in kinds[2:], kinds
    assert alice.request.get(f"{base}/{revisions[1]['revision']}").text() == applied
    # The keystrokes typed before Apply are in a revision of the user's without the edit.
    mine = [alice.request.get(f"{base}/{r['revision']}").text() for r in revisions[2:]]
    assert "# Errands now\n\n- [ ] buy milk\n" in mine, mine
