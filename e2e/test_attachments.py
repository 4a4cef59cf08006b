"""Pictures in notes (SPEC §18) in a real Chromium: paste an image into the editor, the link
goes in as one undoable change, Preview shows it (and an Obsidian embed); a remote image is
a placeholder naming its host and no request leaves for it."""

from __future__ import annotations

import time
from urllib.parse import quote

from playwright.sync_api import Page, expect

from e2e.ambient_helpers import editor_text, open_note, png, put_note, reload_list, saved_text

NOTE = "attach-e2e/pics.md"
START = "# Pics\n\n![far](https://images.example.org/x.png)\n\n![[logo.png]]\n\n"
LINK = "![red dot](attachments/red%20dot.png)"

PASTE = """async (selector) => {
  const canvas = document.createElement("canvas");
  canvas.width = 4;
  canvas.height = 3;
  const g = canvas.getContext("2d");
  g.fillStyle = "red";
  g.fillRect(0, 0, 4, 3);
  const blob = await new Promise((done) => canvas.toBlob(done, "image/png"));
  const transfer = new DataTransfer();
  transfer.items.add(new File([blob], "red dot.png", { type: "image/png" }));
  const target = document.querySelector(selector);
  target.dispatchEvent(
    new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true })
  );
}"""


def wait_until(check, seconds: float = 15.0):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_paste_an_image_then_undo_and_preview(alice: Page, server):
    sent_away: list[str] = []
    alice.on("request", lambda r: sent_away.append(r.url) if "example.org" in r.url else None)
    base = f"{server.url}/api/workspaces/personal/attachments"
    logo = alice.request.post(
        base,
        multipart={
            "file": {"name": "logo.png", "mimeType": "image/png", "buffer": png(6, 5)},
            "path": "elsewhere/deep/logo.png",
        },
    )
    assert logo.status == 201, logo.text()
    put_note(alice, server.url, "personal", NOTE, START)
    reload_list(alice)
    frame = open_note(alice, NOTE)
    content = frame.locator(".cm-content")
    content.click()
    alice.keyboard.press("Control+End")

    frame_selector = f'[data-testid="frame"][data-path="{NOTE}"] .cm-content'
    alice.evaluate(PASTE, frame_selector)
    assert wait_until(lambda: LINK in editor_text(frame)), editor_text(frame)
    assert editor_text(frame) == START + LINK
    # Kept beside the note, and the text is saved like typing.
    kept = alice.request.get(f"{base}/{quote('attach-e2e/attachments/red dot.png')}")
    assert kept.status == 200 and kept.headers["content-type"] == "image/png"
    assert wait_until(lambda: LINK in saved_text(alice, server.url, "personal", NOTE))

    # One Ctrl+Z removes exactly the pasted link; redo brings it back.
    content.focus()
    alice.keyboard.press("Control+z")
    assert wait_until(lambda: editor_text(frame) == START), editor_text(frame)
    alice.keyboard.press("Control+Shift+z")
    assert wait_until(lambda: editor_text(frame) == START + LINK), editor_text(frame)

    frame.locator("[data-testid=view-button][data-view=preview]").click()
    expect(frame).to_have_attribute("data-view", "preview")
    pasted = frame.locator(
        '[data-testid=preview-image][data-path="attach-e2e/attachments/red dot.png"]'
    )
    expect(pasted).to_be_visible()
    alice.wait_for_function(
        "(img) => img.complete && img.naturalWidth === 4", arg=pasted.element_handle()
    )
    embedded = frame.locator('[data-testid=preview-image][data-path="elsewhere/deep/logo.png"]')
    expect(embedded).to_be_visible()
    alice.wait_for_function(
        "(img) => img.complete && img.naturalWidth === 6", arg=embedded.element_handle()
    )
    remote = frame.get_by_test_id("remote-image")
    expect(remote).to_contain_text("images.example.org")
    expect(remote).to_have_attribute("data-host", "images.example.org")
    assert frame.locator('img[src*="example.org"]').count() == 0
    assert sent_away == []

    # The Files frame lists the attachments too, each opening its file.
    alice.locator('[data-testid=open-frame][data-kind="files"]').click()
    row = alice.locator(
        '[data-testid=attachment-file][data-path="attach-e2e/attachments/red dot.png"]'
    )
    expect(row).to_be_visible()
    assert row.get_attribute("href") == (
        "/api/workspaces/personal/attachments/attach-e2e/attachments/red%20dot.png"
    )


DROP = """async ([selector, name]) => {
  const canvas = document.createElement("canvas");
  canvas.width = 2;
  canvas.height = 2;
  const blob = await new Promise((done) => canvas.toBlob(done, "image/png"));
  const transfer = new DataTransfer();
  transfer.items.add(new File([blob], name, { type: "image/png" }));
  const line = document.querySelector(selector + " .cm-line");
  const box = line.getBoundingClientRect();
  const at = { clientX: box.left + 1, clientY: box.top + box.height / 2 };
  line.dispatchEvent(
    new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true, ...at })
  );
}"""


def test_a_dropped_image_goes_where_it_was_dropped(alice: Page, server):
    path = "dropped.md"
    put_note(alice, server.url, "personal", path, "first line\nsecond line\n")
    reload_list(alice)
    frame = open_note(alice, path)
    selector = f'[data-testid="frame"][data-path="{path}"]'
    alice.evaluate(DROP, [selector, "drop me.png"])
    link = "![drop me](attachments/drop%20me.png)"
    assert wait_until(lambda: editor_text(frame) == link + "first line\nsecond line\n"), (
        editor_text(frame)
    )


def test_a_chosen_picture_goes_in_at_the_cursor_as_one_change(alice: Page, server, tmp_path):
    path = "chosen.md"
    put_note(alice, server.url, "personal", path, "first line\nsecond line\n")
    reload_list(alice)
    frame = open_note(alice, path)
    content = frame.locator(".cm-content")
    content.click()
    alice.keyboard.press("Control+Home")
    alice.keyboard.press("End")  # the cursor at the end of the first line
    picture = tmp_path / "chosen one.png"
    picture.write_bytes(png(3, 2))
    with alice.expect_file_chooser() as chooser:
        frame.get_by_test_id("attach-choose").click()
    chooser.value.set_files(str(picture))
    link = "![chosen one](attachments/chosen%20one.png)"
    expected = f"first line{link}\nsecond line\n"
    assert wait_until(lambda: editor_text(frame) == expected), editor_text(frame)
    assert wait_until(lambda: saved_text(alice, server.url, "personal", path) == expected)
    stored = alice.request.get(
        f"{server.url}/api/workspaces/personal/attachments/attachments/{quote('chosen one.png')}"
    )
    assert stored.ok and stored.body() == png(3, 2)
    content.click()
    alice.keyboard.press("Control+z")  # the link was one change
    assert wait_until(lambda: editor_text(frame) == "first line\nsecond line\n"), editor_text(frame)
