"""No input gets a 500, every error is `{"detail": "<sentence>"}`, and the OpenAPI is accurate."""

from __future__ import annotations

import json

from conftest import PUBLIC_ROUTES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.errors import ErrorOut

WS = "/api/workspaces/personal/documents"


def _assert_error_json(response):
    assert response.status_code < 500, (response.status_code, response.text)
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"detail"} and isinstance(body["detail"], str) and body["detail"]


BAD_BODIES = [
    b"",
    b"null",
    b"[]",
    b"{",
    b'{"to": null}',
    b'{"to": {"$ne": 1}}',
    b'{"username": "a", "password": "b", "extra": 1}',
    b"\xff\xfe\x00",
    json.dumps({"to": "a" * 100_000}).encode(),
    json.dumps({"username": "x" * 10_000, "password": "y" * 10_000}).encode(),
    b"[" * 5000 + b"]" * 5000,
]
BAD_HEADERS = [
    {},
    {"Content-Type": "application/json"},
    {"Content-Type": "text/plain; charset=latin-1"},
    {"Content-Type": "multipart/form-data; boundary=x"},
    {"If-Match": '"\u00e9"'.encode()},
    {"If-Match": '"99999999999999999999999"'},
    {"If-None-Match": "garbage"},
    {"Content-Length": "-1"},
    {"Cookie": "ana_session=" + "z" * 4000},
    {"Origin": "http://testserver", "Referer": "javascript:alert(1)"},
]


def test_no_route_answers_500_to_bad_input(alice_client):
    alice_client.put(f"{WS}/exists.md", content="x")
    targets = [
        ("POST", "/api/session"),
        ("GET", "/api/session"),
        ("DELETE", "/api/session"),
        ("GET", "/api/workspaces"),
        ("GET", WS),
        ("GET", f"{WS}/exists.md"),
        ("PUT", f"{WS}/exists.md"),
        ("PUT", f"{WS}/new.md"),
        ("DELETE", f"{WS}/nothing.md"),
        ("POST", f"{WS}/exists.md/move"),
        ("POST", "/api/workspaces/personal/key-sessions"),
        ("PATCH", f"{WS}/exists.md"),
        ("GET", "/api/nope"),
    ]
    checked = 0
    for method, url in targets:
        for body in BAD_BODIES:
            for headers in BAD_HEADERS:
                if headers.get("Content-Length") and body:
                    continue
                response = alice_client.request(method, url, content=body, headers=headers)
                _assert_error_json(response)
                checked += 1
    assert checked > 1000


def test_query_strings_are_ignored(alice_client):
    response = alice_client.get(f"{WS}?limit=%00&x[]=1&" + "a=" * 2000)
    assert response.status_code == 200


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(path=st.text(min_size=0, max_size=300), text=st.text(max_size=200))
def test_any_path_and_text_is_saved_or_refused_cleanly(alice_client, path, text):
    from urllib.parse import quote

    url = f"{WS}/{quote(path, safe='', errors='surrogatepass')}"
    response = alice_client.put(url, content=text.encode("utf-8", "surrogatepass"))
    _assert_error_json(response)
    if response.status_code in (200, 201):
        got = alice_client.get(url)
        assert got.status_code == 200 and got.text == text


def test_method_not_allowed_and_unknown_routes_are_json(alice_client):
    for method, url in (("PATCH", f"{WS}/a.md"), ("PUT", "/api/workspaces"), ("GET", "/api/x")):
        response = alice_client.request(method, url)
        assert response.status_code in (404, 405)
        _assert_error_json(response)


def test_openapi_declares_models_and_errors(app):
    schema = app.openapi()
    components = schema["components"]["schemas"]
    assert "ErrorOut" in components
    assert "HTTPValidationError" not in components  # 422s use ErrorOut too
    assert set(components["ErrorOut"]["properties"]) == set(ErrorOut.model_fields)
    api_ops = [
        (path, method, op)
        for path, ops in schema["paths"].items()
        if path.startswith("/api/")
        for method, op in ops.items()
    ]
    assert len(api_ops) >= 10
    for path, method, op in api_ops:
        responses = op["responses"]
        success = [code for code in responses if code.startswith("2")]
        assert success, (path, method)
        for code in success:
            if code != "204":
                assert responses[code].get("content"), (path, method, code)
        for code, response in responses.items():
            if code.startswith("4"):
                ref = response["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorOut"), (path, method, code)
        # Signing in, its providers and first-run setup come before any sign-in (SPEC §17).
        protected = f"{method.upper()} {path}" not in PUBLIC_ROUTES
        if protected and not path.startswith("/api/assistant"):
            assert "401" in responses, (path, method)
        if "{ws}" in path:
            assert "403" in responses, (path, method)


def test_openapi_documents_the_document_api_precisely(app):
    paths = app.openapi()["paths"]
    doc = paths["/api/workspaces/{ws}/documents/{path}"]
    assert "text/markdown" in doc["get"]["responses"]["200"]["content"]
    assert "text/markdown" in doc["put"]["requestBody"]["content"]
    assert {"409", "412", "413", "400"} <= set(doc["put"]["responses"])
    headers = {p["name"].lower() for p in doc["put"]["parameters"] if p["in"] == "header"}
    assert {"if-match", "if-none-match"} <= headers
    listing = paths["/api/workspaces/{ws}/documents"]["get"]["responses"]["200"]
    item = listing["content"]["application/json"]["schema"]["items"]["$ref"].rsplit("/", 1)[1]
    props = app.openapi()["components"]["schemas"][item]["properties"]
    assert set(props) == {"path", "bytes", "revision", "updatedAt"}
    assert "409" in paths["/api/workspaces/{ws}/documents/{path}/move"]["post"]["responses"]
    key = paths["/api/workspaces/{ws}/key-sessions"]["post"]["responses"]["201"]
    key_ref = key["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert set(app.openapi()["components"]["schemas"][key_ref]["properties"]) == {"id", "expiresAt"}


UNSTORABLE = ["\x00", "a\x00b", "\ud800", "x\udfff"]


def _json(value) -> bytes:
    return json.dumps(value).encode()  # escapes NUL as \u0000 and surrogates as \ud800


def test_unstorable_text_anywhere_is_refused_cleanly(alice_client, client):
    """NUL (which PostgreSQL text cannot hold) and lone surrogates never reach a 500."""
    headers = {"Content-Type": "application/json"}
    for bad in UNSTORABLE:
        response = client.post(
            "/api/session", content=_json({"username": bad, "password": "x"}), headers=headers
        )
        assert response.status_code in (401, 422), response.text  # pydantic refuses surrogates
        _assert_error_json(response)
        response = client.post(
            "/api/session",
            content=_json({"username": "alice", "password": bad}),
            headers=headers,
        )
        assert response.status_code in (401, 422), response.text
        _assert_error_json(response)
        response = alice_client.post(f"{WS}/a.md/move", content=_json({"to": bad}), headers=headers)
        _assert_error_json(response)
        assert response.status_code in (400, 404, 422)
    for ws in ("%00", "a%00b", "%ED%A0%80", "%FF", "x" * 300):
        for method, suffix in (
            ("GET", "/documents"),
            ("GET", "/documents/a.md"),
            ("PUT", "/documents/a.md"),
            ("POST", "/key-sessions"),
        ):
            response = alice_client.request(method, f"/api/workspaces/{ws}{suffix}", content=b"x")
            assert response.status_code in (400, 403), (ws, method, suffix, response.text)
            _assert_error_json(response)


def test_non_utf8_json_body_is_422_not_an_undocumented_400(client, alice_client):
    for target in (client.post, alice_client.post):
        response = target(
            "/api/session",
            content=b'{"username": "\xff"}',
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 422
        _assert_error_json(response)
    response = alice_client.post(
        f"{WS}/a.md/move", content=b'{"to": "\xff"}', headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422


def test_passwords_with_surrogates_can_be_set_and_checked(app):
    from backend.services.users import Passwords

    passwords = Passwords(app.state.passwords.hasher)
    hashed = passwords.hash("pa\ud800ss")
    assert passwords.verify(hashed, "pa\ud800ss")
    assert not passwords.verify(hashed, "pass")
