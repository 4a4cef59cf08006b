"""The built wheel, installed in a fresh venv outside the checkout, serves a page that boots and
answers a turn: the package carries everything the page needs (web/vendor included)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from e2e.ambient_helpers import open_note, send
from e2e.conftest import sign_in, wait_ready
from support.servers import REPO as ROOT
from support.servers import free_port


@dataclass
class InstalledServer:
    """`ambient-notes --demo` from the wheel's venv; `url` is what sign_in needs."""

    url: str
    log_path: Path
    install_seconds: float
    to_page_seconds: float


def _run(args: list[str], cwd: Path, timeout: float) -> None:
    result = subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_clean_env(),
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(
            f"{' '.join(args[:3])} failed ({result.returncode}):\n"
            f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )


def _clean_env() -> dict[str, str]:
    """No checkout on the import path and no ANA_* settings leaking in from the caller."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ANA_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")
    }


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Iterator[InstalledServer]:
    if not (ROOT / "web" / "vendor" / "pyodide" / "pyodide.mjs").is_file():
        pytest.fail("web/vendor is not built; ./dev setup builds it (node web/build.mjs)")
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], work, 600)
    wheels = list(dist.glob("*.whl"))
    assert len(wheels) == 1, wheels

    venv = work / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], work, 120)
    started = time.monotonic()
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheels[0])], work, 900)
    installed_at = time.monotonic()

    # The installed package, not the checkout, is what runs.
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import backend; print(backend.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
        env=_clean_env(),
        check=True,
    ).stdout.strip()
    assert where.startswith(str(venv)), where

    port = free_port()
    log_path = work / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                str(venv / "bin" / "ambient-notes"),
                "--demo",
                "--data-dir",
                str(work / "data"),
                "--port",
                str(port),
            ],
            cwd=work,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=_clean_env(),
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(
                    f"ambient-notes exited with {process.returncode}:\n{log_path.read_text()}"
                )
            try:
                with urllib.request.urlopen(url + "/", timeout=1) as response:
                    if response.status == 200 and b"<!doctype html>" in response.read():
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"ambient-notes served no page within 60 s:\n{log_path.read_text()}")
            time.sleep(0.1)
        served = time.monotonic()
        size_mb = wheels[0].stat().st_size / 1e6
        print(
            f"\nwheel {wheels[0].name}: {size_mb:.1f} MB; "
            f"pip install {installed_at - started:.1f} s; "
            f"pip install to a served page {served - started:.1f} s"
        )
        yield InstalledServer(url, log_path, installed_at - started, served - started)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_installed_wheel_boots_from_its_own_origin(page: Page, installed: InstalledServer):
    requests: list[str] = []
    failed: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("response", lambda r: r.status == 404 and failed.append(r.url))
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(installed.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("login-username")).to_be_visible()

    origin = urlsplit(installed.url)[:2]
    foreign = [
        url
        for url in requests
        if not url.startswith(("data:", "blob:")) and urlsplit(url)[:2] != origin
    ]
    assert any(url.endswith("/pyodide/pyodide.asm.wasm") for url in requests)
    assert any(url.endswith("/pyscript/core.js") for url in requests)
    assert foreign == [] and failed == [] and errors == []


def test_installed_wheel_answers_a_turn_about_the_open_note(page: Page, installed):
    sign_in(page, installed)
    open_note(page, "welcome.md")
    turn = send(page, "summarise this")
    assert turn.headers.get("x-ambient-note"), "the page sent no pointer"
    assert "welcome.md" in turn.reply, turn.reply
