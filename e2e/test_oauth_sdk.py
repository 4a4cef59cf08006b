"""Real MCP clients through OAuth 2.1 with the consent given in a real Chromium (SPEC §19):
the Python `mcp` SDK's `OAuthClientProvider` and the TypeScript SDK's client (Node,
tests/integration/mcp_ts_oauth.mjs) each discover, register and send the person to the
authorization URL; the signed-in browser shows the consent page, the test picks scope and
workspace there and presses Allow, and the browser's redirect to the client's loopback
callback is caught and handed to the client. Then tools within the chosen scope, a write
refused under a read grant, refresh after expiry (the server's clock moved: its access
tokens expired in its database), and Revoke in the Agents dialog ending the client's next
call with 401."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import anyio
import anyio.to_thread
import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientMetadata,
)
from playwright.sync_api import Page, Route, expect
from sqlalchemy import create_engine, update

from backend.db import utcnow
from backend.models.oauth import OAuthAccessToken
from e2e.conftest import wait_ready
from support.servers import Server
from tests.integration.mcp_ts_oauth import TS_REDIRECT, TsOAuthClient, calls
from tests.mcp_client import Memory, oauth_session_calls

PY_REDIRECT = "http://127.0.0.1:33422/callback"
READING = {"get_active_note", "list_documents", "read_document", "search_notes", "changes_since"}


def consent_in(page: Page, redirect: str, client_name: str, scope: str, workspace: str):
    """The person in the signed-in browser: opens the authorization URL, picks `scope` and
    `workspace` on the consent page, presses Allow; answers the URL the browser was sent to."""

    def give(url: str) -> str:
        back: list[str] = []

        def caught(route: Route) -> None:
            back.append(route.request.url)
            route.fulfill(status=200, content_type="text/plain", body="You can close this tab.")

        page.route(redirect + "**", caught)
        try:
            page.goto(url)
            expect(page.get_by_test_id("oauth-consent")).to_be_visible()
            expect(page.get_by_test_id("oauth-client-name")).to_have_text(client_name)
            page.get_by_test_id("oauth-scope").select_option(scope)
            page.get_by_test_id("oauth-workspace").select_option(workspace)
            page.get_by_test_id("oauth-allow").click()
            page.wait_for_url(redirect + "**")
        finally:
            page.unroute(redirect + "**")
        (answer,) = back
        return answer

    return give


def expire_access_tokens(server: Server) -> None:
    """An hour later (moved clock): the server's access tokens have expired."""
    engine = create_engine(f"sqlite:///{server.data_dir / 'ambient.db'}")
    try:
        with engine.begin() as db:
            past = utcnow() - timedelta(seconds=1)
            db.execute(update(OAuthAccessToken).values(expires_at=past))
    finally:
        engine.dispose()


def revoke_in_agents_dialog(page: Page, server: Server, client_name: str) -> None:
    page.goto(server.url + "/")
    wait_ready(page)
    page.get_by_test_id("sharing-open").click()
    panel = page.get_by_test_id("sharing-panel")
    expect(panel).to_be_visible()
    row = panel.locator('[data-testid="token-row"][data-token-kind="oauth"]', has_text=client_name)
    expect(row).to_have_count(1)
    expect(row).to_contain_text(f"{client_name} (connected app)")
    expect(row.get_by_test_id("token-scope-shown")).to_have_text("read")
    row.get_by_test_id("token-revoke").click()
    expect(row).to_have_count(0)


class PythonAgent:
    """The Python SDK's client, run in a thread of its own (Playwright's sync API keeps this
    one): its redirect handler passes the authorization URL here, where `consent` is given in
    the browser, and its callback handler waits for the code and state the browser brought."""

    NAME = "Python SDK e2e agent"

    def __init__(self, base: str, consent: Callable[[str], str]) -> None:
        self.base, self.consent = base, consent
        self.asks: queue.Queue[str] = queue.Queue()
        self.answers: queue.Queue[str] = queue.Queue()
        self.consents = 0
        self.willing = True
        self.statuses: list[int] = []
        self.storage = Memory()
        self.auth = OAuthClientProvider(
            server_url=base + "/mcp",
            client_metadata=OAuthClientMetadata(
                client_name=self.NAME,
                redirect_uris=[PY_REDIRECT],  # type: ignore[list-item]
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=self.storage,
            redirect_handler=self._redirect,
            callback_handler=self._callback,
        )

    async def _redirect(self, url: str) -> None:
        if not self.willing:
            raise RuntimeError("the person closed the consent tab")
        self.asks.put(url)

    async def _callback(self) -> AuthorizationCodeResult:
        back = await anyio.to_thread.run_sync(self.answers.get, True, 120)
        answer = dict(httpx2.URL(back).params)
        return AuthorizationCodeResult(
            code=answer["code"], state=answer.get("state"), iss=answer.get("iss")
        )

    async def _session(self, calls: list[tuple[str, dict]]) -> list[Any]:
        return await oauth_session_calls(self.base, self.auth, calls, self.statuses)

    def run(self, *calls: tuple[str, dict]) -> list[Any]:
        """The calls in one session; a consent asked for meanwhile is given here."""
        outcome: dict[str, Any] = {}

        def client() -> None:
            try:
                outcome["results"] = anyio.run(self._session, list(calls))
            except BaseException as error:  # noqa: BLE001 - handed to the test's thread
                outcome["error"] = error

        worker = threading.Thread(target=client, daemon=True)
        worker.start()
        deadline = time.monotonic() + 120
        while worker.is_alive():
            assert time.monotonic() < deadline, "the Python SDK client did not finish"
            try:
                url = self.asks.get(timeout=0.1)
            except queue.Empty:
                continue
            self.consents += 1
            self.answers.put(self.consent(url))
        worker.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["results"]


def test_the_python_sdk_client_with_consent_in_chromium(alice: Page, server: Server):
    agent = PythonAgent(
        server.url, consent_in(alice, PY_REDIRECT, PythonAgent.NAME, "read", "personal")
    )
    tools, listed, elsewhere, written = agent.run(
        ("__list__", {}),
        ("list_documents", {"workspaceId": "personal"}),
        ("list_documents", {"workspaceId": "team"}),
        ("create_note", {"workspaceId": "personal", "path": "py-oauth.md", "text": "hi"}),
    )
    assert agent.consents == 1 and agent.statuses[0] == 401  # discovery began at the 401
    assert tools == READING
    assert listed[0] is False and listed[1]["ok"] is True
    assert elsewhere[1]["ok"] is False  # outside the grant's reach
    assert written[0] is True and written[1]["reason"] == "scope"  # a read grant cannot write
    assert agent.storage.tokens is not None and agent.storage.tokens.scope == "read"
    first_refresh = agent.storage.tokens.refresh_token

    expire_access_tokens(server)
    agent.auth.context.token_expiry_time = time.time() - 1
    (again,) = agent.run(("list_documents", {"workspaceId": "personal"}))
    assert again[1]["ok"] is True and agent.consents == 1  # refreshed, not asked again
    assert agent.storage.tokens.refresh_token != first_refresh

    revoke_in_agents_dialog(alice, server, PythonAgent.NAME)
    agent.willing = False
    agent.statuses.clear()
    with pytest.raises(BaseException):  # noqa: B017 - the SDK's own error, from a task group
        agent.run(("__list__", {}))
    assert agent.statuses[0] == 401 and agent.consents == 1


def test_the_typescript_sdk_client_with_consent_in_chromium(alice: Page, server: Server):
    name = "TypeScript OAuth agent"
    give = consent_in(alice, TS_REDIRECT, name, "read", "personal")
    ts = TsOAuthClient(server.url, "read", "personal", consent=give)
    try:
        got = ts.next("connected")
        assert got["firstRefused"] is True and got["consents"] == 1
        assert got["tokenScope"] == "read" and got["hasRefresh"] is True
        assert set(got["tools"]) == READING
        assert got["listed"]["ok"] is True
        assert got["elsewhere"]["ok"] is False  # outside the grant's reach
        assert got["written"]["isError"] is True  # a read grant cannot write

        expire_access_tokens(server)
        ts.send("expired")
        got = ts.next("refreshed")
        assert got["listed"]["ok"] is True and got["rotated"] is True
        assert got["consents"] == 1
        assert calls(got["seen"]) == [["/mcp", 401], ["/oauth/token", 200], ["/mcp", 200]]

        revoke_in_agents_dialog(alice, server, name)
        ts.send("revoked")
        got = ts.next("revoked")
        assert got["failure"] is not None and got["consents"] == 1
        assert calls(got["seen"])[:2] == [["/mcp", 401], ["/oauth/token", 400]]
    finally:
        ts.close()
