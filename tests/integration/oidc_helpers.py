"""A browser-like walk with httpx through a real OpenID Connect provider's sign-in forms (the
provider itself: support/oidc.py), and the app on the port its redirect URI names."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from support.oidc import CLIENT_ID, OidcProvider, start_provider  # noqa: F401 (re-exported)
from support.servers import InThreadServer


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
