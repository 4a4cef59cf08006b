"""The editor and its popovers: headings are not drawn as links, the Ctrl+K panel leaves the
selected lines visible, and the quick switcher's hint sits on its own panel."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import Server, wait_ready

FRAMES = "[data-testid=frame]"


def put_note(page: Page, server: Server, path: str, text: str) -> None:
    response = page.request.put(
        f"{server.url}/api/workspaces/personal/documents/{path}",
        data=text.encode(),
        headers={"Content-Type": "text/markdown"},
    )
    assert response.ok, response.text()


def test_headings_in_the_editor_are_not_underlined(alice: Page) -> None:
    alice.locator("[data-testid=note-link][data-path='welcome.md']").click()
    heading = alice.locator(f"{FRAMES}[data-path='welcome.md'] .cm-line").first
    expect(heading).to_contain_text("#")
    lines = heading.evaluate("""(line) => [line, ...line.querySelectorAll('*')].map(
        (el) => [getComputedStyle(el).textDecorationLine, getComputedStyle(el).fontWeight])""")
    assert all(decoration == "none" for decoration, _ in lines), lines
    assert any(int(weight) >= 600 for _, weight in lines), lines  # still bold


def overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def test_the_inline_panel_never_covers_the_selected_lines(alice: Page, server: Server) -> None:
    path = f"look/{uuid.uuid4().hex[:6]}.md"
    put_note(alice, server, path, "".join(f"line {n} of the note\n" for n in range(1, 13)))
    alice.reload()
    wait_ready(alice)
    alice.locator(f"[data-testid=note-link][data-path='{path}']").click()
    frame = alice.locator(f"{FRAMES}[data-path='{path}']")
    editor = frame.locator(".cm-content")
    expect(editor).to_be_visible()
    for upward in (False, True):  # selected top to bottom, then bottom to top
        start, end = (6, 3) if upward else (3, 6)
        frame.locator(".cm-line", has_text=f"line {start} of").click()
        alice.keyboard.press("Home")
        for _ in range(abs(end - start)):
            alice.keyboard.press("Shift+ArrowUp" if upward else "Shift+ArrowDown")
        alice.keyboard.press("Shift+End" if not upward else "Shift+Home")
        alice.keyboard.press("Control+k")
        panel = frame.locator(".cm-tooltip.inline-panel")
        expect(panel).to_be_visible()
        expect(frame.get_by_test_id("inline-command-input")).to_be_focused()
        alice.wait_for_function(
            "() => { const p = document.querySelector("
            "'.cm-tooltip.inline-panel'); return p && "
            "p.getBoundingClientRect().top > -1000; }"
        )
        box = panel.bounding_box()
        assert box is not None
        for number in range(min(start, end), max(start, end) + 1):
            line = frame.locator(".cm-line", has_text=f"line {number} of").bounding_box()
            assert line is not None and not overlap(box, line), (number, box, line)
        alice.keyboard.press("Escape")
        expect(panel).to_have_count(0)


def test_the_quick_switchers_hint_sits_on_its_own_panel(alice: Page) -> None:
    alice.keyboard.press("Control+o")
    hint = alice.locator(".quick-open-hint")
    expect(hint).to_be_visible()
    surface = hint.evaluate("""(el) => {
        for (let up = el; up; up = up.parentElement) {
            const bg = getComputedStyle(up).backgroundColor;
            const alpha = bg.startsWith('rgba') ? parseFloat(bg.split(',')[3]) : 1;
            if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return alpha;
        }
        return 0;
    }""")
    assert surface == 1, "the hint is printed over the page behind the backdrop"
    alice.keyboard.press("Escape")
