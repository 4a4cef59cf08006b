"""OAuth 2.1 for /mcp in a real Chromium (SPEC §19): the consent page is shown in the
signed-in browser, the person chooses and allows (or denies), the browser is sent back to
the client's loopback redirect (under the page's CSP), the client's token works at /mcp
within the choice, and Revoke in the Agents dialog ends it with 401."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
from playwright.sync_api import Page, Route, expect

from e2e.conftest import wait_ready
from support.servers import Server

REDIRECT = "http://127.0.0.1:33420/callback"


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return verifier, challenge.decode().rstrip("=")


class Client:
    """The OAuth client's side, over plain HTTP."""

    def __init__(self, server: Server) -> None:
        self.base = server.url
        self.http = httpx.Client(base_url=server.url, timeout=30)
        r = self.http.post(
            "/oauth/register",
            json={
                "client_name": "E2E agent",
                "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none",
            },
        )
        assert r.status_code == 201, r.text
        self.client_id = r.json()["client_id"]
        self.verifier = ""

    def authorize_url(self) -> str:
        self.verifier, challenge = _pkce()
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": REDIRECT,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": "e2e-state",
            "resource": self.base + "/mcp",
        }
        return f"{self.base}/oauth/authorize?{urlencode(query)}"

    def exchange(self, code: str) -> str:
        r = self.http.post(
            "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT,
                "client_id": self.client_id,
                "code_verifier": self.verifier,
                "resource": self.base + "/mcp",
            },
        )
        assert r.status_code == 200, r.text
        return r.json()["access_token"]

    def mcp(self, token: str, method: str = "tools/list", **params: object) -> httpx.Response:
        return self.http.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18",
            },
        )


def _back_at_client(page: Page) -> list[dict[str, str]]:
    """Answer the client's loopback redirect in the browser and record its query."""
    seen: list[dict[str, str]] = []

    def answer(route: Route) -> None:
        query = parse_qs(urlsplit(route.request.url).query)
        seen.append({k: v[0] for k, v in query.items()})
        route.fulfill(status=200, content_type="text/plain", body="You can close this tab.")

    page.route(REDIRECT + "**", answer)
    return seen


def test_consent_in_the_browser_then_revoke_in_the_agents_dialog(alice: Page, server: Server):
    client = Client(server)
    seen = _back_at_client(alice)

    alice.goto(client.authorize_url())
    consent = alice.get_by_test_id("oauth-consent")
    expect(consent).to_be_visible()
    expect(alice.get_by_test_id("oauth-client-name")).to_have_text("E2E agent")
    expect(consent).to_contain_text("127.0.0.1:33420")
    expect(alice.get_by_test_id("oauth-scope")).to_have_value("read")
    alice.get_by_test_id("oauth-scope").select_option("write")
    alice.get_by_test_id("oauth-workspace").select_option("personal")
    alice.get_by_test_id("oauth-allow").click()
    alice.wait_for_url(REDIRECT + "**")
    (answer,) = seen
    assert answer["state"] == "e2e-state" and answer["iss"] == server.url

    token = client.exchange(answer["code"])
    tools = {t["name"] for t in client.mcp(token).json()["result"]["tools"]}
    assert {"create_note", "edit_note"} <= tools
    r = client.mcp(
        token,
        "tools/call",
        name="list_documents",
        arguments={"workspaceId": "personal"},
    )
    assert r.json()["result"]["structuredContent"]["ok"] is True

    alice.goto(server.url + "/")
    wait_ready(alice)
    alice.get_by_test_id("sharing-open").click()
    panel = alice.get_by_test_id("sharing-panel")
    expect(panel).to_be_visible()
    row = panel.locator('[data-testid="token-row"][data-token-kind="oauth"]')
    expect(row).to_have_count(1)
    expect(row).to_contain_text("E2E agent (connected app)")
    expect(row.get_by_test_id("token-scope-shown")).to_have_text("write")
    expect(row.get_by_test_id("token-last-used")).not_to_have_text("never")
    row.get_by_test_id("token-revoke").click()
    expect(row).to_have_count(0)
    assert client.mcp(token).status_code == 401


def test_deny_sends_the_browser_back_with_access_denied(alice: Page, server: Server):
    client = Client(server)
    seen = _back_at_client(alice)
    alice.goto(client.authorize_url())
    expect(alice.get_by_test_id("oauth-consent")).to_be_visible()
    alice.get_by_test_id("oauth-deny").click()
    alice.wait_for_url(REDIRECT + "**")
    assert seen == [{"error": "access_denied", "state": "e2e-state", "iss": server.url}]
