"""The offline agent proposes edits (English, Japanese), asks when unsure, and knows its limits."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from assistant_helpers import CAVEAT, header_for, key_session, new_id, pointer, put_note
from sqlalchemy import select

from backend.models import Message

PLAN = """# Launch Plan

We launch the notes app in March.

## Tasks
- [ ] write the docs
- [x] ship the codec
- [ ] book the venue

## Later
Think about pricing.
"""

OFF = {"X-Ambient-Off": "1"}  # the page's header when "this note" is switched off

MEMO = """# 今日のメモ

## やること
- [ ] 企画書の下書きを仕上げる
- [x] 田中さんにメールを返信する

## 気づいたこと
午前中は集中しやすい。
"""


@pytest.fixture
def world(app, alice_client):
    put_note(alice_client, "personal", "plan.md", PLAN)
    put_note(alice_client, "personal", "日記/今日のメモ.md", MEMO)
    return app, alice_client, key_session(alice_client, "personal"), new_id()


def ask(client, cid, key, message, p=None, **headers):
    r = client.post(
        "/api/assistant/turns",
        json={"conversationId": cid, "workspaceId": "personal", "message": message},
        headers={
            "X-Key-Session": key,
            **({"X-Ambient-Note": header_for(p)} if p else {}),
            **headers,
        },
    )
    assert r.status_code == 200, r.text
    return r.json()


def tools_of(body):
    return [c["tool"] for c in body["toolCalls"]]


def text_of(client, path):
    r = client.get(f"/api/workspaces/personal/documents/{quote(path)}")
    assert r.status_code == 200
    return r.text


def proposal_of(body):
    assert tools_of(body)[-1] == "propose_edit", body
    result = body["toolCalls"][-1]["result"]
    assert result["ok"] is True, result
    return result


def apply(client, cid, result):
    return client.post(f"/api/assistant/conversations/{cid}/proposals/{result['proposalId']}/apply")


def test_add_a_todo_goes_after_the_last_task_and_applies(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "add a todo: buy sunscreen", pointer(PLAN, "plan.md"))
    assert tools_of(body) == ["read_active_note", "propose_edit"]
    assert "buy sunscreen" in body["reply"] and "Apply" in body["reply"]
    assert "book the venue" in body["reply"]  # says where it goes
    result = proposal_of(body)
    assert "+- [ ] buy sunscreen" in result["diff"]
    assert text_of(client, "plan.md") == PLAN  # proposing changed nothing
    r = apply(client, cid, result)
    assert r.status_code == 200, r.text
    assert text_of(client, "plan.md") == PLAN.replace(
        "- [ ] book the venue\n", "- [ ] book the venue\n- [ ] buy sunscreen\n"
    )


def test_add_a_todo_to_a_note_without_tasks_goes_at_the_end(world):
    _, client, key, cid = world
    put_note(client, "personal", "plain.md", "Just prose.")
    body = ask(client, cid, key, "add a task: call mum", pointer("Just prose.", "plain.md"))
    assert apply(client, cid, proposal_of(body)).status_code == 200
    assert text_of(client, "plain.md") == "Just prose.\n- [ ] call mum"


def test_mark_done_and_not_done_by_part_of_the_text(world):
    _, client, key, cid = world
    p = pointer(PLAN, "plan.md")
    body = ask(client, cid, key, "mark the docs as done", p)
    assert "write the docs" in body["reply"] and "done" in body["reply"]
    result = proposal_of(body)
    assert "-- [ ] write the docs\n+- [x] write the docs\n" in result["diff"]
    assert apply(client, cid, result).status_code == 200
    again = ask(client, cid, key, "mark ship the codec as not done", p)
    assert apply(client, cid, proposal_of(again)).status_code == 200
    text = text_of(client, "plan.md")
    assert "- [x] write the docs" in text and "- [ ] ship the codec" in text


def test_an_ambiguous_match_asks_which_one_and_proposes_nothing(world):
    _, client, key, cid = world
    note = "- [ ] buy milk\n- [ ] buy milk chocolate\n- [ ] buy bread\n"
    put_note(client, "personal", "shop.md", note)
    body = ask(client, cid, key, "mark buy as done", pointer(note, "shop.md"))
    assert tools_of(body) == ["read_active_note"]
    reply = body["reply"]
    assert "Which one" in reply
    assert "buy milk (line 1)" in reply and "buy milk chocolate (line 2)" in reply
    assert "buy bread (line 3)" in reply
    # An exact match is not ambiguous.
    exact = ask(client, cid, key, "mark buy milk as done", pointer(note, "shop.md"))
    assert "-- [ ] buy milk\n+- [x] buy milk\n" in proposal_of(exact)["diff"]
    ja = ask(client, cid, key, "buyを完了にして", pointer(note, "shop.md"))
    assert "どれのことですか" in ja["reply"] and "buy bread（3 行目）" in ja["reply"]


def test_no_matching_or_already_done_task_is_said_plainly(world):
    _, client, key, cid = world
    p = pointer(PLAN, "plan.md")
    none = ask(client, cid, key, "mark walk the dog as done", p)
    assert tools_of(none) == ["read_active_note"]
    assert "couldn't find a task" in none["reply"]
    already = ask(client, cid, key, "mark ship the codec as done", p)
    assert "already done" in already["reply"]


def test_japanese_add_and_mark_done(world):
    _, client, key, cid = world
    p = pointer(MEMO, "日記/今日のメモ.md")
    add = ask(client, cid, key, "タスクを追加: 牛乳を買う", p)
    assert "牛乳を買う" in add["reply"] and "提案" in add["reply"]
    assert apply(client, cid, proposal_of(add)).status_code == 200
    done = ask(client, cid, key, "企画書の下書きを仕上げるを完了にして", p)
    assert "完了" in done["reply"]
    assert apply(client, cid, proposal_of(done)).status_code == 200
    text = text_of(client, "日記/今日のメモ.md")
    assert "- [x] 田中さんにメールを返信する\n- [ ] 牛乳を買う\n" in text
    assert "- [x] 企画書の下書きを仕上げる" in text


def test_append_a_line_a_paragraph_and_a_heading(world):
    _, client, key, cid = world
    p = pointer(PLAN, "plan.md")
    line = ask(client, cid, key, "append: Budget is fixed.", p)
    para = ask(client, cid, key, "append a paragraph: We may slip a week.", p)
    heading = ask(client, cid, key, "add a heading: Open questions", p)
    ja = ask(client, cid, key, "追記：以上です。", p)
    assert [proposal_of(b)["diff"].count("\n+") for b in (line, para, heading, ja)]
    assert apply(client, cid, proposal_of(line)).status_code == 200
    assert text_of(client, "plan.md") == PLAN + "Budget is fixed.\n"
    # The other proposals were made on the old revision: their appends still apply.
    assert apply(client, cid, proposal_of(para)).status_code == 200
    assert apply(client, cid, proposal_of(heading)).status_code == 200
    assert text_of(client, "plan.md") == (
        PLAN + "Budget is fixed.\n\nWe may slip a week.\n\n## Open questions\n"
    )
    assert "## Open questions" in heading["reply"]


def test_a_proposal_on_a_stale_note_carries_the_caveat(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "add a todo: x", pointer(PLAN + "typing", "plan.md"))
    assert proposal_of(body)["stale"] is True
    assert CAVEAT in body["reply"]


def test_apply_is_refused_when_the_line_changed(world):
    _, client, key, cid = world
    body = ask(client, cid, key, "mark book the venue as done", pointer(PLAN, "plan.md"))
    result = proposal_of(body)
    changed = PLAN.replace("- [ ] book the venue", "- [ ] book the venue for 200")
    put_note(client, "personal", "plan.md", changed)
    r = apply(client, cid, result)
    assert r.status_code == 409
    assert r.json()["detail"].startswith("Edit 1: the text it would change is no longer")
    assert text_of(client, "plan.md") == changed


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("rewrite this paragraph more formally", "rewrite"),
        ("translate this note to French", "translate"),
        ("explain this note", "explain"),
        ("what's the capital of France?", "questions about the world"),
        ("このノートをフランス語に翻訳して", "翻訳"),
        ("この段落を丁寧に書き直して", "書き直し"),
    ],
)
def test_requests_beyond_it_are_refused_plainly_without_a_summary(world, message, words):
    _, client, key, cid = world
    body = ask(client, cid, key, message, pointer(PLAN, "plan.md"))
    assert body["toolCalls"] == []  # no reading, so no summary or listing can slip in
    reply = body["reply"]
    assert words in reply
    assert "language model" in reply or "言語モデル" in reply
    for note_text in ("Launch Plan", "write the docs", "March", "Summary", "Tasks:"):
        assert note_text not in reply


def test_summarise_todo_md_gives_a_summary_not_the_task_list(world):
    _, client, key, cid = world
    put_note(client, "personal", "todo.md", PLAN)
    body = ask(client, cid, key, "summarise todo.md")
    assert tools_of(body) == ["list_documents", "read_document"]
    assert body["reply"].startswith("Summary of todo.md:")
    assert "We launch the notes app in March." in body["reply"]
    assert "Open tasks in todo.md" not in body["reply"]  # the task list's heading
    assert "Done (" not in body["reply"]


def test_counts_of_a_long_note_cover_the_whole_note_or_say_they_do_not(world):
    _, client, key, cid = world
    paragraph = "word " * 99 + "end.\n"
    big = paragraph * 170  # about 85 KB: more than the default read, less than the largest
    put_note(client, "personal", "big.md", big)
    body = ask(client, cid, key, "how many words are in this note?", pointer(big, "big.md"))
    assert body["toolCalls"][0]["result"]["partial"] is False
    assert "17,000 words" in body["reply"]
    huge = paragraph * 600  # 300 KB: longer than any read
    put_note(client, "personal", "huge.md", huge)
    body = ask(client, cid, key, "how many words are in this note?", pointer(huge, "huge.md"))
    assert body["toolCalls"][0]["result"]["partial"] is True
    reply = body["reply"]
    assert "I read only its first 262,144 bytes" in reply and "not the counts" in reply
    ja = ask(client, cid, key, "このノートの語数は？", pointer(huge, "huge.md"))
    assert "ノート全体の数ではありません" in ja["reply"]
    todos = ask(client, cid, key, "what are the todos here?", pointer(huge, "huge.md"))
    assert "in the part I read" in todos["reply"]


def test_with_this_note_switched_off_the_reply_says_so(world):
    _, client, key, cid = world
    off = ask(client, cid, key, "summarise this", **OFF)
    assert off["toolCalls"][0]["result"]["ambientOff"] is True
    assert '"This note" is switched off' in off["reply"]
    assert "I don't see a note open" not in off["reply"]
    # Off wins even if a pointer came: nothing about the note is used.
    also = ask(client, cid, key, "summarise this", pointer(PLAN, "plan.md"), **OFF)
    assert '"This note" is switched off' in also["reply"]
    ja = ask(client, cid, key, "このノートを要約して", **OFF)
    assert "「このノート」がオフ" in ja["reply"]
    none = ask(client, cid, key, "summarise this")
    assert "I don't see a note open" in none["reply"]
    edit = ask(client, cid, key, "add a todo: x", **OFF)
    assert '"This note" is switched off' in edit["reply"]


def test_a_summary_of_a_note_with_few_headings_carries_its_key_sentences(world):
    _, client, key, cid = world
    note = (
        "# Retro\n\n"
        "The release slipped because the migration tests were flaky on PostgreSQL. "
        "We fixed the flaky migration tests by creating one database per test. "
        "Lunch was good.\n\n"
        "Next time the release needs a freeze two days before. "
        "The migration tests now run on both databases in CI. "
        "Someone should water the plants.\n\n"
        "Overall the release went out and users liked the assistant.\n"
    )
    put_note(client, "personal", "retro.md", note)
    body = ask(client, cid, key, "summarise this", pointer(note, "retro.md"))
    reply = body["reply"]
    key = [
        "The release slipped because the migration tests were flaky on PostgreSQL.",
        "We fixed the flaky migration tests by creating one database per test.",
        "The migration tests now run on both databases in CI.",
        "Overall the release went out and users liked the assistant.",
    ]
    assert sum(sentence in reply for sentence in key) >= 3, reply
    assert "Lunch was good." not in reply


def test_stored_messages_keep_no_note_text_of_a_proposal(world):
    app, client, key, cid = world
    body = ask(client, cid, key, "add a todo: buy zebra-canary", pointer(PLAN, "plan.md"))
    assert "zebra-canary" in proposal_of(body)["diff"]
    with app.state.sessionmaker() as db:
        stored = [m.tool_calls or "" for m in db.scalars(select(Message))]
    assert any("propose_edit" in s for s in stored)
    assert not any("zebra-canary" in s or "write the docs" in s for s in stored)
    conv = client.get(f"/api/assistant/conversations/{cid}").json()
    call = conv["messages"][-1]["toolCalls"][-1]
    assert call["tool"] == "propose_edit" and call["arguments"]["edits"] == 1
    assert call["result"]["proposalId"] == proposal_of(body)["proposalId"]
    assert "diff" not in call["result"]
