"""A whole session with a canary in a note: it may come back only through authorised reads.

In process, on SQLite and PostgreSQL: sign in, save the note, send turns with a valid pointer,
call every tool, trigger errors (bad paths, stale If-Match, oversized and non-UTF-8 bodies).
The canary must then be in no response header, no error body, no URL, no delivery-table
column (nor the other credential tables) and no log line at DEBUG.
"""

from __future__ import annotations

import json
import logging

from conftest import seed_world, sign_in
from fastapi import FastAPI
from fastapi.testclient import TestClient
from reliability_helpers import (
    TOOLS,
    all_logs,
    call_tool,
    header_for,
    new_id,
    pointer,
    server_lines,
    turn,
)
from sqlalchemy import select

from backend.models import AgentDeliveryCredential, Conversation, KeySession, UserSession

# The ASCII core catches escaped forms (\\u...) of the rest in any JSON output.
CORE = "zq9CANARYx7"
CANARY = f"{CORE}-秘密のノート-🦜"
NOTE = f"# Launch\n\nThe code word is {CANARY}.\n\n- [ ] tell nobody\n"
URL = "/api/workspaces/personal/documents/secret/launch.md"


class Recorder:
    """Every request and response the session makes, through httpx's event hooks."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, list[tuple[str, str]]]] = []
        self.responses: list = []

    def attach(self, client: TestClient) -> TestClient:
        client.event_hooks = {"request": [self._request], "response": [self._response]}
        return client

    def _request(self, request) -> None:
        self.requests.append((request.method, str(request.url), list(request.headers.items())))

    def _response(self, response) -> None:
        response.read()
        self.responses.append(response)


def _session(app: FastAPI) -> tuple[Recorder, str]:
    """Drive a session that reads, stales, breaks and tools around the canary note."""
    rec = Recorder()
    client = rec.attach(TestClient(app))
    client.post("/api/session", json={"username": "alice", "password": "alice-password"})
    assert client.put(URL, content=NOTE.encode(), headers={"If-None-Match": "*"}).status_code == 201
    assert client.get(URL).text == NOTE
    client.get("/api/workspaces/personal/documents")
    key = client.post("/api/workspaces/personal/key-sessions").json()["id"]
    cid = new_id()
    fresh = header_for(pointer(NOTE, "secret/launch.md"))
    stale = header_for(pointer(NOTE + "more typing", "secret/launch.md", flushed=False))
    for message, note in (
        ("summarise this", fresh),
        ("what are the todos here?", fresh),
        ("quote the selected text", stale),
        ("summarise this", stale),
        ("which notes mention launch?", None),
        ("summarise this", None),
    ):
        assert turn(client, cid, message, key=key, note=note).status_code == 200
    turn(client, cid, "summarise this", key=key, note=fresh)  # leave a live pointer behind
    for name in TOOLS:
        args = {"path": "secret/launch.md", "maxBytes": 20} if name == "read_document" else {}
        assert call_tool(client, cid, name, args).status_code == 200
    # Errors, each with the canary somewhere in what was sent.
    errors = [
        client.put(URL, content=NOTE + "stale edit", headers={"If-Match": '"7"'}),  # 409
        client.put(URL, content=(NOTE * 20_000).encode()),  # 413 (over 1 MiB)
        client.put(URL, content=NOTE.encode() + b"\xff"),  # 400 not UTF-8
        client.put(URL, content=NOTE.encode() + b"\x00"),  # 400 NUL
        client.put("/api/workspaces/personal/documents/a%5Cb.md", content=NOTE),  # 400 path
        client.put("/api/workspaces/personal/documents/%2Fetc", content=NOTE),  # 400 path
        client.put(URL, content=NOTE, headers={"If-None-Match": "*"}),  # 412
        client.put("/api/workspaces/bob-notes/documents/x.md", content=NOTE),  # 403
        client.post(f"{URL}/move", json={"to": "../" + NOTE}),  # 400 target path
        call_tool(client, cid, "read_document", {"path": "../" + NOTE}),  # tool: bad path
        call_tool(client, cid, "read_document", {"path": NOTE}),  # tool: missing note
        call_tool(client, cid, "read_document", {"path": 5, "note": NOTE}),  # 422
        turn(client, cid, NOTE, ws="bob-notes", key=key),  # 403
        client.post("/api/assistant/turns", json={"message": NOTE}),  # 422
        client.post("/api/session", json={"username": "alice", "password": NOTE}),  # 401
    ]
    refused = [r.status_code >= 400 or r.json().get("ok") is False for r in errors]
    assert all(refused), [(r.request.url.path, r.status_code) for r in errors]
    sign_in(client, "alice")  # a second sign-in replaces the session cookie
    return rec, cid


def _assert_no_canary_outside_authorised_reads(app: FastAPI, rec: Recorder) -> None:
    assert len(rec.responses) >= 30
    for method, url, headers in rec.requests:
        assert CORE not in url, url
        assert all(CORE not in f"{k}: {v}" for k, v in headers), (method, url)
    for response in rec.responses:
        for name, value in response.headers.multi_items():
            assert CORE not in f"{name}: {value}", (response.request.url, name)
        assert CORE not in str(response.url)
        if response.status_code >= 400:
            assert CORE not in response.text, (response.request.url, response.text)
        elif response.headers.get("content-type", "").startswith("application/json"):
            body = response.json()
            if isinstance(body, dict) and body.get("ok") is False:
                assert CORE not in response.text, body  # a tool's failure text
    with app.state.sessionmaker() as db:
        for model in (AgentDeliveryCredential, Conversation, KeySession, UserSession):
            for record in db.scalars(select(model)):
                values = {c.key: getattr(record, c.key) for c in model.__table__.columns}
                assert CORE not in json.dumps(values, default=str, ensure_ascii=False), model
        rows = list(db.scalars(select(AgentDeliveryCredential)))
        assert rows and any(r.ambient_path == "secret/launch.md" for r in rows)


def test_canary_only_travels_through_authorised_reads(app_factory):
    app = app_factory(log_level="DEBUG")  # the server's most talkative own setting
    seed_world(app)
    with all_logs(force=False) as logs:
        rec, _ = _session(app)
    _assert_no_canary_outside_authorised_reads(app, rec)
    # It did travel where it should: the note read and the tool result.
    reads = [r for r in rec.responses if r.status_code == 200 and CORE in r.text]
    assert any(
        r.request.method == "GET" and r.request.url.path.endswith("launch.md") for r in reads
    )
    assert any("/tools/" in r.request.url.path or "/turns" in r.request.url.path for r in reads)
    lines = server_lines(logs.getvalue())
    assert any('"event": "turn"' in line for line in lines)
    assert any('"event": "tool_call"' in line for line in lines)
    assert any('"status": 413' in line for line in lines)
    leaked = [line for line in lines if CORE in line]
    assert not leaked, leaked[:3]


def test_no_logger_at_debug_ever_shows_note_text(app_factory):
    """The root logger at DEBUG for the whole session (what `logging.basicConfig(level=DEBUG)`
    in an operator's wrapper does): every logger left unset (fastapi, starlette, asyncio,
    uvicorn, the app's own) then logs at DEBUG, and still no line holds note text.

    SQLAlchemy pins its own `sqlalchemy` logger at WARNING when imported, so its engine stays
    quiet unless someone turns on SQL echo on purpose; echo logs bound parameters and result
    rows, note text included, by design. The app must never turn it on (checked here); see
    docs/reliability.md for the hardening note (`hide_parameters=True`).
    """
    app = app_factory(log_level="DEBUG")
    seed_world(app)
    with all_logs(force=True) as logs:
        _session(app)
        sql_echo = logging.getLogger("sqlalchemy.engine.Engine").isEnabledFor(logging.INFO)
    lines = server_lines(logs.getvalue())
    assert any(line.startswith("asyncio DEBUG") for line in lines)  # DEBUG really was on
    assert not app.state.engine.echo and not sql_echo
    leaked = [line[:300] for line in lines if CORE in line]
    assert not leaked, f"{len(leaked)} log lines hold the note text, e.g. {leaked[:2]}"
