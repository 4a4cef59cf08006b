"""The layout at real sizes (issue 24): one row of frames with splitters, pop-outs, a phone."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from e2e.ambient_helpers import send
from e2e.conftest import Server, sign_in, wait_ready
from e2e.layout_helpers import covered_controls, reachable

FRAMES = "[data-testid=frame]"
MIN_FRAME_PX = 225  # web/app/frames/layout_model.py


def note(page: Page, testid: str, path: str):
    return page.locator(f"[data-testid={testid}][data-path='{path}']")


def frame_boxes(page: Page) -> list[dict]:
    return page.locator(FRAMES).evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.x, y: r.y, w: r.width, right: r.right}; })"
    )


def open_two_notes(page: Page) -> None:
    note(page, "note-link", "welcome.md").click()
    note(page, "note-open-frame", "todo.md").click()
    expect(page.locator(f"{FRAMES}[data-frame-kind=inbox]")).to_have_count(2)
    expect(page.locator(f"{FRAMES}[data-path='todo.md'] .cm-content")).to_be_visible()


def test_two_notes_and_the_assistant_share_one_row_at_1024(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 1024, "height": 768})
    sign_in(page, server)
    open_two_notes(page)
    boxes = frame_boxes(page)
    assert len(boxes) == 3 and len({round(b["y"]) for b in boxes}) == 1, boxes  # one row
    assert all(b["w"] >= MIN_FRAME_PX - 1 for b in boxes), boxes
    for testid in ("assistant-input", "assistant-send", "sign-out"):
        assert reachable(page.get_by_test_id(testid)), f"{testid} is not on screen"
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024
    assert page.evaluate("document.documentElement.scrollHeight") <= 768
    assert covered_controls(page) == []


@pytest.fixture
def long_list(page: Page, server: Server) -> Iterator[Page]:
    """Alice with a note list longer than the window (a folder of 40 notes, ahead of the
    root notes), as a long-used account has; the notes go again afterwards."""
    sign_in(page, server)
    notes = f"{server.url}/api/workspaces/personal/documents/long-{uuid.uuid4().hex[:6]}"
    for number in range(40):
        response = page.request.put(
            f"{notes}/n{number:02}.md", data=b"# n\n", headers={"Content-Type": "text/markdown"}
        )
        assert response.ok, response.text()
    page.reload()
    wait_ready(page)
    yield page
    for number in range(40):
        page.request.delete(f"{notes}/n{number:02}.md")


def test_files_at_1440_joins_the_row_and_pushes_nothing_off_screen(long_list: Page) -> None:
    page = long_list
    page.set_viewport_size({"width": 1440, "height": 900})
    tree = page.locator(".sidebar .note-tree")
    expect(tree.get_by_test_id("note-link")).not_to_have_count(0)
    assert tree.evaluate("el => el.scrollHeight > innerHeight")  # the list is long
    open_two_notes(page)  # its rows far down: the list scrolls to them, not the search box
    page.locator("[data-testid=open-frame][data-kind=files]").click()
    expect(
        page.locator(f"{FRAMES}[data-frame-kind=files] [data-testid=file-link]").first
    ).to_be_visible()
    boxes = frame_boxes(page)
    assert len(boxes) == 4 and len({round(b["y"]) for b in boxes}) == 1, boxes
    assert all(b["right"] <= 1440 for b in boxes), boxes  # all four fit: none off screen
    for testid in ("assistant-send", "sign-out", "search-input"):
        assert reachable(page.get_by_test_id(testid)), f"{testid} is not on screen"
    assert covered_controls(page) == []


def test_splitters_resize_by_mouse_and_keyboard_down_to_a_minimum(
    page: Page, server: Server
) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, server)
    note(page, "note-link", "welcome.md").click()
    frames = page.locator(FRAMES)
    expect(frames).to_have_count(2)
    splitter = page.get_by_test_id("frame-splitter")
    expect(splitter).to_have_count(1)
    expect(splitter).to_have_attribute("role", "separator")
    expect(splitter).to_have_attribute("aria-orientation", "vertical")
    before = frame_boxes(page)
    # The mouse: drag the splitter 120 px to the right.
    box = splitter.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 60, box["y"] + box["height"] / 2, steps=3)
    page.mouse.move(box["x"] + box["width"] / 2 + 120, box["y"] + box["height"] / 2, steps=3)
    page.mouse.up()
    page.wait_for_function(
        f"document.querySelector('{FRAMES}').getBoundingClientRect().width > {before[0]['w'] + 100}"
    )
    dragged = frame_boxes(page)
    assert abs((dragged[0]["w"] + dragged[1]["w"]) - (before[0]["w"] + before[1]["w"])) < 2
    # The keyboard: the separator is a Tab stop; arrows move it, Home goes to the minimum.
    splitter.focus()
    value = int(splitter.get_attribute("aria-valuenow"))
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    expect(splitter).not_to_have_attribute("aria-valuenow", str(value))
    assert frame_boxes(page)[0]["w"] < dragged[0]["w"] - 50
    page.keyboard.press("Home")
    page.wait_for_function(
        f"document.querySelector('{FRAMES}').getBoundingClientRect().width < {MIN_FRAME_PX + 2}"
    )
    page.keyboard.press("End")  # and the other frame keeps its minimum too
    page.wait_for_function(
        f"document.querySelectorAll('{FRAMES}')[1].getBoundingClientRect()"
        f".width < {MIN_FRAME_PX + 2}"
    )
    assert covered_controls(page) == []


def test_past_the_minimum_frames_scroll_sideways_in_one_row(page: Page, server: Server) -> None:
    page.set_viewport_size({"width": 900, "height": 700})
    sign_in(page, server)
    open_two_notes(page)
    page.locator("[data-testid=open-frame][data-kind=files]").click()
    expect(page.locator(FRAMES)).to_have_count(4)
    boxes = frame_boxes(page)
    assert len({round(b["y"]) for b in boxes}) == 1, boxes  # still one row
    assert all(b["w"] >= MIN_FRAME_PX - 1 for b in boxes), boxes
    frameset = page.locator("#frames")
    assert frameset.evaluate("el => el.scrollWidth > el.clientWidth")  # it scrolls sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= 900  # the page does not
    files = page.locator(f"{FRAMES}[data-frame-kind=files]")
    expect(files).to_have_attribute("data-active", "true")
    assert reachable(files.get_by_test_id("frame-close"))  # the new frame was scrolled to


def test_a_popped_out_assistant_at_720_px_keeps_return_reachable_and_opens_notes(
    page: Page, server: Server
) -> None:
    sign_in(page, server)
    popout = page.context.new_page()
    popout.set_viewport_size({"width": 720, "height": 760})
    popout.goto(f"{server.url}/?popout=assistant&frame=f-layout720&ws=personal&path=&view=")
    wait_ready(popout)
    expect(popout.get_by_test_id("assistant-input")).to_be_visible()
    send(popout, "hello")  # a chat makes the log long enough to press on the header
    assert reachable(popout.get_by_test_id("popout-return"))
    assert covered_controls(popout) == []
    scope = popout.get_by_test_id("popout-scope")
    expect(scope).to_contain_text("this window")
    # A pop-out with no note open has the quick switcher: its button, and Ctrl+O.
    popout.get_by_test_id("popout-open-note").click()
    field = popout.get_by_test_id("quick-open-input")
    expect(field).to_be_focused()
    popout.keyboard.press("Escape")
    expect(field).to_be_hidden()
    popout.keyboard.press("Control+o")
    field.fill("todo")
    popout.get_by_test_id("quick-open-item").and_(popout.locator("[data-path='todo.md']")).click()
    opened = popout.locator(f"{FRAMES}[data-frame-kind=inbox][data-path='todo.md']")
    expect(opened.locator(".cm-content")).to_be_visible()
    assert reachable(popout.get_by_test_id("popout-return"))
    assert covered_controls(popout) == []
    popout.close()


def test_a_notes_popout_does_not_speak_of_an_assistant_it_lacks(page: Page, server: Server) -> None:
    sign_in(page, server)
    popout = page.context.new_page()
    popout.set_viewport_size({"width": 720, "height": 760})
    popout.goto(f"{server.url}/?popout=inbox&frame=f-layoutnote&ws=personal&path=&view=edit")
    wait_ready(popout)
    expect(popout.get_by_test_id("popout-scope")).not_to_contain_text("assistant in this")
    inbox = popout.locator(f"{FRAMES}[data-frame-kind=inbox]")
    expect(inbox).to_contain_text("Ctrl+O")  # no note list here: the switcher is the way
    popout.keyboard.press("Control+o")
    popout.get_by_test_id("quick-open-input").fill("welcome")
    popout.keyboard.press("Enter")
    expect(inbox).to_have_attribute("data-path", "welcome.md")
    expect(popout.locator(FRAMES)).to_have_count(1)  # in its own frame, not a second one
    assert covered_controls(popout) == []
    popout.close()


def test_a_phone_keeps_whole_tab_names_and_sign_out_after_a_chat(
    page: Page, server: Server
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, server)
    note(page, "note-link", "welcome.md").click()
    expect(page.locator(f"{FRAMES}[data-frame-kind=inbox] .cm-content")).to_be_visible()
    tabs = page.get_by_test_id("pane-tab")
    expect(tabs).to_have_count(3)
    assert sorted(tabs.all_inner_texts()) == ["Assistant", "Notes", "welcome.md"]
    for tab in tabs.all():  # whole names: nothing cut off
        assert tab.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), tab.inner_text()
        assert reachable(tab)
    tabs.and_(page.locator("[data-for-frame]")).first.click()  # the Assistant
    for number in range(3):
        send(page, f"hello {number}")
    sign_out = page.get_by_test_id("sign-out")
    sign_out.scroll_into_view_if_needed()  # the header's button row scrolls sideways
    assert reachable(sign_out), "Sign out slid under something"
    assert reachable(page.get_by_test_id("assistant-send"))
    assert covered_controls(page) == []
    header = page.locator(".topbar").bounding_box()
    tab_row = page.locator(".pane-tabs").bounding_box()
    assert header and tab_row and header["y"] + header["height"] <= tab_row["y"] + 1
    page.get_by_test_id("sign-out").click()
    expect(page.get_by_test_id("login-username")).to_be_visible()


def test_a_phone_header_takes_two_rows_and_each_button_is_one_swipe_away(
    page: Page, server: Server
) -> None:
    """At 390 px the header wrapped into four rows of buttons, about 185 px of an 844 px
    screen. Now the name, the workspace and New take one row, and the frame and account
    buttons share a second row that scrolls sideways: each is reached by scrolling that row
    (never the page), and the last of them, Sign out, works from there."""
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, server)
    header = page.locator(".topbar")
    height = header.bounding_box()["height"]
    assert height <= 100, f"the phone's header is {height} px tall"
    for testid in ("workspace-select", "workspace-new"):
        assert reachable(page.get_by_test_id(testid)), testid  # the first row, no scrolling
    buttons = page.locator(".topbar-actions button:visible")  # not those of closed dialogs
    assert buttons.count() >= 8  # three frame kinds, then the account's
    row = page.locator(".topbar-actions")
    assert row.evaluate("el => el.scrollWidth > el.clientWidth"), "the row should scroll"
    for index in range(buttons.count()):
        button = buttons.nth(index)
        button.scroll_into_view_if_needed()
        assert reachable(button), button.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert header.bounding_box()["height"] == height
    assert row.evaluate("el => el.scrollLeft") > 0  # the last ones needed the row scrolled
    page.get_by_test_id("sign-out").click()
    expect(page.get_by_test_id("login-username")).to_be_visible()
