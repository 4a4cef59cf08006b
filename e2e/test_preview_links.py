"""Links in Preview after a reload, whenever the note list arrives, and missing notes."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, Route, expect

from e2e.ambient_helpers import png
from e2e.conftest import Server, put_note, wait_ready

FRAMES = "[data-testid=frame]"
LIST = "**/api/workspaces/personal/documents"


def holder(held: list[Route]):
    """A route handler that keeps the requests until the test lets them go."""

    def hold(route: Route) -> None:
        held.append(route)

    return hold


def test_links_resolve_after_every_reload_even_when_the_list_comes_late(
    alice: Page, server: Server
) -> None:
    path = f"reload-{uuid.uuid4().hex[:6]}.md"
    put_note(alice, server, path, "# reload\n\n[the todo list](todo.md) and [[welcome]]\n")
    alice.reload()
    wait_ready(alice)
    alice.locator(f"[data-testid=note-link][data-path='{path}']").click()
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")
    frame.locator("[data-testid=view-button][data-view=preview]").click()
    links = frame.locator(".preview a")
    expect(links).to_have_count(2)
    for number in range(10):
        late = number % 2 == 0  # every other reload, the list is held until Preview is drawn
        held: list[Route] = []
        if late:
            alice.route(LIST, holder(held))
        alice.reload()
        wait_ready(alice)
        preview = frame.locator(".preview")
        expect(preview).to_be_visible()
        status = frame.get_by_test_id("save-status")
        if late:
            expect(preview.locator("a[data-missing=true]")).to_have_count(2)  # not known yet
            preview.get_by_role("link", name="the todo list").click()
            expect(status).to_contain_text("does not exist")
            alice.wait_for_function("1", polling=100)
            assert held, "the note list was never asked for"
            for route in held:
                route.continue_()
            alice.unroute(LIST)
        expect(preview.locator("a[data-missing=true]")).to_have_count(0)
        expect(status).not_to_contain_text("does not exist")  # said before; no longer true
        preview.get_by_role("link", name="the todo list").click()
        expect(frame).to_have_attribute("data-path", "todo.md")
        frame.get_by_test_id("frame-back").click()
        expect(frame).to_have_attribute("data-path", path)
        expect(frame.locator(".preview a")).to_have_count(2)


def click_missing_link(alice: Page, server: Server, path: str, text: str):
    """Open `path` (saved as `text`, one missing link in it) in Preview and click that link;
    (the Inbox frame, the link)."""
    put_note(alice, server, path, text)
    alice.reload()
    wait_ready(alice)
    alice.locator(f"[data-testid=note-link][data-path='{path}']").click()
    frame = alice.locator(f"{FRAMES}[data-frame-kind=inbox]")
    frame.locator("[data-testid=view-button][data-view=preview]").click()
    link = frame.locator(".preview a[data-missing=true]")
    expect(link).to_have_count(1)
    link.click()  # scrolled into view first, as a person would
    return frame, link


def test_a_missing_link_offers_to_create_its_note(alice: Page, server: Server) -> None:
    tag = uuid.uuid4().hex[:6]
    path = f"missing-{tag}/source.md"
    frame, _ = click_missing_link(alice, server, path, f"# source\n\nsee [[idea-{tag}]]\n")
    status = frame.get_by_test_id("save-status")
    expect(status).to_contain_text(f"idea-{tag}.md does not exist")
    create = frame.get_by_test_id("missing-create")
    expect(create).to_have_text(f"Create idea-{tag}.md")
    create.click()
    expect(frame).to_have_attribute("data-path", f"idea-{tag}.md")
    expect(frame.locator(".cm-content")).to_be_focused()
    expect(frame.locator(".cm-content")).to_contain_text(f"# idea-{tag}")
    created = alice.request.get(f"{server.url}/api/workspaces/personal/documents/idea-{tag}.md")
    assert created.ok and created.text().startswith(f"# idea-{tag}")
    expect(alice.locator(f"[data-testid=note-link][data-path='idea-{tag}.md']")).to_be_visible()
    frame.get_by_test_id("frame-back").click()
    expect(frame).to_have_attribute("data-path", path)
    frame.locator("[data-testid=view-button][data-view=preview]").click()
    expect(frame.locator(".preview a")).to_have_count(1)
    expect(frame.locator(".preview a[data-missing=true]")).to_have_count(0)
    expect(status).not_to_contain_text("does not exist")


def test_the_offer_to_create_stands_beside_a_missing_link_far_down_the_note(
    alice: Page, server: Server
) -> None:
    """Clicking a missing link at the bottom of a long note: the offer is next to that link, in
    sight, with the keyboard on it (it once appeared at the frame's top, out of sight)."""
    tag = uuid.uuid4().hex[:6]
    filler = "".join(f"line {n} of a long note\n\n" for n in range(80))
    text = f"# long\n\n{filler}see [[packing-{tag}]]\n"
    frame, link = click_missing_link(alice, server, f"long-{tag}.md", text)
    create = frame.get_by_test_id("missing-create")
    expect(create).to_have_text(f"Create packing-{tag}.md")
    expect(create).to_be_focused()
    expect(create).to_be_in_viewport()
    near, far = link.bounding_box(), create.bounding_box()
    assert near and far and abs(far["y"] - near["y"]) < 2 * near["height"] + 8, (near, far)
    expect(frame.get_by_test_id("save-status")).to_contain_text(f"packing-{tag}.md does not exist")
    alice.keyboard.press("Enter")
    expect(frame).to_have_attribute("data-path", f"packing-{tag}.md")
    expect(frame.locator(".cm-content")).to_be_focused()


def test_the_offer_stays_when_the_pictures_arrive_after_the_click(
    alice: Page, server: Server
) -> None:
    """A note with a workspace picture is drawn again once the attachment list arrives; a
    missing link clicked before that keeps its offer, with the keyboard on it (the redraw once
    dropped the offer: CI's load made the list arrive after the click)."""
    tag = uuid.uuid4().hex[:6]
    picture = alice.request.post(
        f"{server.url}/api/workspaces/personal/attachments",
        multipart={
            "file": {"name": "dot.png", "mimeType": "image/png", "buffer": png(4, 3)},
            "path": f"offer-{tag}/pics/dot-{tag}.png",
        },
    )
    assert picture.status == 201, picture.text()
    held: list[Route] = []
    alice.route("**/api/workspaces/personal/attachments", holder(held))
    path = f"offer-{tag}/note.md"
    frame, link = click_missing_link(
        alice, server, path, f"# offer\n\n![[dot-{tag}.png]]\n\nsee [[gone-{tag}]]\n"
    )
    create = frame.get_by_test_id("missing-create")
    expect(create).to_be_focused()
    found = f"offer-{tag}/pics/dot-{tag}.png"  # an embed by name is found once the list is known
    image = frame.locator(f'.preview [data-testid=preview-image][data-path="{found}"]')
    expect(image).to_have_count(0)  # the list is still held
    assert held, "the attachment list was never asked for"
    for route in held:
        route.continue_()
    alice.unroute("**/api/workspaces/personal/attachments")
    expect(image).to_have_count(1)
    expect(create).to_have_text(f"Create gone-{tag}.md")
    expect(create).to_be_focused()
    near, far = link.bounding_box(), create.bounding_box()
    assert near and far and abs(far["y"] - near["y"]) < 2 * near["height"] + 8, (near, far)
