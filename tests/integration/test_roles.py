"""Roles (SPEC §17): a reader reads, searches, sees history and chats with the read tools;
every change it attempts is refused and changes nothing, over HTTP, the assistant and MCP.

In these tests bob is a reader of `team` (alice owns it); both databases.
"""

from __future__ import annotations

import pytest
from assistant_helpers import (
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    tool,
)
from conftest import open_db, sign_in
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from test_mcp import live  # noqa: F401 (the MCP tests' real-server fixture)

from backend.models import Membership, User
from backend.services import workspaces
from backend.services.notes_reading import READ_ONLY, access_failure_message

PLAN = "# Plan\n\n- [ ] buy milk\n\nsearchable-word here\n"
URL = "/api/workspaces/team/documents/plan.md"


def set_role(app: FastAPI, username: str, ws: str, role: str) -> None:
    with open_db(app) as db:
        user_id = db.scalar(select(User.id).where(User.username == username))
        db.execute(
            update(Membership)
            .where(Membership.user_id == user_id, Membership.workspace_id == ws)
            .values(role=role)
        )
        db.commit()


@pytest.fixture
def team(app: FastAPI) -> tuple[TestClient, TestClient]:
    """plan.md in team (two revisions), bob a reader there: (alice, bob)."""
    alice = sign_in(TestClient(app), "alice")
    put_note(alice, "team", "plan.md", "# Plan\n")
    put_note(alice, "team", "plan.md", PLAN)
    set_role(app, "bob", "team", workspaces.READER)
    return alice, sign_in(TestClient(app), "bob")


def saved(alice: TestClient) -> str:
    r = alice.get(URL)
    assert r.status_code == 200, r.text
    return r.text


def test_the_workspace_list_names_each_role(app, team):
    _, bob = team
    assert {w["id"]: w["role"] for w in bob.get("/api/workspaces").json()} == {
        "bob-notes": "owner",
        "team": "reader",
    }


def test_a_reader_reads_lists_searches_and_sees_history(team):
    _, bob = team
    assert bob.get(URL).text == PLAN
    assert [d["path"] for d in bob.get("/api/workspaces/team/documents").json()] == ["plan.md"]
    found = bob.get("/api/workspaces/team/search", params={"q": "searchable-word"})
    assert found.status_code == 200, found.text
    assert "plan.md" in found.text
    history = bob.get(f"{URL}/revisions")
    assert history.status_code == 200, history.text
    assert bob.get(f"{URL}/revisions/1").text == "# Plan\n"


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c.put(URL, content="overwritten", headers={"If-Match": '"2"'}),
        lambda c: c.put(URL, content="overwritten"),
        lambda c: c.put("/api/workspaces/team/documents/new.md", content="new"),
        lambda c: c.delete(URL),
        lambda c: c.post(f"{URL}/move", json={"to": "moved.md"}),
        lambda c: c.post(f"{URL}/revisions/1/restore", headers={"If-Match": '"2"'}),
    ],
    ids=["save", "overwrite", "create", "delete", "move", "restore"],
)
def test_every_change_a_reader_attempts_is_refused_and_changes_nothing(team, change):
    alice, bob = team
    r = change(bob)
    assert r.status_code == 403, r.text
    assert r.json()["detail"] == workspaces.READ_ONLY
    assert saved(alice) == PLAN
    assert [d["path"] for d in alice.get("/api/workspaces/team/documents").json()] == ["plan.md"]
    assert len(alice.get(f"{URL}/revisions").json()["revisions"]) == 2


def test_an_editor_and_an_owner_still_change_notes(app, team):
    alice, bob = team
    set_role(app, "bob", "team", workspaces.EDITOR)
    assert bob.put(URL, content=PLAN + "bob\n").status_code == 200
    assert alice.put(URL, content=PLAN + "alice\n").status_code == 200
    assert saved(alice) == PLAN + "alice\n"


def test_a_reader_chats_with_the_read_tools_but_cannot_propose(team):
    _, bob = team
    key = key_session(bob, "team")
    cid = new_id()
    ok_turn(bob, cid, "hello", ws="team", key=key, note=header_for(pointer(PLAN, "plan.md")))
    read = tool(bob, cid, "read_active_note")
    assert read["ok"] is True and "buy milk" in read["text"]
    refused = tool(bob, cid, "propose_edit", {"edits": [{"append": "- [ ] x\n"}]})
    assert (refused["ok"], refused["reason"]) == (False, READ_ONLY)
    assert refused["text"] == access_failure_message(READ_ONLY)
    assert bob.get("/api/proposals", params={"status": "pending"}).json()["proposals"] == []


def test_a_proposal_made_as_editor_cannot_be_applied_once_a_reader(app, team):
    alice, bob = team
    set_role(app, "bob", "team", workspaces.EDITOR)
    key = key_session(bob, "team")
    cid = new_id()
    ok_turn(bob, cid, "hello", ws="team", key=key, note=header_for(pointer(PLAN, "plan.md")))
    made = tool(bob, cid, "propose_edit", {"edits": [{"append": "- [ ] x\n"}]})
    assert made["ok"] is True, made
    set_role(app, "bob", "team", workspaces.READER)
    base = f"/api/assistant/conversations/{cid}/proposals/{made['proposalId']}"
    for action in ("apply", "applied-in-editor"):
        r = bob.post(f"{base}/{action}")
        assert r.status_code == 403, r.text
    assert saved(alice) == PLAN
    assert bob.get(base).json()["status"] == "pending"


def test_the_inline_command_is_an_editors(team):
    _, bob = team
    body = {
        "workspaceId": "team",
        "path": "plan.md",
        "instruction": "uppercase",
        "selection": {"from": 0, "to": 6, "text": "# Plan"},
    }
    assert bob.post("/api/assistant/inline", json=body).status_code == 403


# --- MCP -------------------------------------------------------------------------------------


def test_a_readers_write_token_reads_but_every_write_tool_is_a_read_only_failure(live):  # noqa: F811
    live.note("alice", "team", "plan.md", PLAN)
    r = live.user("bob").post(
        "/api/tokens", json={"name": "Claude Code", "expiresInDays": 7, "scope": "write"}
    )
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    set_role(live.app, "bob", "team", workspaces.READER)

    read = live.call(token, "read_document", workspaceId="team", path="plan.md")
    assert read["ok"] is True and read["sha256"]
    calls = {
        "propose_edit": {"workspaceId": "team", "path": "plan.md", "edits": [{"append": "x"}]},
        "create_note": {"workspaceId": "team", "path": "new.md", "text": "hello"},
        "edit_note": {
            "workspaceId": "team",
            "path": "plan.md",
            "baseSha256": read["sha256"],
            "edits": [{"append": "x"}],
        },
    }
    for name, arguments in calls.items():
        data = live.call(token, name, **arguments)
        assert (data["ok"], data["reason"]) == (False, READ_ONLY), (name, data)
    alice = live.user("alice")
    assert alice.get(f"{live.base}{URL}").text == PLAN
    assert alice.get(f"{live.base}/api/workspaces/team/documents/new.md").status_code == 404
    # Back to editor: the same token writes again (its reach follows the role, call by call).
    set_role(live.app, "bob", "team", workspaces.EDITOR)
    data = live.call(token, "create_note", workspaceId="team", path="new.md", text="hello")
    assert data["ok"] is True, data


def test_a_removed_members_token_reaches_nothing_of_that_workspace_at_once(live):  # noqa: F811
    """§17: removal acts at once on every path, a token made before it included."""
    live.note("alice", "team", "plan.md", PLAN)
    bob = live.user("bob")
    r = bob.post("/api/tokens", json={"name": "Cursor", "expiresInDays": 7, "scope": "write"})
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    assert live.call(token, "read_document", workspaceId="team", path="plan.md")["ok"] is True

    alice = live.user("alice")
    assert alice.delete("/api/workspaces/team/members/bob").status_code == 204

    calls = {
        "read_document": {"workspaceId": "team", "path": "plan.md"},
        "list_documents": {"workspaceId": "team"},
        "search_notes": {"workspaceId": "team", "query": "searchable-word"},
        "changes_since": {"workspaceId": "team"},
        "create_note": {"workspaceId": "team", "path": "new.md", "text": "hello"},
        "propose_edit": {"workspaceId": "team", "path": "plan.md", "edits": [{"append": "x"}]},
    }
    for name, arguments in calls.items():
        data = live.call(token, name, **arguments)
        assert data["ok"] is False, (name, data)
        assert "searchable-word here" not in str(data), name
    assert alice.get(URL).text == PLAN
    assert alice.get("/api/workspaces/team/documents/new.md").status_code == 404
    # The token itself still reaches the workspace bob is still in.
    assert live.call(token, "list_documents", workspaceId="bob-notes")["ok"] is True
