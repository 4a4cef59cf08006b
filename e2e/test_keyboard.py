"""The keyboard path of issue 34: after sign-in the first Tab reaches the skip link, Enter on
it puts the cursor in the chat box, a conversation is ONE Tab stop however many messages it
holds (arrow keys move between its messages and their links), and Tab leaves it for the box."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.ambient_helpers import frames, open_note, send
from e2e.conftest import wait_ready

ACTIVE_TESTID = "document.activeElement?.dataset?.testid"
AT_THE_TOP = """() => { const el = document.activeElement;
    return !!el && el !== document.body && !!el.querySelector('[data-testid=skip-to-chat]'); }"""


def assistant(page: Page):
    return frames(page, "assistant").first


def settled(page: Page) -> None:
    """The page after a load: frames drawn, the keyboard at the top of the page."""
    expect(assistant(page).get_by_test_id("assistant-input")).to_be_visible()
    page.wait_for_function(AT_THE_TOP, timeout=10_000)


def tabs_from_load_to_the_chat_box(page: Page) -> int:
    for count in range(1, 80):
        page.keyboard.press("Tab")
        if page.evaluate(f"{ACTIVE_TESTID} === 'assistant-input'"):
            return count
    raise AssertionError("Tab never reached the chat box")


def test_the_first_tab_after_sign_in_is_the_skip_link_and_enter_goes_to_the_chat(
    alice: Page,
) -> None:
    settled(alice)  # not in the note list: the user asked to start at the top
    alice.keyboard.press("Tab")
    assert alice.evaluate(ACTIVE_TESTID) == "skip-to-chat"
    expect(alice.get_by_test_id("skip-to-chat")).to_be_in_viewport()
    alice.keyboard.press("Enter")
    expect(assistant(alice).get_by_test_id("assistant-input")).to_be_focused()


def test_the_tab_count_to_the_chat_box_does_not_grow_with_messages(alice: Page) -> None:
    open_note(alice, "todo.md")
    send(alice, "what are my open todos?")  # a reply with links to lines and its tool calls
    alice.reload()
    wait_ready(alice)
    settled(alice)
    log = assistant(alice).get_by_test_id("assistant-log")
    expect(log.locator("a.note-ref").first).to_be_attached()
    before = tabs_from_load_to_the_chat_box(alice)
    open_note(alice, "todo.md")
    for _ in range(5):
        send(alice, "what are my open todos?")
    expect(log.get_by_test_id("assistant-message")).to_have_count(12)
    assert log.locator("a.note-ref").count() >= 6  # links enough to cost many a Tab once
    alice.reload()
    wait_ready(alice)
    settled(alice)
    expect(log.get_by_test_id("assistant-message")).to_have_count(12)
    assert tabs_from_load_to_the_chat_box(alice) == before
    assert log.locator("[tabindex='0']").count() == 1  # the whole conversation: one stop


def test_arrow_keys_move_between_messages_and_links_and_tab_leaves_for_the_box(
    alice: Page,
) -> None:
    assistant(alice).get_by_test_id("conversation-new").click()
    open_note(alice, "todo.md")
    send(alice, "what are my open todos?")
    send(alice, "summarise this")
    log = assistant(alice).get_by_test_id("assistant-log")
    messages = log.get_by_test_id("assistant-message")
    expect(messages).to_have_count(4)
    stop = log.locator("[tabindex='0']")
    expect(stop).to_have_count(1)
    expect(stop).to_have_attribute("data-role", "assistant")  # the newest message first
    stop.focus()
    alice.keyboard.press("Home")
    expect(messages.nth(0)).to_be_focused()  # the first message
    alice.keyboard.press("ArrowDown")
    expect(messages.nth(1)).to_be_focused()  # a user message holds no links: the reply next
    alice.keyboard.press("ArrowDown")  # into the reply: its tool calls, then its links
    inside = alice.evaluate("""() => { const el = document.activeElement;
        const reply = document.querySelectorAll(
            '[data-testid=assistant-log] > [data-testid=assistant-message]')[1];
        return reply.contains(el) && el !== reply ? el.tagName.toLowerCase() : null; }""")
    assert inside in ("summary", "a", "button"), inside
    for _ in range(8):
        alice.keyboard.press("ArrowDown")
        if alice.evaluate("document.activeElement.classList.contains('note-ref')"):
            break
    assert alice.evaluate("document.activeElement.classList.contains('note-ref')")
    expect(stop).to_have_count(1)
    # The Tab stop follows the keyboard: the reply it left from holds it now.
    expect(messages.nth(1)).to_have_attribute("tabindex", "0")
    alice.keyboard.press("End")  # the last link or button of the newest reply
    assert alice.evaluate("""() => document.querySelectorAll(
        '[data-testid=assistant-log] > [data-testid=assistant-message]')[3]
        .contains(document.activeElement)""")
    expect(messages.nth(3)).to_have_attribute("tabindex", "0")
    alice.keyboard.press("Tab")  # one Tab leaves the conversation for the chat box
    expect(assistant(alice).get_by_test_id("assistant-input")).to_be_focused()
    alice.keyboard.press("Shift+Tab")  # and back: onto the message that holds the stop
    expect(messages.nth(3)).to_be_focused()
