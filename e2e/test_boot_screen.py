"""The boot screen shows each start-up step, and a failed boot says what failed and reloads."""

import re

from playwright.sync_api import Browser, Page, Route, expect

from e2e.conftest import Server, new_context, sign_in, wait_ready

# Records every text the boot screen's status line shows, from before the page's own scripts.
RECORD_STEPS = """(() => {
  window.__bootSteps = [];
  new MutationObserver(() => {
    const el = document.getElementById("boot-status");
    const text = el && el.textContent;
    if (text && window.__bootSteps.at(-1) !== text) window.__bootSteps.push(text);
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();"""


def test_boot_screen_shows_each_step_in_order(page: Page, server: Server) -> None:
    sign_in(page, server)  # a session cookie: this boot goes on to sign in
    page.add_init_script(RECORD_STEPS)
    page.goto(server.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("workspace-select")).to_be_visible()
    steps = page.evaluate("window.__bootSteps")
    wanted = [
        "Downloading the app…",
        "Downloading Python…",
        "Starting Python…",
        "Loading the app…",
        "Signing in…",
    ]
    assert [s for s in steps if s in wanted] == wanted, steps
    expect(page.locator("#boot-status")).to_have_count(0)  # gone once the app is drawn


def test_a_failed_download_says_what_failed_and_reload_recovers(page: Page, server: Server) -> None:
    def fail(route: Route) -> None:
        route.fulfill(status=503, body="unavailable")

    page.route("**/py/*/app.zip", fail)
    page.goto(server.url + "/")
    alert = page.get_by_test_id("boot-error")
    expect(alert).to_be_visible(timeout=60_000)
    expect(alert).to_have_attribute("role", "alert")
    expect(alert).to_contain_text("The app could not start")
    expect(alert).to_contain_text("/app.zip")
    assert page.evaluate("document.documentElement.dataset.ready") is None

    page.unroute("**/py/*/app.zip", fail)
    page.get_by_test_id("boot-reload").click()
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()
    expect(page.get_by_test_id("boot-error")).to_have_count(0)


# Records every text of the download counter next to the status line.
RECORD_BYTES = """(() => {
  window.__bootBytes = [];
  new MutationObserver(() => {
    const el = document.getElementById("boot-bytes");
    const text = el && el.textContent;
    if (text && window.__bootBytes.at(-1) !== text) window.__bootBytes.push(text);
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();"""


def test_a_slow_first_visit_shows_the_bytes_downloaded_of_the_total(
    browser: Browser, server: Server
) -> None:
    ctx = new_context(browser)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    # 40 Mbit/s, 20 ms round trips: the runtime takes seconds to arrive.
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 20,
            "downloadThroughput": 40e6 / 8,
            "uploadThroughput": 40e6 / 8,
        },
    )
    page.add_init_script(RECORD_BYTES)
    page.goto(server.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()
    seen = page.evaluate("window.__bootBytes")
    counts = [re.fullmatch(r"(\d+\.\d) of (\d+\.\d) MB", text) for text in seen]
    assert all(counts) and len(counts) >= 3, seen
    received = [float(m.group(1)) for m in counts]
    totals = {m.group(2) for m in counts}
    assert len(totals) == 1 and float(totals.pop()) > 10, seen  # one total, the whole runtime
    assert received == sorted(received) and received[0] < received[-1], seen
    expect(page.locator("#boot-bytes")).to_have_count(0)  # gone with the boot screen
    ctx.close()
