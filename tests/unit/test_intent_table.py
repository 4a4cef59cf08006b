"""The offline assistant's request table: English and Japanese requests and the intent each gets.

Edits carry their payload; requests only a language model can do are BEYOND with what they ask
(and the agent answers them with a plain refusal, never a summary or a listing).
"""

from __future__ import annotations

import pytest

from backend.assistant import intent as it

TABLE = [
    # English: edits
    ("add a todo: buy sunscreen", it.ADD_TODO, "buy sunscreen"),
    ("Add a task: call the bank", it.ADD_TODO, "call the bank"),
    ("add todo buy milk", it.ADD_TODO, "buy milk"),
    ("add a task to call mum", it.ADD_TODO, "call mum"),
    ("please add buy bread to my todo list", it.ADD_TODO, "buy bread"),
    ("remind me to water the plants", it.ADD_TODO, "water the plants"),
    ("mark buy milk as done", it.MARK_DONE, "buy milk"),
    ("mark 'buy milk' done", it.MARK_DONE, "buy milk"),
    ("mark the venue task as complete", it.MARK_DONE, "venue"),
    ("tick off buy milk", it.MARK_DONE, "buy milk"),
    ("check off the docs", it.MARK_DONE, "docs"),
    ("buy milk is done", it.MARK_DONE, "buy milk"),
    ("mark buy milk as not done", it.MARK_UNDONE, "buy milk"),
    ("uncheck buy milk", it.MARK_UNDONE, "buy milk"),
    ("reopen book the venue", it.MARK_UNDONE, "book the venue"),
    ("append: see you tomorrow", it.APPEND, "see you tomorrow"),
    ("add a line: call back at 5", it.APPEND, "call back at 5"),
    ("append a paragraph: We may slip a week.", it.APPEND, "We may slip a week."),
    ('write "bye for now" at the end', it.APPEND, "bye for now"),
    ("add a heading: Ideas", it.HEADING, "Ideas"),
    ("add a section called Next steps", it.HEADING, "Next steps"),
    # English: beyond the offline agent
    ("rewrite this paragraph more formally", it.BEYOND, it.REWRITE),
    ("make it shorter", it.BEYOND, it.REWRITE),
    ("fix the grammar in this note", it.BEYOND, it.REWRITE),
    ("rephrase the intro", it.BEYOND, it.REWRITE),
    ("write an email to my landlord", it.BEYOND, it.REWRITE),
    ("translate this note to French", it.BEYOND, it.TRANSLATE),
    ("summarise this in Japanese", it.BEYOND, it.TRANSLATE),
    ("explain this note", it.BEYOND, it.EXPLAIN),
    ("what does idempotent mean?", it.BEYOND, it.EXPLAIN),
    ("what's the capital of France?", it.BEYOND, it.WORLD),
    ("who won the world cup in 2018?", it.BEYOND, it.WORLD),
    ("why is the sky blue?", it.BEYOND, it.WORLD),
    # English: reading skills
    ("summarise todo.md", it.SUMMARY, None),
    ("summarise this", it.SUMMARY, None),
    ("what are the todos here?", it.TODOS, None),
    ("how many words are in this note?", it.COUNTS, None),
    ("which notes mention budget?", it.FIND, None),
    ("what notes do I have?", it.LIST, None),
    ("hello", it.HELP, None),
    # English: typos and paraphrases
    ("sumarize ths", it.SUMMARY, None),
    ("summerise tihs note", it.SUMMARY, None),
    ("sum up this note", it.SUMMARY, None),
    ("give me the gist of this", it.SUMMARY, None),
    ("make a summary of this", it.SUMMARY, None),
    ("what are the main points here?", it.SUMMARY, None),
    ("what do I still have to do here?", it.TODOS, None),
    ("shwo the tsaks in this note", it.TODOS, None),
    ("how big is this note?", it.COUNTS, None),
    ("tick off the laptop backup", it.MARK_DONE, "laptop backup"),
    ("cross book the venue off", it.MARK_DONE, "book the venue"),
    ("I finished the docs", it.MARK_DONE, "docs"),
    ("mark buy milk as dnoe", it.MARK_DONE, "buy milk"),
    ("add a tood: buy mlik", it.ADD_TODO, "buy mlik"),
    ("make a todo: call the plumber", it.ADD_TODO, "call the plumber"),
    ("jot down: ask Bob about the venue", it.APPEND, "ask Bob about the venue"),
    # English: anything else it cannot do is refused and named, never summarised
    ("compare this note with todo.md", it.BEYOND, it.COMPARE),
    ("hi, can you compare this with plan.md?", it.BEYOND, it.COMPARE),
    ("how does this differ from todo.md?", it.BEYOND, it.COMPARE),
    ("summarise this and compare it with todo.md", it.BEYOND, it.COMPARE),
    ("merge this note with todo.md", it.BEYOND, it.VERB),
    ("combine todo.md and plan.md", it.BEYOND, it.VERB),
    ("sort this list", it.BEYOND, it.VERB),
    ("make a table of this", it.BEYOND, it.VERB),
    ("please analyse my notes", it.BEYOND, it.VERB),
    ("what did I write yesterday?", it.BEYOND, it.HISTORY),
    ("show me what I changed last week", it.BEYOND, it.HISTORY),
    ("who wrote this?", it.BEYOND, it.HISTORY),
    ("delete this note", it.BEYOND, it.APP),
    ("rename todo.md to tasks.md", it.BEYOND, it.APP),
    ("is this note finished?", it.BEYOND, it.QUESTION),
    ("why is this here?", it.BEYOND, it.QUESTION),
    ("what should I do first?", it.BEYOND, it.WORLD),
    ("check this note for typos", it.BEYOND, it.REWRITE),
    ("hey, what's in this note?", it.READ, None),
    ("give me this note", it.READ, None),
    ("do I have any notes about budget?", it.FIND, None),
    ("finish the review", it.MARK_DONE, "review"),
    # Japanese: edits
    ("タスクを追加: 牛乳を買う", it.ADD_TODO, "牛乳を買う"),
    ("タスクを追加：企画書を送る", it.ADD_TODO, "企画書を送る"),
    ("牛乳を買うをタスクに追加して", it.ADD_TODO, "牛乳を買う"),
    ("やることに追加：部屋を掃除する", it.ADD_TODO, "部屋を掃除する"),
    ("牛乳を買うを完了にして", it.MARK_DONE, "牛乳を買う"),
    ("「企画書」のタスクを完了にして", it.MARK_DONE, "企画書"),
    ("牛乳を買うが終わった", it.MARK_DONE, "牛乳を買う"),
    ("牛乳を買うを未完了に戻して", it.MARK_UNDONE, "牛乳を買う"),
    ("牛乳を買うのチェックを外して", it.MARK_UNDONE, "牛乳を買う"),
    ("追記：明日また話す", it.APPEND, "明日また話す"),
    ("末尾に「以上」と追記して", it.APPEND, "以上"),
    ("段落を追加：来週は休みです。", it.APPEND, "来週は休みです。"),
    ("見出しを追加：アイデア", it.HEADING, "アイデア"),
    ("「次の一歩」という見出しを追加して", it.HEADING, "次の一歩"),
    # Japanese: beyond the offline agent
    ("このノートを英語に翻訳して", it.BEYOND, it.TRANSLATE),
    ("これをフランス語に訳して", it.BEYOND, it.TRANSLATE),
    ("この段落を書き直して", it.BEYOND, it.REWRITE),
    ("この文章を丁寧にして", it.BEYOND, it.REWRITE),
    ("このノートを説明して", it.BEYOND, it.EXPLAIN),
    ("冪等性とは何？", it.BEYOND, it.EXPLAIN),
    ("東京の天気は？", it.BEYOND, it.WORLD),
    ("なぜ空は青いの？", it.BEYOND, it.WORLD),
    # Japanese: reading skills
    ("このノートを要約して", it.SUMMARY, None),
    ("todo.md を要約して", it.SUMMARY, None),
    ("このメモのTODOは？", it.TODOS, None),
    ("この文書の文字数は？", it.COUNTS, None),
    ("「予算」を含むノートは？", it.FIND, None),
    ("ノートの一覧を見せて", it.LIST, None),
    # Japanese: paraphrases
    ("ざっくりまとめて", it.SUMMARY, None),
    ("このノートの要点を教えて", it.SUMMARY, None),
    ("やり残しは？", it.TODOS, None),
    ("牛乳を買うにチェックを入れて", it.MARK_DONE, "牛乳を買う"),
    ("TODO: 牛乳", it.ADD_TODO, "牛乳"),
    ("todo.mdのタスクを一覧にして", it.TODOS, None),
    ("ノートを一覧にして", it.LIST, None),
    ("このノートを短くまとめて", it.SUMMARY, None),
    # Japanese: anything else it cannot do is refused and named
    ("このノートとtodo.mdを比較して", it.BEYOND, it.COMPARE),
    ("このノートとplan.mdの違いは？", it.BEYOND, it.COMPARE),
    ("このメモを分析して", it.BEYOND, it.VERB),
    ("このノートとtodo.mdを統合してください", it.BEYOND, it.VERB),
    ("昨日何を書いた？", it.BEYOND, it.HISTORY),
    ("このノートを削除して", it.BEYOND, it.APP),
    ("このノートについてどう思う？", it.BEYOND, it.QUESTION),
]


def test_the_table_covers_both_languages():
    langs = [it.language(message) for message, _, _ in TABLE]
    assert langs.count("en") >= 70 and langs.count("ja") >= 35


@pytest.mark.parametrize(("message", "kind", "detail"), TABLE, ids=[m for m, _, _ in TABLE])
def test_request_table(message, kind, detail):
    got = it.classify(message)
    assert got.kind == kind
    if kind in it.EDITS:
        assert got.text == detail
    elif kind == it.BEYOND:
        assert got.beyond == detail
        if detail in (it.VERB, it.APP):
            assert got.verb  # the refusal names what was asked
    assert got.lang == ("ja" if any(ord(ch) > 0x3000 for ch in message) else "en")


def test_a_paragraph_append_is_flagged():
    assert it.classify("append a paragraph: x").paragraph is True
    assert it.classify("段落を追加：x").paragraph is True
    assert it.classify("append: x").paragraph is False


@pytest.mark.parametrize(
    ("message", "verb"),
    [
        ("merge this note with todo.md", "merge this note with todo.md"),
        ("summarise this, then organise it by date", "organise it by date"),
        ("delete this note", "delete"),
        ("このメモを分析して", "分析して"),
        ("このノートとtodo.mdを統合してください", "統合して"),
        ("このノートをきれいにして", "きれいにして"),
    ],
)
def test_a_refusal_names_the_request(message, verb):
    assert it.classify(message).verb == verb


@pytest.mark.parametrize(
    "message",
    ["this?", "what's in it?", "what is in this note?", "todo.md", "anything important here?"],
)
def test_only_a_bare_reference_to_a_note_is_read_as_a_summary_request(message):
    assert it.classify(message).kind == it.READ
