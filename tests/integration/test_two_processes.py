"""Two real server processes (the CLI, uvicorn) on one PostgreSQL database, as in a deployment
with several workers: a conversation, an autosave conflict and an edit proposal cross them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from live_helpers import END, Stream

from ambient import pointer as codec
from support.servers import ServeProcess, clean_env

SECRET = "two-processes-share-this-secret-0123456789"
PLAN = "# Plan\n\n- [ ] buy milk\n- [ ] call the bank\n"


def worker(name: str, pg_url: str, tmp_path: Path, web_dir: Path, **settings: str) -> ServeProcess:
    """`serve.py --demo` on its own port; every worker shares the database URL and secret."""
    env = clean_env(ANA_SECRET_KEY=SECRET, ANA_WEB_DIR=str(web_dir), **settings)
    return ServeProcess(
        "--demo",
        "--database-url",
        pg_url,
        "--data-dir",
        str(tmp_path / name),
        log_path=tmp_path / f"{name}.log",
        env=env,
    )


@contextmanager
def two_workers(pg_url, tmp_path, web_dir, **settings: str) -> Iterator[tuple[ServeProcess, ...]]:
    # One after the other: the first migrates and seeds the demo users; the second finds both
    # done, as a worker that restarts beside a running one does.
    one = worker("one", pg_url, tmp_path, web_dir, **settings)
    two = None
    try:
        two = worker("two", pg_url, tmp_path, web_dir, **settings)
        yield one, two
    finally:
        one.stop()
        if two:
            two.stop()


@pytest.fixture
def workers(pg_url, tmp_path, fake_web_dir) -> Iterator[tuple[ServeProcess, ...]]:
    with two_workers(pg_url, tmp_path, fake_web_dir) as both:
        yield both


def _signed_in(one: ServeProcess, two: ServeProcess) -> tuple[httpx.Client, httpx.Client]:
    a = one.client()
    r = a.post("/api/session", json={"username": "alice", "password": "alice"})
    assert r.status_code == 200, r.text
    b = two.client(cookies=a.cookies)  # the sign-in made on one is good on two
    assert b.get("/api/session").json() == {"username": "alice", "admin": True}
    return a, b


def _header(text: str, path: str) -> str:
    data = text.encode()
    value = codec.encode(
        codec.Pointer(
            path=path,
            view="edit",
            frame_id="frame-1",
            bytes=len(data),
            sha256=codec.sha256_prefix(data),
            flushed=True,
            captured_at=codec.now_iso(),
            selection=None,
        )
    )
    assert value is not None
    return value


def _turn(client: httpx.Client, cid: str, message: str, key: str, note: str) -> dict:
    r = client.post(
        "/api/assistant/turns",
        json={"conversationId": cid, "workspaceId": "team", "message": message},
        headers={"X-Key-Session": key, "X-Ambient-Note": note},
    )
    assert r.status_code == 200, r.text
    return r.json()


def test_a_conversation_goes_on_across_two_processes(workers):
    one, two = workers
    a, b = _signed_in(one, two)
    assert a.put("/api/workspaces/team/documents/plan.md", content=PLAN).status_code == 201
    key = a.post("/api/workspaces/team/key-sessions").json()["id"]
    cid = str(uuid.uuid4())
    note = _header(PLAN, "plan.md")

    first = _turn(a, cid, "summarise this", key, note)
    assert "plan.md" in first["reply"]
    # The next turn of the same conversation lands on the other worker: the key session, the
    # conversation and its delivery row all live in the shared database.
    second = _turn(b, cid, "what are the open todos in this note?", key, note)
    assert "buy milk" in second["reply"], second["reply"]

    history = a.get(f"/api/assistant/conversations/{cid}").json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert b.get(f"/api/assistant/conversations/{cid}").json()["messages"] == history


def test_an_autosave_conflict_is_seen_across_two_processes(workers):
    one, two = workers
    a, b = _signed_in(one, two)
    url = "/api/workspaces/team/documents/conflict.md"
    assert a.put(url, content="first").status_code == 201
    revision = b.get(url).headers["etag"]

    assert b.put(url, content="saved on two", headers={"If-Match": revision}).status_code == 200
    stale = a.put(url, content="stale on one", headers={"If-Match": revision})
    assert stale.status_code == 409, stale.text
    assert a.get(url).text == "saved on two"


def test_a_proposal_made_on_one_process_is_applied_on_the_other(workers):
    one, two = workers
    a, b = _signed_in(one, two)
    assert a.put("/api/workspaces/team/documents/plan.md", content=PLAN).status_code == 201
    key = a.post("/api/workspaces/team/key-sessions").json()["id"]
    cid = str(uuid.uuid4())
    _turn(a, cid, "hello", key, _header(PLAN, "plan.md"))

    proposed = a.post(
        f"/api/assistant/conversations/{cid}/tools/propose_edit",
        json={"edits": [{"find": "- [ ] buy milk", "replace": "- [x] buy milk"}]},
    )
    assert proposed.status_code == 200 and proposed.json()["ok"] is True, proposed.text
    pid = proposed.json()["proposalId"]
    unchanged = b.get("/api/workspaces/team/documents/plan.md")
    assert unchanged.text == PLAN  # proposing never writes

    applied = b.post(f"/api/assistant/conversations/{cid}/proposals/{pid}/apply")
    assert applied.status_code == 200, applied.text
    assert a.get("/api/workspaces/team/documents/plan.md").text == PLAN.replace(
        "- [ ] buy milk", "- [x] buy milk"
    )
    assert a.get(f"/api/assistant/conversations/{cid}/proposals/{pid}").json()["status"] == (
        "applied"
    )
    again = a.post(f"/api/assistant/conversations/{cid}/proposals/{pid}/apply")
    assert again.status_code == 409


def test_sign_in_limits_count_across_processes_with_redis(
    pg_url, redis_url, tmp_path, fake_web_dir
):
    """ANA_RATE_LIMIT_STORAGE points both processes' counters at one Redis: five wrong
    passwords spread over the two lock the username on both (in memory each would allow five)."""
    with two_workers(pg_url, tmp_path, fake_web_dir, ANA_RATE_LIMIT_STORAGE=redis_url) as both:
        wrong = {"username": "alice", "password": "wrong"}
        clients = [both[0].client(), both[1].client()]
        try:
            statuses = [
                clients[i % 2].post("/api/session", json=wrong).status_code for i in range(5)
            ]
            assert statuses == [401] * 5
            sixth = clients[1].post("/api/session", json=wrong)
            assert sixth.status_code == 429, sixth.text
            assert int(sixth.headers["retry-after"]) >= 1
            right = clients[0].post("/api/session", json={"username": "alice", "password": "alice"})
            assert right.status_code == 429  # the lock holds on the other process as well
        finally:
            for client in clients:
                client.close()


def test_a_save_through_one_process_reaches_a_stream_served_by_the_other(workers):
    """SPEC §13: PostgreSQL's LISTEN/NOTIFY carries the event from one process to the other."""
    one, two = workers
    a, b = _signed_in(one, two)
    watching = Stream(two.url, "team", b.cookies)
    try:
        assert watching.status == 200
        assert watching.next(timeout=10).comment == "connected"
        saved = a.put("/api/workspaces/team/documents/live.md", content="from one")
        assert saved.status_code == 201
        # Within one second in the contract (bench/ measures it); the deadline here leaves
        # room for a loaded 2-core CI box instead of timing the delivery.
        event = watching.next_event(timeout=5)
        assert event.event == "saved"
        assert event.json()["path"] == "live.md" and event.json()["revision"] == 1
        # Signing out on one ends the sign-in's stream on two.
        assert a.delete("/api/session").status_code in (200, 204)
        watching.wait_end(timeout=5)
        assert watching.items.empty() or watching.items.get_nowait() is END
    finally:
        watching.close()


def test_a_change_saved_through_one_process_reaches_the_streams_of_the_other(workers):
    """SPEC §13 across processes: PostgreSQL's LISTEN/NOTIFY carries each committed change
    to the event streams every worker serves, and a sign-out ends them on every worker."""
    one, two = workers
    a, b = _signed_in(one, two)
    streams = {"one": Stream(one.url, "team", b.cookies), "two": Stream(two.url, "team", b.cookies)}
    try:
        for s in streams.values():
            assert s.status == 200
            first = s.next(timeout=10)
            assert first is not END and first.comment == "connected"
        url = "/api/workspaces/team/documents/live.md"
        text = b"saved through one\n"
        assert a.put(url, content=text).status_code == 201
        for s in streams.values():  # the stream served by `one` and the one served by `two`
            e = s.next_event(timeout=5)
            assert e.event == "saved"
            assert e.json()["path"] == "live.md" and e.json()["bytes"] == len(text)
        assert b.post(url + "/move", json={"to": "moved.md"}).status_code == 200  # on two
        assert a.delete("/api/workspaces/team/documents/moved.md").status_code == 204  # on one
        for s in streams.values():
            moved, deleted = s.next_event(timeout=5), s.next_event(timeout=5)
            assert (moved.event, moved.json()["to"]) == ("moved", "moved.md")
            assert (deleted.event, deleted.json()) == ("deleted", {"path": "moved.md"})
            assert int(deleted.id) > int(moved.id)
        # Signing out through one ends that sign-in's streams on both processes at once.
        assert a.delete("/api/session").status_code in (200, 204)
        for s in streams.values():
            s.wait_end(timeout=5)
    finally:
        for s in streams.values():
            s.close()
