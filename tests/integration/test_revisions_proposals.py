"""An applied proposal is the assistant's revision (§15), and applies only to its own note (§14)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from assistant_helpers import header_for, key_session, new_id, ok_turn, pointer, put_note, tool

PLAN = "# Plan\n\n- [ ] buy milk\n"


def url(path: str, suffix: str = "") -> str:
    return f"/api/workspaces/personal/documents/{quote(path)}{suffix}"


@pytest.fixture
def conversation(alice_client):
    put_note(alice_client, "personal", "plan.md", PLAN)
    put_note(alice_client, "personal", "other.md", "other\n")
    cid = new_id()
    key = key_session(alice_client, "personal")
    ok_turn(alice_client, cid, "hello", key=key, note=header_for(pointer(PLAN, "plan.md")))
    return cid


def propose_append(client, cid) -> str:
    result = tool(client, cid, "propose_edit", {"path": "plan.md", "edits": [{"append": "x"}]})
    assert result["ok"] is True, result
    return result["proposalId"]


def apply(client, cid, pid):
    return client.post(f"/api/assistant/conversations/{cid}/proposals/{pid}/apply")


def test_an_applied_proposal_is_its_own_revision_by_the_assistant(alice_client, conversation):
    cid = conversation
    pid = propose_append(alice_client, cid)
    r = apply(alice_client, cid, pid)
    assert r.status_code == 200, r.text
    items = alice_client.get(url("plan.md", "/revisions")).json()["revisions"]
    assert [(i["revision"], i["source"]["kind"]) for i in items] == [(2, "assistant"), (1, "page")]
    assert items[0]["source"] == {"kind": "assistant", "name": None}
    assert alice_client.get(url("plan.md", "/revisions/1")).text == PLAN
    # The user's next autosave does not swallow the assistant's revision.
    put_note(alice_client, "personal", "plan.md", PLAN + "x\nmine\n")
    kinds = [
        i["source"]["kind"]
        for i in alice_client.get(url("plan.md", "/revisions")).json()["revisions"]
    ]
    assert kinds == ["page", "assistant", "page"]


def test_a_proposal_does_not_apply_to_a_recreated_note(alice_client, conversation):
    cid = conversation
    pid = propose_append(alice_client, cid)
    assert alice_client.delete(url("plan.md")).status_code == 204
    put_note(alice_client, "personal", "plan.md", PLAN)  # same path, same text, another note
    r = apply(alice_client, cid, pid)
    assert r.status_code == 409 and "not the one the proposal was made on" in r.json()["detail"]
    assert alice_client.get(url("plan.md")).text == PLAN
    assert alice_client.get(url("plan.md")).headers["ETag"] == '"1"'


def test_a_proposal_does_not_apply_to_a_note_moved_onto_its_path(alice_client, conversation):
    cid = conversation
    pid = propose_append(alice_client, cid)
    assert alice_client.delete(url("plan.md")).status_code == 204
    moved = alice_client.post(url("other.md", "/move"), json={"to": "plan.md"})
    assert moved.status_code == 200
    r = apply(alice_client, cid, pid)
    assert r.status_code == 409
    assert alice_client.get(url("plan.md")).text == "other\n"
    status = alice_client.get(f"/api/assistant/conversations/{cid}/proposals/{pid}").json()
    assert status["status"] == "pending"


def test_the_autosave_after_an_in_editor_apply_is_the_assistants_revision(
    alice_client, conversation
):
    cid = conversation
    put_note(alice_client, "personal", "plan.md", PLAN + "typing\n")  # coalesces with nothing
    pid = propose_append(alice_client, cid)
    marked = alice_client.post(
        f"/api/assistant/conversations/{cid}/proposals/{pid}/applied-in-editor"
    )
    assert marked.status_code == 200
    put_note(alice_client, "personal", "plan.md", PLAN + "typing\nx")  # the page's autosave
    put_note(alice_client, "personal", "plan.md", PLAN + "typing\nx\nmore")  # typing again
    items = alice_client.get(url("plan.md", "/revisions")).json()["revisions"]
    assert [(i["source"]["kind"], i["action"]) for i in items][:3] == [
        ("page", "edit"),
        ("assistant", "edit"),
        ("page", "edit"),
    ]
    assert alice_client.get(url("plan.md", f"/revisions/{items[1]['revision']}")).text == (
        PLAN + "typing\nx"
    )
