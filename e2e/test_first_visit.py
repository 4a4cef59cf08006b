"""A first visit gets the runtime compressed under hashed, immutable URLs; a repeat visit
downloads none of it again, and the page files naming those URLs are revalidated."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Response, expect

from e2e.ambient_helpers import open_note
from e2e.conftest import Server, new_context, wait_ready

HASHED = re.compile(r"^/(vendor|py)/[0-9a-f]{12}/")
# Resource timing: transferSize is 0 exactly when the HTTP cache answered without the network.
ENTRIES = """() => performance.getEntriesByType("resource").map(e => ({
  path: new URL(e.name).pathname, transfer: e.transferSize,
  encoded: e.encodedBodySize, decoded: e.decodedBodySize }))"""
LARGE = (
    "/pyodide/pyodide.asm.wasm",
    "/pyodide/python_stdlib.zip",
    "/pyodide/pyodide.asm.mjs",
    "/snapshot/pyodide.snapshot",
    "/editor/editor.js",
    "/app.zip",
    "/pyscript/core.js",
)


def _visit(browser_context, server: Server) -> tuple[list[dict], dict[str, dict]]:
    page = browser_context.new_page()
    responses: dict[str, Response] = {}

    def seen(response: Response) -> None:
        responses.setdefault(urlsplit(response.url).path, response)

    page.on("response", seen)
    page.goto(server.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()
    entries = page.evaluate(ENTRIES)
    # Reading headers lets Playwright deliver more events (the page keeps asking the server
    # after it is ready), so stop listening and read a fixed copy of what was seen.
    page.remove_listener("response", seen)
    headers = {path: response.all_headers() for path, response in list(responses.items())}
    page.close()
    return entries, headers


def test_a_repeat_visit_downloads_none_of_the_runtime(browser: Browser, server: Server) -> None:
    ctx = new_context(browser)
    first, responses = _visit(ctx, server)
    runtime = [e for e in first if e["path"].startswith(("/vendor/", "/py/"))]
    paths = {e["path"] for e in runtime}
    for large in LARGE:
        assert any(p.endswith(large) for p in paths), (large, sorted(paths))
    assert all(HASHED.match(p) for p in paths), sorted(paths)  # no unhashed runtime URL
    # PyScript's core and its error plugin only: the plugins for features the page lacks are
    # turned off for both script types, so none is fetched (nor fails to be) before Python.
    pyscript = sorted(p.rsplit("/", 1)[-1] for p in paths if "/pyscript/" in p)
    assert [re.sub(r"-[\w-]{8}\.js$", ".js", name) for name in pyscript] == [
        "core.js",
        "core.js",
        "error.js",
    ], pyscript

    for entry in runtime:
        assert entry["transfer"] > 0, entry  # a fresh context: everything over the network
        assert entry["encoded"] < entry["decoded"], entry  # and compressed
        headers = responses[entry["path"]]
        assert headers.get("content-encoding") == "br", (entry["path"], headers)
        assert "accept-encoding" in headers.get("vary", "").lower(), headers
        assert headers.get("cache-control") == "public, max-age=31536000, immutable", headers
    for naming in ("/", "/static/pyscript.json", "/static/pyodide-snapshot.mjs"):
        headers = responses[naming]
        assert headers.get("cache-control") == "no-cache" and headers.get("etag"), headers

    # The same browser comes back: the runtime comes from its cache, the page is revalidated.
    again, responses = _visit(ctx, server)
    runtime_again = [e for e in again if e["path"].startswith(("/vendor/", "/py/"))]
    assert {e["path"] for e in runtime_again} == paths  # the same hashed URLs
    refetched = [e for e in runtime_again if e["transfer"] != 0]
    assert refetched == [], refetched
    assert sum(e["transfer"] for e in runtime_again) == 0
    ctx.close()


def _get(url: str, accept: str | None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": accept} if accept else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return (
                response.status,
                {k.lower(): v for k, v in response.headers.items()},
                response.read(),
            )
    except urllib.error.HTTPError as error:
        return error.code, {}, b""


def test_each_client_gets_the_encoding_it_accepts(server: Server) -> None:
    status, _, page = _get(server.url + "/", None)
    assert status == 200
    wasm = re.search(rb'href="(/vendor/[0-9a-f]{12}/pyodide/pyodide\.asm\.wasm)"', page)
    assert wasm, "index.html names no hashed wasm URL"
    url = server.url + wasm.group(1).decode()
    _, plain, body = _get(url, None)
    assert "content-encoding" not in plain and body[:4] == b"\0asm"
    _, gz, gz_body = _get(url, "gzip, deflate")
    assert gz["content-encoding"] == "gzip" and gz_body[:2] == b"\x1f\x8b"
    _, br, br_body = _get(url, "gzip, deflate, br")
    assert br["content-encoding"] == "br" and len(br_body) < len(gz_body) < len(body)
    assert br["etag"] != gz["etag"] != plain["etag"]  # one validator per representation
    # Another build's hash is not this build's file: not found, never the new bytes.
    other = re.sub(r"/vendor/[0-9a-f]{12}/", "/vendor/000000000000/", url)
    assert _get(other, "br")[0] == 404


# Whether the page's Python has imported a module (through the App object the page exposes).
IMPORTED = """(name) => {
  const globals = window.ana_ctx.__class__.__init__.__globals__;
  return globals.get("__builtins__").get("__import__")("sys").modules.has(name);
}"""


def test_the_workspace_waits_for_a_person_and_the_factory_loads_at_low_priority(
    browser: Browser, server: Server
) -> None:
    """A sign-in page has no use for CodeMirror or the workspace's Python: it is ready without
    them, and the person's first key fetches CodeMirror (at low priority) and imports the
    workspace's modules while they type; the workspace they sign into has its editors.
    Pyodide's module factory is not needed for the first paint either: low priority."""
    ctx = new_context(browser)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    priorities: dict[str, str] = {}

    def sent(event: dict) -> None:
        path = urlsplit(event["request"]["url"]).path
        priorities.setdefault(path.rsplit("/", 1)[-1], event["request"]["initialPriority"])

    cdp.on("Network.requestWillBeSent", sent)
    page.goto(server.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()
    assert priorities["pyodide.asm.mjs"] == "Low"
    assert priorities["app.css"] == "VeryHigh"  # what the first paint does wait for
    assert "editor.js" in priorities  # the small module Python imports: key filters only
    assert "view.js" not in priorities, sorted(priorities)  # Python is ready without it
    assert "workspace.zip" not in priorities, sorted(priorities)  # and without these modules
    assert page.evaluate(IMPORTED, "app.chrome") and not page.evaluate(IMPORTED, "app.shell")

    page.get_by_test_id("login-username").press_sequentially("alice")
    page.wait_for_function(  # the request shows in Resource Timing once it has ended
        "() => performance.getEntriesByType('resource').some(e => e.name.endsWith('/view.js'))"
    )
    assert priorities["view.js"] == "Low"
    page.wait_for_function(IMPORTED, arg="app.shell")  # imported while the person types
    assert "workspace.zip" in priorities  # from its own zip, fetched then
    page.get_by_test_id("login-password").fill("alice")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("workspace-select")).to_be_visible()
    frame = open_note(page, "todo.md")  # the demo's note, in CodeMirror
    expect(frame.locator(".cm-content")).not_to_be_empty()
    # Signed in, a window is ready with everything its workspace needs.
    page.reload()
    wait_ready(page)
    assert page.evaluate(IMPORTED, "app.shell") and page.evaluate(IMPORTED, "app.frames.inbox")
    ctx.close()


@pytest.mark.parametrize("refused", ["**/editor/view.js", "**/workspace.zip"])
def test_signing_in_while_the_workspace_cannot_be_fetched_says_so(
    browser: Browser, server: Server, refused: str
) -> None:
    """CodeMirror and the workspace's Python come after the sign-in page: if either cannot be
    fetched then (the server went away), the form says so in words, and a reload, signed in,
    gets the workspace."""
    ctx = new_context(browser)
    page = ctx.new_page()
    page.route(refused, lambda route: route.abort("connectionrefused"))
    page.goto(server.url + "/")
    wait_ready(page)
    page.get_by_test_id("login-username").fill("alice")
    page.get_by_test_id("login-password").fill("alice")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("login-problem")).to_have_text(
        "Signed in, but the workspace could not be loaded: the server can't be reached. "
        "Reload the page to try again."
    )
    expect(page.get_by_test_id("workspace-select")).to_have_count(0)
    page.unroute(refused)
    page.reload()
    wait_ready(page)
    open_note(page, "todo.md")
    ctx.close()
