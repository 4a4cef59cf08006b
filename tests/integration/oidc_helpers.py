"""A real OpenID Connect provider for the tests (tests/integration/oidc_provider.mjs, the
`oidc-provider` npm package) and a browser-like walk through its sign-in forms with httpx."""

from __future__ import annotations

import html
import json
import os
import re
import secrets
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from support.servers import REPO, InThreadServer, free_port

SCRIPT = Path(__file__).with_name("oidc_provider.mjs")
CLIENT_ID = "ambient-notes-test"


@dataclass
class OidcProvider:
    """The provider process; `issuer`, the client's id and secret, and the app port its one
    redirect URI names (start the app there: `AppServer`)."""

    process: subprocess.Popen[bytes]
    issuer: str
    client_secret: str
    app_port: int
    log_path: Path
    client_id: str = CLIENT_ID

    def settings(self, **more: Any) -> dict[str, Any]:
        """The app settings that point at this provider."""
        return {
            "oidc_issuer": self.issuer,
            "oidc_client_id": self.client_id,
            "oidc_client_secret": self.client_secret,
            **more,
        }

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_provider(
    accounts: dict[str, dict[str, Any]], *, log_dir: Path, seconds: float = 30
) -> OidcProvider:
    """Start oidc_provider.mjs on a free port, for an app that will listen on another free
    port; returns once its discovery document answers (or fails with its log)."""
    port, app_port = free_port(), free_port()
    secret = secrets.token_urlsafe(24)
    log_path = log_dir / f"oidc-provider-{port}.log"
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [
                "node",
                str(SCRIPT),
                str(port),
                CLIENT_ID,
                f"http://127.0.0.1:{app_port}/api/oidc/callback",
                json.dumps(accounts),
            ],
            cwd=REPO,
            env={
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "OIDC_TEST_CLIENT_SECRET": secret,
                "NODE_ENV": "test",
            },
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    provider = OidcProvider(process, f"http://localhost:{port}", secret, app_port, log_path)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the OpenID provider exited:\n{provider.log()}")
        try:
            url = f"{provider.issuer}/.well-known/openid-configuration"
            if httpx.get(url, timeout=2).status_code == 200:
                return provider
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    provider.stop()
    raise RuntimeError(f"the OpenID provider did not answer in {seconds:.0f} s:\n{provider.log()}")


class AppServer(InThreadServer):
    """`InThreadServer` on a port chosen beforehand (the one the provider's redirect URI names)."""

    def __init__(self, app, port: int) -> None:
        super().__init__(app)
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.server.config.port = port


_FORM = re.compile(
    r"<form\b[^>]*\baction=\"([^\"]*)\"[^>]*>(.*?)</form>", re.DOTALL | re.IGNORECASE
)
_INPUT = re.compile(r"<input\b([^>]*)>", re.IGNORECASE)
_ATTR = re.compile(r"(\w+)=\"([^\"]*)\"")
_ABORT = re.compile(r"href=\"([^\"]*/abort)\"", re.IGNORECASE)


@dataclass
class Outcome:
    """Where the app sent the browser at the end (`location`, e.g. "/" or
    "/#signin-error=domain") and every URL the walk visited."""

    location: str
    visited: list[str]


def walk_sign_in(
    client: httpx.Client,
    app_url: str,
    *,
    login: str,
    consent: bool = True,
    tamper=None,
    max_steps: int = 20,
) -> Outcome:
    """Click the app's sign-in button and go through the provider's forms as a browser would:
    redirects followed by hand, the login form filled with `login` (any password), the consent
    form accepted (or its abort link followed when `consent` is False). `tamper(url)` may
    rewrite the URL of the redirect to the provider. Ends at the first redirect back into the
    page (a location outside /api/oidc/)."""
    url = f"{app_url}/api/oidc/login"
    method, data = "GET", None
    visited: list[str] = []
    for _ in range(max_steps):
        visited.append(url)
        response = client.request(method, url, data=data)
        method, data = "GET", None
        if response.is_redirect:
            target = urljoin(url, response.headers["location"])
            if target.startswith(app_url) and not urlsplit(target).path.startswith("/api/oidc/"):
                return Outcome(response.headers["location"], visited)
            if tamper is not None and urlsplit(url).path == "/api/oidc/login":
                target = tamper(target)
            url = target
            continue
        assert response.status_code == 200, (url, response.status_code, response.text[:500])
        if not consent:
            abort = _ABORT.search(response.text)
            if abort and "consent" in response.text:
                url = urljoin(url, html.unescape(abort.group(1)))
                continue
        form = _FORM.search(response.text)
        assert form, f"no form at {url}: {response.text[:500]}"
        fields: dict[str, str] = {}
        for attrs in _INPUT.findall(form.group(2)):
            values = {k.lower(): html.unescape(v) for k, v in _ATTR.findall(attrs)}
            name = values.get("name")
            if name == "login":
                fields[name] = login
            elif name == "password":
                fields[name] = "any-password"
            elif name:
                fields[name] = values.get("value", "")
        url = urljoin(url, html.unescape(form.group(1)))
        method, data = "POST", fields
    raise AssertionError(f"sign-in did not come back to the app: {visited}")
