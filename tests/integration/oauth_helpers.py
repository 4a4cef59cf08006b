"""The OAuth flow by hand (the SDK client's steps), for tests/integration/test_oauth*.py."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

BASE = "http://testserver"
RESOURCE = BASE + "/mcp"
REDIRECT = "http://127.0.0.1:33418/callback"
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def register(client: Any, *uris: str, name: str = "Test agent") -> Any:
    return client.post(
        "/oauth/register",
        json={
            "client_name": name,
            "redirect_uris": list(uris or [REDIRECT]),
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
    )


@dataclass
class Flow:
    """One client's authorization by alice (or bob) through the consent page."""

    client: Any  # a signed-out TestClient: the OAuth client's side
    user: Any  # a signed-in TestClient: the person's browser
    base: str = BASE  # the server's origin (a real server's for httpx clients)
    client_id: str = ""
    verifier: str = ""
    challenge: str = ""
    state: str = ""

    def register(self) -> Flow:
        r = register(self.client)
        assert r.status_code == 201, r.text
        self.client_id = r.json()["client_id"]
        return self

    def authorize(self, **overrides: str | None) -> Any:
        """GET /oauth/authorize as the browser would; answers the response (not followed)."""
        self.verifier, self.challenge = pkce()
        self.state = secrets.token_urlsafe(8)
        params: dict[str, str | None] = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": REDIRECT,
            "code_challenge": self.challenge,
            "code_challenge_method": "S256",
            "state": self.state,
            "resource": self.base + "/mcp",
        }
        params.update(overrides)
        sent = {k: v for k, v in params.items() if v is not None}
        return self.user.get("/oauth/authorize", params=sent, follow_redirects=False)

    def consent(
        self, decision: str = "allow", scope: str = "read", workspace: str = "", folder: str = ""
    ) -> Any:
        """Authorize, show the consent page, post the user's choice; the redirect answer."""
        r = self.authorize()
        assert r.status_code == 302, r.text
        location = r.headers["location"]
        assert urlsplit(location).path == "/oauth/consent"
        page = self.user.get(location)
        assert page.status_code == 200, page.text
        form = dict(query_of(location))
        form.update(chosen_scope=scope, workspace=workspace, folder=folder, decision=decision)
        return self.user.post("/oauth/consent", data=form, follow_redirects=False)

    def code(self, **choice: str) -> str:
        r = self.consent(**choice)
        assert r.status_code == 303, r.text
        answer = query_of(r.headers["location"])
        assert answer["state"] == self.state and answer["iss"] == self.base
        return answer["code"]

    def exchange(self, code: str, **overrides: str) -> Any:
        data = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": self.client_id,
            "code_verifier": self.verifier,
            "resource": self.base + "/mcp",
        }
        data.update(overrides)
        return self.client.post("/oauth/token", data=data)

    def tokens(self, **choice: str) -> dict:
        r = self.exchange(self.code(**choice))
        assert r.status_code == 200, r.text
        return r.json()

    def refresh(self, refresh_token: str) -> Any:
        return self.client.post(
            "/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": refresh_token,
                "client_id": self.client_id,
                "resource": self.base + "/mcp",
            },
        )


def mcp(
    client: Any,
    token: str | None,
    method: str = "tools/list",
    host: str | None = None,
    **params: Any,
) -> Any:
    """One JSON-RPC request to /mcp (stateless: no initialize needed for each request)."""
    headers = dict(MCP_HEADERS)
    if host is not None:
        headers["Host"] = host
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return client.post("/mcp", json=body, headers=headers)
