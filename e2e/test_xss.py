"""Script and event-handler payloads in a note (and in its path) never run: not in any view,
the file list, the chip or the chat."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from e2e.conftest import Server

FLAG = "window.__xss"
PAYLOAD = """# <img src=x onerror="window.__xss = 'heading'">

<script>window.__xss = 'script'</script>

<img src=x onerror="window.__xss = 'img'">
<svg onload="window.__xss = 'svg'"></svg>
<iframe srcdoc="<script>parent.__xss = 'iframe'</script>"></iframe>

[click me](javascript:window.__xss='link')
[also me](JAVASCRIPT:window.__xss='upper')
[data](data:text/html,<script>parent.__xss='data'</script>)
![pic](javascript:window.__xss='image')
<a href="javascript:window.__xss='raw-a'">raw</a>

- [ ] <img src=x onerror="window.__xss = 'todo'">
- [x] <script>window.__xss = 'todo-script'</script>
  - <b onmouseover="window.__xss = 'mindmap'">hover</b>
"""
DANGEROUS = (
    "script, iframe, svg, object, embed, [onerror], [onload], [onmouseover], "
    "a[href^='javascript' i], a[href^='data' i], img[src^='javascript' i]"
)


def test_payloads_never_execute_in_any_view(alice: Page, server: Server) -> None:
    path = "xss/<img src=x onerror=window.__xss='path'>.md"
    response = alice.request.put(
        f"{server.url}/api/workspaces/personal/documents/{path}",
        data=PAYLOAD.encode(),
        headers={"Content-Type": "text/markdown"},
    )
    assert response.ok, response.text()
    alice.locator("[data-testid=open-frame][data-kind=files]").click()
    files = alice.locator("[data-testid=frame][data-frame-kind=files]")
    expect(files.locator(f'[data-testid=file-link][data-path="{path}"]')).to_have_text(path)
    files.locator(f'[data-testid=file-link][data-path="{path}"]').click()
    frame = alice.locator("[data-testid=frame][data-frame-kind=inbox]")
    expect(frame).to_have_attribute("data-path", path)
    expect(frame.locator(".frame-title")).to_have_text(path)  # the path is text, not markup
    expect(frame.locator(".cm-content")).to_contain_text("<script>window.__xss = 'script'")

    for view in ("preview", "todo", "mindmap", "edit"):
        frame.locator(f"[data-testid=view-button][data-view={view}]").click()
        expect(frame).to_have_attribute("data-view", view)
        assert frame.locator(".render-host").locator(DANGEROUS).count() == 0, view
        assert alice.locator(".sidebar").locator(DANGEROUS).count() == 0
        assert alice.evaluate(FLAG) is None, view

    frame.locator("[data-testid=view-button][data-view=preview]").click()
    preview = frame.locator(".preview")
    expect(preview).to_contain_text("<script>window.__xss = 'script'</script>")  # shown as text
    for paragraph in preview.locator("p").all():  # where the links would be: click them all
        paragraph.click()
    frame.locator("[data-testid=view-button][data-view=todo]").click()
    expect(frame.locator(".todo-item")).to_have_count(2)
    frame.locator(".todo-item label").first.hover()
    frame.locator("[data-testid=view-button][data-view=mindmap]").click()
    frame.locator(".mindmap").get_by_text("hover", exact=False).hover()
    assert alice.evaluate(FLAG) is None
    assert alice.url.startswith(server.url)  # no link took the page anywhere

    # The chip names the path and the assistant quotes the note: both as text, never markup.
    assistant = alice.locator("[data-testid=frame][data-frame-kind=assistant]")
    chip = assistant.get_by_test_id("ambient-chip")
    expect(chip).to_have_attribute("data-path", path)
    expect(chip).to_contain_text(path)
    assistant.get_by_test_id("assistant-input").fill("summarise this")
    assistant.get_by_test_id("assistant-send").click()
    reply = assistant.locator("[data-testid=assistant-message][data-role=assistant]")
    expect(reply).to_have_count(1, timeout=30_000)
    expect(reply).to_contain_text("onerror")  # the payload heading, quoted as text
    assistant.locator("[data-testid=tool-calls] summary").first.click()  # open the tool calls
    assert assistant.locator(DANGEROUS).count() == 0
    assert alice.evaluate(FLAG) is None
