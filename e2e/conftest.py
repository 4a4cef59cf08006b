"""End-to-end fixtures: a real serve.py on a free port and Debian's Chromium, launched by path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError

from support.browser import CHROMIUM_ARGS, READY, READY_TIMEOUT_MS, chromium_path
from support.servers import Server

expect.set_options(timeout=15_000)

# Chromium's renderer crashes ("Target crashed") about once in several hundred starts of a
# Pyodide page on a loaded machine, in any test, and no cause in the app has been found
# (README, Tests). A test whose page crashed runs once more; any other failure, or a
# second crash, fails it, and pytest's summary counts the rerun.
RENDERER_CRASH = r"^Error: .*\b(Target|Page) crashed"


def pytest_collection_modifyitems(config, items) -> None:
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here) and item.get_closest_marker("flaky") is None:
            item.add_marker(pytest.mark.flaky(reruns=1, only_rerun=[RENDERER_CRASH]))


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict:
    return {"executable_path": chromium_path(), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args() -> dict:
    return {"viewport": {"width": 1280, "height": 800}, "locale": "en-US"}


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Iterator[Server]:
    """One demo server for the session; tests that change shared notes use their own names."""
    srv = Server(tmp_path_factory.mktemp("server") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture
def fresh_server(tmp_path) -> Iterator[Server]:
    """A server of the test's own, for tests that stop it or need untouched demo data."""
    srv = Server(tmp_path / "data").start()
    yield srv
    srv.stop()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for name in ("fresh_server", "server"):
            srv = item.funcargs.get(name)
            if isinstance(srv, Server):
                report.sections.append((f"{name} log (tail)", srv.log()[-6000:]))


@pytest.fixture(autouse=True)
def no_stdlib_on_demand(request) -> Iterator[None]:
    """Fail a test whose page imported a standard-library module the start zip lacks.

    Such a module comes from python_stdlib_rest.zip through a synchronous request that holds
    the page (web/stdlib_rest.py); what the app imports belongs in web/runtime.json's
    `stdlib_after_snapshot`. Checked on the test's `page`, at the end of the test.
    """
    page = request.getfixturevalue("page") if "page" in request.fixturenames else None
    yield
    if page is None or page.is_closed():
        return
    try:
        names = page.evaluate("globalThis.anaStdlibOnDemand || []")
    except PlaywrightError:  # the page is mid-navigation or gone: nothing to read
        return
    assert names == [], f"imported from the stdlib's rest, on demand: {names}"


def wait_ready(page: Page) -> None:
    page.wait_for_function(READY, timeout=READY_TIMEOUT_MS)


def sign_in(page: Page, server: Server, user: str = "alice") -> Page:
    page.goto(server.url + "/")
    wait_ready(page)
    page.get_by_test_id("login-username").fill(user)
    page.get_by_test_id("login-password").fill(user)
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("workspace-select")).to_be_visible()
    return page


def put_note(page: Page, server: Server, path: str, text: str = "# n\n") -> None:
    """Create or overwrite a note in the personal workspace through the real API, with the
    page's own session cookie (the text defaults to a one-line heading)."""
    response = page.request.put(
        f"{server.url}/api/workspaces/personal/documents/{path}",
        data=text.encode(),
        headers={"Content-Type": "text/markdown"},
    )
    assert response.ok, response.text()


@pytest.fixture
def alice(page: Page, server: Server) -> Page:
    """Alice signed in on the shared server, in the default 1280x800 window."""
    return sign_in(page, server)


def new_context(browser: Browser, **kwargs) -> BrowserContext:
    return browser.new_context(viewport={"width": 1280, "height": 800}, **kwargs)
