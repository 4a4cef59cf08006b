"""SPEC §8 edit proposals on both databases: propose_edit, GET, apply, discard, races, owners."""

from __future__ import annotations

import threading
from datetime import timedelta
from urllib.parse import quote

import pytest
from assistant_helpers import (
    CAVEAT,
    call_tool,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    set_row,
    tool,
)
from fastapi.testclient import TestClient
from sqlalchemy import delete, select

from backend.db import utcnow
from backend.models import Membership, User
from backend.services import documents
from backend.services import proposals as proposals_service
from backend.services.source import Source

PLAN = "# Plan\n\n- [ ] buy milk\n- [ ] call the bank\n\nNotes go here.\n"
CANARY = "zebra-canary-7731"


def doc(client: TestClient, path: str, ws: str = "personal") -> tuple[str, int]:
    r = client.get(f"/api/workspaces/{ws}/documents/{quote(path)}")
    assert r.status_code == 200, r.text
    return r.text, int(r.headers["ETag"].strip('W/"'))


@pytest.fixture
def world(app, alice_client):
    """plan.md open in the page (fresh pointer), a conversation with a delivery row."""
    put_note(alice_client, "personal", "plan.md", PLAN)
    put_note(alice_client, "personal", "other.md", "alpha\nbeta\n")
    key = key_session(alice_client, "personal")
    cid = new_id()
    ok_turn(alice_client, cid, "hello", key=key, note=header_for(pointer(PLAN, "plan.md")))
    return app, alice_client, cid, key


def propose(client, cid, edits, path=None):
    args = {"edits": edits} if path is None else {"edits": edits, "path": path}
    return tool(client, cid, "propose_edit", args)


def proposal_url(cid: str, pid: str, action: str = "") -> str:
    return f"/api/assistant/conversations/{cid}/proposals/{pid}" + (f"/{action}" if action else "")


def listed(client, cid) -> list[dict]:
    r = client.get(f"/api/assistant/conversations/{cid}/proposals")
    assert r.status_code == 200, r.text
    return r.json()["proposals"]


# --- propose_edit ------------------------------------------------------------------------


def test_propose_edit_on_the_active_note_stores_a_proposal_and_changes_nothing(world):
    _, client, cid, _ = world
    before = doc(client, "plan.md")
    result = propose(
        client,
        cid,
        [{"find": "- [ ] buy milk", "replace": "- [x] buy milk"}, {"append": "Done for today."}],
    )
    assert result["ok"] is True
    assert result["path"] == "plan.md" and result["baseRevision"] == before[1]
    assert result["stale"] is False and result["caveat"] is None
    diff = result["diff"]
    assert diff.startswith("--- a/plan.md\n+++ b/plan.md\n")
    assert "-- [ ] buy milk\n+- [x] buy milk\n" in diff
    assert "+Done for today." in diff
    assert result["proposalId"] in result["text"] and diff in result["text"]
    assert doc(client, "plan.md") == before  # neither text nor revision changed

    got = client.get(proposal_url(cid, result["proposalId"])).json()
    assert got == {
        "proposalId": result["proposalId"],
        "path": "plan.md",
        "status": "pending",
        "edits": [
            {"find": "- [ ] buy milk", "replace": "- [x] buy milk"},
            {"append": "Done for today."},
        ],
        "diff": diff,
        "baseRevision": before[1],
        "appliedVia": None,
    }


def test_a_named_path_is_proposed_without_a_caveat(world):
    _, client, cid, _ = world
    result = propose(client, cid, [{"find": "beta", "replace": "gamma"}], path="other.md")
    assert result["ok"] and result["path"] == "other.md"
    assert result["stale"] is False and result["caveat"] is None
    assert "-beta\n+gamma\n" in result["diff"]


def test_a_stale_active_note_carries_the_caveat(app, alice_client):
    put_note(alice_client, "personal", "plan.md", PLAN)
    key = key_session(alice_client)
    cid = new_id()
    on_screen = PLAN + "typed but not saved\n"
    ok_turn(alice_client, cid, "hi", key=key, note=header_for(pointer(on_screen, "plan.md")))
    result = propose(alice_client, cid, [{"append": "x"}])
    assert result["ok"] and result["stale"] is True and result["caveat"] == CAVEAT
    assert result["text"].endswith(CAVEAT)


def test_the_open_note_named_in_another_unicode_spelling_is_still_compared(app, alice_client):
    put_note(alice_client, "personal", "caf\u00e9.md", PLAN)
    key = key_session(alice_client)
    cid = new_id()
    on_screen = PLAN + "typed but not saved\n"
    ok_turn(alice_client, cid, "hi", key=key, note=header_for(pointer(on_screen, "caf\u00e9.md")))
    result = propose(alice_client, cid, [{"append": "x"}], path="cafe\u0301.md")  # NFD
    assert result["ok"] and result["stale"] is True and result["caveat"] == CAVEAT


def test_without_a_path_and_no_open_note_it_answers_like_read_active_note(app, alice_client):
    put_note(alice_client, "personal", "plan.md", PLAN)
    key = key_session(alice_client)
    cid = new_id()
    ok_turn(alice_client, cid, "hi", key=key)
    result = propose(alice_client, cid, [{"append": "x"}])
    expected = tool(alice_client, cid, "read_active_note")
    assert result == {"ok": False, "reason": "no_pointer", "text": expected["text"]}
    assert listed(alice_client, cid) == []


@pytest.mark.parametrize(
    ("edits", "reason", "edit"),
    [
        ([{"find": "no such text", "replace": "x"}], "edit_not_found", 1),
        ([{"append": "a"}, {"find": "- [ ] ", "replace": "- [x] "}], "edit_ambiguous", 2),
        ([{"append": "x" * 300_000}, {"append": "y" * 300_000}], "edit_too_large", 0),
    ],
)
def test_a_find_that_is_not_unique_or_a_result_over_1_mib_gives_no_proposal(
    world, edits, reason, edit
):
    _, client, cid, _ = world
    put_note(client, "personal", "plan.md", PLAN + "z" * 500_000)  # 1 MiB needs a large note
    before = doc(client, "plan.md")
    result = propose(client, cid, edits)
    assert result["ok"] is False and result["reason"] == reason and result["edit"] == edit
    if edit:
        assert result["text"].startswith(f"Edit {edit}:")
    assert "buy milk" not in result["text"] and "- [ ]" not in result["text"]
    assert "proposalId" not in result
    assert listed(client, cid) == []
    assert doc(client, "plan.md") == before


def test_twenty_edits_are_accepted_and_twenty_one_are_refused(world):
    _, client, cid, _ = world
    assert propose(client, cid, [{"append": f"line {i}"} for i in range(20)])["ok"] is True
    r = call_tool(client, cid, "propose_edit", {"edits": [{"append": "x"}] * 21})
    assert r.status_code == 422
    assert "at most 20" in r.text
    assert len(listed(client, cid)) == 1


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"edits": []},
        {"edits": [{"find": "", "replace": "x"}]},
        {"edits": [{"find": "a"}]},
        {"edits": [{"append": 3}]},
        {"edits": [{"append": "a"}], "path": 7},
    ],
)
def test_malformed_arguments_are_422(world, args):
    _, client, cid, _ = world
    assert call_tool(client, cid, "propose_edit", args).status_code == 422
    assert listed(client, cid) == []


def test_access_failures_give_read_documents_message_and_no_proposal(world):
    app, client, cid, _ = world
    for path in ("missing.md", "../escape.md"):
        expected = tool(client, cid, "read_document", {"path": path})
        result = propose(client, cid, [{"append": "x"}], path=path)
        assert result == expected and result["ok"] is False
    set_row(app, cid, key_session_id=None)
    assert propose(client, cid, [{"append": "x"}])["reason"] == "no_key_session"
    set_row(app, cid, expires_at=utcnow() - timedelta(seconds=1))
    result = propose(client, cid, [{"append": "x"}])
    assert result == tool(client, cid, "read_document", {"path": "plan.md"})
    assert result["reason"] == "expired"
    assert listed(client, cid) == []


def test_a_member_removed_since_the_turn_cannot_propose(world):
    app, client, cid, _ = world
    with app.state.sessionmaker() as db:
        alice = db.scalar(select(User.id).where(User.username == "alice"))
        db.execute(delete(Membership).where(Membership.user_id == alice))
        db.commit()
    result = propose(client, cid, [{"append": "x"}])
    assert result["ok"] is False and result["reason"] == "not_member"


# --- GET, owner only ---------------------------------------------------------------------


def test_only_the_owner_sees_a_proposal(world, bob_client, client):
    _, alice, cid, _ = world
    pid = propose(alice, cid, [{"append": "x"}])["proposalId"]
    assert client.get(proposal_url(cid, pid)).status_code == 401
    for url in (proposal_url(cid, pid), f"/api/assistant/conversations/{cid}/proposals"):
        r = bob_client.get(url)
        assert r.status_code == 404
    for action in ("apply", "discard", "applied-in-editor"):
        assert bob_client.post(proposal_url(cid, pid, action)).status_code == 404
    other = new_id()
    ok_turn(alice, other, "hi")
    assert alice.get(proposal_url(other, pid)).status_code == 404  # another conversation
    assert alice.get(proposal_url(cid, new_id())).status_code == 404
    assert alice.get(proposal_url(cid, "x" * 5000)).status_code == 404
    assert alice.get(proposal_url(cid, pid)).json()["status"] == "pending"


# --- apply -------------------------------------------------------------------------------


def test_apply_saves_on_the_current_copy_and_marks_it_applied(world):
    _, client, cid, _ = world
    result = propose(client, cid, [{"find": "- [ ] buy milk", "replace": "- [x] buy milk"}])
    # Typing elsewhere in the note since the proposal does not block it.
    put_note(client, "personal", "plan.md", PLAN + "A later line.\n")
    _, revision = doc(client, "plan.md")
    r = client.post(proposal_url(cid, result["proposalId"], "apply"))
    assert r.status_code == 200, r.text
    assert r.json() == {"path": "plan.md", "revision": revision + 1}
    text, now_rev = doc(client, "plan.md")
    assert text == PLAN.replace("- [ ] buy milk", "- [x] buy milk") + "A later line.\n"
    assert now_rev == revision + 1
    got = client.get(proposal_url(cid, result["proposalId"])).json()
    assert got["status"] == "applied" and got["appliedVia"] == "server"
    again = client.post(proposal_url(cid, result["proposalId"], "apply"))
    assert again.status_code == 409 and "already been applied" in again.json()["detail"]
    assert client.post(proposal_url(cid, result["proposalId"], "discard")).status_code == 409
    assert doc(client, "plan.md") == (text, now_rev)


@pytest.mark.parametrize(
    ("changed", "words"),
    [
        (PLAN.replace("- [ ] buy milk", "- [ ] buy oat milk"), "no longer in the note"),
        (PLAN + "- [ ] buy milk\n", "more than once"),
    ],
)
def test_apply_refuses_when_the_line_it_targets_changed(world, changed, words):
    _, client, cid, _ = world
    pid = propose(client, cid, [{"find": "- [ ] buy milk", "replace": "- [x] buy milk"}])[
        "proposalId"
    ]
    put_note(client, "personal", "plan.md", changed)
    before = doc(client, "plan.md")
    r = client.post(proposal_url(cid, pid, "apply"))
    assert r.status_code == 409
    detail = r.json()["detail"]
    assert detail.startswith("Edit 1:") and words in detail and "nothing was changed" in detail
    assert "milk" not in detail
    assert doc(client, "plan.md") == before
    assert client.get(proposal_url(cid, pid)).json()["status"] == "pending"


def test_apply_of_a_deleted_note_is_409(world):
    _, client, cid, _ = world
    pid = propose(client, cid, [{"append": "x"}])["proposalId"]
    assert client.delete("/api/workspaces/personal/documents/plan.md").status_code == 204
    r = client.post(proposal_url(cid, pid, "apply"))
    assert r.status_code == 409 and "no longer exists" in r.json()["detail"]


def test_apply_loses_to_a_save_that_lands_after_its_read(world, monkeypatch):
    """A concurrent save between the apply's read and its write wins; the apply changes nothing."""
    app, client, cid, _ = world
    pid = propose(client, cid, [{"append": "from the assistant"}])["proposalId"]
    real_find = documents.find_document
    raced = PLAN + "typed in another window\n"

    def find_then_race(db, **kwargs):
        found = real_find(db, **kwargs)
        with app.state.sessionmaker() as other:  # another connection saves meanwhile
            documents.save_document(
                other,
                workspace_id="personal",
                path="plan.md",
                content=raced,
                max_bytes=2**20,
                source=Source.page(None),
            )
        return found

    monkeypatch.setattr(proposals_service.documents, "find_document", find_then_race)
    r = client.post(proposal_url(cid, pid, "apply"))
    monkeypatch.undo()
    assert r.status_code == 409 and "saved by someone else" in r.json()["detail"], r.text
    text, _ = doc(client, "plan.md")
    assert text == raced
    assert client.get(proposal_url(cid, pid)).json()["status"] == "pending"
    # Applied again on the new copy, it lands once.
    assert client.post(proposal_url(cid, pid, "apply")).status_code == 200
    assert doc(client, "plan.md")[0] == raced + "from the assistant"


def test_two_applies_at_once_apply_exactly_once(world):
    app, alice, cid, _ = world
    pid = propose(alice, cid, [{"append": "- [ ] only once"}])["proposalId"]
    _, base = doc(alice, "plan.md")
    barrier = threading.Barrier(4)
    statuses: list[int] = []

    def apply() -> None:
        client = TestClient(app, cookies=alice.cookies)
        barrier.wait(timeout=30)
        statuses.append(client.post(proposal_url(cid, pid, "apply")).status_code)

    threads = [threading.Thread(target=apply) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(statuses) == [200, 409, 409, 409]
    text, revision = doc(alice, "plan.md")
    assert text.count("- [ ] only once") == 1 and revision == base + 1


def test_apply_by_a_removed_member_is_refused(world):
    app, client, cid, _ = world
    pid = propose(client, cid, [{"append": "x"}])["proposalId"]
    with app.state.sessionmaker() as db:
        alice = db.scalar(select(User.id).where(User.username == "alice"))
        db.execute(delete(Membership).where(Membership.user_id == alice))
        db.commit()
    assert client.post(proposal_url(cid, pid, "apply")).status_code == 403
    assert client.get(proposal_url(cid, pid)).json()["status"] == "pending"


# --- discard and applied-in-editor --------------------------------------------------------


def test_discard_makes_a_pending_proposal_discarded_and_final(world):
    _, client, cid, _ = world
    before = doc(client, "plan.md")
    pid = propose(client, cid, [{"append": "x"}])["proposalId"]
    r = client.post(proposal_url(cid, pid, "discard"))
    assert r.status_code == 200 and r.json() == {"proposalId": pid, "status": "discarded"}
    assert client.get(proposal_url(cid, pid)).json()["status"] == "discarded"
    for action in ("discard", "apply", "applied-in-editor"):
        r = client.post(proposal_url(cid, pid, action))
        assert r.status_code == 409 and "discarded" in r.json()["detail"]
    assert doc(client, "plan.md") == before


def test_applied_in_editor_records_the_outcome_without_writing(world):
    _, client, cid, _ = world
    before = doc(client, "plan.md")
    pid = propose(client, cid, [{"append": "x"}])["proposalId"]
    r = client.post(proposal_url(cid, pid, "applied-in-editor"))
    assert r.status_code == 200 and r.json() == {"proposalId": pid, "status": "applied"}
    got = client.get(proposal_url(cid, pid)).json()
    assert got["status"] == "applied" and got["appliedVia"] == "editor"
    assert doc(client, "plan.md") == before
    assert client.post(proposal_url(cid, pid, "apply")).status_code == 409
    assert [p["status"] for p in listed(client, cid)] == ["applied"]
