"""SPEC §2–§3 in the real page: which note "this note" means, proved by the request it sends."""

from __future__ import annotations

import base64
import json
import uuid

from playwright.sync_api import Page, expect

from e2e.ambient_helpers import (
    TURNS,
    chip,
    digest,
    editor_text,
    frames,
    open_note,
    put_note,
    reload_list,
    send,
)
from e2e.conftest import Server, wait_ready


def unique(name: str) -> str:
    return f"e2e-{uuid.uuid4().hex[:6]}-{name}.md"


def type_into_new_note(alice: Page, server: Server, name: str, typed: str):
    """A new note "# Draft" opened in a frame, with `typed` typed at its end; its frame."""
    path = unique(name)
    put_note(alice, server.url, "personal", path, "# Draft\n")
    reload_list(alice)
    frame = open_note(alice, path)
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+End")
    alice.keyboard.type(typed)
    return frame


def test_one_frame_sends_a_pointer_matching_the_live_editor(alice: Page, server: Server):
    frame = open_note(alice, "welcome.md")
    expect(chip(alice)).to_have_attribute("data-path", "welcome.md")
    turn = send(alice, "summarise this")

    pointer = turn.pointer_json
    size, sha = digest(editor_text(frame))
    assert pointer["v"] == 1 and pointer["path"] == "welcome.md" and pointer["view"] == "edit"
    assert pointer["frameId"] == frame.get_attribute("data-frame-id")
    assert (pointer["bytes"], pointer["sha256"], pointer["flushed"]) == (size, sha, True)
    assert pointer["capturedAt"].endswith("Z") and "selection" in pointer
    assert turn.headers.get("x-key-session")

    row = server.delivery_row(turn.body["conversationId"])
    assert (row["ambient_path"], row["ambient_view"]) == ("welcome.md", "edit")
    assert set(json.loads(row["ambient_meta"])) == set(pointer) - {"path", "view"}
    expect(
        alice.locator('[data-testid="tool-call"][data-tool="read_active_note"]').last
    ).to_be_attached()


def test_two_frames_the_last_activated_wins_in_both_orders(alice: Page):
    first = open_note(alice, "welcome.md")
    second = open_note(alice, "todo.md", new_frame=True)
    assert send(alice, "what does this note say").pointer_json["path"] == "todo.md"

    first.locator(".cm-content").click()
    expect(chip(alice)).to_have_attribute("data-path", "welcome.md")
    assert send(alice, "what does this note say").pointer_json["path"] == "welcome.md"

    second.locator(".cm-content").click()
    assert send(alice, "what does this note say").pointer_json["path"] == "todo.md"


def test_assistant_and_files_frames_keep_the_choice(alice: Page):
    open_note(alice, "todo.md")
    first = open_note(alice, "welcome.md", new_frame=True)
    first.locator(".cm-content").click()
    alice.locator('[data-testid="open-frame"][data-kind="files"]').click()
    # On its title: the frame's middle may be a note's row, which would open that note.
    frames(alice, "files").first.locator(".frame-title").click()
    frames(alice, "assistant").first.get_by_test_id("assistant-input").click()
    expect(chip(alice)).to_have_attribute("data-path", "welcome.md")
    assert send(alice, "summarise this").pointer_json["path"] == "welcome.md"


def test_closing_the_active_frame_falls_back_to_the_one_before(alice: Page):
    open_note(alice, "welcome.md")
    open_note(alice, "todo.md", new_frame=True)
    third = open_note(alice, "projects/roadmap.md", new_frame=True)
    third.get_by_test_id("frame-close").click()
    expect(chip(alice)).to_have_attribute("data-path", "todo.md")
    assert send(alice, "summarise this").pointer_json["path"] == "todo.md"


def test_no_inbox_frame_means_no_header_and_the_assistant_asks(alice: Page, server: Server):
    expect(frames(alice, "inbox")).to_have_count(0)
    expect(chip(alice)).to_have_attribute("data-path", "")
    turn = send(alice, "summarise this")
    assert "x-ambient-note" not in turn.headers
    assert "no note" in turn.reply.lower() or "which note" in turn.reply.lower()
    row = server.delivery_row(turn.body["conversationId"])
    assert row is not None and row["ambient_path"] is None and row["ambient_meta"] is None


def test_typing_then_sending_at_once_sends_the_typed_state(alice: Page, server: Server):
    frame = type_into_new_note(alice, server, "typing", "typed just now, sent at once")
    turn = send(alice, "summarise this")
    pointer = turn.pointer_json
    assert (pointer["bytes"], pointer["sha256"]) == digest(editor_text(frame))
    assert pointer["flushed"] is True
    assert "typed just now" in turn.reply or "Draft" in turn.reply
    assert "saved copy is behind" not in turn.reply


def test_a_send_in_the_same_task_as_an_edit_carries_the_edited_text(alice: Page, server: Server):
    """The editor hashes a document in idle time once typing settles; a send that comes before
    that (here: in the very task of the edit) must hash the text on screen, never reuse the
    digest of the text before the edit."""
    frame = type_into_new_note(alice, server, "no-stale-digest", "settled text")
    # Wait until the page's own editor module (at its hashed URL) knows this text's digest.
    alice.wait_for_function(
        """async () => {
          const entry = performance.getEntriesByType("resource")
            .find((e) => /\\/vendor\\/[^/]+\\/editor\\/editor\\.js$/.test(e.name));
          const editor = await import(entry.name);
          const view = document.querySelector('[data-frame-kind="inbox"] .cm-content')
            .cmTile.root.view;
          return !!editor.knownDigest(view);
        }""",
        timeout=10_000,
    )
    settled = digest(editor_text(frame))
    assistant = frames(alice, "assistant").first
    assistant.get_by_test_id("assistant-input").fill("summarise this")
    with alice.expect_request(lambda r: r.url.endswith(TURNS) and r.method == "POST") as info:
        alice.evaluate(
            """() => {
              const view = document.querySelector('[data-frame-kind="inbox"] .cm-content')
                .cmTile.root.view;
              const at = view.state.doc.length;
              view.dispatch({ changes: { from: at, insert: " and one more" },
                              userEvent: "input.type" });
              document.querySelector('[data-testid="assistant-send"]').click();
            }"""
        )
    value = info.value.all_headers()["x-ambient-note"]
    pointer = json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    now = digest(editor_text(frame))
    assert now != settled
    assert (pointer["bytes"], pointer["sha256"]) == now
    assert pointer["flushed"] is True


def test_each_view_and_the_selection_only_in_edit(alice: Page):
    frame = open_note(alice, "todo.md")
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+Home")
    alice.keyboard.press("Shift+End")
    pointer = send(alice, "summarise this").pointer_json
    assert pointer["view"] == "edit" and pointer["selection"]["anchor"] == 0
    assert pointer["selection"]["head"] > 0
    for view in ("preview", "todo", "mindmap"):
        frame.locator(f'[data-testid="view-button"][data-view="{view}"]').click()
        expect(frame).to_have_attribute("data-view", view)
        expect(chip(alice)).to_have_attribute("data-view", view)
        pointer = send(alice, "summarise this").pointer_json
        assert pointer["view"] == view and "selection" not in pointer


def test_a_japanese_path_travels_intact(alice: Page, server: Server):
    path = "日記/" + unique("メモ")
    put_note(alice, server.url, "personal", path, "# 今日\n\n- [ ] 牛乳を買う\n")
    reload_list(alice)
    open_note(alice, path)
    turn = send(alice, "このノートを要約して")
    assert turn.pointer_json["path"] == path
    assert server.delivery_row(turn.body["conversationId"])["ambient_path"] == path
    assert any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in turn.reply)


def test_a_path_too_long_for_the_header_sends_none(alice: Page, server: Server):
    path = "/".join(["a-rather-long-folder-name-" + "x" * 200] * 7) + "/" + unique("long")
    put_note(alice, server.url, "personal", path, "long path note\n")
    reload_list(alice)
    open_note(alice, path)
    expect(chip(alice)).to_have_attribute("data-path", path)
    turn = send(alice, "summarise this")
    assert "x-ambient-note" not in turn.headers
    assert server.delivery_row(turn.body["conversationId"])["ambient_path"] is None


def test_the_toggle_switches_ambient_off_and_lasts(alice: Page, server: Server):
    open_note(alice, "welcome.md")
    alice.get_by_test_id("ambient-toggle").click()
    expect(chip(alice)).to_have_attribute("data-enabled", "false")
    turn = send(alice, "summarise this")
    assert "x-ambient-note" not in turn.headers
    assert server.delivery_row(turn.body["conversationId"])["ambient_path"] is None

    alice.reload()
    wait_ready(alice)
    expect(chip(alice)).to_have_attribute("data-enabled", "false")
    alice.get_by_test_id("ambient-toggle").click()
    expect(chip(alice)).to_have_attribute("data-enabled", "true")


def test_a_workspace_switch_clears_the_pointer(alice: Page):
    open_note(alice, "welcome.md")
    expect(chip(alice)).to_have_attribute("data-path", "welcome.md")
    alice.get_by_test_id("workspace-select").select_option("team")
    expect(chip(alice)).to_have_attribute("data-path", "")
    turn = send(alice, "summarise this")
    assert "x-ambient-note" not in turn.headers and turn.body["workspaceId"] == "team"


def test_conversation_survives_a_reload(alice: Page):
    open_note(alice, "welcome.md")
    send(alice, "how many words are in this note?")
    messages = alice.get_by_test_id("assistant-message")
    count = messages.count()
    alice.reload()
    wait_ready(alice)
    expect(alice.get_by_test_id("assistant-message")).to_have_count(count)
    expect(alice.get_by_test_id("tool-call").first).to_be_attached()


def test_ctrl_enter_sends_and_the_page_keeps_working_while_the_turn_is_out(alice: Page, server):
    path = unique("busy")
    put_note(alice, server.url, "personal", path, "# Busy\n")
    reload_list(alice)
    frame = open_note(alice, path)
    held: list = []
    alice.route("**" + TURNS, lambda route: held.append(route))  # a turn as slow as we like
    box = alice.get_by_test_id("assistant-input")
    box.fill("summarise this")
    with alice.expect_request(lambda r: r.url.endswith(TURNS)):
        box.press("Control+Enter")

    frame.locator(".cm-content").click()  # the turn is still out: the page must not freeze
    alice.keyboard.press("Control+End")
    alice.keyboard.type("typed while waiting")
    assert editor_text(frame).endswith("typed while waiting")
    expect(alice.locator('[data-testid="assistant-message"][data-role="user"]')).to_have_count(1)

    held[0].continue_()
    expect(alice.locator('[data-testid="assistant-message"][data-role="assistant"]')).to_have_count(
        1
    )
