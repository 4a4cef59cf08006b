"""Assistant replies as Markdown: lists and links render, notes become links, no markup leaks."""

from __future__ import annotations

import re

from app.chat.reply_model import render

KNOWN = {"todo.md", "plan.md", "notes/my_ideas.md"}


def links(html: str) -> list[tuple[str, str | None, str]]:
    """(data-path, data-line, text) of each chat note link, in order."""
    found = re.finditer(
        r'<a class="note-ref" href="#" data-testid="chat-note-link" data-path="([^"]*)"'
        r' title="[^"]*"(?: data-line="(\d+)")?>(.*?)</a>',
        html,
    )
    return [(m.group(1), m.group(2), m.group(3)) for m in found]


def test_a_listing_renders_as_a_list_of_note_links():
    html = render("You have 2 notes in personal:\n- todo.md\n- plan.md", KNOWN)
    assert "<ul>" in html and html.count("<li>") == 2
    assert links(html) == [("todo.md", None, "todo.md"), ("plan.md", None, "plan.md")]
    assert "<p>You have 2 notes in personal:</p>" in html


def test_a_line_reference_follows_the_note_named_before_it():
    html = render("In todo.md:\n1. buy milk (line 5)\n2. call the bank (line 6)", KNOWN)
    assert "<ol>" in html
    assert links(html) == [
        ("todo.md", None, "todo.md"),
        ("todo.md", "5", "(line 5)"),
        ("todo.md", "6", "(line 6)"),
    ]


def test_a_bare_line_uses_the_turns_note_and_japanese_lines_link_too():
    html = render("未完了のタスク：3 行目", KNOWN, default_path="plan.md")
    assert links(html) == [("plan.md", "3", "3 行目")]
    assert links(render("See line 2.", KNOWN)) == []  # no note to point at: plain text


def test_a_line_after_a_mentioned_note_stays_with_the_note_the_tool_read():
    reply = "Open tasks:\n- [ ] update `plan.md` (line 8)\n- [ ] see [plan](plan.md) (line 9)"
    html = render(reply, KNOWN, default_path="todo.md", read={"todo.md"})
    lines = [(path, line) for path, line, _ in links(html) if line]
    assert lines == [("todo.md", "8"), ("todo.md", "9")]


def test_single_line_breaks_are_kept_and_emphasis_renders():
    html = render("Tasks: **2 open**\nDone: 1", set())
    assert "<strong>2 open</strong>" in html
    assert "<br" in html


def test_a_code_span_or_a_markdown_link_naming_a_note_opens_it():
    html = render("Read `todo.md` or [the plan](plan.md) or [ideas](notes/my_ideas.md)", KNOWN)
    assert links(html) == [
        ("todo.md", None, "<code>todo.md</code>"),
        ("plan.md", None, "the plan"),
        ("notes/my_ideas.md", None, "ideas"),
    ]
    assert "<code>x.py</code>" in render("`x.py`", KNOWN)  # not a note: a plain code span


def test_unknown_notes_stay_text_and_any_path_links_before_the_list_arrives():
    assert links(render("See missing.md", KNOWN)) == []
    assert links(render("See other.md", set())) == [("other.md", None, "other.md")]


def test_no_html_from_the_reply_reaches_the_page():
    html = render('<script>alert(1)</script> <img src=x onerror=alert(1)> "q" & done', KNOWN)
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "&amp; done" in html
    assert "<img" not in render("![x](http://example.com/track.png)", KNOWN)  # nothing fetched


def test_unsafe_and_relative_links_are_not_followed():
    html = render(
        "[a](javascript:alert(1)) [b](data:text/html,x) [c](other/page) [d](https://example.com/x)",
        KNOWN,
    )
    assert "javascript:" not in html.replace("[a](javascript:alert(1))", "")
    assert 'href="data:' not in html
    assert 'href="other/page"' not in html and "c" in html  # shown as its text
    assert '<a href="https://example.com/x" target="_blank" rel="noopener noreferrer">d</a>' in html


def test_a_note_name_is_escaped_in_its_attributes():
    html = render('See R&D.md or [q](<a"b.md>)', {"R&D.md", 'a"b.md'})
    assert 'data-path="R&amp;D.md"' in html
    assert 'data-path="a&quot;b.md"' in html


def test_text_inside_a_link_is_not_linked_again():
    html = render("[todo.md (line 3)](https://example.com)", KNOWN)
    assert links(html) == []
    assert html.count("<a ") == 1
