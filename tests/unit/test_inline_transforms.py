"""Every offline transform of the inline command, on the awkward cases."""

from __future__ import annotations

import pytest

from backend.assistant.inline_transforms import (
    BULLET,
    DEDUPE,
    JOIN,
    LOWER,
    NUMBERED,
    SORT,
    TITLE,
    TODO,
    TRANSFORMS,
    UPPER,
    language,
    offline,
    transform,
    transforms_for,
)

AWKWARD = "b\n  c\n\n- a\n3. x\n- [x] done\n1. [ ] t\n"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (BULLET, "- b\n  - c\n\n- a\n- x\n- [x] done\n- [ ] t\n"),
        (NUMBERED, "1. b\n  1. c\n\n2. a\n3. x\n4. [x] done\n5. [ ] t\n"),
        (TODO, "- [ ] b\n  - [ ] c\n\n- [ ] a\n- [ ] x\n- [x] done\n- [ ] t\n"),
        (SORT, "b\n  c\n\n- a\n- [x] done\n1. [ ] t\n3. x\n"),
        (DEDUPE, AWKWARD),
        (UPPER, "B\n  C\n\n- A\n3. X\n- [x] DONE\n1. [ ] T\n"),
        (LOWER, AWKWARD),
        (TITLE, "B\n  C\n\n- A\n3. X\n- [x] Done\n1. [ ] T\n"),
        (JOIN, "b c a x done t\n"),
    ],
)
def test_each_transform_on_blank_indented_and_list_lines(name, expected):
    assert transform(name, AWKWARD) == expected


def test_every_transform_is_covered_above():
    assert set(TRANSFORMS) == {BULLET, NUMBERED, TODO, SORT, DEDUPE, UPPER, LOWER, TITLE, JOIN}


def test_markers_are_never_doubled():
    items = "- a\n* b\n+ c\n- [ ] d\n"
    assert transform(BULLET, items) == items
    assert transform(TODO, items) == "- [ ] a\n- [ ] b\n- [ ] c\n- [ ] d\n"
    assert transform(TODO, transform(TODO, "x\ny")) == "- [ ] x\n- [ ] y"
    assert transform(NUMBERED, "3. a\n7) b\n- c") == "1. a\n2. b\n3. c"
    assert transform(NUMBERED, transform(NUMBERED, "a\nb")) == "1. a\n2. b"


def test_numbered_lists_go_past_nine_and_restart_per_level():
    lines = [f"item {n}" for n in range(1, 13)]
    out = transform(NUMBERED, "\n".join(lines)).split("\n")
    assert out[8:] == ["9. item 9", "10. item 10", "11. item 11", "12. item 12"]
    nested = "a\n  x\n  y\nb\n  z\n\tw"
    assert transform(NUMBERED, nested) == "1. a\n  1. x\n  2. y\n2. b\n  1. z\n\t1. w"


def test_crlf_and_the_final_line_break_are_kept():
    assert transform(BULLET, "a\r\nb\r\n") == "- a\r\n- b\r\n"
    assert transform(SORT, "b\r\na") == "a\r\nb"
    assert transform(JOIN, "a\r\nb\r\n") == "a b\r\n"
    assert transform(UPPER, "a\n") == "A\n"


def test_sort_keeps_blank_lines_as_block_boundaries_and_ignores_markers_and_case():
    assert transform(SORT, "c\nA\nb\n\nz\ny") == "A\nb\nc\n\ny\nz"
    assert transform(SORT, "- b\n- a") == "- a\n- b"
    assert transform(SORT, "いちご\nあんず\nうめ") == "あんず\nいちご\nうめ"


def test_dedupe_keeps_first_occurrences_and_blank_lines():
    assert transform(DEDUPE, "a\nb\na  \n\n\nb\nc") == "a\nb\n\n\nc"
    assert transform(DEDUPE, "  a\na") == "  a\na"  # indentation makes a different line


def test_case_changes_leave_markers_and_task_boxes_alone():
    assert transform(UPPER, "- [x] ß straße") == "- [x] SS STRASSE"
    assert transform(LOWER, "1. [X] HELLO 日本") == "1. [X] hello 日本"
    assert transform(TITLE, "don't panic, NASA\nhello-world") == "Don't Panic, NASA\nHello-World"


def test_join_uses_no_space_between_japanese_lines():
    joined = transform(JOIN, "今日は\n  晴れです。\n\n- then rain\n明日")
    assert joined == "今日は晴れです。 then rain 明日"


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("make this a bullet list", [BULLET]),
        ("箇条書きにして", [BULLET]),
        ("numbered list please", [NUMBERED]),
        ("番号付きリストにして", [NUMBERED]),
        ("turn into a todo list", [TODO]),
        ("タスクリストにして", [TODO]),
        ("ToDoリストに", [TODO]),
        ("sort lines", [SORT]),
        ("並べ替えて", [SORT]),
        ("remove duplicate lines", [DEDUPE]),
        ("重複を削除", [DEDUPE]),
        ("UPPERCASE", [UPPER]),
        ("大文字にして", [UPPER]),
        ("lowercase", [LOWER]),
        ("小文字にして", [LOWER]),
        ("Title Case", [TITLE]),
        ("単語の先頭を大文字にして", [TITLE]),
        ("join lines", [JOIN]),
        ("1行にまとめて", [JOIN]),
        ("translate to French", []),
        ("sort and remove duplicates", [SORT, DEDUPE]),
    ],
)
def test_instructions_in_english_and_japanese(instruction, expected):
    assert transforms_for(instruction) == expected


def test_offline_answers_and_explanations():
    assert offline("sort lines", "b\na").replacement == "a\nb"
    none = offline("summarise", "text")
    assert none.replacement is None and "language model" in none.explanation
    assert "言語モデル" in offline("要約して", "text").explanation
    many = offline("sort and remove duplicates", "b\na")
    assert many.replacement is None and "more than one" in many.explanation
    empty = offline("箇条書きにして", "  ")  # an empty current line: nothing to change
    assert empty.replacement is None and "テキスト" in empty.explanation
    assert language("箇条書き") == "ja" and language("bullets") == "en"
