"""The sign-in form is plain HTML (web/index.html, web/static/signin-early.js): a person types
and signs in while Python loads, and the Python app adopts the form when it is ready (issue 35).

Python is held back by holding the interpreter's WebAssembly until the test lets it through,
on a slowed network (1.6 Mbit/s, 150 ms round trips) where the app takes long to arrive."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, CDPSession, Page, Route, expect

from e2e.conftest import Server, new_context, wait_ready
from e2e.test_accessibility import audit

WASM = "**/pyodide.asm.wasm"
NOT_READY = "document.documentElement.dataset.ready !== 'true'"


class Held:
    """A page whose Python cannot start until `release()`, on a slow network until then."""

    def __init__(self, page: Page, cdp: CDPSession) -> None:
        self.page, self.cdp = page, cdp
        self.routes: list[Route] = []
        self.released = False
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": 150,
                "downloadThroughput": 1.6e6 / 8,
                "uploadThroughput": 750e3 / 8,
            },
        )
        page.route(WASM, self._hold)

    def _hold(self, route: Route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def not_ready(self) -> None:
        assert self.page.evaluate(NOT_READY), "Python became ready while it was held back"

    def release(self) -> None:
        self.cdp.send(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        self.released = True
        for route in self.routes:
            route.continue_()
        self.page.unroute(WASM, self._hold)


@pytest.fixture
def held(browser: Browser) -> Iterator[Held]:
    context = new_context(browser)
    page = context.new_page()
    yield Held(page, context.new_cdp_session(page))
    context.close()


def open_page(held: Held, server: Server) -> Page:
    page = held.page
    page.goto(server.url + "/", wait_until="commit")
    expect(page.get_by_test_id("login-username")).to_be_visible()
    expect(page.get_by_test_id("login-submit")).to_be_enabled()
    held.not_ready()
    return page


def test_signing_in_before_python_is_ready_opens_the_workspace_when_it_is(
    held: Held, server: Server
) -> None:
    page = open_page(held, server)
    expect(page.locator("form")).to_have_count(1)
    assert audit(page, "the sign-in form before Python") == []
    page.get_by_test_id("login-username").fill("alice")
    page.get_by_test_id("login-password").fill("alice")
    page.get_by_test_id("login-submit").click()
    loading = page.get_by_test_id("signin-loading")
    expect(loading).to_have_text("Signed in. Your workspace is still loading…")
    expect(page.get_by_test_id("login-problem")).to_be_hidden()
    held.not_ready()  # signing in waited for nothing the person can see

    held.release()
    wait_ready(page)
    expect(page.get_by_test_id("workspace-select")).to_be_visible()
    expect(page.get_by_test_id("login-username")).to_have_count(0)
    expect(loading).to_have_count(0)


def test_a_wrong_password_before_python_says_so_in_words(held: Held, server: Server) -> None:
    page = open_page(held, server)
    page.get_by_test_id("login-username").fill("bob")
    page.get_by_test_id("login-password").fill("not bob's")
    page.get_by_test_id("login-submit").click()
    problem = page.get_by_test_id("login-problem")
    expect(problem).to_have_text("The username or password is not correct.")
    expect(problem).to_have_attribute("role", "alert")
    expect(page.get_by_test_id("login-password")).to_be_focused()
    held.not_ready()
    page.get_by_test_id("login-password").fill("bob")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("signin-loading")).to_contain_text("still loading")
    expect(problem).to_be_hidden()
    held.release()
    wait_ready(page)
    expect(page.get_by_test_id("workspace-select")).to_be_visible()


def test_python_adopts_a_half_filled_form_instead_of_drawing_another(
    held: Held, server: Server
) -> None:
    page = open_page(held, server)
    page.get_by_test_id("login-username").fill("alice")
    page.evaluate("document.getElementById('login-username').dataset.mark = 'typed early'")
    held.release()
    wait_ready(page)
    # The same element, still holding what was typed: no second form replaced it.
    username = page.get_by_test_id("login-username")
    expect(username).to_have_count(1)
    expect(username).to_have_attribute("data-mark", "typed early")
    expect(username).to_have_value("alice")
    expect(page.locator("#boot-status")).to_have_count(0)
    page.get_by_test_id("login-password").fill("wrong password")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("login-problem")).to_have_text(
        "The username or password is not correct."
    )
    page.get_by_test_id("login-password").fill("alice")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("workspace-select")).to_be_visible()

    # Signing out draws Python's own form; it signs in as before.
    page.get_by_test_id("sign-out").click()
    expect(page.get_by_test_id("login-username")).to_be_visible()
    expect(page.locator("#early-signin")).to_have_count(0)
    page.get_by_test_id("login-username").fill("alice")
    page.get_by_test_id("login-password").fill("alice")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("workspace-select")).to_be_visible()


def test_with_a_session_cookie_no_sign_in_form_shows_before_the_app(
    browser: Browser, server: Server
) -> None:
    context = new_context(browser)
    page = context.new_page()
    response = page.request.post(
        server.url + "/api/session", data={"username": "alice", "password": "alice"}
    )
    assert response.ok
    page.goto(server.url + "/", wait_until="commit")
    page.wait_for_selector("#app", state="attached")
    assert page.locator("#early-signin").count() == 0
    wait_ready(page)
    expect(page.get_by_test_id("workspace-select")).to_be_visible()
    context.close()
