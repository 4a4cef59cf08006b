"""The note list and the conversation list as one Tab stop each (the roving tabindex of the
WAI-ARIA tree pattern) and the skip link to the chat."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import Server, put_note, sign_in, wait_ready
from e2e.late_answers import Held

FRAMES = "[data-testid=frame]"


def start_conversation(page: Page, server: Server, message: str) -> str:
    """A stored conversation of the signed-in user, made by a real turn."""
    conversation_id = str(uuid.uuid4())
    response = page.request.post(
        f"{server.url}/api/assistant/turns",
        data={"conversationId": conversation_id, "workspaceId": "personal", "message": message},
    )
    assert response.ok, response.text()
    return conversation_id


# Drawn after a load: the note tree and the chat (a restored conversation, or the suggestions
# of an empty one); each adds Tab stops, so counting before either is in counts too few.
SETTLED = """() => document.querySelector('[data-testid=note-link]')
    && (document.querySelector('[data-testid=assistant-message]')
        || document.querySelector('[data-testid=chat-suggestions]:not([hidden])'))"""


def tabs_to_the_chat_box(page: Page) -> int:
    """Tab stops from the start of the page (its first one, the skip link) to the chat box."""
    page.wait_for_function(SETTLED, timeout=15_000)
    first = page.evaluate("""() => [...document.querySelectorAll(
        'a[href], button, input, select, textarea, [tabindex]')].find(
        (el) => el.tabIndex >= 0 && el.checkVisibility() !== false)?.dataset.testid""")
    assert first == "skip-to-chat", first  # the page's first Tab stop
    page.get_by_test_id("skip-to-chat").focus()
    for count in range(2, 60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement?.dataset?.testid === 'assistant-input'"):
            return count
    raise AssertionError("Tab never reached the chat box")


def test_the_list_is_one_tab_stop_and_a_skip_link_reaches_the_chat(
    alice: Page, server: Server
) -> None:
    conversations = alice.get_by_test_id("conversation-item")
    start_conversation(alice, server, "one conversation: the list is drawn")
    alice.reload()
    wait_ready(alice)
    expect(conversations.first).to_be_visible()
    listed = conversations.count()
    before = tabs_to_the_chat_box(alice)
    tag = uuid.uuid4().hex[:6]
    for number in range(6):  # more notes and more conversations cost no more Tab presses
        put_note(alice, server, f"tabs-{tag}/n{number}.md")
        start_conversation(alice, server, f"tabs {tag} {number}")
    alice.reload()
    wait_ready(alice)
    expect(alice.locator(f"[data-testid=note-link][data-path='tabs-{tag}/n5.md']")).to_be_visible()
    expect(conversations).to_have_count(listed + 6)
    assert alice.get_by_test_id("note-link").count() >= 8
    assert tabs_to_the_chat_box(alice) == before
    # The skip links, the top bar (with the note list's toggle, New workspace, Members,
    # Account, Settings and, for an administrator such as alice, Users), the list (one
    # stop), the Assistant's bar (conversations, New chat, the ambient switch), its list
    # (one stop) and the suggestions: a small number.
    assert before <= 32, before
    assert alice.locator(".sidebar [role=tree] [tabindex='0']").count() == 1
    listing = alice.get_by_test_id("conversation-list")
    assert listing.locator("[tabindex='0']").count() == 1
    assert listing.locator("button:not([tabindex='-1'])").count() == 1
    # The skip link shows when focused; Enter puts the cursor in the chat box.
    skip = alice.get_by_test_id("skip-to-chat")
    skip.focus()
    expect(skip).to_be_in_viewport()
    alice.keyboard.press("Enter")
    expect(alice.get_by_test_id("assistant-input")).to_be_focused()


def test_arrow_keys_move_in_the_tree_and_keys_reach_every_row_action(
    page: Page, fresh_server: Server
) -> None:
    alice = sign_in(page, fresh_server)  # the demo notes only: type-ahead meets known names
    tree = alice.locator(".sidebar [role=tree]")
    first_note = alice.locator(".sidebar [data-testid=note-link]").first
    # After sign-in the keyboard starts at the top of the page, the skip link its first Tab
    # (issue 34, e2e/test_keyboard.py); the list is entered as any Tab stop is.
    first_note.focus()
    expect(first_note).to_be_focused()
    folder = alice.locator("[data-testid=note-folder][data-folder='projects/']")
    folder.focus()
    expect(folder).to_have_attribute("aria-expanded", "true")
    roadmap = alice.locator("[data-testid=note-link][data-path='projects/roadmap.md']")
    alice.keyboard.press("ArrowLeft")  # closes the folder
    expect(folder).to_have_attribute("aria-expanded", "false")
    expect(roadmap).to_be_hidden()
    expect(folder).to_be_focused()
    alice.keyboard.press("ArrowRight")  # opens it
    expect(roadmap).to_be_visible()
    alice.keyboard.press("End")
    last = tree.locator("[role=treeitem]:visible").last
    expect(last).to_be_focused()
    alice.keyboard.press("Home")
    expect(tree.locator("[role=treeitem]").first).to_be_focused()
    alice.keyboard.press("t")  # type-ahead: the next row starting with t
    todo = alice.locator("[data-testid=note-link][data-path='todo.md']")
    expect(todo).to_be_focused()
    expect(todo).to_have_attribute("tabindex", "0")  # the roving Tab stop follows the focus
    assert tree.locator("[tabindex='0']").count() == 1
    alice.keyboard.press("Enter")  # opens it
    inbox = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")
    expect(inbox).to_have_attribute("data-path", "todo.md")
    todo.focus()
    alice.keyboard.press("Shift+Enter")  # in a new frame
    expect(alice.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(2)
    todo.focus()
    alice.keyboard.press("F2")  # rename
    expect(alice.get_by_test_id("note-rename-path")).to_be_focused()
    alice.keyboard.press("Escape")
    expect(alice.get_by_test_id("note-rename-path")).to_have_count(0)
    todo.focus()
    alice.keyboard.press("Delete")  # delete asks first
    expect(alice.get_by_test_id("row-delete-confirm")).to_be_focused()
    alice.keyboard.press("Escape")
    expect(alice.get_by_test_id("row-delete-confirm")).to_have_count(0)
    todo.focus()
    alice.keyboard.press("Shift+F10")  # the row's buttons, from the keyboard
    actions = alice.locator(".note-row[data-path='todo.md'] .row-actions button")
    expect(actions.nth(0)).to_be_focused()
    expect(actions.nth(0)).to_have_attribute("data-testid", "note-open-frame")
    alice.keyboard.press("ArrowRight")
    expect(actions.nth(1)).to_be_focused()
    expect(actions.nth(1)).to_have_attribute("data-testid", "note-rename")
    alice.keyboard.press("Escape")
    expect(todo).to_be_focused()
    todo.focus()
    alice.keyboard.press("ContextMenu")
    expect(actions.nth(0)).to_be_focused()


def test_the_tree_keeps_one_tab_stop_after_a_reload(page: Page, server: Server) -> None:
    sign_in(page, server)
    page.reload()
    wait_ready(page)
    expect(page.locator(".sidebar [data-testid=note-link]").first).to_be_visible()
    assert page.locator(".sidebar [role=tree] [tabindex='0']").count() == 1
    assert page.locator(".sidebar [role=tree] button:not([tabindex='-1'])").count() == 0


def test_a_list_read_before_a_new_note_does_not_hide_it(page: Page, fresh_server: Server) -> None:
    """The note list is read as the workspace opens; a note made before that answer comes back
    reads the list again, and the older answer (without the new note) must not be drawn over
    the newer one."""
    held = Held(page, lambda url: url.endswith("/api/workspaces/personal/documents"))
    alice = sign_in(page, fresh_server)
    held.wait()
    held.stop()
    alice.get_by_test_id("note-new").click()
    alice.get_by_test_id("note-new-path").fill("made-early.md")
    alice.get_by_test_id("note-new-path").press("Enter")
    new = alice.locator("[data-testid=note-link][data-path='made-early.md']")
    expect(new).to_be_visible()

    (stale,) = held.deliver_all()
    assert "made-early.md" not in stale.text()  # read before the note was made
    expect(new).to_be_visible()
    expect(alice.locator("[data-testid=note-link][data-path='welcome.md']")).to_be_visible()
