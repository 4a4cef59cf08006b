"""The MCP tool changes_since (SPEC §19): section 13's events without text, after a cursor.

Driven by the official SDK client against a real server, on both databases: the changes
after a cursor come in order, nothing of another workspace, a folder token sees only its
folder (a note moved out looks deleted, one moved in looks saved), a bad cursor is a
clear refusal.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from sqlalchemy import delete as sql_delete
from sqlalchemy import func, select
from test_mcp import Live
from test_mcp_write import token

from backend.models.history import NoteEvent
from backend.outside_agents import changes
from backend.services import documents
from backend.services.source import Source


@pytest.fixture
def live(app: FastAPI) -> Iterator[Live]:
    server = Live(app).start()
    try:
        yield server
    finally:
        server.stop()


def move(live: Live, ws: str, path: str, to: str, user: str = "alice") -> None:
    r = live.user(user).post(f"/api/workspaces/{ws}/documents/{path}/move", json={"to": to})
    assert r.status_code == 200, r.text


def delete(live: Live, ws: str, path: str, user: str = "alice") -> None:
    r = live.user(user).delete(f"/api/workspaces/{ws}/documents/{path}")
    assert r.status_code == 204, r.text


def since(live: Live, t: str, ws: str, cursor: str | None = None) -> dict:
    arguments = {"workspaceId": ws} | ({"cursor": cursor} if cursor is not None else {})
    return live.call(t, "changes_since", **arguments)


def test_changes_after_the_cursor_come_in_order_without_text(live):
    live.note("alice", "personal", "old.md", "before the cursor")
    t = token(live, scope="read")
    start = since(live, t, "personal")
    assert start["ok"] is True and start["changes"] == [] and start["cursor"]

    live.note("alice", "personal", "plan.md", "secret words one")
    live.note("alice", "personal", "plan.md", "secret words two")
    move(live, "personal", "plan.md", "日本語/計画 案.md")
    delete(live, "personal", "old.md")
    live.note("alice", "team", "team.md", "another workspace")

    got = since(live, t, "personal", start["cursor"])
    assert got["ok"] is True
    assert [(c["kind"], c["path"], c["revision"]) for c in got["changes"]] == [
        ("saved", "plan.md", 1),
        ("saved", "plan.md", 2),
        ("moved", "日本語/計画 案.md", 3),  # a move is a revision of its own
        ("deleted", "old.md", None),
    ]
    assert got["changes"][0]["source"] == {"kind": "page", "name": None}
    assert got["changes"][2]["fromPath"] == "plan.md"
    assert "secret" not in str(got) and "another" not in str(got)  # never any text

    again = since(live, t, "personal", got["cursor"])
    assert again["changes"] == [] and again["cursor"] == got["cursor"]
    # The same cursor answers the same changes (nothing is consumed).
    assert since(live, t, "personal", start["cursor"])["changes"] == got["changes"]


def test_an_agents_own_write_is_a_change_with_its_name(live):
    t = token(live, scope="write", name="Cursor")
    start = since(live, t, "personal")
    made = live.call(t, "create_note", workspaceId="personal", path="a.md", text="hi")
    assert made["ok"] is True
    (change,) = since(live, t, "personal", start["cursor"])["changes"]
    assert change == {
        "path": "a.md",
        "kind": "saved",
        "revision": 1,
        "source": {"kind": "agent", "name": "Cursor"},
    }


def test_a_folder_token_sees_only_its_folder(live):
    t = token(live, scope="read", workspaceId="personal", folder="projects")
    start = since(live, t, "personal")["cursor"]
    live.note("alice", "personal", "projects/a.md", "in")
    live.note("alice", "personal", "diary.md", "out")
    live.note("alice", "personal", "projects/b.md", "leaving")
    move(live, "personal", "projects/b.md", "archive/b.md")  # out of the reach
    move(live, "personal", "diary.md", "projects/diary.md")  # into the reach
    got = since(live, t, "personal", start)
    assert [(c["kind"], c["path"]) for c in got["changes"]] == [
        ("saved", "projects/a.md"),
        ("saved", "projects/b.md"),
        ("deleted", "projects/b.md"),
        ("saved", "projects/diary.md"),
    ]
    assert "archive" not in str(got) and 'diary.md"' not in str(got)
    # Another workspace is outside the token's reach, like one the user is not a member of.
    team = since(live, t, "team")
    assert team["ok"] is False and team["reason"] == "not_member"


def test_a_bad_cursor_is_a_clear_refusal(live):
    t = token(live, scope="read")
    personal = since(live, t, "personal")["cursor"]
    for bad in ("nonsense", "", "!!!", since(live, t, "team")["cursor"]):
        got = since(live, t, "personal", bad)
        assert got["ok"] is False and got["reason"] == "bad_cursor", bad
        assert "without a cursor" in got["text"]
    assert since(live, t, "personal", personal)["ok"] is True
    nul = since(live, t, "personal", "a\x00b")  # refused with the arguments, like any text
    assert nul["ok"] is False and nul["reason"] == "bad_arguments"
    # Nobody else's workspace, whatever the cursor.
    bob = since(live, t, "bob-notes")
    assert bob["ok"] is False and bob["reason"] == "not_member"


def test_a_cursor_older_than_the_kept_backlog_is_expired(live):
    t = token(live, scope="read")
    start = since(live, t, "personal")["cursor"]
    live.note("alice", "personal", "a.md", "one")
    live.note("alice", "personal", "b.md", "two")
    # The backlog's pruning (events.record, every PRUNE_EVERY events) done by hand: only the
    # newest event is kept, so the one right after the cursor is gone.
    with live.app.state.sessionmaker() as db:
        newest = db.scalar(
            select(func.max(NoteEvent.seq)).where(NoteEvent.workspace_id == "personal")
        )
        db.execute(
            sql_delete(NoteEvent).where(
                NoteEvent.workspace_id == "personal", NoteEvent.seq < newest
            )
        )
        db.commit()
    got = since(live, t, "personal", start)
    assert got["ok"] is False and got["reason"] == "cursor_expired"
    assert "without a cursor" in got["text"]
    fresh = since(live, t, "personal")
    assert fresh["ok"] is True and fresh["changes"] == []


def test_more_than_a_batch_comes_in_several_calls_each_change_once(live):
    t = token(live, scope="read")
    cursor = since(live, t, "personal")["cursor"]
    count = changes.BATCH + 20
    with live.app.state.sessionmaker() as db:  # the documents service itself: fast setup
        for i in range(count):
            documents.save_document(
                db,
                workspace_id="personal",
                path="busy.md",
                content=f"save {i}",
                max_bytes=live.app.state.settings.max_note_bytes,
                source=Source.page(None),
            )
    revisions, calls = [], 0
    while True:
        got = since(live, t, "personal", cursor)
        calls += 1
        revisions += [c["revision"] for c in got["changes"]]
        cursor = got["cursor"]
        if not got["more"]:
            break
    assert calls == 2
    assert revisions == list(range(1, count + 1))
