"""Who may call what: 401 when signed out, 403 for non-members and cross-origin writes."""

from __future__ import annotations

import re

import pytest
from conftest import PUBLIC_ROUTES, seed_world, sign_in
from fastapi.testclient import TestClient

PUBLIC = {tuple(route.split(" ", 1)) for route in PUBLIC_ROUTES}


def _api_routes(app):
    """Every API operation, from the OpenAPI schema (which is built from the routers)."""
    for path, operations in app.openapi()["paths"].items():
        if path.startswith("/api/"):
            for method in operations:
                yield method.upper(), path


def _concrete(path: str) -> str:
    """Fill path parameters with plausible values."""
    path = path.replace("{path}", "notes/a.md")
    path = path.replace("{ws}", "personal")
    path = re.sub(r"\{conversation_?[iI]d\}", "00000000-0000-4000-8000-000000000000", path)
    return re.sub(r"\{[^}]+\}", "x", path)


def test_every_api_route_is_listed(app):
    routes = set(_api_routes(app))
    for expected in [
        ("GET", "/api/session"),
        ("DELETE", "/api/session"),
        ("GET", "/api/workspaces"),
        ("GET", "/api/workspaces/{ws}/documents"),
        ("GET", "/api/workspaces/{ws}/documents/{path}"),
        ("PUT", "/api/workspaces/{ws}/documents/{path}"),
        ("DELETE", "/api/workspaces/{ws}/documents/{path}"),
        ("POST", "/api/workspaces/{ws}/documents/{path}/move"),
        ("POST", "/api/workspaces/{ws}/key-sessions"),
    ]:
        assert expected in routes


def test_unauthenticated_gets_401_on_every_api_route(client, app):
    checked = 0
    for method, path in _api_routes(app):
        if (method, path) in PUBLIC:
            continue
        response = client.request(method, _concrete(path))
        assert response.status_code == 401, (method, path, response.text)
        assert isinstance(response.json()["detail"], str)
        checked += 1
    assert checked >= 8


def test_unauthenticated_401_even_with_a_body(client):
    response = client.put("/api/workspaces/personal/documents/a.md", content="text")
    assert response.status_code == 401
    response = client.post("/api/workspaces/personal/documents/a.md/move", json={"to": "b.md"})
    assert response.status_code == 401


def test_workspaces_lists_only_memberships(alice_client, bob_client):
    assert alice_client.get("/api/workspaces").json() == [
        {"id": "personal", "name": "Personal", "role": "owner"},
        {"id": "team", "name": "Team", "role": "owner"},
    ]
    assert [(w["id"], w["role"]) for w in bob_client.get("/api/workspaces").json()] == [
        ("bob-notes", "owner"),
        ("team", "editor"),
    ]


@pytest.mark.parametrize("workspace", ["bob-notes", "no-such-workspace"])
def test_non_member_and_unknown_workspace_get_403_everywhere(alice_client, bob_client, workspace):
    if workspace == "bob-notes":
        created = bob_client.put("/api/workspaces/bob-notes/documents/a.md", content="x")
        assert created.status_code == 201
    base = f"/api/workspaces/{workspace}"
    calls = [
        ("GET", f"{base}/documents", {}),
        ("GET", f"{base}/documents/a.md", {}),
        ("PUT", f"{base}/documents/a.md", {"content": "mine now"}),
        ("PUT", f"{base}/documents/new.md", {"content": "x"}),
        ("DELETE", f"{base}/documents/a.md", {}),
        ("POST", f"{base}/documents/a.md/move", {"json": {"to": "b.md"}}),
        ("POST", f"{base}/key-sessions", {}),
    ]
    bodies = set()
    for method, url, kwargs in calls:
        response = alice_client.request(method, url, **kwargs)
        assert response.status_code == 403, (method, url, response.text)
        bodies.add(response.json()["detail"])
    assert len(bodies) == 1  # one message: an unknown workspace looks like a forbidden one
    if workspace == "bob-notes":
        assert bob_client.get("/api/workspaces/bob-notes/documents/a.md").text == "x"


def test_shared_workspace_is_shared(alice_client, bob_client):
    created = alice_client.put("/api/workspaces/team/documents/plan.md", content="v1")
    assert created.status_code == 201
    response = bob_client.get("/api/workspaces/team/documents/plan.md")
    assert response.status_code == 200 and response.text == "v1"


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "http://testserver.evil.example"},
        {"Origin": "http://testserver:8080"},
        {"Origin": "https://testserver"},
        {"Origin": "null"},
        {"Origin": "not a url"},
        {"Referer": "https://evil.example/page"},
    ],
)
def test_cross_origin_state_changes_are_refused(alice_client, headers):
    for method, url, kwargs in [
        ("POST", "/api/session", {"json": {"username": "alice", "password": "alice-password"}}),
        ("PUT", "/api/workspaces/personal/documents/x.md", {"content": "x"}),
        ("DELETE", "/api/session", {}),
        ("POST", "/api/workspaces/personal/key-sessions", {}),
        ("PATCH", "/api/workspaces/personal/documents/x.md", {}),
    ]:
        response = alice_client.request(method, url, headers=headers, **kwargs)
        assert response.status_code == 403, (method, url, headers)
        assert "origin" in response.json()["detail"].lower()
    # Nothing happened: still signed in, no note written.
    assert alice_client.get("/api/session").status_code == 200
    assert alice_client.get("/api/workspaces/personal/documents").json() == []


def test_cross_origin_reads_are_not_blocked_by_the_guard(alice_client):
    response = alice_client.get("/api/workspaces", headers={"Origin": "https://evil.example"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Origin": "http://testserver"},
        {"Origin": "HTTP://TESTSERVER:80"},
        {"Referer": "http://testserver/some/page?q=1"},
    ],
)
def test_same_origin_or_headerless_writes_pass(alice_client, headers):
    response = alice_client.put(
        "/api/workspaces/personal/documents/x.md", content="x", headers=headers
    )
    assert response.status_code == 201


@pytest.mark.parametrize(("peer", "status"), [("127.0.0.1", 201), ("203.0.113.5", 403)])
def test_same_origin_behind_a_tls_proxy_passes_only_from_the_trusted_proxy(
    app_factory, peer, status
):
    app = app_factory(trusted_proxies="127.0.0.1")
    seed_world(app)
    client = sign_in(TestClient(app, client=(peer, 50000)), "alice")
    response = client.put(
        "/api/workspaces/personal/documents/x.md",
        content="x",
        headers={"Origin": "https://testserver", "X-Forwarded-Proto": "https"},
    )
    assert response.status_code == status


def test_same_origin_over_https_passes(app):
    client = TestClient(app, base_url="https://testserver")
    response = client.post(
        "/api/session",
        json={"username": "alice", "password": "alice-password"},
        headers={"Origin": "https://testserver"},
    )
    assert response.status_code == 200
