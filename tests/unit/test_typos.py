"""Mistyped request words are put right; real words and payloads are left as written."""

from __future__ import annotations

import pytest

from backend.assistant.typos import correct, correct_word


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("sumarize", "summarize"),
        ("summerise", "summarise"),
        ("ths", "this"),
        ("tihs", "this"),
        ("tood", "todo"),
        ("tsaks", "tasks"),
        ("dnoe", "done"),
        ("lsit", "list"),
        ("serch", "search"),
        ("menton", "mention"),
        ("comapre", "compare"),
        ("shwo", "show"),
        ("Sumarize", "summarize"),
    ],
)
def test_a_slip_is_put_right(typed, meant):
    assert correct_word(typed) == meant


@pytest.mark.parametrize(
    "word",
    # Real words one slip from a target ("his"/"this", "one"/"done", "how"/"show",
    # "bread"/"read", "mask"/"mark", "quite"/"quote"), and words that are no target at all.
    [
        "his",
        "one",
        "how",
        "ask",
        "bread",
        "ready",
        "mask",
        "quite",
        "reading",
        "milk",
        "laptop",
        "summary",
        "this",
        "to",
        "a",
    ],
)
def test_real_words_stay(word):
    assert correct_word(word) is None


def test_positions_map_back_to_the_message_as_written():
    fixed = correct("pls sumarize ths: buy mlik")
    assert fixed.text == "pls summarize this: buy mlik"
    start = fixed.text.index("buy")
    assert "pls sumarize ths: buy mlik"[fixed.original(start) :] == "buy mlik"
    assert fixed.original(fixed.text.index("this")) == len("pls sumarize ")
    assert correct("nothing to fix").text == "nothing to fix"
