"""End-to-end fixtures: a real serve.py on a free port and Debian's Chromium, launched by path."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.serve_helpers import ServeProcess, free_port

ROOT = Path(__file__).resolve().parent.parent

# Nothing may leave the machine: every host name but localhost resolves to nothing.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]
READY = "document.documentElement.dataset.ready === 'true'"
READY_TIMEOUT_MS = 60_000

expect.set_options(timeout=15_000)


def chromium_path() -> str:
    path = os.environ.get("ANA_CHROMIUM") or shutil.which("chromium")
    if not path:
        pytest.fail("Debian's chromium is not installed; ./dev setup installs it")
    return path


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict:
    return {"executable_path": chromium_path(), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args() -> dict:
    return {"viewport": {"width": 1280, "height": 800}, "locale": "en-US"}


@dataclass
class Server:
    """A serve.py process; `log()` is its output so far, printed when something fails."""

    data_dir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    env: dict = field(default_factory=dict)  # extra ANA_* settings, e.g. a fake model server
    _serving: ServeProcess | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir.parent / f"server-{self.port}.log"

    def start(self) -> Server:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._serving = ServeProcess(
            "--demo",
            "--data-dir",
            str(self.data_dir),
            port=self.port,
            log_path=self.log_path,
            env={**os.environ, **self.env},
            start_seconds=30,
        )
        self.process = self._serving.process
        return self

    def stop(self) -> None:
        if self._serving is not None:
            self._serving.stop()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def db(self) -> sqlite3.Connection:
        """A read connection to the server's real SQLite file, to observe what it stored."""
        connection = sqlite3.connect(self.data_dir / "ambient.db", timeout=5)
        connection.row_factory = sqlite3.Row
        return connection

    def delivery_row(self, conversation_id: str) -> sqlite3.Row | None:
        with self.db() as connection:
            return connection.execute(
                "SELECT * FROM agent_delivery_credentials WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()


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
