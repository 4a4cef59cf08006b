"""The offline assistant's replies as a reader sees them (pure: no tools, no database)."""

from __future__ import annotations

from backend import seed
from backend.assistant import beyond, replies

ENGLISH = "# Notes\n\nHello world. This is the second sentence. And a third one here.\n"


def test_a_summary_of_a_task_list_names_its_open_tasks():
    reply = replies.summary("todo.md", seed.TODO, "en")
    assert reply.startswith("Summary of todo.md:")
    assert "Open tasks (4):" in reply
    for task in [
        "Write the quarterly review",
        "Reply to Carol about the roadmap",
        "Renew the domain name",
    ]:
        assert f"- {task} (line " in reply
    assert "Book the team offsite venue" not in reply  # done: counted, not listed
    assert "Tasks: 4 open, 2 done." in reply
    ja = replies.summary("todo.md", seed.TODO, "ja")
    assert "未完了のタスク（4 件）：" in ja and "- Renew the domain name（6 行目）" in ja


def test_a_long_task_list_is_cut_with_a_count_of_the_rest():
    note = "".join(f"- [ ] task {n}\n" for n in range(1, 13))
    reply = replies.summary("long.md", note, "en")
    assert "- task 8 (line 8)" in reply and "task 9" not in reply
    assert "- … and 4 more" in reply


def test_a_note_of_only_tasks_is_not_called_empty():
    reply = replies.summary("t.md", "- [ ] buy milk\n", "en")
    assert "is empty" not in reply and "- buy milk (line 1)" in reply
    assert replies.summary("e.md", "", "en") == "e.md is empty."


def test_english_sentences_keep_their_space_in_a_japanese_summary():
    reply = replies.summary("notes.md", ENGLISH, "ja")
    assert "Hello world. This is the second sentence." in reply
    assert "world.This" not in reply
    # Japanese sentences still run on as Japanese is written.
    ja = replies.summary("m.md", "午前中は集中しやすい。会議は午後にまとめる。\n", "en")
    assert "午前中は集中しやすい。会議は午後にまとめる。" in ja


def test_a_comparison_says_plainly_that_summaries_are_all_it_can_do():
    reads = [{"path": "a.md", "content": ENGLISH}, {"path": "todo.md", "content": seed.TODO}]
    reply = replies.comparison(reads, "en")
    assert reply.startswith("Sorry, I can't compare notes")
    assert "language model" in reply
    assert "All I can do is show each note's summary" in reply
    assert reply.index("Summary of a.md:") < reply.index("Summary of todo.md:")
    ja = replies.comparison(reads, "ja")
    assert "ノートの比較はできません" in ja and "要約を順に示すことだけ" in ja


def test_a_refusal_names_what_was_asked():
    merge = replies.beyond(beyond.VERB, "en", "merge this note with todo.md")
    assert 'Sorry, I can\'t do "merge this note with todo.md"' in merge
    assert "language model" in merge
    assert "「分析して」という依頼はできません" in replies.beyond(beyond.VERB, "ja", "分析して")
    history = replies.beyond(beyond.HISTORY, "en")
    assert "neither I nor a language model" in history and "History" in history
    app = replies.beyond(beyond.APP, "en", "delete")
    assert "can't \"delete\" notes, and a language model couldn't either" in app


def test_an_already_done_task_found_by_other_words_is_named():
    from backend.assistant import skills

    done = skills.mark_todo(seed.TODO, "book the offsite", done=True)
    reply = replies.mark_problem(
        "todo.md", "book the offsite", done.outcome, done.candidates, True, "en"
    )
    assert reply == "The task “Book the team offsite venue” in todo.md is already done."


def test_summarising_the_welcome_note_keeps_its_first_bullet_and_a_space_before_english():
    # Issue 34: "Summarise this" (the list's first, shortest item) was dropped, and the
    # Japanese item ran into the next English sentence ("」、The").
    for lang in ("en", "ja"):
        reply = replies.summary("welcome.md", seed.WELCOME, lang)
        assert '"Summarise this"' in reply, reply
        assert "「このノートを要約して」" in reply
        assert "」、The" not in reply and "」The" not in reply
        assert "「このノートを要約して」。 The assistant reads" in reply


def test_a_long_list_keeps_its_first_item_however_short():
    items = ["Go", *[f"Confirm the dinner reservation with guest number {n}" for n in range(9)]]
    note = "# Plan\n\n" + "".join(f"- {item}\n" for item in items)
    reply = replies.summary("plan.md", note, "en")
    assert "— Go; Confirm" in reply, reply


def test_japanese_then_english_is_separated_english_then_japanese_too():
    assert replies._join(["これは日本語", "Then English"]) == "これは日本語。 Then English"
    assert replies._join(["これは日本語。", "Then English"]) == "これは日本語。 Then English"
    assert replies._join(["English first", "日本語"]) == "English first; 日本語"
    assert replies._join(["一つ目", "二つ目"]) == "一つ目、二つ目"
