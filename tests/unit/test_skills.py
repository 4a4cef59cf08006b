"""The offline assistant's skills on plain text: summary, todos, counts, quoting, mentions."""

from __future__ import annotations

from backend.assistant import skills

EN = """# Project Plan

We are building a notes app with an assistant. The assistant reads the saved note when asked.
It never receives the note text with the turn. Lunch is at noon.

## Goals
- Ship the pointer codec this week.
- The ingress stores only metadata.

## Risks
Concurrency on the delivery row could mix two pointers. We use one upsert statement.

```
# not a heading
```

## Todo
- [ ] write docs
- [x] codec tests
"""

JA = """# 会議メモ

今日はプロジェクトの進捗を確認した。ポインタのコーデックは完成した。次はエージェントの実装に進む。

## 決定事項
- 配信行は十五分で失効する。

## 課題
同時送信で二つのポインタが混ざる可能性がある。一つのアップサート文で防ぐ。
"""


def test_summary_follows_headings():
    s = skills.summarize(EN)
    assert s.title == "Project Plan"
    assert [sec.heading for sec in s.sections] == ["Project Plan", "Goals", "Risks", "Todo"]
    intro = s.sections[0].sentences
    assert len(intro) == 2
    assert intro[0] == "We are building a notes app with an assistant."
    assert "Lunch is at noon." not in intro
    assert s.sections[3].sentences == []  # tasks are reported separately
    assert "not a heading" not in str(s)


def test_summary_is_deterministic():
    assert skills.summarize(EN) == skills.summarize(EN)
    assert skills.summarize(JA) == skills.summarize(JA)


def test_summary_japanese():
    s = skills.summarize(JA)
    assert s.title == "会議メモ"
    assert [sec.heading for sec in s.sections] == ["会議メモ", "決定事項", "課題"]
    assert s.sections[1].sentences == ["配信行は十五分で失効する。"]
    assert all(sent.endswith("。") for sec in s.sections for sent in sec.sentences)


def test_summary_without_headings_and_empty():
    s = skills.summarize("First point. Second point! Third point?")
    assert s.title is None
    assert s.sections[0].heading is None
    assert s.sections[0].sentences == ["First point.", "Second point!", "Third point?"]
    assert skills.summarize("").sections == []


def test_few_sections_carry_more_key_sentences_many_sections_two_each():
    one = " ".join(f"Sentence {i} about the release plan." for i in range(12))
    assert len(skills.summarize(one).sections[0].sentences) == skills.MAX_SENTENCES_PER_SECTION
    many = "\n".join(f"## Part {i}\nA {i}. B {i}. C {i}. D {i}." for i in range(6))
    assert all(len(s.sentences) == 2 for s in skills.summarize(many).sections)


def test_summary_caps_sections():
    text = "\n".join(f"## Part {i}\nSentence number {i}." for i in range(20))
    assert len(skills.summarize(text).sections) == skills.MAX_SECTIONS


def test_plain_strips_inline_markup():
    assert skills.plain("See **bold** and [the link](http://x) and `code`.") == (
        "See bold and the link and code."
    )


def test_todo_report():
    r = skills.todo_report(EN)
    assert [t.text for t in r.open] == ["write docs"]
    assert [t.text for t in r.done] == ["codec tests"]


def test_counts():
    c = skills.counts("Hello world\n日本語")
    assert (c.words, c.chars, c.chars_no_spaces, c.lines) == (5, 14, 13, 2)
    assert c.bytes == len("Hello world\n日本語".encode())
    assert skills.counts("").lines == 0


def test_quote_selection_utf16():
    text = "😀 hello 🍣 world"
    # CodeMirror: 😀 = 2 units, space = 1, so "hello" is [3, 8).
    assert skills.quote_selection(text, 3, 8) == "hello"
    assert skills.quote_selection(text, 8, 3) == "hello"  # head before anchor
    assert skills.quote_selection(text, 9, 11) == "🍣"
    assert skills.quote_selection(text, 5, 5) == ""
    assert skills.quote_selection(text, 0, 999) == text
    assert skills.line_of("a\nb😀\nc", 5) == 2
    assert skills.line_of("a\nb😀\nc", 6) == 3


def test_find_mentions():
    docs = {
        "a.md": "Budget review.\nThe budget is tight. BUDGET!",
        "b.md": "Nothing here about budgets or the category.",
        "c.md": "予算の確認。予算会議。",
    }
    found = skills.find_mentions(docs, "budget")
    assert [(m.path, m.count, m.line) for m in found] == [("a.md", 3, 1)]
    assert found[0].snippet == "Budget review."
    ja = skills.find_mentions(docs, "予算")
    assert [(m.path, m.count) for m in ja] == [("c.md", 2)]
    assert skills.find_mentions(docs, "  ") == []
    # Full-width letters match their ASCII form.
    assert skills.find_mentions({"w.md": "ＢＵＤＧＥＴ"}, "budget")[0].count == 1


def test_summary_reads_blocks_as_commonmark_does():
    text = (
        "Plan\n====\n\n"  # a setext heading is a heading
        "> The venue is booked for May.\n\n"  # a quoted paragraph is text to summarise
        "    # not a heading, indented code\n\n"
        "Setup\n-----\n\nChairs arrive at nine.\n"
    )
    summary = skills.summarize(text)
    assert summary.title == "Plan"
    assert [s.heading for s in summary.sections] == ["Plan", "Setup"]
    assert summary.sections[0].sentences == ["The venue is booked for May."]
    assert summary.sections[1].sentences == ["Chairs arrive at nine."]
