"""A user's tab never crashes on load: the page boots 30 times in one browser.

`./dev bench --smoke` once met "Target crashed" while the app booted in a context that had
already booted it (first visit, then a pop-out). Here one signed-in context keeps a page open
(a second realm beside each boot, as a pop-out is) and boots the workspace 30 more times, from
the HTTP cache like a returning user; any page error fails the test, and so does a renderer
crash unless it is the one rerun every e2e test gets after a crash (e2e/conftest.py): a crash
that the app causes comes back in the second run.
"""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from e2e.conftest import Server, new_context, sign_in, wait_ready

BOOTS = 30


def test_the_page_boots_thirty_times_in_one_browser_without_a_crash(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    crashes: list[str] = []
    errors: list[str] = []

    def watch(page) -> None:
        page.on("crash", lambda p: crashes.append(p.url))
        page.on("pageerror", lambda error: errors.append(str(error)))

    context.on("page", watch)
    first = sign_in(context.new_page(), server)  # stays open: a second realm beside each boot
    try:
        for boot in range(BOOTS):
            page = context.new_page()
            page.goto(server.url + "/")
            wait_ready(page)
            expect(page.get_by_test_id("workspace-select")).to_be_visible()
            assert crashes == [] and errors == [], (boot, crashes, errors)
            page.close()
        expect(first.get_by_test_id("workspace-select")).to_be_visible()
        assert crashes == [] and errors == []
    finally:
        context.close()
