"""SPEC §13 event stream on both databases, served by a real uvicorn server."""

from __future__ import annotations

import hashlib
import time
from urllib.parse import quote

import pytest
from assistant_helpers import header_for, key_session, new_id, ok_turn, pointer, tool
from conftest import seed_world
from live_helpers import END, Live, Stream
from sqlalchemy import func, select

from backend.models.history import NoteEvent

CANARY = "zebra-canary-5512 secret text"


@pytest.fixture
def live(app_factory):
    app = app_factory(events_keepalive_seconds=0.5, events_streams_per_user=3)
    seed_world(app)
    server = Live(app)
    yield server
    server.stop()


def doc_url(path: str, ws: str = "team") -> str:
    return f"/api/workspaces/{ws}/documents/{quote(path)}"


def stream(live, client, ws="team", **headers) -> Stream:
    """A stream the test means to open: a 429 while the server has not yet noticed that this
    user's earlier streams closed (their places are freed when it does) is tried again."""
    deadline = time.monotonic() + 15
    s = Stream(live.url, ws, client.cookies, headers)
    while s.status == 429 and time.monotonic() < deadline:
        s.close()
        time.sleep(0.05)
        s = Stream(live.url, ws, client.cookies, headers)
    if s.status == 200:
        first = s.next(timeout=10)  # the opening comment: the stream is subscribed
        assert first is not END and first.comment == "connected"
    return s


def test_saved_moved_deleted_reach_every_member_with_their_fields(live):
    alice, bob = live.client("alice"), live.client("bob")
    a, b = stream(live, alice), stream(live, bob)
    try:
        text = "héllo\n" + CANARY
        r = bob.put(doc_url("n.md"), content=text.encode())
        assert r.status_code == 201
        for s in (a, b):
            e = s.next_event(timeout=5)
            assert e.event == "saved" and e.id and e.id.isdigit()
            assert e.json() == {
                "path": "n.md",
                "revision": 1,
                "bytes": len(text.encode()),
                "sha256": hashlib.sha256(text.encode()).hexdigest()[:16],
                "source": {"kind": "page", "name": None},
            }  # each within next_event's deadline; how fast is the bench's (live-streams)
        saved_id = int(e.id)
        assert alice.post(doc_url("n.md") + "/move", json={"to": "m.md"}).status_code == 200
        e = a.next_event()
        assert (e.event, e.json()) == ("moved", {"from": "n.md", "to": "m.md", "revision": 2})
        assert int(e.id) > saved_id
        assert alice.delete(doc_url("m.md")).status_code == 204
        e = a.next_event()
        assert (e.event, e.json()) == ("deleted", {"path": "m.md"})
        assert [b.next_event().event for _ in range(2)] == ["moved", "deleted"]
        # Another workspace's change reaches nobody here.
        assert alice.put(doc_url("p.md", ws="personal"), content=b"x").status_code == 201
        assert alice.put(doc_url("q.md"), content=b"y").status_code == 201
        assert a.next_event().json()["path"] == "q.md"
        assert all(CANARY not in line and "héllo" not in line for line in a.raw + b.raw)
    finally:
        a.close()
        b.close()


def test_an_applied_proposal_is_an_assistant_event(live):
    alice = live.client("alice")
    plan = "# Plan\n"
    assert alice.put(doc_url("plan.md", "personal"), content=plan.encode()).status_code == 201
    cid = new_id()
    key = key_session(alice, "personal")
    ok_turn(alice, cid, "hello", key=key, note=header_for(pointer(plan, "plan.md")))
    pid = tool(alice, cid, "propose_edit", {"edits": [{"append": "x"}]})["proposalId"]
    s = stream(live, alice, "personal")
    try:
        r = alice.post(f"/api/assistant/conversations/{cid}/proposals/{pid}/apply")
        assert r.status_code == 200
        # The creating PUT's own event may still be on its way (PostgreSQL delivers a NOTIFY
        # at its own pace): look for the apply's revision, not at whatever comes first.
        e = s.next_event()
        while e.json().get("revision") == 1:
            e = s.next_event()
        assert e.event == "saved" and e.json()["source"] == {"kind": "assistant", "name": None}
        assert e.json()["revision"] == 2
    finally:
        s.close()


def test_members_only(live):
    bob = live.client("bob")
    assert Stream(live.url, "personal", bob.cookies).status == 403
    import httpx

    anon = httpx.Client(base_url=live.url, timeout=10)
    assert anon.get("/api/workspaces/team/events").status_code == 401


def test_keep_alive_comments_flow_while_nothing_changes(live):
    alice = live.client("alice")
    s = stream(live, alice)
    try:
        comment = s.next(timeout=3)  # the keep-alive is 0.5 s in this app
        assert comment is not END and comment.event is None and comment.comment == "ping"
    finally:
        s.close()


def test_keep_alive_comments_flow_while_events_do(live):
    """Saves come faster than the keep-alive (0.5 s here); comments still come between them."""
    alice = live.client("alice")
    s = stream(live, alice)
    try:
        started, saves = time.monotonic(), 0
        while time.monotonic() - started < 2.5:  # five keep-alive periods
            saves += 1
            r = alice.put(doc_url("busy.md"), content=f"line {saves}".encode())
            assert r.status_code in (200, 201)
            time.sleep(0.1)  # a person's pace between saves, not a wait for the server
        seen, comments = 0, 0
        while seen < saves:
            item = s.next(timeout=10)
            assert item is not END
            if item.event == "saved":
                seen += 1
            elif item.event is None and item.comment == "ping":
                comments += 1
        assert saves >= 5 and comments >= 1, (saves, comments)
    finally:
        s.close()


def test_last_event_id_resumes_or_resets(live):
    alice = live.client("alice")
    s = stream(live, alice)
    try:
        alice.put(doc_url("a.md"), content=b"1")
        first = s.next_event()
    finally:
        s.close()
    alice.put(doc_url("a.md"), content=b"22")
    alice.put(doc_url("b.md"), content=b"333")
    resumed = stream(live, alice, **{"Last-Event-ID": first.id})
    try:
        got = [resumed.next_event() for _ in range(2)]
        assert [(e.json()["path"], e.json()["bytes"]) for e in got] == [("a.md", 2), ("b.md", 3)]
        alice.put(doc_url("c.md"), content=b"4")
        assert resumed.next_event().json()["path"] == "c.md"  # and then live
    finally:
        resumed.close()
    for unknown in ("999999999", "not-an-id"):
        s = stream(live, alice, **{"Last-Event-ID": unknown})
        try:
            assert s.next_event().event == "reset"
        finally:
            s.close()


def test_a_user_may_hold_only_so_many_streams(live):
    alice = live.client("alice")
    held = [stream(live, alice) for _ in range(3)]
    try:
        extra = Stream(live.url, "team", alice.cookies)
        assert extra.status == 429
        extra.close()
        bob = stream(live, live.client("bob"))  # another user is not affected
        bob.close()
    finally:
        for s in held:
            s.close()
    deadline = time.monotonic() + 5
    while True:  # closed streams free their places
        again = Stream(live.url, "team", alice.cookies)
        if again.status == 200 or time.monotonic() > deadline:
            break
        again.close()
        time.sleep(0.1)
    assert again.status == 200
    again.close()


def test_a_failed_backlog_read_gives_the_streams_place_back(live, monkeypatch):
    """Streams whose Last-Event-ID replay fails, more of them than the cap: none holds a place."""
    from backend.services import events as events_service

    alice = live.client("alice")
    alice.put(doc_url("b.md"), content=b"1")

    def broken(*args, **kwargs):
        raise RuntimeError("the backlog read failed")

    monkeypatch.setattr(events_service, "since", broken)
    for _ in range(4):  # the cap is 3
        failed = Stream(live.url, "team", alice.cookies, {"Last-Event-ID": "1"})
        assert failed.status == 500
        failed.close()
    monkeypatch.undo()
    s = stream(live, alice)
    try:
        assert s.status == 200
    finally:
        s.close()


def test_signing_out_closes_the_sessions_streams_at_once(live):
    alice = live.client("alice")
    other = live.client("alice")  # another sign-in of the same user
    s, kept = stream(live, alice), stream(live, other)
    try:
        assert alice.delete("/api/session").status_code in (200, 204)
        s.wait_end(timeout=3)
        other.put(doc_url("z.md"), content=b"z")
        assert kept.next_event().json()["path"] == "z.md"
    finally:
        s.close()
        kept.close()


def test_a_client_that_stops_reading_is_dropped(app_factory):
    import socket

    app = app_factory(events_keepalive_seconds=0.5, events_queue_size=4)
    seed_world(app)
    live = Live(app)
    try:
        alice = live.client("alice")
        cookie = "; ".join(f"{k}={v}" for k, v in alice.cookies.items())
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", live.port))
        sock.sendall(
            f"GET /api/workspaces/team/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Cookie: {cookie}\r\n\r\n".encode()
        )
        hub = app.state.live
        deadline = time.monotonic() + 10
        while hub.open_streams() == 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        long = "/".join(["x" * 200] * 15)  # a 3 KB path: each event is that big
        dropped = False
        for i in range(1500):  # up to ~4.5 MB of events that nobody reads
            assert alice.put(doc_url(f"{long}/{i}"), content=b"x").status_code == 201
            if hub.open_streams() == 0:
                dropped = True
                break
        assert dropped, "the stream that stopped reading is still held"
        sock.close()
        # A client that keeps reading is not dropped, over many more events than its queue
        # holds. It subscribes once the hub is past the burst: the burst's tail, handed to it
        # faster than any client reads, would overflow its 4 places as the limit means it to.
        with app.state.sessionmaker() as db:
            newest = db.scalar(select(func.max(NoteEvent.id)))
        deadline = time.monotonic() + 30
        while hub.passed < newest:
            assert time.monotonic() < deadline, "the hub never got past the burst"
            time.sleep(0.05)
        s = stream(live, alice)
        try:
            for i in range(3 * 4):
                assert alice.put(doc_url(f"fine/{i}.md"), content=b"y").status_code == 201
                assert s.next_event(timeout=10).json()["path"] == f"fine/{i}.md"
            assert hub.open_streams() == 1
        finally:
            s.close()
    finally:
        live.stop()


def test_a_refused_write_publishes_nothing(live):
    alice = live.client("alice")
    s = stream(live, alice)
    try:
        alice.put(doc_url("w.md"), content=b"1")
        assert s.next_event().json()["revision"] == 1
        stale = alice.put(doc_url("w.md"), content=b"22", headers={"If-Match": '"7"'})
        assert stale.status_code == 409
        alice.put(doc_url("w.md"), content=b"333")
        e = s.next_event()
        assert (e.json()["revision"], e.json()["bytes"]) == (2, 3)
    finally:
        s.close()


def test_open_streams_hold_no_database_connection(app_factory):
    """More streams than the connection pool holds (5 + 10 overflow), and saves still go."""
    app = app_factory(events_keepalive_seconds=0.5, events_streams_per_user=40)
    seed_world(app)
    live = Live(app)
    alice = live.client("alice")
    streams = []
    try:
        streams = [stream(live, alice) for _ in range(20)]
        # Were the streams holding connections, the save would wait out the pool and fail.
        assert alice.put(doc_url("pool.md"), content=b"x").status_code == 201
        assert all(s.next_event().json()["path"] == "pool.md" for s in streams)
    finally:
        for s in streams:
            s.close()
        live.stop()


def test_an_agent_write_is_an_agent_event_naming_its_token(app):
    """`source` for an outside agent's write (SPEC §14's create_note and edit_note)."""
    from test_mcp import Live as McpLive

    server = McpLive(app).start()
    s = None
    try:
        alice = server.user("alice")
        made = alice.post(
            "/api/tokens", json={"name": "Claude Code", "expiresInDays": 7, "scope": "write"}
        )
        assert made.status_code == 201, made.text
        token = made.json()["token"]
        s = Stream(server.base, "personal", alice.cookies)
        assert s.status == 200 and s.next(timeout=10).comment == "connected"
        text = "from the agent\n" + CANARY
        created = server.call(token, "create_note", workspaceId="personal", path="a.md", text=text)
        assert created["ok"], created
        agent = {"kind": "agent", "name": "Claude Code"}
        e = s.next_event()
        assert (e.event, e.json()["path"], e.json()["source"]) == ("saved", "a.md", agent)
        edited = server.call(
            token,
            "edit_note",
            workspaceId="personal",
            path="a.md",
            baseSha256=hashlib.sha256(text.encode()).hexdigest()[:16],
            edits=[{"append": "more\n"}],
        )
        assert edited["ok"], edited
        e = s.next_event()
        assert (e.json()["revision"], e.json()["source"]) == (2, agent)
        assert all(CANARY not in line for line in s.raw)
    finally:
        if s is not None:
            s.close()
        server.stop()
