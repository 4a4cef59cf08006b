"""The page boots offline: every request goes to the app's own origin and the ready flag rises."""

from urllib.parse import urlsplit

from playwright.sync_api import Page, expect

from e2e.conftest import Server, wait_ready


def test_boot_fetches_only_from_own_origin(page: Page, server: Server) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(server.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()

    origin = urlsplit(server.url)
    foreign = [
        url
        for url in requests
        if not url.startswith(("data:", "blob:")) and urlsplit(url)[:2] != origin[:2]
    ]
    assert requests, "the page made no requests at all"
    assert any(url.endswith("/pyodide/pyodide.asm.wasm") for url in requests)
    assert foreign == []
    assert errors == []


def test_page_forbids_other_origins(page: Page, server: Server) -> None:
    response = page.goto(server.url + "/")
    assert response is not None
    csp = response.headers["content-security-policy"]
    assert "connect-src 'self'" in csp and "default-src 'self'" in csp
