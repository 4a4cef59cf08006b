"""Bad note paths get a clear 400 on every document route; long valid paths work everywhere."""

from __future__ import annotations

import pytest

WS = "/api/workspaces/personal/documents"

# Raw URL suffixes (already percent-encoded where needed) and what they decode to.
BAD_URL_PATHS = {
    "absolute": "%2Fetc/passwd",
    "dot": "a/%2E/b.md",
    "dotdot": "a/%2E%2E/b.md",
    "dotdot-lower": "%2e%2e/secret.md",
    "dotdot-only": "%2E%2E",
    "dot-only": "%2E",
    "backslash": "a%5Cb.md",
    "nul": "a%00b.md",
    "newline": "a%0Ab.md",
    "carriage-return": "a%0D%0AX-Injected: 1",
    "tab": "a%09b.md",
    "del": "a%7Fb.md",
    "c1-control": "a%C2%85b.md",
    "empty-segment": "a//b.md",
    "trailing-slash": "a/",
    "empty": "",
    "over-long": "/".join(["a" * 200] * 21),  # 4,220 bytes
    "over-long-segment": "s" * 256,
    "over-long-segment-utf8": "%E3%81%82" * 86,  # 86 × 3 = 258 bytes
    "invalid-utf8": "%FF%FE.md",
}


def _calls(suffix: str):
    base = f"{WS}/{suffix}"
    return [
        ("GET", base, {}),
        ("PUT", base, {"content": b"text that must not be echoed"}),
        ("PUT", base, {"content": b"x", "headers": {"If-Match": '"1"'}}),
        ("PUT", base, {"content": b"x", "headers": {"If-None-Match": "*"}}),
        ("DELETE", base, {}),
        ("POST", f"{base}/move", {"json": {"to": "ok.md"}}),
    ]


@pytest.mark.parametrize("suffix", list(BAD_URL_PATHS.values()), ids=list(BAD_URL_PATHS))
def test_bad_paths_in_the_url_are_400_on_every_route(alice_client, suffix):
    for method, target, kwargs in _calls(suffix):
        response = alice_client.request(method, target, **kwargs)
        assert response.status_code == 400, (method, target, response.status_code, response.text)
        detail = response.json()["detail"]
        assert isinstance(detail, str) and detail
        assert "must not be echoed" not in detail
    assert alice_client.get(WS).json() == []


BAD_TARGETS = {
    "absolute": "/abs.md",
    "dotdot": "../up.md",
    "dot": "./here.md",
    "backslash": "a\\b.md",
    "nul": "a\x00b.md",
    "newline": "a\nb.md",
    "empty": "",
    "over-long": "/".join(["a" * 200] * 21),
    "over-long-segment": "s" * 256,
    "lone-surrogate": "a\ud800.md",
}


@pytest.mark.parametrize("target", list(BAD_TARGETS.values()), ids=list(BAD_TARGETS))
def test_bad_move_targets_are_400(alice_client, target):
    alice_client.put(f"{WS}/a.md", content="A")
    import json

    body = json.dumps({"to": target}).encode()  # json.dumps escapes the surrogate as \ud800
    response = alice_client.post(
        f"{WS}/a.md/move", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code in (400, 422), response.text
    assert isinstance(response.json()["detail"], str)
    assert [d["path"] for d in alice_client.get(WS).json()] == ["a.md"]


def test_move_target_not_a_string_is_422(alice_client):
    alice_client.put(f"{WS}/a.md", content="A")
    for to in (None, 1, ["a"], {"a": 1}):
        assert alice_client.post(f"{WS}/a.md/move", json={"to": to}).status_code == 422


def test_longest_valid_path_works(alice_client):
    """4,096 bytes in 255-byte segments of high-entropy text: fine on SQLite and PostgreSQL."""
    import random
    import string

    rng = random.Random(7)
    segments = []
    while sum(len(s) + 1 for s in segments) < 4096:
        alphabet = string.ascii_letters + string.digits
        segments.append("".join(rng.choice(alphabet) for _ in range(255)))
    path = "/".join(segments)[:4096].rstrip("/")
    assert len(path.encode()) >= 4090
    assert alice_client.put(f"{WS}/{path}", content="deep").status_code == 201
    assert alice_client.get(f"{WS}/{path}").text == "deep"
    assert [d["path"] for d in alice_client.get(WS).json()] == [path]
    assert alice_client.put(f"{WS}/{path}", content="deeper").json()["revision"] == 2


def test_unusual_but_valid_paths_work(alice_client):
    for path in (
        "日記/今日のメモ.md",
        "with space.md",
        "a..b.md",
        ".hidden",
        "x/move",
        "emoji-😀.md",
        "percent%25sign.md",
        "q%3Fmark.md",
        "hash%23.md",
    ):
        assert alice_client.put(f"{WS}/{path}", content=path).status_code == 201, path
    listed = {d["path"] for d in alice_client.get(WS).json()}
    assert {"percent%sign.md", "q?mark.md", "hash#.md", "日記/今日のメモ.md"} <= listed
    assert alice_client.get(f"{WS}/q%3Fmark.md").text == "q%3Fmark.md"


def test_paths_are_case_sensitive_and_distinct(alice_client):
    alice_client.put(f"{WS}/Note.md", content="upper")
    alice_client.put(f"{WS}/note.md", content="lower")
    assert alice_client.get(f"{WS}/Note.md").text == "upper"
    assert alice_client.get(f"{WS}/note.md").text == "lower"


def _raw_asgi(app, method: str, raw_path: bytes, cookie: str) -> tuple[int, bytes]:
    """Call the app with an exact, un-normalised path (as `curl --path-as-is` would send it)."""
    import asyncio
    from urllib.parse import unquote

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(raw_path.decode("ascii")),
        "raw_path": raw_path,
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 1234),
        "server": ("testserver", 80),
    }
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body


@pytest.mark.parametrize(
    "raw",
    [b"a/../b.md", b"../b.md", b"./b.md", b"a/.", b"..", b"%2E%2E/b.md", b"a/%2e%2e"],
)
def test_literal_dot_segments_are_not_normalised_away(app, alice_client, raw):
    alice_client.put(f"{WS}/b.md", content="B")
    cookie = "ana_session=" + alice_client.cookies["ana_session"]
    for method in ("GET", "DELETE", "PUT"):
        status, body = _raw_asgi(app, method, f"{WS}/".encode() + raw, cookie)
        assert status == 400, (method, raw, body)
    assert alice_client.get(f"{WS}/b.md").text == "B"
