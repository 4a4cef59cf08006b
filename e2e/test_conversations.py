"""The Assistant frame's conversations (SPEC §15) at 1024×768: list, resume with the
proposals' outcomes, a reload that keeps the open one, delete, and an empty chat's
suggestions that one click sends."""

from __future__ import annotations

import json
import uuid

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.ambient_helpers import TURNS, frames, open_note, put_note, reload_list, send
from e2e.conftest import Server, sign_in, wait_ready
from e2e.late_answers import SETTLE, Held

NOTE = "# Errands\n\n- [ ] buy milk\n- [ ] call the bank\n"
SMALL = {"width": 1024, "height": 768}


@pytest.fixture
def small(browser: Browser, server: Server) -> Page:
    """Alice at 1024×768 in a context of her own (her own localStorage)."""
    context = browser.new_context(viewport=SMALL, locale="en-US")
    page = context.new_page()
    sign_in(page, server)
    yield page
    context.close()


def assistant(page: Page):
    return frames(page, "assistant").first


def messages(page: Page):
    return assistant(page).get_by_test_id("assistant-message")


def item(page: Page, conversation_id: str):
    return assistant(page).locator(
        f'[data-testid="conversation-item"][data-conversation-id="{conversation_id}"]'
    )


def reachable(locator) -> bool:
    """The control is what a click at its centre meets (nothing covers it, it is on screen)."""
    return locator.evaluate("""el => { const r = el.getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        const hit = document.elementFromPoint(x, y);
        return y < innerHeight && x < innerWidth && !!hit && el.contains(hit); }""")


def test_an_old_conversation_resumes_with_its_proposals_outcomes_and_a_reload_keeps_it(
    small: Page, server: Server
):
    page = small
    put_note(page, server.url, "personal", "conv-errands.md", NOTE)
    reload_list(page)
    open_note(page, "conv-errands.md")
    old = send(page, "mark buy milk as done").body["conversationId"]
    applied = assistant(page).get_by_test_id("proposal").last
    applied.get_by_test_id("proposal-apply").click()
    expect(applied).to_have_attribute("data-status", "applied")
    send(page, "mark call the bank as done")
    discarded = assistant(page).get_by_test_id("proposal").last
    discarded.get_by_test_id("proposal-discard").click()
    expect(discarded).to_have_attribute("data-status", "discarded")
    listed = item(page, old)
    expect(listed).to_contain_text("mark buy milk as done")
    expect(listed).to_contain_text("4 messages")
    expect(listed).to_have_attribute("aria-current", "true")

    assistant(page).get_by_test_id("conversation-new").click()
    expect(messages(page)).to_have_count(0)
    new = send(page, "hello there").body["conversationId"]
    assert new != old
    expect(item(page, new)).to_have_attribute("aria-current", "true")
    expect(listed).not_to_have_attribute("aria-current", "true")
    rows = assistant(page).get_by_test_id("conversation-item")
    expect(rows.first).to_have_attribute("data-conversation-id", new)  # newest first

    assert reachable(listed)
    asked = []  # the resume answer carries every outcome: no card asks for its own
    page.on("request", lambda r: asked.append(r.url) if "/proposals/" in r.url else None)
    listed.click()
    expect(messages(page)).to_have_count(4)
    expect(messages(page).first).to_have_text("mark buy milk as done")
    cards = assistant(page).get_by_test_id("proposal")
    expect(cards).to_have_count(2)
    expect(cards.first).to_have_attribute("data-status", "applied")
    # An applied card reads the saved note and says what it holds now (issue 34).
    expect(cards.first.locator(".proposal-note")).to_have_text(
        "Applied in the editor; the note holds it."
    )
    expect(cards.last).to_have_attribute("data-status", "discarded")
    expect(cards.first.get_by_test_id("proposal-apply")).to_be_hidden()
    expect(cards.last.locator(".proposal-diff .cm-changedText").first).to_be_visible()
    assert asked == [], asked
    expect(listed).to_have_attribute("aria-current", "true")

    # The next message goes on in the resumed conversation.
    assert send(page, "thanks").body["conversationId"] == old
    expect(messages(page)).to_have_count(6)

    page.reload()
    wait_ready(page)
    expect(messages(page)).to_have_count(6)
    expect(cards.first).to_have_attribute("data-status", "applied")
    expect(cards.last).to_have_attribute("data-status", "discarded")
    expect(item(page, old)).to_have_attribute("aria-current", "true")
    expect(item(page, old)).to_contain_text("6 messages")


def test_delete_asks_first_then_removes_the_conversation_everywhere(small: Page, server: Server):
    page = small
    first = send(page, "a conversation to delete").body["conversationId"]
    assistant(page).get_by_test_id("conversation-new").click()
    second = send(page, "the one that stays open").body["conversationId"]
    row = assistant(page).locator(f'li.conversation[data-conversation-id="{first}"]')

    row.get_by_test_id("conversation-delete").click()
    expect(row.get_by_test_id("conversation-delete-cancel")).to_be_focused()
    row.get_by_test_id("conversation-delete-cancel").click()  # changed their mind
    expect(item(page, first)).to_be_visible()
    assert page.request.get(f"{server.url}/api/assistant/conversations/{first}").ok

    row.get_by_test_id("conversation-delete").click()
    row.get_by_test_id("conversation-delete-confirm").click()
    expect(item(page, first)).to_have_count(0)
    assert page.request.get(f"{server.url}/api/assistant/conversations/{first}").status == 404
    expect(messages(page)).to_have_count(2)  # the open one is untouched
    expect(assistant(page).locator(".assistant-status")).to_have_text("Conversation deleted.")

    # Deleting the open one leaves an empty new chat, whose first message starts afresh.
    open_row = assistant(page).locator(f'li.conversation[data-conversation-id="{second}"]')
    open_row.get_by_test_id("conversation-delete").click()
    open_row.get_by_test_id("conversation-delete-confirm").click()
    expect(item(page, second)).to_have_count(0)
    expect(messages(page)).to_have_count(0)
    expect(assistant(page).get_by_test_id("chat-suggestions")).to_be_visible()
    third = send(page, "after the delete").body["conversationId"]
    assert third not in (first, second)
    page.reload()
    wait_ready(page)
    expect(messages(page)).to_have_count(2)
    expect(messages(page).first).to_have_text("after the delete")


def test_the_list_is_one_tab_stop_with_arrows_and_the_delete_key(small: Page, server: Server):
    page = small
    made = []
    for number in range(3):  # through the real API: newest first in the list
        conversation_id = str(uuid.uuid4())
        response = page.request.post(
            f"{server.url}{TURNS}",
            data={
                "conversationId": conversation_id,
                "workspaceId": "personal",
                "message": f"keyboard {number}",
            },
        )
        assert response.ok, response.text()
        made.append(conversation_id)
    oldest, middle, newest = made
    page.reload()
    wait_ready(page)
    listing = assistant(page).get_by_test_id("conversation-list")
    rows = listing.get_by_test_id("conversation-item")
    expect(rows.first).to_have_attribute("data-conversation-id", newest)
    focused = "document.activeElement"

    # One Tab stop: from New chat, Tab enters the list on one row and Tab again leaves it.
    assistant(page).get_by_test_id("conversation-new").focus()
    page.keyboard.press("Tab")
    assert page.evaluate(f"{focused}.dataset.testid") == "conversation-item"
    page.keyboard.press("Tab")
    assert page.evaluate(
        f"!document.querySelector('[data-testid=conversation-list]').contains({focused})"
    )
    assert listing.locator("[tabindex='0']").count() == 1

    # Arrows, Home and End move the focus, and the Tab stop follows it.
    item(page, newest).focus()
    page.keyboard.press("ArrowDown")
    expect(item(page, middle)).to_be_focused()
    expect(item(page, middle)).to_have_attribute("tabindex", "0")
    expect(item(page, newest)).to_have_attribute("tabindex", "-1")
    page.keyboard.press("ArrowUp")
    expect(item(page, newest)).to_be_focused()
    page.keyboard.press("End")
    expect(rows.last).to_be_focused()
    page.keyboard.press("Home")
    expect(rows.first).to_be_focused()
    # → reaches the row's delete button, ← comes back.
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    row = listing.locator(f'li.conversation[data-conversation-id="{middle}"]')
    expect(row.get_by_test_id("conversation-delete")).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(item(page, middle)).to_be_focused()
    # The Delete key asks; Escape keeps it and the keyboard is back on the row.
    page.keyboard.press("Delete")
    expect(row.get_by_test_id("conversation-delete-cancel")).to_be_focused()
    page.keyboard.press("Escape")
    expect(item(page, middle)).to_be_focused()
    page.keyboard.press("Delete")
    row.get_by_test_id("conversation-delete-confirm").focus()
    page.keyboard.press("Enter")
    expect(item(page, middle)).to_have_count(0)
    assert page.request.get(f"{server.url}/api/assistant/conversations/{middle}").status == 404
    expect(item(page, oldest)).to_be_focused()  # the next row keeps the keyboard in the list
    # Enter opens the focused one.
    page.keyboard.press("Enter")
    expect(item(page, oldest)).to_have_attribute("aria-current", "true")
    expect(messages(page).first).to_have_text("keyboard 0")
    expect(page.get_by_test_id("app-message")).to_be_hidden()  # no error on the way


def test_an_empty_chat_offers_requests_that_one_click_sends(small: Page, server: Server):
    page = small
    put_note(page, server.url, "personal", "conv-suggest.md", NOTE)
    reload_list(page)
    open_note(page, "conv-suggest.md")
    assistant(page).get_by_test_id("conversation-new").click()
    offered = assistant(page).get_by_test_id("chat-suggestion")
    expect(offered.first).to_be_visible()
    assert {"summarise this", "add a todo: …", "このノートを要約して"} <= set(
        offered.all_inner_texts()
    )
    assert reachable(offered.first)

    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith(TURNS) else None)
    box = assistant(page).get_by_test_id("assistant-input")
    offered.filter(has_text="add a todo").click()  # fills the box for the user to finish
    expect(box).to_have_value("add a todo: ")
    expect(box).to_be_focused()
    box.press_sequentially("water the plants")
    assert box.evaluate("el => el.value") == "add a todo: water the plants"
    assert sent == []

    box.fill("")
    with page.expect_request(lambda r: r.url.endswith(TURNS) and r.method == "POST") as info:
        offered.filter(has_text="このノートを要約して").click()
    assert json.loads(info.value.post_data)["message"] == "このノートを要約して"
    reply = messages(page).and_(assistant(page).locator('[data-role="assistant"]'))
    expect(reply).to_have_count(1, timeout=30_000)
    text = reply.inner_text()
    assert any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text), text
    expect(assistant(page).get_by_test_id("chat-suggestions")).to_be_hidden()

    assistant(page).get_by_test_id("conversation-new").click()
    with page.expect_request(lambda r: r.url.endswith(TURNS) and r.method == "POST") as info:
        offered.filter(has_text="summarise this").click()
    assert json.loads(info.value.post_data)["message"] == "summarise this"
    expect(messages(page)).to_have_count(2, timeout=30_000)


def test_the_conversations_toggle_hides_and_shows_the_list_and_a_reload_keeps_it(
    small: Page, server: Server
):
    page = small
    send(page, "a conversation to list")
    toggle = assistant(page).get_by_test_id("conversation-toggle")
    listing = assistant(page).get_by_test_id("conversation-list")
    expect(listing).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    toggle.click()
    expect(listing).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    page.reload()
    wait_ready(page)
    expect(assistant(page).get_by_test_id("conversation-list")).to_be_hidden()  # remembered
    assistant(page).get_by_test_id("conversation-toggle").click()
    expect(assistant(page).get_by_test_id("conversation-list")).to_be_visible()
    expect(assistant(page).get_by_test_id("conversation-item").first).to_be_visible()


def test_the_delete_question_names_the_conversation(small: Page, server: Server):
    page = small
    conversation = send(page, "a conversation with a name to ask about").body["conversationId"]
    row = assistant(page).locator(f'li.conversation[data-conversation-id="{conversation}"]')
    title = row.locator(".conversation-title").inner_text()
    assert title
    row.get_by_test_id("conversation-delete").click()
    question = row.get_by_test_id("conversation-delete-question")
    expect(question).to_have_text(f"Delete “{title}”?")
    row.get_by_test_id("conversation-delete-cancel").click()
    expect(question).to_have_count(0)


def test_a_list_read_before_a_delete_does_not_bring_the_row_back(small: Page, server: Server):
    """Every finished turn reads the list again; when that answer comes back after the user
    has deleted a conversation, it is older than the delete: it adds the new conversation and
    must not show the deleted one again."""
    page = small
    first = send(page, "a conversation to delete").body["conversationId"]
    expect(item(page, first)).to_be_visible()  # the list's read after the turn has answered
    assistant(page).get_by_test_id("conversation-new").click()
    expect(messages(page)).to_have_count(0)
    held = Held(page, lambda url: "/api/assistant/conversations?" in url)
    second = send(page, "a second one, whose turn reads the list again").body["conversationId"]
    held.wait()
    held.stop()
    assert second in held.answers[0][1].text()  # the read after the second turn
    row = assistant(page).locator(f'li.conversation[data-conversation-id="{first}"]')
    row.get_by_test_id("conversation-delete").click()
    row.get_by_test_id("conversation-delete-confirm").click()
    expect(item(page, first)).to_have_count(0)

    (stale,) = held.deliver_all()
    assert first in stale.text()  # read before the delete
    expect(item(page, second)).to_be_visible()  # what the answer has that is new: drawn
    expect(item(page, first)).to_have_count(0)
    page.reload()  # the next read has the second conversation, still not the first
    wait_ready(page)
    expect(item(page, second)).to_be_visible()
    expect(item(page, first)).to_have_count(0)


def test_a_conversation_pressed_twice_shows_its_messages_once(small: Page, server: Server):
    """A second press on the row while its messages are on their way does not read them again
    (each read would add them to the chat: every message twice)."""
    page = small
    first = send(page, "the one pressed twice").body["conversationId"]
    expect(item(page, first)).to_be_visible()
    assistant(page).get_by_test_id("conversation-new").click()
    expect(messages(page)).to_have_count(0)
    held = Held(page, lambda url: url.endswith(f"/api/assistant/conversations/{first}"))
    listed = item(page, first)
    listed.click()
    held.wait()
    listed.click()  # again, before the messages have come
    page.evaluate(SETTLE)  # a second read, if one is made, is asked for (and held) by now
    held.stop()
    held.deliver_all()
    expect(messages(page)).to_have_count(2)
    assert messages(page).count() == 2  # taken every answer: still once
    expect(messages(page).first).to_have_text("the one pressed twice")


def test_a_message_sent_while_a_conversation_loads_follows_its_messages(
    small: Page, server: Server
):
    """Sent before the resumed conversation's messages have come, a message waits for them and
    shows after them, where the server keeps it; pressing New chat meanwhile gives it back
    (before anything typed since)."""
    page = small
    first = send(page, "the earlier question").body["conversationId"]
    expect(item(page, first)).to_be_visible()
    box = assistant(page).get_by_test_id("assistant-input")

    def open_first_held() -> Held:
        assistant(page).get_by_test_id("conversation-new").click()
        expect(messages(page)).to_have_count(0)
        held = Held(page, lambda url: url.endswith(f"/api/assistant/conversations/{first}"))
        item(page, first).click()
        held.wait()
        held.stop()
        return held

    # New chat while the message waits: nothing is sent, the message is back in its box.
    held = open_first_held()
    box.fill("not for this one after all")
    box.press("Enter")
    expect(assistant(page).locator(".assistant-status")).to_have_text("Loading the conversation…")
    box.fill("typed meanwhile")
    assistant(page).get_by_test_id("conversation-new").click()
    expect(box).to_have_value("not for this one after all\ntyped meanwhile")
    expect(assistant(page).locator(".assistant-status")).to_have_text("New conversation.")
    box.fill("")
    held.deliver_all()
    expect(messages(page)).to_have_count(0)

    held = open_first_held()
    box.fill("and a later one")
    with page.expect_request(lambda r: r.url.endswith(TURNS) and r.method == "POST") as sent:
        box.press("Enter")
        page.evaluate(SETTLE)
        held.deliver_all()  # the earlier turn's two messages come after the new one was sent
    assert json.loads(sent.value.post_data or "{}")["conversationId"] == first
    expect(messages(page)).to_have_count(4, timeout=30_000)
    texts = messages(page).all_inner_texts()
    assert texts[0] == "the earlier question" and texts[2] == "and a later one", texts
    page.reload()  # the server keeps them in the same order
    wait_ready(page)
    expect(messages(page)).to_have_count(4)
    assert messages(page).all_inner_texts()[2] == "and a later one"
