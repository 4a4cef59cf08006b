"""Links between notes: relative links, [[wikilinks]], missing targets and backlinks."""

from __future__ import annotations

import pytest
from app.notes.links_model import (
    backlinks,
    links_in,
    resolve_relative,
    resolve_wikilink,
    resolver,
    search_words,
)
from app.notes.preview_model import render

PATHS = [
    "welcome.md",
    "todo.md",
    "projects/roadmap.md",
    "projects/plan.md",
    "meetings/monday.md",
    "meetings/plan.md",
    "日記/今日のメモ.md",
    "Archive/Old Note.md",
]


@pytest.mark.parametrize(
    ("note", "href", "found"),
    [
        ("projects/roadmap.md", "plan.md", ("projects/plan.md", True)),  # the note's own folder
        ("meetings/monday.md", "plan.md", ("meetings/plan.md", True)),
        ("meetings/monday.md", "../todo.md#today", ("todo.md", True)),
        ("meetings/monday.md", "./roadmap.md", ("meetings/roadmap.md", False)),
        # written from the root, as the note list shows it: opens the root one
        ("meetings/monday.md", "projects/roadmap.md", ("projects/roadmap.md", True)),
        ("meetings/monday.md", "nothing.md", ("meetings/nothing.md", False)),
        (
            "todo.md",
            "%E6%97%A5%E8%A8%98/%E4%BB%8A%E6%97%A5%E3%81%AE%E3%83%A1%E3%83%A2.md",
            ("日記/今日のメモ.md", True),
        ),
        ("todo.md", "https://example.com/a.md", (None, False)),
        ("todo.md", "#heading", (None, False)),
        ("todo.md", "../../outside.md", (None, False)),
    ],
)
def test_resolve_relative(note: str, href: str, found: tuple) -> None:
    assert resolve_relative(note, href, PATHS) == found


@pytest.mark.parametrize(
    ("note", "name", "found"),
    [
        ("welcome.md", "todo", ("todo.md", True)),
        ("welcome.md", "roadmap", ("projects/roadmap.md", True)),  # anywhere in the workspace
        ("welcome.md", "projects/roadmap", ("projects/roadmap.md", True)),
        ("welcome.md", "ROADMAP.md", ("projects/roadmap.md", True)),
        ("meetings/monday.md", "plan", ("meetings/plan.md", True)),  # the own folder wins
        ("projects/roadmap.md", "plan", ("projects/plan.md", True)),
        ("welcome.md", "plan", ("meetings/plan.md", True)),  # else the first by depth, name
        ("welcome.md", "old note", ("Archive/Old Note.md", True)),
        ("welcome.md", "今日のメモ", ("日記/今日のメモ.md", True)),
        ("welcome.md", "roadmap#Goals", ("projects/roadmap.md", True)),
        ("welcome.md", "ideas", ("ideas.md", False)),
        ("welcome.md", "later/ideas", ("later/ideas.md", False)),
    ],
)
def test_resolve_wikilink(note: str, name: str, found: tuple) -> None:
    assert resolve_wikilink(note, name, PATHS) == found


def test_preview_marks_links_with_their_note_or_as_missing() -> None:
    html = render(
        "See [[roadmap]], [[ideas|my ideas]], [plan](plan.md) and [x](gone.md).",
        resolver("projects/roadmap.md", PATHS),
    )
    assert (
        '<a href="#" class="wikilink" data-wikilink="roadmap" '
        'data-path="projects/roadmap.md">roadmap</a>' in html
    )
    assert (
        'class="wikilink missing" data-wikilink="ideas" data-path="ideas.md" '
        'data-missing="true" title="ideas.md does not exist">my ideas</a>' in html
    )
    assert '<a href="plan.md" data-path="projects/plan.md">plan</a>' in html
    assert 'data-path="projects/gone.md" class="missing" data-missing="true"' in html


def test_wikilinks_in_code_are_text() -> None:
    html = render("`[[todo]]`\n\n    [[todo]]\n", resolver("a.md", PATHS))
    assert "<a" not in html and "[[todo]]" in html


def test_wikilink_label_is_escaped() -> None:
    html = render('[[todo|<img src=x onerror="alert(1)">]]', resolver("a.md", PATHS))
    assert "<img" not in html and "&lt;img" in html


def test_tasks_render_as_checkboxes_with_their_line() -> None:
    html = render("# t\n\n- [ ] one\n- [x] two\n  - [X] nested\n- [ ]\n- plain\n")
    assert html.count('type="checkbox"') == 3
    assert 'data-line="3" aria-label="Done"> one' in html
    assert 'data-line="4" aria-label="Done" checked> two' in html
    assert 'data-line="5" aria-label="Done" checked> nested' in html
    assert "<li>[ ]</li>" in html  # an item with nothing after the box stays text


def test_links_in_and_backlinks() -> None:
    notes = {
        "welcome.md": "Start at [[roadmap]] and [todo](todo.md).",
        "meetings/monday.md": "We looked at [the roadmap](projects/roadmap.md).",
        "projects/plan.md": "Goes with [roadmap](roadmap.md) and [[missing]].",
        "todo.md": "`[[roadmap]]` in code does not count; [web](https://x.org/roadmap.md).",
        "projects/roadmap.md": "Itself: [[roadmap]].",
    }
    assert links_in("welcome.md", notes["welcome.md"], PATHS) == {"projects/roadmap.md", "todo.md"}
    assert links_in("projects/plan.md", notes["projects/plan.md"], PATHS) == {"projects/roadmap.md"}
    assert backlinks("projects/roadmap.md", notes, PATHS) == [
        "meetings/monday.md",
        "projects/plan.md",
        "welcome.md",
    ]
    assert backlinks("todo.md", notes, PATHS) == ["welcome.md"]
    assert backlinks("日記/今日のメモ.md", notes, PATHS) == []


def test_search_words_is_the_name() -> None:
    assert search_words("projects/roadmap.md") == "roadmap"
    assert search_words("日記/今日のメモ.md") == "今日のメモ"
