"""/mcp driven by the official MCP SDK's client against a real uvicorn server (SPEC §10).

Every test runs on SQLite and on PostgreSQL (`app` is parametrized over both). The server is
uvicorn itself on a loopback port, in a thread of the test process, so the test can move a
publication's timestamp in the same database instead of waiting ten minutes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from assistant_helpers import CAVEAT, pointer
from conftest import PASSWORDS
from fastapi import FastAPI
from mcp import MCPError
from reliability_helpers import all_logs, server_lines
from sqlalchemy import update

from backend.assistant.tools import (
    BAD_PATH,
    MISSING_DOCUMENT,
    NOT_MEMBER,
    access_failure_message,
)
from backend.db import utcnow
from backend.models.outside_agents import ActiveNotePublication, PersonalAccessToken
from support.servers import InThreadServer
from tests.mcp_client import agent_http, mcp_session

TOOLS = {"get_active_note", "list_documents", "read_document", "search_notes", "changes_since"}
NOTE = "# Plan\n\nShip the MCP bridge on Friday.\n日本語のメモ\n"


class Live:
    """A real uvicorn server for `app`, with REST helpers and an MCP SDK client."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.served = InThreadServer(app)
        self.port, self.base = self.served.port, self.served.url
        self.statuses: list[int] = []
        self.users: dict[str, httpx.Client] = {}

    def start(self) -> Live:
        self.served.start()
        return self

    def stop(self) -> None:
        for client in self.users.values():
            client.close()
        self.served.stop()

    # --- the page's side: cookie-authenticated REST ---

    def user(self, name: str) -> httpx.Client:
        if name not in self.users:
            client = httpx.Client(base_url=self.base, timeout=30)
            r = client.post("/api/session", json={"username": name, "password": PASSWORDS[name]})
            assert r.status_code == 200, r.text
            self.users[name] = client
        return self.users[name]

    def token(self, name: str, days: int = 7) -> str:
        r = self.user(name).post(
            "/api/tokens", json={"name": f"{name}'s agent", "expiresInDays": days}
        )
        assert r.status_code == 201, r.text
        return r.json()["token"]

    def sharing(self, name: str, enabled: bool) -> None:
        r = self.user(name).put("/api/active-note/sharing", json={"enabled": enabled})
        assert r.status_code == 200 and r.json() == {"enabled": enabled}, r.text

    def note(self, name: str, ws: str, path: str, text: str) -> None:
        r = self.user(name).put(f"/api/workspaces/{ws}/documents/{path}", content=text.encode())
        assert r.status_code in (200, 201), r.text

    def publish(self, name: str, window: str, ws: str, wire: dict | None) -> httpx.Response:
        return self.user(name).put(
            "/api/active-note", json={"windowId": window, "workspaceId": ws, "pointer": wire}
        )

    # --- the agent's side: the SDK's ClientSession over its Streamable HTTP client ---

    async def _session_calls(
        self, token: str | None, calls: list[tuple[str, dict]], headers: dict[str, str]
    ) -> list[Any]:
        async def record(response: httpx2.Response) -> None:
            self.statuses.append(response.status_code)

        sent = dict(headers)
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        results: list[Any] = []
        async with mcp_session(self.base, agent_http(sent, record)) as s:
            for name, arguments in calls:
                if name == "__list__":
                    results.append({t.name: t for t in (await s.list_tools()).tools})
                else:
                    results.append(await s.call_tool(name, arguments))
        return results

    def calls(self, token: str | None, *calls: tuple[str, dict], **headers: str) -> list[Any]:
        return anyio.run(self._session_calls, token, list(calls), headers)

    def call(self, token: str, name: str, **arguments: Any) -> dict:
        """One tool call; its structured result, checked against the text the model reads."""
        (result,) = self.calls(token, (name, arguments))
        data = result.structured_content
        assert [block.text for block in result.content] == [data["text"]]
        assert result.is_error is (not data["ok"])
        return data

    def refused(self, token: str | None, **headers: str) -> int:
        """The HTTP status the server answered the SDK client's first request with."""
        self.statuses.clear()
        with pytest.raises(BaseExceptionGroup) as caught:
            self.calls(token, **headers)
        assert caught.group_contains(MCPError)
        assert self.statuses, "the client never reached the server"
        return self.statuses[0]


@pytest.fixture
def live(app: FastAPI) -> Iterator[Live]:
    server = Live(app).start()
    try:
        yield server
    finally:
        server.stop()


def wire(text: str, path: str, **kwargs: Any) -> dict:
    return pointer(text, path, **kwargs).to_wire()


def set_refreshed(app: FastAPI, window: str, age: timedelta) -> None:
    with app.state.sessionmaker() as db:
        result = db.execute(
            update(ActiveNotePublication)
            .where(ActiveNotePublication.window_id == window)
            .values(refreshed_at=utcnow() - age)
        )
        db.commit()
        assert result.rowcount == 1


# --- tokens ---------------------------------------------------------------------------------


def test_a_token_opens_mcp_until_it_expires_or_is_revoked(live):
    token = live.token("alice")
    tools = live.calls(token, ("__list__", {}))[0]
    assert set(tools) == TOOLS
    assert "this note" in tools["get_active_note"].description
    assert set(tools["read_document"].input_schema["required"]) == {"workspaceId", "path"}

    listed = live.user("alice").get("/api/tokens").json()
    assert [t["name"] for t in listed] == ["alice's agent"]
    assert listed[0]["lastUsedAt"] is not None  # the MCP requests above used it
    assert "token" not in listed[0]

    # Expired: the same token, with its expiry moved into the past in the database.
    with live.app.state.sessionmaker() as db:
        db.execute(update(PersonalAccessToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        db.commit()
    assert live.refused(token) == 401

    # Revoked: a fresh token works, then DELETE stops it on the very next request.
    second = live.token("alice")
    assert live.call(second, "list_documents", workspaceId="personal")["ok"] is True
    second_id = live.user("alice").get("/api/tokens").json()[0]["id"]
    assert live.user("alice").delete(f"/api/tokens/{second_id}").status_code == 204
    assert live.refused(second) == 401

    assert live.refused(None) == 401
    assert live.refused("ana_pat_" + "x" * 43) == 401
    # A signed-in page's cookie is not a credential for /mcp.
    cookie = live.user("alice").cookies
    assert live.refused(None, Cookie="; ".join(f"{k}={v}" for k, v in cookie.items())) == 401


def test_get_is_405_at_once_and_nothing_stays_open_after_a_revocation(live):
    token = live.token("alice")
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
    with httpx.Client(base_url=live.base, timeout=10) as http:
        for _ in range(3):  # a bounded read: the answer is complete, no stream is held
            with http.stream("GET", "/mcp", headers=headers) as response:
                body = response.read()
            assert response.status_code == 405, body
            assert response.headers["allow"] == "POST, DELETE"
            assert b"POST" in body
        # The official client never needs GET here: a whole session works, then revocation
        # stops the very next request (each one is a whole POST; nothing outlives it).
        assert live.call(token, "list_documents", workspaceId="personal")["ok"] is True
        token_id = live.user("alice").get("/api/tokens").json()[0]["id"]
        assert live.user("alice").delete(f"/api/tokens/{token_id}").status_code == 204
        assert live.refused(token) == 401
        with http.stream("GET", "/mcp", headers=headers) as response:
            response.read()
        assert response.status_code == 405


def test_another_origin_gets_403_and_the_own_origin_passes(live):
    token = live.token("alice")
    assert live.refused(token, Origin="http://evil.example") == 403
    assert live.refused(token, Origin=f"http://localhost.evil.example:{live.port}") == 403
    assert live.refused(token, Origin="null") == 403
    result = live.calls(token, ("list_documents", {"workspaceId": "personal"}), Origin=live.base)[0]
    assert result.structured_content["ok"] is True


def test_a_request_body_over_the_limit_gets_413_before_it_is_read(live):
    token = live.token("alice")
    huge = "x" * (70 * 1024)
    live.statuses.clear()
    with pytest.raises(BaseExceptionGroup):
        live.calls(token, ("search_notes", {"workspaceId": "personal", "query": huge}))
    assert 413 in live.statuses


# --- get_active_note -----------------------------------------------------------------------


def test_sharing_off_publishes_nothing_and_the_tool_says_so(live):
    token = live.token("alice")
    live.note("alice", "personal", "plan.md", NOTE)
    assert live.user("alice").get("/api/active-note/sharing").json() == {"enabled": False}
    refused = live.publish("alice", "w1", "personal", wire(NOTE, "plan.md"))
    assert refused.status_code == 409
    got = live.call(token, "get_active_note")
    assert got["ok"] is False and got["reason"] == "sharing_off" and "content" not in got
    assert "switched on" in got["text"] and NOTE not in got["text"]

    # On, published, seen; off again forgets it at once, and on again does not bring it back.
    live.sharing("alice", True)
    assert live.publish("alice", "w1", "personal", wire(NOTE, "plan.md")).status_code == 204
    assert live.call(token, "get_active_note")["path"] == "plan.md"
    live.sharing("alice", False)
    assert live.call(token, "get_active_note")["reason"] == "sharing_off"
    live.sharing("alice", True)
    got = live.call(token, "get_active_note")
    assert got["ok"] is False and got["reason"] == "no_active_note" and "content" not in got


def test_the_active_note_is_read_with_the_read_active_note_rules(live):
    token = live.token("alice")
    live.sharing("alice", True)
    live.note("alice", "personal", "plan.md", NOTE)
    got = live.call(token, "get_active_note")
    assert got["reason"] == "no_active_note" and "list_documents" in got["text"]

    sent = wire(NOTE, "plan.md", selection=(2, 6), frame_id="frame-9")
    assert live.publish("alice", "main", "personal", sent).status_code == 204
    got = live.call(token, "get_active_note")
    assert got["ok"] is True
    assert (got["workspaceId"], got["path"], got["view"]) == ("personal", "plan.md", "edit")
    assert got["selection"] == {"anchor": 2, "head": 6}
    assert got["content"] == NOTE and got["bytes"] == len(NOTE.encode())
    assert (got["partial"], got["stale"], got["caveat"]) == (False, False, None)
    assert got["text"].endswith(NOTE)

    # The screen is ahead of the saved copy: stale, with the caveat sentence at the end.
    live.publish("alice", "main", "personal", wire(NOTE + "typed", "plan.md"))
    got = live.call(token, "get_active_note")
    assert (got["stale"], got["caveat"]) == (True, CAVEAT)
    assert got["text"].endswith(CAVEAT) and got["content"] == NOTE

    # Partial: cut on a character boundary and never compared.
    got = live.call(token, "get_active_note", maxBytes=len(NOTE.encode()) - 2)
    assert got["partial"] is True and got["stale"] is False and got["caveat"] is None
    assert NOTE.encode().startswith(got["content"].encode())
    assert len(got["content"].encode()) <= len(NOTE.encode()) - 2

    # Preview view: no selection.
    live.publish("alice", "main", "personal", wire(NOTE, "plan.md", view="preview"))
    got = live.call(token, "get_active_note")
    assert (got["view"], got["selection"], got["stale"]) == ("preview", None, False)


def test_the_most_recent_window_wins_falls_back_and_goes_stale_after_10_minutes(live):
    token = live.token("alice")
    live.sharing("alice", True)
    live.note("alice", "personal", "plan.md", NOTE)
    live.note("alice", "team", "team.md", "team note\n")
    main = wire(NOTE, "plan.md")
    assert live.publish("alice", "main", "personal", main).status_code == 204
    popped = wire("team note\n", "team.md")
    assert live.publish("alice", "popout", "team", popped).status_code == 204
    got = live.call(token, "get_active_note")
    assert (got["workspaceId"], got["path"]) == ("team", "team.md")

    # A heartbeat (the same pointer again) refreshes the main window but does not make it win.
    assert live.publish("alice", "main", "personal", main).status_code == 204
    assert live.call(token, "get_active_note")["path"] == "team.md"

    # The pop-out closes (publishes null): the main window's note is the active one again.
    assert live.publish("alice", "popout", "team", None).status_code == 204
    assert live.call(token, "get_active_note")["path"] == "plan.md"

    # Not refreshed for 10 minutes: no longer counts (9 minutes still does).
    set_refreshed(live.app, "main", timedelta(minutes=9))
    assert live.call(token, "get_active_note")["path"] == "plan.md"
    set_refreshed(live.app, "main", timedelta(minutes=10, seconds=1))
    got = live.call(token, "get_active_note")
    assert got["ok"] is False and got["reason"] == "no_active_note" and "content" not in got


def test_an_active_note_that_cannot_be_read_gives_the_assistants_message(live):
    token = live.token("alice")
    live.sharing("alice", True)
    live.publish("alice", "main", "personal", wire(NOTE, "gone.md"))
    got = live.call(token, "get_active_note")
    assert got["ok"] is False and got["text"] == access_failure_message(MISSING_DOCUMENT)


# --- the document tools -------------------------------------------------------------------


def test_document_tools_answer_members_and_refuse_others_with_the_same_messages(live):
    alice = live.token("alice")
    live.note("alice", "personal", "plan.md", NOTE)
    live.note("alice", "personal", "notes/other.md", "Friday lunch\n")
    live.note("alice", "team", "team.md", "team plan for Friday\n")

    listing = live.call(alice, "list_documents", workspaceId="personal")
    assert [d["path"] for d in listing["documents"]] == ["notes/other.md", "plan.md"]
    assert "plan.md" in listing["text"] and NOTE not in listing["text"]

    read = live.call(alice, "read_document", workspaceId="personal", path="plan.md")
    assert read["content"] == NOTE and read["text"].endswith(NOTE) and read["partial"] is False
    part = live.call(alice, "read_document", workspaceId="personal", path="plan.md", maxBytes=8)
    assert part["partial"] is True and part["content"] == NOTE[:8]

    found = live.call(alice, "search_notes", workspaceId="personal", query="friday")
    assert {r["path"] for r in found["results"]} == {"plan.md", "notes/other.md"}
    assert all(r["line"] >= 1 and "riday" in r["snippet"] for r in found["results"])
    japanese = live.call(alice, "search_notes", workspaceId="personal", query="本語")
    assert [r["path"] for r in japanese["results"]] == ["plan.md"]
    empty = live.call(alice, "search_notes", workspaceId="personal", query="  ")
    assert empty["ok"] is False and "word" in empty["text"]

    not_member = access_failure_message(NOT_MEMBER)
    for name, arguments in (
        ("list_documents", {"workspaceId": "bob-notes"}),
        ("read_document", {"workspaceId": "bob-notes", "path": "plan.md"}),
        ("search_notes", {"workspaceId": "bob-notes", "query": "plan"}),
        ("list_documents", {"workspaceId": "no-such-workspace"}),
    ):
        got = live.call(alice, name, **arguments)
        assert (got["ok"], got["text"]) == (False, not_member), name
    bad = live.call(alice, "read_document", workspaceId="personal", path="../etc/passwd")
    assert bad["text"] == access_failure_message(BAD_PATH)
    missing = live.call(alice, "read_document", workspaceId="personal", path="nope.md")
    assert missing["text"] == access_failure_message(MISSING_DOCUMENT)


def test_invalid_arguments_are_a_tool_error_in_plain_words(live):
    alice = live.token("alice")
    live.note("alice", "personal", "plan.md", NOTE)
    doc = {"workspaceId": "personal", "path": "plan.md"}
    for name, arguments, message in (
        ("read_document", {**doc, "maxBytes": "100"}, "'maxBytes' must be an integer."),
        ("read_document", {**doc, "maxBytes": True}, "'maxBytes' must be an integer."),
        ("get_active_note", {"maxBytes": 1.5}, "'maxBytes' must be an integer."),
        ("read_document", {"workspaceId": "personal"}, "'path' is required."),
        ("read_document", {**doc, "path": 7}, "'path' must be a string."),
        (
            "list_documents",
            {"workspaceId": "personal", "folder": "notes"},
            "'folder' is not an argument of this tool.",
        ),
        (
            "search_notes",
            {"workspaceId": "personal", "query": "q" * 201},
            "'query' must be at most 200 characters.",
        ),
    ):
        got = live.call(alice, name, **arguments)
        assert got == {
            "ok": False,
            "reason": "bad_arguments",
            "text": f"Invalid arguments: {message}",
        }, (name, arguments)
    # The same call with good arguments answers.
    assert live.call(alice, "read_document", **doc, maxBytes=100)["content"] == NOTE


def test_one_users_token_never_reaches_another_users_notes(live):
    live.note("alice", "personal", "plan.md", NOTE)
    live.sharing("alice", True)
    live.publish("alice", "main", "personal", wire(NOTE, "plan.md"))
    bob = live.token("bob")
    not_member = access_failure_message(NOT_MEMBER)
    assert live.call(bob, "read_document", workspaceId="personal", path="plan.md")["text"] == (
        not_member
    )
    assert live.call(bob, "list_documents", workspaceId="personal")["text"] == not_member
    # Alice's published note is hers alone: bob's agent sees bob's (switched off) state.
    got = live.call(bob, "get_active_note")
    assert got["reason"] == "sharing_off" and "content" not in got
    # The shared workspace answers both.
    assert live.call(bob, "list_documents", workspaceId="team")["ok"] is True
    # Bob cannot revoke alice's token: it looks like a missing one.
    live.token("alice")
    alice_token_id = live.user("alice").get("/api/tokens").json()[0]["id"]
    assert live.user("bob").delete(f"/api/tokens/{alice_token_id}").status_code == 404
    assert len(live.user("alice").get("/api/tokens").json()) == 1


def test_no_token_or_note_text_reaches_a_log_line(live):
    token = live.token("alice")
    secret_text = "Top secret plan: 秘密の計画"
    live.note("alice", "personal", "secret.md", secret_text)
    live.sharing("alice", True)
    with all_logs(force=True) as logs:
        live.publish("alice", "main", "personal", wire(secret_text, "secret.md"))
        assert live.call(token, "get_active_note")["content"] == secret_text
        live.call(token, "read_document", workspaceId="personal", path="secret.md")
        live.call(token, "search_notes", workspaceId="personal", query="secret plan")
        live.calls(token, ("read_document", {"workspaceId": "personal", "path": 5}))
        live.refused(token[:-2] + "xx")
    lines = server_lines(logs.getvalue())
    assert any('"route": "/mcp"' in line for line in lines)
    for line in lines:
        assert token not in line and token[8:] not in line
        assert "secret" not in line.lower() and "秘密" not in line


def test_a_failure_inside_a_tool_is_a_plain_tool_error_with_a_log_id(live, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError('INSERT INTO documents (text) VALUES (%(text)s) -- "secret note"')

    monkeypatch.setattr("backend.outside_agents.tools.list_documents", broken)
    token = live.token("alice")
    with all_logs(force=False) as logs:
        got = live.call(token, "list_documents", workspaceId="personal")
    assert got["ok"] is False and got["reason"] == "internal"
    assert "INSERT" not in got["text"] and "secret" not in got["text"]
    log_id = got["text"].rsplit("log id ", 1)[1].rstrip(")")
    assert f"log_id={log_id}" in logs.getvalue()  # the operator finds the traceback by it
