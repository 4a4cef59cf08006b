"""The one language detector: every part of the assistant asks it, so they all agree."""

from __future__ import annotations

import pytest

from backend.assistant import intent
from backend.assistant.language import LANGS, language


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("summarise this", "en"),
        ("このノートを要約して", "ja"),
        ("これは何？", "ja"),
        ("議事録", "ja"),
        ("summarise the 議事録 note please", "en"),
        ("summarise 議事録.md", "en"),  # a file name says nothing about the writer
        ("議事録.mdを要約して", "ja"),
        ("TODOを見せて", "ja"),
        ("ToDo 牛乳", "ja"),
        ("PDF の資料", "ja"),
        ("ＡＢＣ", "en"),  # full-width Latin is still Latin
        ("make this a bullet list", "en"),
        ("箇条書きにして", "ja"),
        ("結合", "ja"),
        ("", "en"),
    ],
)
def test_language(text, lang):
    assert language(text) == lang


def test_mixed_requests_are_read_the_same_way_wherever_they_are_asked():
    """One detector decides for the chat, the stop message, a model's error and the inline
    command, so "summarise 議事録 please" and "TODO: 牛乳" get one answer each, everywhere.

    "summarise 議事録 please" is English: its grammar (the verb and "please") is English and
    議事録 is only the name of the thing to summarise, as a file name would be. "TODO: 牛乳" is
    Japanese: TODO is a label Japanese writing borrows as it is, and the only words the user
    wrote themselves, 牛乳 (milk), are Japanese; a Japanese reply is what they can read.
    """
    assert language("summarise 議事録 please") == "en"
    assert language("TODO: 牛乳") == "ja"
    # The chat reads it through intent, and answers in that language.
    assert intent.language is language
    assert intent.classify("summarise 議事録 please").lang == "en"
    assert intent.classify("TODO: 牛乳").lang == "ja"


def test_the_answer_is_always_one_of_the_languages_the_table_has():
    for text in ["", "?", "123", "😀", "Ünïcödé", "한국어", "中文", "русский"]:
        assert language(text) in LANGS
