"""The Python `mcp` SDK's own OAuth client (`OAuthClientProvider`) through the whole flow
against a real uvicorn server (SPEC §19): discovery from the 401, registration, authorization
with PKCE and the resource, the consent page (posted by HTTP as the signed-in user, as a
browser would), the code exchange, tools within the chosen scope, refresh after expiry,
a reused refresh token ending the grant, and revocation in the token list ending the
client's next call with 401; the same for the TypeScript SDK's client (mcp_ts_oauth.mjs).
e2e/test_oauth_sdk.py runs both clients with the consent given in a real Chromium.

Runs on SQLite and on PostgreSQL (`app` is parametrized over both).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from conftest import PASSWORDS
from fastapi import FastAPI
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientMetadata,
)
from mcp_ts_oauth import TsOAuthClient, calls
from oauth_helpers import query_of
from sqlalchemy import select, update

from backend.db import utcnow
from backend.models.oauth import OAuthAccessToken, OAuthGrant, OAuthRefreshToken
from support.servers import InThreadServer
from tests.mcp_client import SDK_TIMEOUT, Memory, oauth_session_calls

REDIRECT = "http://127.0.0.1:33419/callback"


class Person:
    """The signed-in user's browser: follows the authorization URL to the consent page and
    posts the choice; the client's redirect target is read, not visited."""

    def __init__(self, base: str, username: str, scope: str, workspace: str = "") -> None:
        self.base, self.username = base, username
        self.scope, self.workspace = scope, workspace
        self.answer: dict[str, str] | None = None
        self.consents = 0
        self.willing = True
        self.pages: list[str] = []

    async def redirect(self, url: str) -> None:
        if not self.willing:
            raise RuntimeError("the person closed the consent tab")
        async with httpx2.AsyncClient(base_url=self.base, timeout=SDK_TIMEOUT) as browser:
            r = await browser.post(
                "/api/session",
                json={"username": self.username, "password": PASSWORDS[self.username]},
            )
            assert r.status_code == 200, r.text
            r = await browser.get(url)
            assert r.status_code == 302, r.text
            consent = r.headers["location"]
            page = await browser.get(consent)
            assert page.status_code == 200, page.text
            self.pages.append(page.text)
            form = dict(query_of(consent))
            form.update(
                chosen_scope=self.scope, workspace=self.workspace, folder="", decision="allow"
            )
            r = await browser.post("/oauth/consent", data=form)
            assert r.status_code == 303, r.text
            location = r.headers["location"]
            assert location.startswith(REDIRECT)
            self.answer = query_of(location)
            self.consents += 1

    async def callback(self) -> AuthorizationCodeResult:
        assert self.answer is not None
        answer, self.answer = self.answer, None
        return AuthorizationCodeResult(
            code=answer["code"], state=answer.get("state"), iss=answer.get("iss")
        )


class Agent:
    """An MCP client with the SDK's OAuth provider; records every HTTP status it gets."""

    def __init__(self, base: str, person: Person) -> None:
        self.base = base
        self.storage = Memory()
        self.statuses: list[int] = []
        self.auth = OAuthClientProvider(
            server_url=base + "/mcp",
            client_metadata=OAuthClientMetadata(
                client_name="SDK test agent",
                redirect_uris=[REDIRECT],  # type: ignore[list-item]
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=self.storage,
            redirect_handler=person.redirect,
            callback_handler=person.callback,
        )

    async def _session(self, calls: list[tuple[str, dict]]) -> list[Any]:
        done = await oauth_session_calls(self.base, self.auth, calls, self.statuses)
        return [r if isinstance(r, set) else r[1] for r in done]  # structured content only

    def run(self, *calls: tuple[str, dict]) -> list[Any]:
        return anyio.run(self._session, list(calls))


@pytest.fixture
def served(app: FastAPI) -> Iterator[str]:
    server = InThreadServer(app)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def test_the_sdk_client_connects_refreshes_and_is_stopped_by_a_revocation(app, served):
    person = Person(served, "alice", scope="write", workspace="team")
    agent = Agent(served, person)

    tools, created, elsewhere = agent.run(
        ("__list__", {}),
        ("create_note", {"workspaceId": "team", "path": "from-oauth.md", "text": "hi"}),
        ("list_documents", {"workspaceId": "personal"}),
    )
    assert {"create_note", "edit_note", "propose_edit", "read_document"} <= tools
    assert created["ok"] is True, created
    assert elsewhere["ok"] is False  # the grant reaches only team
    assert person.consents == 1 and 401 in agent.statuses  # discovery began at /mcp's 401
    assert 'data-testid="oauth-client-name">SDK test agent<' in person.pages[0]
    assert agent.storage.tokens is not None
    first_refresh = agent.storage.tokens.refresh_token

    # An hour later (moved clock): the access token has expired on both sides; the SDK
    # refreshes on its own, without asking the person again.
    _expire_access_tokens(app)
    agent.auth.context.token_expiry_time = time.time() - 1
    (read,) = agent.run(("read_document", {"workspaceId": "team", "path": "from-oauth.md"}))
    assert read["ok"] is True and "\nhi\n" in read["text"]
    assert person.consents == 1
    assert agent.storage.tokens.refresh_token != first_refresh
    with app.state.sessionmaker() as db:
        used = db.scalars(select(OAuthRefreshToken).where(OAuthRefreshToken.used_at.is_not(None)))
        assert len(used.all()) == 1

    # The person revokes the grant in the token list: the next call gets 401 (and the
    # person, asked again, does not consent).
    with httpx2.Client(base_url=served, timeout=SDK_TIMEOUT) as page:
        page.post("/api/session", json={"username": "alice", "password": PASSWORDS["alice"]})
        (grant,) = page.get("/api/tokens").json()
        assert (grant["kind"], grant["name"], grant["scope"]) == (
            "oauth",
            "SDK test agent",
            "write",
        )
        assert page.delete(f"/api/tokens/{grant['id']}").status_code == 204
    person.willing = False
    agent.statuses.clear()
    with pytest.raises(BaseException):  # noqa: B017 - the SDK's own error, from a task group
        agent.run(("__list__", {}))
    assert agent.statuses[0] == 401
    assert urlsplit(served).hostname == "127.0.0.1"


def _expire_access_tokens(app: FastAPI) -> None:
    """An hour later (moved clock): every access token has expired at the server."""
    with app.state.sessionmaker() as db:
        db.execute(update(OAuthAccessToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        db.commit()


def test_a_reused_refresh_token_is_refused_and_ends_the_sdk_clients_grant(app, served):
    person = Person(served, "alice", scope="read", workspace="team")
    agent = Agent(served, person)
    (listed,) = agent.run(("list_documents", {"workspaceId": "team"}))
    assert listed["ok"] is True and person.consents == 1
    assert agent.storage.tokens is not None
    old = agent.storage.tokens

    _expire_access_tokens(app)
    agent.auth.context.token_expiry_time = time.time() - 1
    (listed,) = agent.run(("list_documents", {"workspaceId": "team"}))
    assert listed["ok"] is True and person.consents == 1
    new = agent.storage.tokens
    assert new.refresh_token != old.refresh_token

    # The old refresh token, presented again (a copy kept by another process, or a thief):
    # the SDK's refresh with it is refused, and the person is not asked again.
    person.willing = False
    agent.storage.tokens = old
    agent.auth.context.current_tokens = old
    agent.auth.context.token_expiry_time = time.time() - 1
    agent.statuses.clear()
    with pytest.raises(BaseException):  # noqa: B017 - the SDK's own error, from a task group
        agent.run(("__list__", {}))
    assert 400 in agent.statuses  # the token endpoint's invalid_grant
    with app.state.sessionmaker() as db:
        (grant,) = db.scalars(select(OAuthGrant)).all()
        assert grant.revoked_at is not None

    # The grant is gone for the rightful holder too: the new access token and the new
    # refresh token are refused, the SDK's next call ends with 401.
    agent.storage.tokens = new
    agent.auth.context.current_tokens = new
    agent.auth.context.token_expiry_time = time.time() + 3600
    agent.statuses.clear()
    with pytest.raises(BaseException):  # noqa: B017
        agent.run(("__list__", {}))
    assert agent.statuses[0] == 401
    assert person.consents == 1


def test_the_typescript_sdk_client_connects_refreshes_and_is_stopped_by_a_revocation(app, served):
    """The official TypeScript SDK's OAuth client (npm), run by Node, through the same flow;
    the consent posted with bob's session cookie (e2e/test_oauth_sdk.py does it in Chromium)."""
    with httpx2.Client(base_url=served, timeout=SDK_TIMEOUT) as page:
        r = page.post("/api/session", json={"username": "bob", "password": PASSWORDS["bob"]})
        assert r.status_code == 200, r.text
        cookie = "; ".join(f"{k}={v}" for k, v in page.cookies.items())
        ts = TsOAuthClient(served, "read", "team", cookie=cookie)
        try:
            got = ts.next("connected")
            assert got["firstRefused"] is True and got["consentShowsClient"] is True
            assert got["tokenScope"] == "read" and got["hasRefresh"] is True
            assert set(got["tools"]) == {
                "get_active_note",
                "list_documents",
                "read_document",
                "search_notes",
                "changes_since",
            }
            assert got["listed"]["ok"] is True
            assert got["elsewhere"]["ok"] is False  # bob's grant reaches team only
            assert got["written"]["isError"] is True  # a read grant cannot write
            (grant,) = page.get("/api/tokens").json()
            assert (grant["kind"], grant["name"]) == ("oauth", "TypeScript OAuth agent")

            _expire_access_tokens(app)
            ts.send("expired")
            got = ts.next("refreshed")
            assert got["listed"]["ok"] is True and got["rotated"] is True
            assert got["consents"] == 1
            assert calls(got["seen"]) == [["/mcp", 401], ["/oauth/token", 200], ["/mcp", 200]]

            assert page.delete(f"/api/tokens/{grant['id']}").status_code == 204
            ts.send("revoked")
            got = ts.next("revoked")
            assert got["failure"] is not None and got["consents"] == 1
            assert calls(got["seen"])[:2] == [["/mcp", 401], ["/oauth/token", 400]]
            assert ["/oauth/token", 200] not in got["seen"]
        finally:
            ts.close()
