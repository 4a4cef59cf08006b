"""Language, deixis and intent detection for the offline assistant, English and Japanese."""

from __future__ import annotations

import pytest

from backend.assistant import intent as it


@pytest.mark.parametrize(
    "message,lang",
    [
        ("summarise this", "en"),
        ("このノートを要約して", "ja"),
        ("これは何？", "ja"),
        ("議事録", "ja"),
        ("summarise the 議事録 note please", "en"),
        ("TODOを見せて", "ja"),
        ("", "en"),
    ],
)
def test_language(message, lang):
    assert it.language(message) == lang


@pytest.mark.parametrize(
    "message",
    [
        "summarise this",
        "Summarize this note",
        "what does this note say?",
        "what's in it",
        "anything important here?",
        "このノートを要約して",
        "これを要約して",
        "このメモのTODOは？",
        "この文書の文字数は？",
    ],
)
def test_deictic(message):
    assert it.is_deictic(message)


@pytest.mark.parametrize(
    "message", ["what notes do I have", "ノートの一覧", "hello", "summarise plan.md"]
)
def test_not_deictic(message):
    assert not it.is_deictic(message)


@pytest.mark.parametrize(
    "message,kind",
    [
        ("summarise this", it.SUMMARY),
        ("summarize this note", it.SUMMARY),
        ("what does this note say?", it.SUMMARY),
        ("tl;dr", it.SUMMARY),
        ("what are the todos here?", it.TODOS),
        ("which tasks are still open in this note?", it.TODOS),
        ("how many words is this?", it.COUNTS),
        ("word count please", it.COUNTS),
        ("quote the selected text", it.QUOTE),
        ("what did I select?", it.QUOTE),
        ("which notes mention budget?", it.FIND),
        ('find "launch plan"', it.FIND),
        ("what notes do I have", it.LIST),
        ("list my documents", it.LIST),
        ("hello", it.HELP),
        ("thanks", it.HELP),
        ("this?", it.READ),
        ("summarise plan.md", it.SUMMARY),
        ("plan.md", it.READ),
        ("このノートを要約して", it.SUMMARY),
        ("このメモのTODOは？", it.TODOS),
        ("この文書の文字数は？", it.COUNTS),
        ("選択した部分を引用して", it.QUOTE),
        ("「予算」を含むノートは？", it.FIND),
        ("ノートの一覧を見せて", it.LIST),
        ("これ", it.READ),
        ("こんにちは", it.HELP),
    ],
)
def test_classify(message, kind):
    assert it.classify(message).kind == kind


@pytest.mark.parametrize(
    "message,term",
    [
        ("which notes mention budget?", "budget"),
        ('find "launch plan"', "launch plan"),
        ("find notes containing kiwi", "kiwi"),
        ("find notes about kiwi", "kiwi"),
        ("「予算」を含むノートは？", "予算"),
        ("予算を含むノート", "予算"),
        ("search for Tokyo", "Tokyo"),
    ],
)
def test_search_term(message, term):
    assert it.search_term(message) == term


def test_find_without_term_falls_back():
    assert it.classify("find").kind == it.HELP


def test_mentions_path():
    assert it.mentions_path("summarise notes/plan.md")
    assert it.mentions_path("議事録.mdを要約して")
    assert not it.mentions_path("summarise this")


def test_file_names_are_not_deixis():
    assert not it.is_deictic("summarise nothing-here.md")
    assert not it.is_deictic("summarise this-week.md")
    assert it.is_deictic("summarise this")
