"""What the layout e2e tests check: is every control on screen reachable by the pointer?"""

from __future__ import annotations

from playwright.sync_api import Locator, Page

# Every control a pointer could aim at; the check is the one a user makes with a mouse.
CONTROLS = (
    "button, input, select, textarea, a[href], summary, [role=separator], "
    "[role=treeitem], [role=tab], [tabindex='0']"
)

COVERED_JS = """(controls) => {
    const name = (el) => el ? (el.dataset?.testid || el.tagName.toLowerCase() +
        (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '') +
        ':' + (el.textContent || '').trim().slice(0, 24)) : 'nothing';
    const bad = [];
    for (const el of document.querySelectorAll(controls)) {
        if (!el.checkVisibility({ visibilityProperty: true })) continue;
        const r = el.getBoundingClientRect();
        if (r.width < 1 || r.height < 1) continue;
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        // Off screen, or scrolled out of a scrolling box: not on screen, so not covered.
        let clipped = x < 0 || y < 0 || x >= innerWidth || y >= innerHeight;
        for (let up = el.parentElement; up && !clipped; up = up.parentElement) {
            const s = getComputedStyle(up);
            if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
            const u = up.getBoundingClientRect();
            clipped = x < u.left || x > u.right || y < u.top || y > u.bottom;
        }
        if (clipped) continue;
        const hit = document.elementFromPoint(x, y);
        if (!hit || !(hit === el || el.contains(hit))) {
            bad.push(name(el) + ' is under ' + name(hit));
        }
    }
    return bad;
}"""


def covered_controls(page: Page) -> list[str]:
    """Controls whose centre, on screen, is taken by another element."""
    return page.evaluate(COVERED_JS, CONTROLS)


def reachable(locator: Locator) -> bool:
    """The element's centre is inside the window and a click there lands on it."""
    return locator.evaluate("""(el) => {
        const r = el.getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
        const hit = document.elementFromPoint(x, y);
        return !!hit && (hit === el || el.contains(hit));
    }""")
