"""SPEC §15 conversations on both databases: the listing (order, title, count) and delete."""

from __future__ import annotations

from assistant_helpers import header_for, key_session, new_id, ok_turn, pointer, put_note, tool
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from backend.db import utcnow
from backend.models import AgentDeliveryCredential, Conversation, Message
from backend.models.proposals import EditProposal

LIST = "/api/assistant/conversations"
PLAN = "# Plan\n\n- [ ] buy milk\n"


def listed(client: TestClient, ws: str = "personal") -> list[dict]:
    r = client.get(LIST, params={"workspaceId": ws})
    assert r.status_code == 200, r.text
    return r.json()["conversations"]


def rows(app, model, cid: str) -> int:
    with app.state.sessionmaker() as db:
        return db.scalar(
            select(func.count()).select_from(model).where(model.conversation_id == cid)
        )


def test_the_listing_is_newest_first_with_title_and_count(alice_client: TestClient):
    a, b, c = new_id(), new_id(), new_id()
    ok_turn(alice_client, a, "first conversation")
    ok_turn(alice_client, b, "second conversation")
    ok_turn(alice_client, b, "and a follow-up")
    ok_turn(alice_client, c, "third conversation")
    got = listed(alice_client)
    assert [x["conversationId"] for x in got] == [c, b, a]
    assert [x["title"] for x in got] == [
        "third conversation",
        "second conversation",
        "first conversation",
    ]
    assert [x["messageCount"] for x in got] == [2, 4, 2]  # each turn: the user's and a reply
    assert set(got[0]) == {"conversationId", "title", "updatedAt", "messageCount"}
    # A new turn in the oldest one brings it to the top; its title stays its first message.
    ok_turn(alice_client, a, "back to the first")
    got = listed(alice_client)
    assert [x["conversationId"] for x in got] == [a, c, b]
    assert got[0]["title"] == "first conversation"
    assert got[0]["updatedAt"] > got[1]["updatedAt"]


def test_the_title_is_the_first_message_cut_to_80_characters(alice_client: TestClient):
    english, japanese = new_id(), new_id()
    long_english = "word " * 40  # 200 characters
    long_japanese = "今日の会議の要点をまとめてください。" * 6  # 108 characters, 3 bytes each
    ok_turn(alice_client, english, long_english)
    ok_turn(alice_client, japanese, long_japanese)
    titles = {x["conversationId"]: x["title"] for x in listed(alice_client)}
    assert titles[english] == long_english[:80]
    assert titles[japanese] == long_japanese[:80]  # characters, not bytes
    assert len(titles[japanese]) == 80


def test_the_listing_is_per_user_and_per_workspace(app, alice_client, bob_client):
    mine, team, bobs = new_id(), new_id(), new_id()
    ok_turn(alice_client, mine, "in personal")
    ok_turn(alice_client, team, "in team", ws="team")
    ok_turn(bob_client, bobs, "bob in team", ws="team")
    assert [x["conversationId"] for x in listed(alice_client)] == [mine]
    assert [x["conversationId"] for x in listed(alice_client, "team")] == [team]
    assert [x["conversationId"] for x in listed(bob_client, "team")] == [bobs]
    # Not a member (or no such workspace): refused like every workspace route.
    assert alice_client.get(LIST, params={"workspaceId": "bob-notes"}).status_code == 403
    assert alice_client.get(LIST, params={"workspaceId": "nowhere"}).status_code == 403
    assert alice_client.get(LIST).status_code == 422  # workspaceId is required
    assert TestClient(app).get(LIST, params={"workspaceId": "personal"}).status_code == 401


def test_a_conversation_without_messages_is_not_listed(app, alice_client):
    """Only a turn makes a conversation worth finding; an empty row (the page makes none, but
    the table allows it) would list with a blank title."""
    with app.state.sessionmaker() as db:
        db.add(
            Conversation(
                id=new_id(),
                user_id=app.state.test_user_ids["alice"],
                workspace_id="personal",
                created_at=utcnow(),
                updated_at=utcnow(),
            )
        )
        db.commit()
    cid = new_id()
    ok_turn(alice_client, cid, "a real one")
    assert [x["conversationId"] for x in listed(alice_client)] == [cid]


def test_a_conversation_that_moved_workspace_is_listed_where_it_is_now(alice_client):
    cid = new_id()
    ok_turn(alice_client, cid, "started in personal")
    ok_turn(alice_client, cid, "continued in team", ws="team")
    assert listed(alice_client) == []
    (moved,) = listed(alice_client, "team")
    assert moved["title"] == "started in personal" and moved["messageCount"] == 4


def test_delete_removes_the_conversation_its_messages_and_proposals(app, alice_client):
    put_note(alice_client, "personal", "plan.md", PLAN)
    key = key_session(alice_client)
    cid, kept = new_id(), new_id()
    ok_turn(alice_client, cid, "hello", key=key, note=header_for(pointer(PLAN, "plan.md")))
    proposal = tool(
        alice_client,
        cid,
        "propose_edit",
        {"edits": [{"find": "buy milk", "replace": "buy oat milk"}]},
    )
    assert proposal["ok"] is True
    ok_turn(alice_client, kept, "another one")
    assert rows(app, EditProposal, cid) == 1
    assert rows(app, AgentDeliveryCredential, cid) == 1

    r = alice_client.delete(f"{LIST}/{cid}")
    assert r.status_code == 204, r.text
    assert [x["conversationId"] for x in listed(alice_client)] == [kept]
    assert alice_client.get(f"{LIST}/{cid}").status_code == 404
    for model in (Message, EditProposal, AgentDeliveryCredential):
        assert rows(app, model, cid) == 0, model.__name__
    with app.state.sessionmaker() as db:
        assert db.get(Conversation, cid) is None
    assert rows(app, Message, kept) == 2  # the other conversation is untouched
    # The note is untouched too, and the same id may start afresh later.
    assert alice_client.get("/api/workspaces/personal/documents/plan.md").text == PLAN
    assert alice_client.delete(f"{LIST}/{cid}").status_code == 404
    ok_turn(alice_client, cid, "a new start")
    (again,) = [x for x in listed(alice_client) if x["conversationId"] == cid]
    assert again["title"] == "a new start" and again["messageCount"] == 2


def test_delete_of_anothers_or_an_unknown_conversation_is_404(app, alice_client, bob_client):
    cid = new_id()
    ok_turn(alice_client, cid, "alice's own", ws="team")
    for bad in (cid, new_id(), "not-a-uuid"):
        r = bob_client.delete(f"{LIST}/{bad}")
        assert r.status_code == 404, (bad, r.text)
    assert TestClient(app).delete(f"{LIST}/{cid}").status_code == 401
    assert rows(app, Message, cid) == 2  # nothing was deleted
    assert [x["conversationId"] for x in listed(alice_client, "team")] == [cid]
    # The id accepts its upper-case spelling for the owner, like the other routes.
    assert alice_client.delete(f"{LIST}/{cid.upper()}").status_code == 204
    assert listed(alice_client, "team") == []


def test_resume_gives_the_messages_and_each_proposals_outcome(alice_client: TestClient):
    """What the page reads to resume: the messages, then the proposals with their status."""
    put_note(alice_client, "personal", "plan.md", PLAN)
    key = key_session(alice_client)
    cid = new_id()
    ok_turn(alice_client, cid, "hello", key=key, note=header_for(pointer(PLAN, "plan.md")))
    first = tool(
        alice_client,
        cid,
        "propose_edit",
        {"edits": [{"find": "buy milk", "replace": "buy oat milk"}]},
    )
    second = tool(
        alice_client, cid, "propose_edit", {"edits": [{"find": "# Plan", "replace": "# The plan"}]}
    )
    base = f"{LIST}/{cid}/proposals"
    assert alice_client.post(f"{base}/{first['proposalId']}/apply").status_code == 200
    assert alice_client.post(f"{base}/{second['proposalId']}/discard").status_code == 200
    conversation = alice_client.get(f"{LIST}/{cid}").json()
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"]
    # One request: the resume answer carries every proposal as its own endpoint shows it.
    assert conversation["proposals"] == alice_client.get(base).json()["proposals"]
    outcomes = {p["proposalId"]: p["status"] for p in conversation["proposals"]}
    assert outcomes == {first["proposalId"]: "applied", second["proposalId"]: "discarded"}


def test_resume_draws_each_proposal_of_the_messages_from_one_answer(alice_client: TestClient):
    """Proposals made in turns: each message's propose_edit call finds its proposal in the
    same answer, with its outcome (applied through the endpoint or in the editor, discarded,
    pending) and its diff; no other user sees any of it."""
    text = PLAN
    put_note(alice_client, "personal", "plan.md", text)
    key = key_session(alice_client)
    cid = new_id()
    made = []
    for todo in ("buy eggs", "call the bank", "water the plants", "book a table"):
        body = ok_turn(
            alice_client,
            cid,
            f"add a todo: {todo}",
            key=key,
            note=header_for(pointer(text, "plan.md")),
        )
        (call,) = [c for c in body["toolCalls"] if c["tool"] == "propose_edit"]
        made.append(call["result"]["proposalId"])
    base = f"{LIST}/{cid}/proposals"
    applied, in_editor, discarded, pending = made
    assert alice_client.post(f"{base}/{applied}/apply").status_code == 200
    assert alice_client.post(f"{base}/{in_editor}/applied-in-editor").status_code == 200
    assert alice_client.post(f"{base}/{discarded}/discard").status_code == 200

    conversation = alice_client.get(f"{LIST}/{cid}").json()
    shown = {p["proposalId"]: p for p in conversation["proposals"]}
    assert [p["proposalId"] for p in conversation["proposals"]] == made  # oldest first
    assert {pid: (shown[pid]["status"], shown[pid]["appliedVia"]) for pid in made} == {
        applied: ("applied", "server"),
        in_editor: ("applied", "editor"),
        discarded: ("discarded", None),
        pending: ("pending", None),
    }
    assert "+- [ ] book a table" in shown[pending]["diff"]
    assert all(p["path"] == "plan.md" for p in shown.values())
    called = [
        c["result"]["proposalId"]
        for m in conversation["messages"]
        for c in m["toolCalls"]
        if c["tool"] == "propose_edit"
    ]
    assert called == made  # every card of the log finds its outcome in the same answer


def test_resume_of_a_conversation_without_proposals_lists_none(alice_client, bob_client):
    cid = new_id()
    ok_turn(alice_client, cid, "hello")
    assert alice_client.get(f"{LIST}/{cid}").json()["proposals"] == []
    assert bob_client.get(f"{LIST}/{cid}").status_code == 404
