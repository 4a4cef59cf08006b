"""Todo items, toggling, the outline, and word/character counts."""

from __future__ import annotations

import pytest

from ambient import markdown as md

NOTE = """# Plan

Intro paragraph.

- [ ] buy milk
- [x] call Bob
  * [X] nested done
1. [ ] numbered
2) [x] paren numbered
- not a todo
- [ ]
- [y] not a box either

```
- [ ] inside a fence
# not a heading
```

## Later ##

~~~~
- [ ] tilde fence
~~~~
+ [ ] plus item
"""


def test_todos_kinds_and_fences():
    items = md.todos(NOTE)
    assert [(i.line, i.done, i.text, i.indent) for i in items] == [
        (5, False, "buy milk", 0),
        (6, True, "call Bob", 0),
        (7, True, "nested done", 2),
        (8, False, "numbered", 0),
        (9, True, "paren numbered", 0),
        (11, False, "", 0),
        (24, False, "plus item", 0),
    ]


def test_thematic_break_is_not_item():
    assert md.todos("- - -\n* * *\n") == []
    assert md.outline("- - -\n").children == []


@pytest.mark.parametrize("line,expected", [(5, "- [x] buy milk"), (6, "- [ ] call Bob")])
def test_toggle_todo_minimal_edit(line, expected):
    start, end, insert = md.toggle_todo(NOTE, line)
    assert end == start + 1
    assert insert in ("x", " ")
    after = md.apply_change(NOTE, (start, end, insert))
    assert md.lines(after)[line - 1] == expected
    # Everything else is untouched.
    assert len(after) == len(NOTE)


def test_toggle_uses_utf16_positions():
    text = "😀 emoji line\n- [ ] 🍣 sushi\n"
    start, end, insert = md.toggle_todo(text, 2)
    # 😀 is two UTF-16 units, so the CodeMirror position is one more than the Python index.
    assert start == text.index("[ ]") + 1 + 1
    assert md.apply_change(text, (start, end, insert)).splitlines()[1] == "- [x] 🍣 sushi"


def test_toggle_crlf():
    text = "a\r\n- [X] done\r\n"
    change = md.toggle_todo(text, 2)
    assert md.apply_change(text, change) == "a\r\n- [ ] done\r\n"


@pytest.mark.parametrize("line", [1, 3, 10, 16, 99])
def test_toggle_refuses_non_todo(line):
    with pytest.raises(ValueError):
        md.toggle_todo(NOTE, line)


def test_outline_tree():
    root = md.outline(NOTE)
    assert root.kind == "root"
    plan = root.children[0]
    assert (plan.kind, plan.level, plan.title, plan.line) == ("heading", 1, "Plan", 1)
    titles = [c.title for c in plan.children]
    assert titles[:2] == ["buy milk", "call Bob"]
    call_bob = plan.children[1]
    assert [c.title for c in call_bob.children] == ["nested done"]
    assert call_bob.children[0].done is True
    later = plan.children[-1]
    assert (later.kind, later.level, later.title) == ("heading", 2, "Later")
    assert [c.title for c in later.children] == ["plus item"]
    assert "not a heading" not in str(root.to_dict())


def test_outline_heading_levels():
    text = "# A\n### C\n## B\n#### D\n# E\n#NoSpace\n####### seven\n"
    root = md.outline(text)
    assert [n.title for n in root.children] == ["A", "E"]
    a = root.children[0]
    assert [n.title for n in a.children] == ["C", "B"]
    assert [n.title for n in a.children[1].children] == ["D"]


def test_outline_japanese():
    root = md.outline("# 会議メモ\n## 決定事項\n- 予算を承認\n")
    assert root.children[0].title == "会議メモ"
    assert root.children[0].children[0].children[0].title == "予算を承認"


@pytest.mark.parametrize(
    "text,count",
    [
        ("", 0),
        ("Hello, world!", 2),
        ("don't stop well-known things", 4),
        ("# Title\n\n- [ ] buy milk\n- [x] done", 4),
        ("日本語", 3),
        ("ひらがな", 1),
        ("カタカナ", 1),
        ("今日はコーヒーを飲んだ", 7),  # 今 日 は コーヒー を 飲 んだ
        ("Python と 日本", 4),
        ("3 apples", 2),
    ],
)
def test_word_count(text, count):
    assert md.word_count(text) == count


def test_char_count():
    assert md.char_count("ab\ncd") == 4
    assert md.char_count("a b\r\nc") == 4
    assert md.char_count("a b\nc", spaces=False) == 3
    assert md.char_count("日本語😀") == 4


def test_cm_conversions():
    text = "a😀b"
    assert md.to_cm(text, 2) == 3
    assert md.from_cm(text, 3) == 2
    assert md.from_cm(text, 2) == 1  # inside the surrogate pair → start of the emoji
    assert md.from_cm(text, 100) == 3
    assert md.from_cm(text, -5) == 0


# -- CommonMark's reading (markdown-it-py), where a line-by-line reading went wrong ----------


def test_an_indented_code_line_is_not_a_todo():
    text = "Intro\n\n    - [ ] x\n\n- [ ] real\n"
    assert [(i.line, i.text) for i in md.todos(text)] == [(5, "real")]
    with pytest.raises(ValueError):
        md.toggle_todo(text, 3)
    assert [n for n, _ in md.visible_lines(text)] == [1, 2, 4, 5, 6]


def test_a_setext_heading_is_in_the_mind_map():
    root = md.outline("Title\n=====\n\nSub\n---\n- item\n")
    title = root.children[0]
    assert (title.kind, title.level, title.title, title.line) == ("heading", 1, "Title", 1)
    sub = title.children[0]
    assert (sub.level, sub.title, sub.line) == (2, "Sub", 4)
    assert [c.title for c in sub.children] == ["item"]


def test_a_task_inside_a_quote_counts_and_toggles():
    text = "> - [ ] quoted\n>   - [x] nested in the quote\n"
    assert [(i.line, i.done, i.text, i.indent) for i in md.todos(text)] == [
        (1, False, "quoted", 0),
        (2, True, "nested in the quote", 2),
    ]
    after = md.apply_change(text, md.toggle_todo(text, 1))
    assert after == "> - [x] quoted\n>   - [x] nested in the quote\n"
    after = md.apply_change(text, md.toggle_todo(text, 2))
    assert after == "> - [ ] quoted\n>   - [ ] nested in the quote\n"


def test_fenced_code_hides_todos_even_inside_a_list_and_an_unclosed_fence_runs_on():
    text = "- [ ] a\n\n  ```\n  - [ ] in the item's fence\n  ```\n- [ ] b\n```\n- [ ] open\n"
    assert [i.text for i in md.todos(text)] == ["a", "b"]
    assert md.outline("````\n# x\n```\n# still code\n").children == []


def test_nested_lists_nest_in_the_outline_whatever_their_markers():
    root = md.outline("# H\n1. one\n   - [x] one.a\n     * one.a.i\n2. two\n")
    one, two = root.children[0].children
    assert [one.title, two.title] == ["one", "two"]
    assert (one.children[0].title, one.children[0].done) == ("one.a", True)
    assert one.children[0].children[0].title == "one.a.i"
    assert one.children[0].children[0].level == one.children[0].level + 1


def test_a_lazy_line_and_a_second_paragraph_belong_to_the_item():
    text = "- [ ] first line\ncontinued lazily\n\n  second paragraph\n- [ ]x not a box\n"
    assert [(i.line, i.text) for i in md.todos(text)] == [(1, "first line")]
    kinds = [(b.kind, b.text, b.line) for b in md.blocks(text)]
    assert kinds == [
        ("task", "first line continued lazily", 1),
        ("paragraph", "second paragraph", 4),
        ("item", "[ ]x not a box", 5),
    ]


def test_crlf_and_lone_cr_keep_line_numbers_and_toggles_right():
    text = "# T\r\n\r\n- [ ] a\r- [x] b\r\n"
    assert [(i.line, i.done) for i in md.todos(text)] == [(3, False), (4, True)]
    assert md.apply_change(text, md.toggle_todo(text, 4)) == "# T\r\n\r\n- [ ] a\r- [ ] b\r\n"


def test_japanese_tasks_headings_and_astral_characters():
    text = "見出し\n===\n\n- [ ] 𠮷野家で牛丼 🍣\n- [x] 会議の準備\n"
    assert [(i.line, i.done, i.text) for i in md.todos(text)] == [
        (4, False, "𠮷野家で牛丼 🍣"),
        (5, True, "会議の準備"),
    ]
    assert md.outline(text).children[0].title == "見出し"
    after = md.apply_change(text, md.toggle_todo(text, 4))
    assert md.lines(after)[3] == "- [x] 𠮷野家で牛丼 🍣"


def test_blocks_for_summaries_skip_code_and_read_quotes():
    text = "# A\n\nOne.\nTwo.\n\n> Quoted.\n\n```\nnot prose\n```\n\n    code\n\nB\n-\n- item\n"
    assert [(b.kind, b.text, b.level) for b in md.blocks(text)] == [
        ("heading", "A", 1),
        ("paragraph", "One. Two.", 0),
        ("paragraph", "Quoted.", 0),
        ("heading", "B", 2),
        ("item", "item", 0),
    ]
