"""The boot screen shows each start-up step, and a failed boot says what failed and reloads."""

from playwright.sync_api import Page, Route, expect

from e2e.conftest import Server, sign_in, wait_ready

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
    wanted = ["Downloading the app…", "Downloading Python…", "Starting Python…",
              "Loading the app…", "Signing in…"]
    assert [s for s in steps if s in wanted] == wanted, steps
    expect(page.locator("#boot-status")).to_have_count(0)  # gone once the app is drawn


def test_a_failed_download_says_what_failed_and_reload_recovers(page: Page,
                                                                 server: Server) -> None:
    def fail(route: Route) -> None:
        route.fulfill(status=503, body="unavailable")

    page.route("**/py/app.zip", fail)
    page.goto(server.url + "/")
    alert = page.get_by_test_id("boot-error")
    expect(alert).to_be_visible(timeout=60_000)
    expect(alert).to_have_attribute("role", "alert")
    expect(alert).to_contain_text("The app could not start")
    expect(alert).to_contain_text("/py/app.zip")
    assert page.evaluate("document.documentElement.dataset.ready") is None

    page.unroute("**/py/app.zip", fail)
    page.get_by_test_id("boot-reload").click()
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()
    expect(page.get_by_test_id("boot-error")).to_have_count(0)
