"""The offline agent through POST /turns with the demo's own notes: honest refusals, task
lists named in summaries, typos and paraphrases, in English and Japanese, on both databases."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from assistant_helpers import (
    CAVEAT,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
)

from backend import seed

ENGLISH = "# Notes\n\nHello world. This is the second sentence. And a third one here.\n"
# The demo's todo list with the laptop backup still open, so it can be ticked off.
OPEN_TODO = seed.TODO.replace("- [x] Back up the laptop", "- [ ] Back up the laptop")


@pytest.fixture
def world(app, alice_client):
    put_note(alice_client, "personal", "welcome.md", seed.WELCOME)
    put_note(alice_client, "personal", "todo.md", seed.TODO)
    put_note(alice_client, "personal", "日本語/今日のメモ.md", seed.JAPANESE)
    put_note(alice_client, "personal", "notes.md", ENGLISH)
    return alice_client, key_session(alice_client, "personal"), new_id()


def ask(world, message, p=None):
    client, key, cid = world
    return ok_turn(client, cid, message, key=key, note=header_for(p) if p else None)


def tools_of(body):
    return [c["tool"] for c in body["toolCalls"]]


def note_words_absent(reply: str, *texts: str) -> None:
    for text in texts:
        assert text not in reply


def test_compare_says_it_cannot_and_shows_both_summaries_as_all_it_can_do(world):
    body = ask(world, "compare this note with todo.md", pointer(seed.WELCOME, "welcome.md"))
    assert tools_of(body) == ["read_active_note", "list_documents", "read_document"]
    reply = body["reply"]
    assert reply.startswith("Sorry, I can't compare notes")
    assert "language model" in reply
    assert "All I can do is show each note's summary" in reply
    assert "Summary of welcome.md:" in reply and "Summary of todo.md:" in reply
    ja = ask(world, "このノートとtodo.mdを比較して", pointer(seed.WELCOME, "welcome.md"))
    assert "ノートの比較はできません" in ja["reply"] and "「todo.md」の要約です" in ja["reply"]


def test_a_comparison_with_a_stale_note_relays_the_caveat(world):
    body = ask(world, "compare this with todo.md", pointer(seed.WELCOME + "typing", "welcome.md"))
    assert body["toolCalls"][0]["result"]["stale"] is True
    assert body["reply"].endswith(CAVEAT)


def test_compare_without_two_notes_to_show_only_says_no(world):
    body = ask(world, "compare this with my other notes", pointer(seed.WELCOME, "welcome.md"))
    assert body["reply"].startswith("Sorry, I can't compare notes")
    assert "Summary" not in body["reply"]


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ("merge this note with todo.md", '"merge this note with todo.md"'),
        ("summarise this, then organise it by date", '"organise it by date"'),
        ("make a table of this", '"make a table of this"'),
        ("is this note finished?", "answer questions like that about a note"),
        ("このメモを分析して", "「分析して」"),
    ],
)
def test_any_request_it_does_not_know_is_refused_and_named_never_summarised(world, message, named):
    body = ask(world, message, pointer(seed.WELCOME, "welcome.md"))
    assert body["toolCalls"] == []  # nothing read, so no summary can slip in
    reply = body["reply"]
    assert named in reply
    assert "language model" in reply or "言語モデル" in reply
    note_words_absent(reply, "Summary", "Welcome to Ambient", "要約です")


def test_what_did_i_write_yesterday_says_no_one_here_can_see_that(world):
    body = ask(world, "what did I write yesterday?", pointer(seed.TODO, "todo.md"))
    assert body["toolCalls"] == []
    assert "can't tell what you wrote or changed when" in body["reply"]
    assert "History" in body["reply"]
    note_words_absent(body["reply"], "Summary", "quarterly review")
    ja = ask(world, "昨日何を書いた？")
    assert "いつ何を書いたか" in ja["reply"] and ja["toolCalls"] == []


def test_deleting_a_note_is_refused_without_promising_a_model_could(world):
    body = ask(world, "delete this note", pointer(seed.TODO, "todo.md"))
    assert body["toolCalls"] == []
    assert "a language model couldn't either" in body["reply"]


def test_summarise_todo_md_names_its_open_tasks(world):
    body = ask(world, "summarise todo.md")
    assert tools_of(body) == ["list_documents", "read_document"]
    reply = body["reply"]
    assert reply.startswith("Summary of todo.md:")
    assert "Open tasks (4):" in reply
    assert "- Write the quarterly review (line 3)" in reply
    assert "- Try the mind map view on projects/roadmap.md (line 8)" in reply
    assert "Book the team offsite venue" not in reply  # done tasks are counted, not listed
    assert "Tasks: 4 open, 2 done." in reply


def test_a_japanese_summary_keeps_the_space_between_english_sentences(world):
    body = ask(world, "このノートを要約して", pointer(ENGLISH, "notes.md"))
    reply = body["reply"]
    assert "「notes.md」の要約です" in reply
    assert "Hello world. This is the second sentence." in reply
    assert "world.This" not in reply


def test_a_mistyped_request_gets_the_summary_of_this_note(world):
    body = ask(world, "sumarize ths", pointer(seed.JAPANESE, "日本語/今日のメモ.md"))
    assert tools_of(body) == ["read_active_note"]
    assert body["reply"].startswith("Summary of 日本語/今日のメモ.md:")


def test_tick_off_the_laptop_backup_finds_back_up_the_laptop(world):
    client, _, cid = world
    put_note(client, "personal", "todo.md", OPEN_TODO)
    body = ask(world, "tick off the laptop backup", pointer(OPEN_TODO, "todo.md"))
    assert tools_of(body) == ["read_active_note", "propose_edit"]
    assert "“Back up the laptop”" in body["reply"]
    result = body["toolCalls"][-1]["result"]
    assert "-- [ ] Back up the laptop\n+- [x] Back up the laptop\n" in result["diff"]
    r = client.post(f"/api/assistant/conversations/{cid}/proposals/{result['proposalId']}/apply")
    assert r.status_code == 200, r.text
    text = client.get(f"/api/workspaces/personal/documents/{quote('todo.md')}").text
    assert "- [x] Back up the laptop" in text
    # Asked again, it names the task it found and says it is already done.
    again = ask(world, "tick off the laptop backup", pointer(text, "todo.md"))
    assert again["reply"] == "The task “Back up the laptop” in todo.md is already done."


def test_two_tasks_that_fit_a_paraphrase_are_asked_about(world):
    body = ask(world, "mark the roadmap as done", pointer(seed.TODO, "todo.md"))
    assert tools_of(body) == ["read_active_note"]  # nothing proposed
    reply = body["reply"]
    assert "Which one do you mean?" in reply
    assert "- Reply to Carol about the roadmap (line 5)" in reply
    assert "- Try the mind map view on projects/roadmap.md (line 8)" in reply
