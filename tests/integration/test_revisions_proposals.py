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


def carry(client, text: str, proposal_id: str | None, path: str = "plan.md"):
    """The page's save of `text`; with `proposal_id`, the save that carries an in-editor apply."""
    headers = {"Content-Type": "text/markdown; charset=utf-8"}
    if proposal_id is not None:
        headers["X-Applied-Proposal"] = proposal_id
    return client.put(url(path), content=text.encode(), headers=headers)


def applied_in_editor(client, cid, pid) -> None:
    marked = client.post(f"/api/assistant/conversations/{cid}/proposals/{pid}/applied-in-editor")
    assert marked.status_code == 200, marked.text


def history(client, path: str = "plan.md") -> list[tuple[str, str]]:
    items = client.get(url(path, "/revisions")).json()["revisions"]
    return [(i["source"]["kind"], i["action"]) for i in items]


def test_the_save_that_carries_an_in_editor_apply_is_the_assistants_revision(
    alice_client, conversation
):
    cid = conversation
    put_note(alice_client, "personal", "plan.md", PLAN + "typing\n")  # the user's own typing
    pid = propose_append(alice_client, cid)
    applied_in_editor(alice_client, cid, pid)
    assert carry(alice_client, PLAN + "typing\nx", pid).status_code == 200
    put_note(alice_client, "personal", "plan.md", PLAN + "typing\nx\nmore")  # typing again
    items = alice_client.get(url("plan.md", "/revisions")).json()["revisions"]
    assert [(i["source"]["kind"], i["action"]) for i in items][:3] == [
        ("page", "edit"),
        ("assistant", "edit"),
        ("page", "edit"),
    ]
    carried = items[1]["revision"]
    assert alice_client.get(url("plan.md", f"/revisions/{carried}")).text == PLAN + "typing\nx"
    status = alice_client.get(f"/api/assistant/conversations/{cid}/proposals/{pid}").json()
    assert status["status"] == "applied"


def test_a_save_without_the_proposal_is_the_users_even_right_after_an_apply(
    alice_client, conversation
):
    """Another window's save, or this window's typing, never becomes the assistant's."""
    cid = conversation
    pid = propose_append(alice_client, cid)
    applied_in_editor(alice_client, cid, pid)
    assert carry(alice_client, PLAN + "typed elsewhere\n", None).status_code == 200
    assert history(alice_client)[0] == ("page", "edit")
    # The proposal is still waiting for the save that carries it.
    assert carry(alice_client, PLAN + "typed elsewhere\nx", pid).status_code == 200
    assert history(alice_client)[0] == ("assistant", "edit")


def test_a_proposal_is_carried_by_one_save_only(alice_client, conversation):
    cid = conversation
    pid = propose_append(alice_client, cid)
    applied_in_editor(alice_client, cid, pid)
    assert carry(alice_client, PLAN + "x", pid).status_code == 200
    assert carry(alice_client, PLAN + "x\nmine", pid).status_code == 200  # a stale retry
    assert [kind for kind, _ in history(alice_client)][:2] == ["page", "assistant"]


def test_a_save_naming_a_proposal_it_cannot_carry_is_the_users(
    alice_client, bob_client, conversation
):
    cid = conversation
    pending = propose_append(alice_client, cid)  # not applied in the editor
    assert carry(alice_client, PLAN + "a", pending).status_code == 200
    assert history(alice_client)[0] == ("page", "edit")
    applied_in_editor(alice_client, cid, pending)
    # Applied to plan.md: a save of other.md cannot carry it.
    assert carry(alice_client, "other\nx", pending, path="other.md").status_code == 200
    assert history(alice_client, "other.md")[0] == ("page", "edit")
    # Made of the same note's text by nobody: an unknown id.
    unknown = "00000000-0000-4000-8000-000000000000"
    assert carry(alice_client, PLAN + "b", unknown).status_code == 200
    assert history(alice_client)[0] == ("page", "edit")


@pytest.mark.parametrize("value", ["not a proposal", "x" * 37, "ABC"])
def test_a_malformed_applied_proposal_header_is_a_422_that_saves_nothing(
    alice_client, conversation, value
):
    before = alice_client.get(url("plan.md")).headers["ETag"]
    r = carry(alice_client, PLAN + "lost?", value)
    assert r.status_code == 422 and "X-Applied-Proposal" in r.text
    assert alice_client.get(url("plan.md")).headers["ETag"] == before
