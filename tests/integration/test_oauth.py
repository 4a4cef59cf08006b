"""OAuth 2.1 for /mcp (SPEC §19), through HTTP as a client and a browser would drive it.

Every test runs on SQLite and on PostgreSQL (`app` is parametrized over both). The OAuth
client's side is a signed-out TestClient that runs the app's lifespan (the /mcp transport);
the person's browser is a TestClient signed in with the session cookie.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from conftest import sign_in
from fastapi import FastAPI
from fastapi.testclient import TestClient
from oauth_helpers import BASE, REDIRECT, RESOURCE, Flow, mcp, query_of, register
from sqlalchemy import select, update

from backend.db import utcnow
from backend.models.oauth import OAuthAccessToken, OAuthClient, OAuthCode, OAuthRefreshToken

READ_TOOLS = {"get_active_note", "list_documents", "read_document", "search_notes", "changes_since"}
WRITE_TOOLS = READ_TOOLS | {"propose_edit", "get_proposal", "create_note", "edit_note"}


@pytest.fixture
def agent(app: FastAPI) -> Iterator[TestClient]:
    """The OAuth client's HTTP: signed out, running the app's lifespan (for /mcp)."""
    with TestClient(app) as client:
        yield client


@pytest.fixture
def alice(app: FastAPI) -> TestClient:
    return sign_in(TestClient(app), "alice")


@pytest.fixture
def flow(agent: TestClient, alice: TestClient) -> Flow:
    return Flow(agent, alice).register()


def tool_names(client: TestClient, token: str) -> set[str]:
    r = mcp(client, token)
    assert r.status_code == 200, r.text
    return {tool["name"] for tool in r.json()["result"]["tools"]}


def call(client: TestClient, token: str, name: str, **arguments: object) -> dict:
    r = mcp(client, token, "tools/call", name=name, arguments=arguments)
    assert r.status_code == 200, r.text
    return r.json()["result"]["structuredContent"]


# --- metadata and the hint -------------------------------------------------------------------


def test_metadata_names_the_resource_and_the_endpoints(agent):
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ):
        r = agent.get(path)
        assert r.status_code == 200, r.text
        assert r.json()["resource"] == RESOURCE
        assert r.json()["authorization_servers"] == [BASE]
    meta = agent.get("/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == BASE
    assert meta["authorization_endpoint"] == BASE + "/oauth/authorize"
    assert meta["token_endpoint"] == BASE + "/oauth/token"
    assert meta["registration_endpoint"] == BASE + "/oauth/register"
    assert meta["revocation_endpoint"] == BASE + "/oauth/revoke"
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert set(meta["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    assert meta["token_endpoint_auth_methods_supported"] == ["none"]
    assert meta["response_types_supported"] == ["code"]

    r = mcp(agent, None)
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == (
        'Bearer realm="ambient-notes", '
        f'resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
    )
    assert "resource_metadata=" in mcp(agent, "ana_oat_unknown").headers["www-authenticate"]


def test_metadata_follows_the_origin_the_request_came_to(app):
    with TestClient(app, base_url="http://localhost:8123") as other:
        meta = other.get("/.well-known/oauth-protected-resource/mcp").json()
    assert meta["resource"] == "http://localhost:8123/mcp"
    assert meta["authorization_servers"] == ["http://localhost:8123"]


# --- registration (RFC 7591) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "uri",
    [
        "http://127.0.0.1:33418/callback",
        "http://localhost/cb",
        "http://[::1]:9000/cb",
        "https://claude.ai/api/mcp/auth_callback",
    ],
)
def test_registration_takes_loopback_and_https_redirects(agent, uri):
    r = agent.post(
        "/oauth/register",
        json={"client_name": "Agent", "redirect_uris": [uri], "token_endpoint_auth_method": "none"},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["redirect_uris"] == [uri]
    assert body["token_endpoint_auth_method"] == "none" and "client_secret" not in body


@pytest.mark.parametrize(
    "uri",
    [
        "http://example.com/cb",  # plain http off this machine
        "http://127.0.0.2.example.com/cb",
        "myapp://callback",
        "https://example.com/cb#fragment",
        "javascript:alert(1)",
    ],
)
def test_registration_refuses_other_redirects(agent, uri):
    r = register(agent, uri)
    assert r.status_code == 400, r.text
    assert r.json()["error"] in ("invalid_redirect_uri", "invalid_client_metadata")
    with agent.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        assert db.scalars(select(OAuthClient)).all() == []


def test_a_client_asking_for_a_secret_is_registered_public(agent):
    r = agent.post(
        "/oauth/register",
        json={"client_name": "Confidential?", "redirect_uris": [REDIRECT]},
    )
    assert r.status_code == 201, r.text
    assert r.json()["token_endpoint_auth_method"] == "none"
    assert r.json().get("client_secret") is None


def test_registration_is_rate_limited(agent):
    answers = [register(agent).status_code for _ in range(11)]
    assert answers[:10] == [201] * 10
    assert answers[10] == 429


# --- authorization: refusals ------------------------------------------------------------------


def _error_of(r) -> str:
    assert r.status_code == 302, r.text
    assert r.headers["location"].startswith(REDIRECT)
    return query_of(r.headers["location"])["error"]


def test_authorization_requires_pkce_s256_and_this_resource(flow):
    assert _error_of(flow.authorize(code_challenge=None)) == "invalid_request"
    assert _error_of(flow.authorize(code_challenge_method="plain")) == "invalid_request"
    assert _error_of(flow.authorize(resource=None)) == "invalid_target"
    assert _error_of(flow.authorize(resource="http://testserver/other")) == "invalid_target"
    assert _error_of(flow.authorize(resource="https://evil.example/mcp")) == "invalid_target"
    # An unregistered redirect is never followed: the answer goes to the person.
    r = flow.authorize(redirect_uri="http://127.0.0.1:1/elsewhere")
    assert r.status_code == 400 and "location" not in r.headers
    r = flow.authorize(client_id="00000000-0000-4000-8000-000000000000")
    assert r.status_code == 400 and "location" not in r.headers


def test_the_consent_page_shows_the_client_and_its_choices(flow):
    r = flow.authorize()
    page = flow.user.get(r.headers["location"])
    assert page.status_code == 200
    for test_id in ("oauth-consent", "oauth-client-name", "oauth-scope", "oauth-workspace"):
        assert f'data-testid="{test_id}"' in page.text
    assert 'data-testid="oauth-allow"' in page.text and 'data-testid="oauth-deny"' in page.text
    assert ">Test agent<" in page.text and "127.0.0.1:33418" in page.text
    assert ">Personal (personal)<" in page.text and ">Team (team)<" in page.text
    assert "bob-notes" not in page.text  # only alice's workspaces
    assert "<script" not in page.text
    csp = page.headers["content-security-policy"]
    assert "form-action 'self' http://127.0.0.1:33418" in csp and "script-src" not in csp


def test_signed_out_the_consent_page_asks_to_sign_in(flow, app):
    r = flow.authorize()
    signed_out = TestClient(app)
    page = signed_out.get(r.headers["location"])
    assert page.status_code == 401 and "Sign in first" in page.text
    form = dict(query_of(r.headers["location"]), decision="allow", chosen_scope="read")
    r = signed_out.post("/oauth/consent", data=form, follow_redirects=False)
    assert r.status_code == 401 and "location" not in r.headers
    with app.state.sessionmaker() as db:
        assert db.scalars(select(OAuthCode)).all() == []


def test_a_tampered_consent_post_is_refused(flow, app):
    location = flow.authorize().headers["location"]
    base = dict(query_of(location), decision="allow", chosen_scope="read")
    for change in (
        {"redirect_uri": "http://127.0.0.1:1/elsewhere"},
        {"resource": "https://evil.example/mcp"},
        {"code_challenge": "short"},
        {"client_id": "nobody"},
    ):
        r = flow.user.post("/oauth/consent", data=base | change, follow_redirects=False)
        assert r.status_code == 400 and "location" not in r.headers, change
    r = flow.user.post(
        "/oauth/consent", data=base | {"chosen_scope": "admin"}, follow_redirects=False
    )
    assert r.status_code == 400
    r = flow.user.post(
        "/oauth/consent", data=base | {"workspace": "bob-notes"}, follow_redirects=False
    )
    assert r.status_code == 403
    with app.state.sessionmaker() as db:
        assert db.scalars(select(OAuthCode)).all() == []


def test_a_cross_site_consent_post_is_refused(flow):
    location = flow.authorize().headers["location"]
    form = dict(query_of(location), decision="allow", chosen_scope="write")
    r = flow.user.post(
        "/oauth/consent",
        data=form,
        headers={"Origin": "https://evil.example"},
        follow_redirects=False,
    )
    assert r.status_code == 403


def test_deny_returns_access_denied_with_the_state(flow):
    r = flow.consent(decision="deny")
    assert r.status_code == 303
    answer = query_of(r.headers["location"])
    assert answer == {"error": "access_denied", "state": flow.state, "iss": BASE}


# --- the token endpoint -----------------------------------------------------------------------


def test_a_code_gives_tokens_with_the_chosen_scope_and_reach(flow, agent):
    tokens = flow.tokens(scope="write", workspace="team", folder="plans/")
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "write"
    assert 0 < tokens["expires_in"] <= 3600
    access = tokens["access_token"]
    assert tool_names(agent, access) == WRITE_TOOLS
    created = call(agent, access, "create_note", workspaceId="team", path="plans/a.md", text="x")
    assert created["ok"] is True, created
    outside = call(agent, access, "create_note", workspaceId="team", path="b.md", text="x")
    assert outside["ok"] is False
    other = call(agent, access, "list_documents", workspaceId="personal")
    assert other["ok"] is False
    listed = call(agent, access, "list_documents", workspaceId="team")
    assert [d["path"] for d in listed["documents"]] == ["plans/a.md"]


def test_a_read_grant_lists_only_the_reading_tools(flow, agent):
    access = flow.tokens(scope="read")["access_token"]
    assert tool_names(agent, access) == READ_TOOLS
    refused = call(agent, access, "create_note", workspaceId="personal", path="a.md", text="x")
    assert refused["ok"] is False and refused["scopeNeeded"] == "write"


def test_the_code_exchange_refuses_a_wrong_verifier_redirect_or_client(flow, app):
    code = flow.code()
    r = flow.exchange(code, code_verifier="x" * 50)
    assert (r.status_code, r.json()["error"]) == (400, "invalid_grant")
    r = flow.exchange(code, redirect_uri="http://127.0.0.1:33418/other")
    assert (r.status_code, r.json()["error"]) == (400, "invalid_request")
    other = register(flow.client).json()["client_id"]
    r = flow.exchange(code, client_id=other)
    assert (r.status_code, r.json()["error"]) == (400, "invalid_grant")
    r = flow.exchange(code)  # the refusals did not use the code up
    assert r.status_code == 200, r.text


def test_an_expired_code_is_refused(flow, app):
    code = flow.code()
    with app.state.sessionmaker() as db:
        db.execute(update(OAuthCode).values(expires_at=utcnow() - timedelta(seconds=1)))
        db.commit()
    r = flow.exchange(code)
    assert (r.status_code, r.json()["error"]) == (400, "invalid_grant")


def test_a_code_used_twice_is_refused_and_revokes_its_grant(flow, agent):
    code = flow.code()
    first = flow.exchange(code)
    assert first.status_code == 200
    again = flow.exchange(code)
    assert (again.status_code, again.json()["error"]) == (400, "invalid_grant")
    assert mcp(agent, first.json()["access_token"]).status_code == 401


def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_grant(flow, agent):
    first = flow.tokens()
    r = flow.refresh(first["refresh_token"])
    assert r.status_code == 200, r.text
    second = r.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["access_token"] != first["access_token"]
    assert second["scope"] == "read"
    assert mcp(agent, second["access_token"]).status_code == 200

    reused = flow.refresh(first["refresh_token"])
    assert (reused.status_code, reused.json()["error"]) == (400, "invalid_grant")
    assert mcp(agent, second["access_token"]).status_code == 401
    assert flow.refresh(second["refresh_token"]).status_code == 400
    assert flow.user.get("/api/tokens").json() == []


def test_an_expired_access_token_is_refused_and_refresh_gives_a_new_one(flow, agent, app):
    tokens = flow.tokens()
    with app.state.sessionmaker() as db:
        db.execute(update(OAuthAccessToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        db.commit()
    assert mcp(agent, tokens["access_token"]).status_code == 401
    fresh = flow.refresh(tokens["refresh_token"]).json()
    assert mcp(agent, fresh["access_token"]).status_code == 200


def test_secrets_are_stored_as_sha256_only(flow, app):
    tokens = flow.tokens()
    with app.state.sessionmaker() as db:
        stored = {row.token_sha256 for row in db.scalars(select(OAuthAccessToken))}
        stored |= {row.token_sha256 for row in db.scalars(select(OAuthRefreshToken))}
    for secret in (tokens["access_token"], tokens["refresh_token"]):
        assert hashlib.sha256(secret.encode()).hexdigest() in stored
        assert secret not in stored


def test_the_token_endpoint_is_rate_limited(app_factory):
    from conftest import seed_world

    app = app_factory(route_rate_limit="3/minute")
    seed_world(app)
    with TestClient(app) as agent:
        answers = [
            agent.post("/oauth/token", data={"grant_type": "refresh_token"}).status_code
            for _ in range(4)
        ]
    assert answers[3] == 429 and 429 not in answers[:3]


def test_the_revocation_endpoint_revokes_the_grant(flow, agent):
    tokens = flow.tokens()
    r = agent.post(
        "/oauth/revoke", data={"token": tokens["access_token"], "client_id": flow.client_id}
    )
    assert r.status_code == 200
    assert mcp(agent, tokens["access_token"]).status_code == 401
    assert flow.refresh(tokens["refresh_token"]).status_code == 400


# --- where an OAuth token works ---------------------------------------------------------------


def test_an_oauth_token_works_only_at_mcp(flow, app):
    access = flow.tokens(scope="write")["access_token"]
    bearer = {"Authorization": f"Bearer {access}"}
    api = TestClient(app)
    assert api.get("/api/workspaces", headers=bearer).status_code == 401
    assert api.get("/api/tokens", headers=bearer).status_code == 401
    r = api.put("/api/workspaces/personal/documents/a.md", content=b"x", headers=bearer)
    assert r.status_code == 401


def test_a_token_is_bound_to_the_resource_it_was_issued_for(flow, agent):
    access = flow.tokens()["access_token"]
    assert mcp(agent, access).status_code == 200
    assert mcp(agent, access, host="localhost:8123").status_code == 401


# --- grants in the token list -----------------------------------------------------------------


def test_grants_are_listed_beside_tokens_and_revoked_there(flow, agent, app):
    access = flow.tokens(scope="propose", workspace="team")["access_token"]
    assert mcp(agent, access).status_code == 200
    listed = flow.user.get("/api/tokens").json()
    assert len(listed) == 1
    grant = listed[0]
    assert grant["kind"] == "oauth" and grant["name"] == "Test agent"
    assert (grant["scope"], grant["workspaceId"], grant["folder"]) == ("propose", "team", None)
    assert grant["expiresAt"] is None and grant["lastUsedAt"] is not None

    bob = sign_in(TestClient(app), "bob")
    assert bob.get("/api/tokens").json() == []
    assert bob.delete(f"/api/tokens/{grant['id']}").status_code == 404
    assert mcp(agent, access).status_code == 200

    assert flow.user.delete(f"/api/tokens/{grant['id']}").status_code == 204
    assert mcp(agent, access).status_code == 401
    assert flow.user.get("/api/tokens").json() == []
    assert flow.user.delete(f"/api/tokens/{grant['id']}").status_code == 404


def test_clients_unused_for_thirty_days_are_removed(flow, app_factory, monkeypatch):
    import backend.app

    flow.tokens()
    used_at = utcnow()
    monkeypatch.setattr(backend.app, "utcnow", lambda: used_at + timedelta(days=29))
    app_factory()  # a restart on the same database 29 days on: kept
    with flow.client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        assert len(db.scalars(select(OAuthClient)).all()) == 1
    monkeypatch.setattr(backend.app, "utcnow", lambda: used_at + timedelta(days=31))
    app_factory()
    with flow.client.app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        assert db.scalars(select(OAuthClient)).all() == []
    assert flow.user.get("/api/tokens").json() == []
    r = flow.authorize()
    assert r.status_code == 400 and urlsplit(r.headers.get("location", "")).path == ""


def test_no_secret_reaches_a_log_line(flow, agent):
    from reliability_helpers import all_logs, server_lines

    with all_logs(force=True) as logs:
        code = flow.code(scope="write")
        tokens = flow.exchange(code).json()
        assert mcp(agent, tokens["access_token"]).status_code == 200
        fresh = flow.refresh(tokens["refresh_token"]).json()
        flow.refresh(tokens["refresh_token"])  # a reuse: logged as such, without the token
    text = "\n".join(server_lines(logs.getvalue()))
    assert "refresh token reused" in text
    secrets = (code, tokens["access_token"], tokens["refresh_token"], fresh["refresh_token"])
    for secret in secrets:
        assert secret not in text
        assert secret[8:20] not in text
    assert flow.verifier not in text


def test_a_web_page_elsewhere_may_register_and_get_tokens_but_not_consent(flow, agent):
    """Browser-based clients (an MCP inspector page) call the cookieless endpoints across
    origins (CORS); the consent, which rides on the session cookie, stays same-origin only."""
    page = {"Origin": "http://localhost:6274"}
    r = agent.post(
        "/oauth/register",
        json={"client_name": "Inspector", "redirect_uris": ["http://localhost:6274/cb"]},
        headers=page,
    )
    assert r.status_code == 201, r.text
    assert r.headers["access-control-allow-origin"] == "*"
    code = flow.code()
    r = agent.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": flow.client_id,
            "code_verifier": flow.verifier,
            "resource": RESOURCE,
        },
        headers=page,
    )
    assert r.status_code == 200, r.text
    preflight = agent.options(
        "/oauth/token",
        headers=page | {"Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 200
    location = flow.authorize().headers["location"]
    form = dict(query_of(location), decision="allow", chosen_scope="read")
    r = flow.user.post("/oauth/consent", data=form, headers=page, follow_redirects=False)
    assert r.status_code == 403
