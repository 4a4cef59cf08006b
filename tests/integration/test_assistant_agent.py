"""The built-in offline assistant through POST /turns, in English and Japanese, on both DBs."""

from __future__ import annotations

import io
import json
import logging

import pytest
from assistant_helpers import (
    CAVEAT,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    raw_header,
    row,
    turn,
)
from sqlalchemy import select

from backend.logging import JsonFormatter
from backend.models import AgentDeliveryCredential, Message

PLAN = """# Launch Plan

We launch the notes app in March. The assistant reads the saved note when asked.

## Risks
Concurrent sends could mix two pointers. One upsert statement prevents that.

## Tasks
- [ ] write the docs
- [x] ship the codec
- [ ] book the venue
"""

MEMO = """# 今日のメモ

## やること
- [ ] 企画書の下書きを仕上げる
- [x] 田中さんにメールを返信する

## 気づいたこと
午前中は集中しやすい。会議は午後にまとめると効率がよい。
"""


@pytest.fixture
def world(app, alice_client):
    put_note(alice_client, "personal", "plan.md", PLAN)
    put_note(alice_client, "personal", "日記/今日のメモ.md", MEMO)
    put_note(alice_client, "personal", "budget.md", "The budget is tight.\nBudget review Friday.")
    return app, alice_client, key_session(alice_client, "personal"), new_id()


def tools_of(body):
    return [c["tool"] for c in body["toolCalls"]]


def ask(client, cid, key, message, p=None):
    return ok_turn(client, cid, message, key=key, note=header_for(p) if p else None)


def test_english_summary_reads_the_active_note_first(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "summarise this", pointer(PLAN, "plan.md"))
    assert tools_of(body)[0] == "read_active_note"
    reply = body["reply"]
    assert "plan.md" in reply
    assert "We launch the notes app in March." in reply
    assert "Risks" in reply and "Tasks: 2 open, 1 done." in reply
    assert CAVEAT not in reply
    result = body["toolCalls"][0]["result"]
    assert result["ok"] is True and result["content"] == PLAN


@pytest.mark.parametrize(
    "message",
    ["summarise this", "what does this note say?", "summarize it", "what's here?", "this?"],
)
def test_every_deictic_turn_calls_read_active_note_again(world, message):
    _, client, key, cid = world
    first = ask(client, cid, key, message, pointer(PLAN, "plan.md"))
    second = ask(client, cid, key, message, pointer(MEMO, "日記/今日のメモ.md"))
    assert tools_of(first)[0] == tools_of(second)[0] == "read_active_note"
    assert first["toolCalls"][0]["result"]["path"] == "plan.md"
    assert second["toolCalls"][0]["result"]["path"] == "日記/今日のメモ.md"


@pytest.mark.parametrize(
    "message",
    ["このノートを要約して", "これを要約して", "このメモをまとめて", "この文書の概要は？"],
)
def test_japanese_request_gets_a_japanese_reply(world, message):
    _, client, key, cid = world
    body = ask(client, cid, key, message, pointer(MEMO, "日記/今日のメモ.md"))
    assert tools_of(body) == ["read_active_note"]
    reply = body["reply"]
    assert "要約" in reply
    assert "午前中は集中しやすい。" in reply
    assert "Summary" not in reply


def test_stale_note_caveat_is_relayed_verbatim(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "summarise this", pointer(PLAN + "\nnew typing", "plan.md"))
    assert body["toolCalls"][0]["result"]["stale"] is True
    assert CAVEAT in body["reply"]
    ja = ask(
        client, cid, key, "このノートを要約して", pointer(MEMO, "日記/今日のメモ.md", flushed=False)
    )
    assert CAVEAT in ja["reply"]


def test_no_open_note_asks_which_note(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "summarise this")
    assert tools_of(body) == ["read_active_note"]
    assert body["toolCalls"][0]["result"]["ok"] is False
    assert "which note" in body["reply"].lower()
    ja = ask(client, cid, key, "このノートを要約して")
    assert "どのノート" in ja["reply"]


def test_named_path_uses_read_document(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "summarise plan.md", pointer(MEMO, "日記/今日のメモ.md"))
    assert tools_of(body) == ["list_documents", "read_document"]
    assert body["toolCalls"][1]["arguments"] == {"path": "plan.md", "maxBytes": 262_144}
    assert "We launch the notes app in March." in body["reply"]
    ja = ask(client, cid, key, "今日のメモ.md を要約して")
    assert tools_of(ja) == ["list_documents", "read_document"]
    assert ja["toolCalls"][1]["arguments"] == {"path": "日記/今日のメモ.md", "maxBytes": 262_144}
    assert "要約" in ja["reply"]
    missing = ask(client, cid, key, "summarise nothing-here.md")
    assert "couldn't find" in missing["reply"]


def test_list_documents_request(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "what notes do I have?")
    assert tools_of(body) == ["list_documents"]
    assert "plan.md" in body["reply"] and "budget.md" in body["reply"]
    ja = ask(client, cid, key, "ノートの一覧を見せて")
    assert tools_of(ja) == ["list_documents"] and "件" in ja["reply"]


def test_todos_counts_and_find(world):
    _, client, key, cid = world
    p = pointer(PLAN, "plan.md")
    todos = ask(client, cid, key, "what are the todos here?", p)
    assert tools_of(todos) == ["read_active_note"]
    assert "write the docs" in todos["reply"] and "book the venue" in todos["reply"]
    assert "Done (1)" in todos["reply"] and "ship the codec" in todos["reply"]
    counts = ask(client, cid, key, "how many words are in this note?", p)
    assert "words" in counts["reply"] and "characters" in counts["reply"]
    ja_counts = ask(client, cid, key, "この文書の文字数は？", pointer(MEMO, "日記/今日のメモ.md"))
    assert "文字" in ja_counts["reply"]
    found = ask(client, cid, key, "which notes mention budget?")
    assert tools_of(found) == ["search_notes"]  # the search service, not a read of every note
    assert "budget.md (line 1: The budget is tight.)" in found["reply"]
    assert "plan.md" not in found["reply"]
    assert found["toolCalls"][0]["result"]["results"][0]["path"] == "budget.md"
    ja = ask(client, cid, key, "「予算」を含むノートは？")
    assert tools_of(ja) == ["search_notes"] and "ありませんでした" in ja["reply"]
    stored = client.get(f"/api/assistant/conversations/{cid}").json()["messages"]
    assert stored[-3]["toolCalls"][0]["result"]["results"] == 1  # a count: no snippet kept


def test_quote_selection_only_when_fresh(world):
    _, client, key, cid = world
    start = PLAN.index("We launch")
    fresh = pointer(PLAN, "plan.md", selection=(start, start + len("We launch the notes app")))
    body = ask(client, cid, key, "quote the selected text", fresh)
    assert "> We launch the notes app" in body["reply"]
    stale = pointer(PLAN + "x", "plan.md", selection=(start, start + 9))
    refused = ask(client, cid, key, "quote the selected text", stale)
    assert "> " not in refused["reply"]
    assert CAVEAT in refused["reply"]
    preview = ask(client, cid, key, "quote the selection", pointer(PLAN, "plan.md", view="preview"))
    assert "Edit view" in preview["reply"]


def test_access_failure_is_explained(world):
    _, client, _, cid = world
    body = ok_turn(client, cid, "summarise this", note=header_for(pointer(PLAN, "plan.md")))
    assert tools_of(body) == ["read_active_note"]
    assert body["toolCalls"][0]["result"]["ok"] is False
    assert "key session" in body["reply"] or "access" in body["reply"]


def test_help_without_tools(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "hello")
    assert body["toolCalls"] == []
    assert "summarise" in body["reply"] and "add a todo" in body["reply"]


def test_canary_never_reaches_the_delivery_table_logs_or_errors(world):
    app, client, key, cid = world
    canary = "CANARY-7f3a9c-ドラゴン"
    text = f"# Secret\n\n{canary} is the launch code.\n"
    put_note(client, "personal", "secret.md", text)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())  # the server's own format, with every field
    logger = logging.getLogger("ambient")
    logger.addHandler(handler)
    try:
        p = pointer(text, "secret.md")
        replies = [
            ask(client, cid, key, "summarise this", p),
            ask(client, cid, key, "summarise this", pointer(text + "x", "secret.md")),
            ok_turn(
                client,
                cid,
                "summarise this",
                key=key,
                note=raw_header({**p.to_wire(), "v": 2, "x": canary}),
            ),
            ask(client, cid, key, "which notes mention launch?"),
        ]
        bad = turn(client, cid, canary, ws="bob-notes", key=key)
        errors = [
            bad.text,
            client.post(
                f"/api/assistant/conversations/{cid}/tools/read_document", json={"path": 5}
            ).text,
            client.post("/api/assistant/turns", json={"message": canary}).text,
        ]
    finally:
        logger.removeHandler(handler)
    assert canary in replies[0]["toolCalls"][0]["result"]["content"]  # the tool did read it
    assert bad.status_code == 403
    for error in errors:
        assert canary not in error
    logs = stream.getvalue()
    assert '"event": "tool_call"' in logs and '"event": "turn"' in logs
    assert '"pointer_reason": "unsupported v"' in logs
    assert canary not in logs
    with app.state.sessionmaker() as db:
        for r in db.scalars(select(AgentDeliveryCredential)):
            assert canary not in json.dumps([r.ambient_path, r.ambient_view, r.ambient_meta])
        # Stored tool-call summaries hold no note text either.
        for m in db.scalars(select(Message).where(Message.role == "assistant")):
            assert canary not in (m.tool_calls or "")
    assert row(app, cid) is not None
