"""The page boots offline: every request goes to the app's own origin and the ready flag rises."""

import io
import zipfile
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect

from backend.delivery.runtime import STUB_MARK
from e2e.conftest import Server, wait_ready
from support.browser import RESTORE_BESIDE_THE_PAGE


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


def _boot_reading(page: Page, server: Server, suffix: str) -> bytes:
    """Boot the sign-in page without an error; the body of the runtime file ending in `suffix`."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    with page.expect_response(lambda r: r.url.endswith(suffix)) as served:
        page.goto(server.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()
    expect(page.get_by_test_id("boot-error")).to_have_count(0)
    assert errors == []
    return served.value.body()


def test_the_app_imports_from_the_stdlib_zip_whose_snapshot_modules_are_stubs(
    page: Page, server: Server
) -> None:
    """app.api imports pyodide.http, which the snapshot leaves out: it comes from the zip."""
    served = _boot_reading(page, server, "/python_stdlib.zip")
    with zipfile.ZipFile(io.BytesIO(served)) as stdlib:
        assert stdlib.read("json/__init__.py").startswith(STUB_MARK.encode())
        assert b"async def pyfetch(" in stdlib.read("pyodide/http/_pyfetch.py")
        assert "csv.py" not in stdlib.namelist()  # in python_stdlib_rest.zip, on demand


def test_the_app_boots_from_bytecode_without_the_sources_it_replaces(
    page: Page, server: Server
) -> None:
    """The bundle carries .pyc files in place of the sources compiled at build, and none of
    markdown-it's, which the snapshot holds imported; the page boots from exactly that."""
    served = _boot_reading(page, server, "/app.zip")
    with zipfile.ZipFile(io.BytesIO(served)) as bundle:
        names = set(bundle.namelist())
    assert {"app/boot.pyc", "app/__init__.pyc", "ambient/store.pyc"} <= names
    assert not {"app/boot.py", "app/__init__.py", "ambient/store.py"} & names
    assert not [name for name in names if name.startswith("markdown_it/main.")]


# A second interpreter beside the page's: its finder uses the page's fetch of the rest
# (web/static/pyodide-snapshot.mjs).
IMPORT_FROM_THE_REST = (
    "async () => {"
    + RESTORE_BESIDE_THE_PAGE
    + """
  const before = [...globalThis.anaStdlibOnDemand];
  const rows = pyodide.runPython(`
import csv, io, difflib
rows = list(csv.reader(io.StringIO("a,b\\\\n1,2\\\\n")))
str(rows) + " " + csv.__file__
`);
  const asked = [...globalThis.anaStdlibOnDemand];
  globalThis.anaStdlibOnDemand.length = 0; // asked on purpose: not the app's own import
  return { before, rows, asked };
}"""
)


def test_a_module_left_out_of_the_start_zip_is_fetched_once_when_imported(
    page: Page, server: Server
) -> None:
    rest: list[str] = []
    page.on("request", lambda r: rest.append(r.url) if "python_stdlib_rest" in r.url else None)
    page.goto(server.url + "/")
    wait_ready(page)
    assert rest == []  # the page itself never needs the rest
    result = page.evaluate(IMPORT_FROM_THE_REST)
    assert result["before"] == []
    assert result["rows"].startswith("[['a', 'b'], ['1', '2']] ")
    assert result["rows"].endswith("/python_stdlib_rest.zip/csv.py")
    assert result["asked"] == ["csv"]  # one fetch, for the first module that needed it
    assert len(rest) == 1 and "/vendor/" in rest[0]
