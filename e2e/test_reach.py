"""Every control is within reach: on screen once scrolled to, and not covered by anything,
at 1440×900, 1024×768, a 720 px window (a pop-out's width) and a 390 px phone.

For each size the workspace and each dialog (Agents with a token, Members, Account, Users,
Trash, Import) is walked: every visible button, field, link and tree row is scrolled into
view inside its own scrolling box and must then lie inside the window, with the point at its
centre belonging to it (a control under another one, or cut off at the edge, fails). With a
dialog open only the dialog's controls count: the page behind it is inert.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.ambient_helpers import open_note
from e2e.conftest import Server, put_note, sign_in, wait_ready

OUT_OF_REACH = """(selector) => {
  const root = selector ? document.querySelector(selector) : document;
  const out = [];
  const controls = 'button, input, select, textarea, a[href], [role=treeitem], summary';
  for (const el of root.querySelectorAll(controls)) {
    if (el.classList.contains('skip-link')) continue;  // off screen until focused, by design
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const first = el.getBoundingClientRect();
    if (first.width === 0 || first.height === 0) continue;
    el.scrollIntoView({block: 'nearest', inline: 'nearest'});
    const box = el.getBoundingClientRect();
    const inside = box.left >= -1 && box.right <= innerWidth + 1
      && box.top >= -1 && box.bottom <= innerHeight + 1;
    const x = Math.min(Math.max(box.left + box.width / 2, 0), innerWidth - 1);
    const y = Math.min(Math.max(box.top + box.height / 2, 0), innerHeight - 1);
    const hit = document.elementFromPoint(x, y);
    const own = hit && (hit === el || el.contains(hit)
      || [...(el.labels || [])].some(label => label.contains(hit)));
    if (!inside || !own) {
      out.push({control: el.dataset.testid || el.getAttribute('aria-label')
                  || el.outerHTML.slice(0, 80),
                inside, covered_by: hit ? (hit.dataset.testid || hit.tagName) : null});
    }
  }
  return out;
}"""

SIZES = {
    "1440x900": {"width": 1440, "height": 900},
    "1024x768": {"width": 1024, "height": 768},
    "720px": {"width": 720, "height": 800},
    "phone": {"width": 390, "height": 844},
}
DIALOGS = (
    ("members-open", "members-dialog"),
    ("account-open", "account-dialog"),
    ("settings-open", "settings-dialog"),
    ("users-open", "users-dialog"),
    ("trash-open", "trash"),
    ("import-open", "import-dialog"),
)


def out_of_reach(page: Page, selector: str | None = None) -> list[dict]:
    return page.evaluate(OUT_OF_REACH, selector)


@pytest.mark.parametrize("size", SIZES)
def test_every_control_is_within_reach(browser: Browser, server: Server, size: str) -> None:
    phone = size == "phone"
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    page = sign_in(context.new_page(), server)
    path = f"reach/{size}.md"
    put_note(page, server, path, "one\n")
    put_note(page, server, path, "one\ntwo\n")  # two versions: History has a Restore
    page.reload()
    wait_ready(page)
    if not phone:  # a phone shows the list first; its frames are one tab away
        frame = open_note(page, path)
        frame.get_by_test_id("history-open").click()
        frame.get_by_test_id("history-item").last.click()
        expect(frame.get_by_test_id("history-restore")).to_be_visible()
    assert out_of_reach(page) == [], f"{size}: the workspace"

    page.get_by_test_id("sharing-open").click()
    page.get_by_test_id("token-name").fill(f"reach {size}")
    page.get_by_test_id("token-create").click()
    expect(page.get_by_test_id("token-row").first).to_be_visible()
    assert out_of_reach(page, "dialog[open]") == [], f"{size}: the Agents dialog"
    page.keyboard.press("Escape")

    for opener, dialog in DIALOGS:
        if not page.get_by_test_id(opener).is_visible():  # a narrow window shows one pane:
            page.get_by_test_id("pane-tab").first.click()  # the note list's, for its buttons
        page.get_by_test_id(opener).click()
        expect(page.get_by_test_id(dialog)).to_be_visible()
        assert out_of_reach(page, "dialog[open]") == [], f"{size}: {dialog}"
        page.keyboard.press("Escape")
        expect(page.get_by_test_id(dialog)).to_be_hidden()
    context.close()
