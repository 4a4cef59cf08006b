"""Outside agents that write (SPEC §14), driven by the official MCP SDK client over /mcp.

Scopes decide what tools/list shows and what a call may do; a token's workspace and folder
decide which notes it reaches; propose_edit stores a proposal the owner applies through
/api/proposals; edit_note applies only on the text the agent read. Both databases, a real
uvicorn server (tests/integration/test_mcp.py's Live).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from reliability_helpers import all_logs, server_lines
from test_mcp import TOOLS, Live, wire

from backend.assistant.tools import MISSING_DOCUMENT, NOT_MEMBER, access_failure_message

PROPOSE_TOOLS = TOOLS | {"propose_edit", "get_proposal"}
WRITE_TOOLS = PROPOSE_TOOLS | {"create_note", "edit_note"}
PLAN = "# Plan\n\nShip on Friday.\n\n## Tasks\n- [ ] write docs\n\n## Notes\nnothing yet\n"
MISSING = access_failure_message(MISSING_DOCUMENT)
NOT_REACHED_WORKSPACE = access_failure_message(NOT_MEMBER)


@pytest.fixture
def live(app: FastAPI) -> Iterator[Live]:
    server = Live(app).start()
    try:
        yield server
    finally:
        server.stop()


def token(live: Live, user: str = "alice", **reach) -> str:
    body = {"name": reach.pop("name", "Claude Code"), "expiresInDays": 7, **reach}
    r = live.user(user).post("/api/tokens", json=body)
    assert r.status_code == 201, r.text
    return r.json()["token"]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def saved(live: Live, ws: str, path: str, user: str = "alice") -> str:
    r = live.user(user).get(f"/api/workspaces/{ws}/documents/{path}")
    assert r.status_code == 200, r.text
    return r.text


def pending(live: Live, user: str = "alice") -> list[dict]:
    r = live.user(user).get("/api/proposals", params={"status": "pending"})
    assert r.status_code == 200, r.text
    return r.json()["proposals"]


# --- scopes ---------------------------------------------------------------------------------


def test_tools_list_shows_only_what_the_scope_allows(live):
    for scope, expected in (("read", TOOLS), ("propose", PROPOSE_TOOLS), ("write", WRITE_TOOLS)):
        listed = live.calls(token(live, scope=scope), ("__list__", {}))[0]
        assert set(listed) == expected, scope
    default = live.calls(token(live), ("__list__", {}))[0]
    assert set(default) == TOOLS


@pytest.mark.parametrize(
    ("scope", "tool", "arguments", "needed"),
    [
        (
            "read",
            "propose_edit",
            {"workspaceId": "personal", "path": "plan.md", "edits": [{"append": "x"}]},
            "propose",
        ),
        ("read", "get_proposal", {"proposalId": "x"}, "propose"),
        (
            "read",
            "create_note",
            {"workspaceId": "personal", "path": "new.md", "text": "x"},
            "write",
        ),
        (
            "propose",
            "edit_note",
            {
                "workspaceId": "personal",
                "path": "plan.md",
                "baseSha256": "0" * 16,
                "edits": [{"append": "x"}],
            },
            "write",
        ),
    ],
)
def test_a_tool_beyond_the_scope_is_a_tool_error_naming_the_scope_needed(
    live, scope, tool, arguments, needed
):
    live.note("alice", "personal", "plan.md", PLAN)
    data = live.call(token(live, scope=scope), tool, **arguments)
    assert data["ok"] is False and data["reason"] == "scope" and data["scopeNeeded"] == needed
    assert f"scope '{needed}'" in data["text"]
    assert saved(live, "personal", "plan.md") == PLAN
    assert pending(live) == []
    assert live.user("alice").get("/api/workspaces/personal/documents/new.md").status_code == 404


# --- reach: one workspace, one folder ------------------------------------------------------


def test_a_folder_token_reaches_only_notes_under_it_and_outside_looks_missing(live):
    live.note("alice", "personal", "projects/plan.md", PLAN)
    live.note("alice", "personal", "projects-old/plan.md", PLAN)
    live.note("alice", "personal", "diary.md", "private diary words\n")
    live.note("alice", "team", "projects/plan.md", PLAN)
    t = token(live, scope="write", workspaceId="personal", folder="projects")

    listing = live.call(t, "list_documents", workspaceId="personal")
    assert [d["path"] for d in listing["documents"]] == ["projects/plan.md"]
    assert "diary" not in listing["text"]
    found = live.call(t, "search_notes", workspaceId="personal", query="Friday")
    assert [h["path"] for h in found["results"]] == ["projects/plan.md"]
    assert live.call(t, "search_notes", workspaceId="personal", query="diary")["results"] == []

    inside = live.call(t, "read_document", workspaceId="personal", path="projects/plan.md")
    assert inside["ok"] and inside["content"] == PLAN
    for path in ("diary.md", "projects-old/plan.md", "nothing-here.md"):
        outside = live.call(t, "read_document", workspaceId="personal", path=path)
        assert (outside["ok"], outside["text"]) == (False, MISSING), path
    for tool, args in (
        (
            "edit_note",
            {
                "path": "diary.md",
                "baseSha256": sha("private diary words\n"),
                "edits": [{"append": "x"}],
            },
        ),
        ("create_note", {"path": "elsewhere.md", "text": "x"}),
        ("propose_edit", {"path": "diary.md", "edits": [{"append": "x"}]}),
    ):
        refused = live.call(t, tool, workspaceId="personal", **args)
        assert (refused["ok"], refused["text"]) == (False, MISSING), tool
    assert saved(live, "personal", "diary.md") == "private diary words\n"
    assert (
        live.user("alice").get("/api/workspaces/personal/documents/elsewhere.md").status_code == 404
    )

    # Another workspace, even one the user belongs to, answers like a foreign one.
    for tool, args in (
        ("list_documents", {}),
        ("read_document", {"path": "projects/plan.md"}),
        ("search_notes", {"query": "Friday"}),
    ):
        other = live.call(t, tool, workspaceId="team", **args)
        assert (other["ok"], other["text"]) == (False, NOT_REACHED_WORKSPACE), tool

    made = live.call(t, "create_note", workspaceId="personal", path="projects/new.md", text="hi")
    assert made["ok"] and made["revision"] == 1 and made["sha256"] == sha("hi")


def test_the_active_note_outside_the_reach_looks_missing(live):
    live.note("alice", "personal", "diary.md", "dear diary\n")
    live.sharing("alice", True)
    assert live.publish("alice", "w1", "personal", wire("dear diary\n", "diary.md")).is_success
    t = token(live, scope="propose", folder="projects")
    for tool, args in (("get_active_note", {}), ("propose_edit", {"edits": [{"append": "x"}]})):
        data = live.call(t, tool, **args)
        assert (data["ok"], data["text"]) == (False, MISSING), tool
    assert pending(live) == []


# --- propose_edit, get_proposal and /api/proposals ------------------------------------------


def test_a_proposal_names_the_agent_waits_for_the_owner_and_reports_its_outcome(live):
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="propose", name="Claude Code")
    made = live.call(
        t,
        "propose_edit",
        workspaceId="personal",
        path="plan.md",
        edits=[{"find": "Friday", "replace": "Monday"}],
        summary="Move the date",
    )
    assert made["ok"] and made["status"] == "pending" and made["path"] == "plan.md"
    assert "-Ship on Friday.\n+Ship on Monday.\n" in made["diff"]
    assert saved(live, "personal", "plan.md") == PLAN  # proposing never writes

    (listed,) = pending(live)
    assert set(listed) >= {
        "proposalId",
        "workspaceId",
        "path",
        "source",
        "summary",
        "diff",
        "status",
        "createdAt",
    }
    assert listed["proposalId"] == made["proposalId"]
    assert listed["source"] == {"kind": "agent", "name": "Claude Code"}
    assert (listed["workspaceId"], listed["summary"], listed["diff"]) == (
        "personal",
        "Move the date",
        made["diff"],
    )

    # Only the owner sees it, applies it or discards it.
    assert pending(live, "bob") == []
    pid = made["proposalId"]
    for action in ("apply", "discard"):
        assert live.user("bob").post(f"/api/proposals/{pid}/{action}").status_code == 404
    bob_token = token(live, "bob", scope="propose")
    assert live.call(bob_token, "get_proposal", proposalId=pid)["ok"] is False

    assert live.call(t, "get_proposal", proposalId=pid)["status"] == "pending"
    r = live.user("alice").post(f"/api/proposals/{pid}/apply")
    assert r.status_code == 200, r.text
    assert r.json()["path"] == "plan.md"
    assert saved(live, "personal", "plan.md") == PLAN.replace("Friday", "Monday")
    outcome = live.call(t, "get_proposal", proposalId=pid)
    assert (outcome["status"], outcome["revision"]) == ("applied", r.json()["revision"])
    assert pending(live) == []
    again = live.user("alice").post(f"/api/proposals/{pid}/apply")
    assert again.status_code == 409


def test_a_discarded_proposal_and_one_that_no_longer_applies_change_nothing(live):
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="write")
    first = live.call(
        t,
        "propose_edit",
        workspaceId="personal",
        path="plan.md",
        edits=[{"append": "- [ ] one more"}],
    )
    second = live.call(
        t,
        "propose_edit",
        workspaceId="personal",
        path="plan.md",
        edits=[{"find": "nothing yet", "replace": "something"}],
    )
    r = live.user("alice").post(f"/api/proposals/{first['proposalId']}/discard")
    assert r.status_code == 200 and r.json()["status"] == "discarded"
    assert live.call(t, "get_proposal", proposalId=first["proposalId"])["status"] == "discarded"
    live.note("alice", "personal", "plan.md", PLAN.replace("nothing yet", "edited by hand"))
    r = live.user("alice").post(f"/api/proposals/{second['proposalId']}/apply")
    assert r.status_code == 409 and "nothing was changed" in r.json()["detail"]
    assert saved(live, "personal", "plan.md") == PLAN.replace("nothing yet", "edited by hand")
    assert [p["proposalId"] for p in pending(live)] == [second["proposalId"]]


def test_propose_edit_follows_the_edit_rules_and_defaults_to_the_active_note(live):
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="propose")
    for edits, reason in (
        ([{"find": "absent", "replace": "x"}], "edit_not_found"),
        ([{"find": "## ", "replace": "### "}], "edit_ambiguous"),
    ):
        data = live.call(t, "propose_edit", workspaceId="personal", path="plan.md", edits=edits)
        assert (data["ok"], data["reason"]) == (False, reason)
        assert "Nothing was changed." in data["text"] and "absent" not in data["text"]
    assert pending(live) == []
    assert live.call(t, "propose_edit", edits=[{"append": "x"}])["reason"] == "sharing_off"

    live.sharing("alice", True)
    assert live.publish("alice", "w1", "personal", wire(PLAN, "plan.md")).is_success
    data = live.call(t, "propose_edit", edits=[{"append": "- [ ] call Bob"}])
    assert data["ok"] and (data["workspaceId"], data["path"]) == ("personal", "plan.md")
    assert data["stale"] is False
    assert [p["path"] for p in pending(live)] == ["plan.md"]


def test_propose_edit_on_an_active_note_with_unsaved_keystrokes_is_stale(live):
    """The same rule as the assistant's (one propose service): a window that has typed what it
    has not saved yet makes the saved copy stale, even when the bytes measured match."""
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="propose")
    live.sharing("alice", True)
    assert live.publish("alice", "w1", "personal", wire(PLAN, "plan.md", flushed=False)).is_success
    data = live.call(t, "propose_edit", edits=[{"append": "- [ ] call Bob"}])
    assert data["ok"] and data["stale"] is True
    assert data["caveat"] and data["caveat"] in data["text"]


# --- create_note and edit_note --------------------------------------------------------------


def test_create_note_never_overwrites(live):
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="write")
    data = live.call(t, "create_note", workspaceId="personal", path="plan.md", text="other")
    assert (data["ok"], data["reason"]) == (False, "exists")
    assert saved(live, "personal", "plan.md") == PLAN


def test_edit_note_applies_only_on_the_text_the_agent_read(live):
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="write")
    read = live.call(t, "read_document", workspaceId="personal", path="plan.md")
    base = read["sha256"]
    assert base == sha(PLAN)

    live.note("alice", "personal", "plan.md", PLAN + "typed by the user\n")
    stale = live.call(
        t,
        "edit_note",
        workspaceId="personal",
        path="plan.md",
        baseSha256=base,
        edits=[{"find": "Friday", "replace": "Monday"}],
    )
    assert (stale["ok"], stale["reason"]) == (False, "stale_base")
    assert "Nothing was changed" in stale["text"]
    now = PLAN + "typed by the user\n"
    assert saved(live, "personal", "plan.md") == now

    done = live.call(
        t,
        "edit_note",
        workspaceId="personal",
        path="plan.md",
        baseSha256=sha(now),
        edits=[
            {"find": "Friday", "replace": "Monday"},
            {"heading": "## Tasks", "append": "- [ ] ship it"},
        ],
    )
    expected = now.replace("Friday", "Monday").replace(
        "- [ ] write docs\n", "- [ ] write docs\n- [ ] ship it\n"
    )
    assert done["ok"] and saved(live, "personal", "plan.md") == expected
    assert done["sha256"] == sha(expected)
    revision = live.user("alice").get("/api/workspaces/personal/documents/plan.md").headers["etag"]
    assert str(done["revision"]) in revision


@pytest.mark.parametrize(
    ("text", "edits", "reason"),
    [
        (PLAN, [{"heading": "## Missing", "append": "x"}], "edit_heading_missing"),
        (
            PLAN + "\n## Tasks\nagain\n",
            [{"heading": "## Tasks", "append": "x"}],
            "edit_heading_repeated",
        ),
        (PLAN, [{"append": "fine"}, {"find": "## ", "replace": "### "}], "edit_ambiguous"),
        (PLAN, [{"find": "not in the note", "replace": "x"}], "edit_not_found"),
    ],
)
def test_edit_note_fails_loudly_and_changes_nothing(live, text, edits, reason):
    live.note("alice", "personal", "plan.md", text)
    t = token(live, scope="write")
    data = live.call(
        t, "edit_note", workspaceId="personal", path="plan.md", baseSha256=sha(text), edits=edits
    )
    assert (data["ok"], data["reason"]) == (False, reason)
    assert "Nothing was changed." in data["text"]
    assert saved(live, "personal", "plan.md") == text


def test_bad_edit_note_arguments_are_tool_errors(live):
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="write")
    for arguments in (
        {"baseSha256": "ABC", "edits": [{"append": "x"}]},
        {"baseSha256": sha(PLAN), "edits": []},
        {"baseSha256": sha(PLAN), "edits": [{"heading": "## Tasks"}]},
        {"baseSha256": sha(PLAN), "edits": [{"find": "", "replace": "x"}]},
    ):
        (result,) = live.calls(
            t, ("edit_note", {"workspaceId": "personal", "path": "plan.md", **arguments})
        )
        assert result.is_error, arguments
    assert saved(live, "personal", "plan.md") == PLAN


def test_the_log_names_token_tool_and_path_but_never_text(live):
    secret = "Top secret plan: 秘密の計画\n"
    live.note("alice", "personal", "plan.md", secret)
    t = token(live, scope="write")
    token_id = live.user("alice").get("/api/tokens").json()[0]["id"]
    with all_logs(force=True) as logs:
        live.call(
            t,
            "edit_note",
            workspaceId="personal",
            path="plan.md",
            baseSha256=sha(secret),
            edits=[{"append": "more secret words 秘密"}],
        )
        live.call(
            t,
            "propose_edit",
            workspaceId="personal",
            path="plan.md",
            edits=[{"find": "Top secret", "replace": "Public"}],
        )
        live.call(t, "create_note", workspaceId="personal", path="other.md", text="secret too")
    lines = server_lines(logs.getvalue())
    for tool in ("edit_note", "propose_edit", "create_note"):
        assert any(tool in line and token_id in line for line in lines), tool
    assert any("plan.md" in line for line in lines)
    for line in lines:
        assert t not in line and "secret" not in line.lower() and "秘密" not in line


def test_every_agent_change_is_a_revision_naming_the_token(live):
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="write", name="Cursor")
    made = live.call(t, "create_note", workspaceId="personal", path="fresh.md", text="one\n")
    edited = live.call(
        t,
        "edit_note",
        workspaceId="personal",
        path="plan.md",
        baseSha256=sha(PLAN),
        edits=[{"append": "- [ ] more"}],
    )
    proposed = live.call(
        t,
        "propose_edit",
        workspaceId="personal",
        path="plan.md",
        edits=[{"find": "Friday", "replace": "Monday"}],
    )
    applied = live.user("alice").post(f"/api/proposals/{proposed['proposalId']}/apply")
    assert applied.status_code == 200, applied.text

    def newest(path: str) -> dict:
        r = live.user("alice").get(f"/api/workspaces/personal/documents/{path}/revisions")
        assert r.status_code == 200, r.text
        return r.json()["revisions"][0]

    agent = {"kind": "agent", "name": "Cursor"}
    assert (newest("fresh.md")["revision"], newest("fresh.md")["source"]) == (
        made["revision"],
        agent,
    )
    top = newest("plan.md")
    assert (top["revision"], top["source"]) == (applied.json()["revision"], agent)
    assert applied.json()["revision"] == edited["revision"] + 1


def test_a_proposal_never_lands_on_another_note_moved_to_its_path(live):
    live.note("alice", "personal", "plan.md", PLAN)
    live.note("alice", "personal", "other.md", PLAN)
    t = token(live, scope="propose")
    made = live.call(
        t, "propose_edit", workspaceId="personal", path="plan.md", edits=[{"append": "- [ ] x"}]
    )
    alice = live.user("alice")
    assert alice.delete("/api/workspaces/personal/documents/plan.md").status_code == 204
    moved = alice.post("/api/workspaces/personal/documents/other.md/move", json={"to": "plan.md"})
    assert moved.status_code == 200, moved.text
    r = alice.post(f"/api/proposals/{made['proposalId']}/apply")
    assert r.status_code == 409
    assert saved(live, "personal", "plan.md") == PLAN


def test_an_agent_proposal_applied_in_the_editor_is_saved_as_the_agents_revision(live):
    live.note("alice", "personal", "plan.md", PLAN)
    t = token(live, scope="propose", name="Claude Code")
    made = live.call(
        t,
        "propose_edit",
        workspaceId="personal",
        path="plan.md",
        edits=[{"find": "Friday", "replace": "Monday"}],
    )
    alice = live.user("alice")
    marked = alice.post(f"/api/proposals/{made['proposalId']}/applied-in-editor")
    assert marked.status_code == 200 and marked.json()["status"] == "applied"
    assert live.call(t, "get_proposal", proposalId=made["proposalId"])["revision"] is None
    # The page's save that carries the applied edit names the proposal.
    saved = alice.put(
        "/api/workspaces/personal/documents/plan.md",
        content=PLAN.replace("Friday", "Monday").encode(),
        headers={"X-Applied-Proposal": made["proposalId"]},
    )
    assert saved.status_code == 200, saved.text
    r = alice.get("/api/workspaces/personal/documents/plan.md/revisions")
    newest = r.json()["revisions"][0]
    assert newest["source"] == {"kind": "agent", "name": "Claude Code"}
    outcome = live.call(t, "get_proposal", proposalId=made["proposalId"])
    assert (outcome["status"], outcome["revision"]) == ("applied", newest["revision"])
