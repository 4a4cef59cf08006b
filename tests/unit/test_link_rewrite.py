"""Links that survive a rename (backend/services/link_rewrite.py, SPEC §18): examples."""

from __future__ import annotations

import pytest

from backend.services.link_rewrite import Paths, mentions, rewrite

PATHS = ["roadmap.md", "trip.md", "projects/plan.md", "notes/a.md", "my note.md", "日記/今日.md"]


def moved(text: str, old: str, new: str, note: str = "trip.md", paths=PATHS) -> str:
    return rewrite(text, note_before=note, moves={old: new}, paths_before=paths)


@pytest.mark.parametrize(
    ("text", "new", "expected"),
    [
        ("[[roadmap]]", "plan-2027.md", "[[plan-2027]]"),
        ("[[roadmap.md]]", "plan-2027.md", "[[plan-2027.md]]"),
        ("[[roadmap|the map]]", "plan-2027.md", "[[plan-2027|the map]]"),
        ("[[roadmap#Q3|q]]", "plan-2027.md", "[[plan-2027#Q3|q]]"),
        ("![[roadmap]]", "plan-2027.md", "![[plan-2027]]"),
        ("[[ roadmap ]]", "plan-2027.md", "[[ plan-2027 ]]"),
        ("[[Roadmap]]", "plan-2027.md", "[[plan-2027]]"),
        ("[t](roadmap.md)", "archive/old.md", "[t](archive/old.md)"),
        ("[t](roadmap.md#q3 'title')", "b/r.md", "[t](b/r.md#q3 'title')"),
        ("[t](<roadmap.md>)", "a b/r m.md", "[t](<a b/r m.md>)"),
        ("[t](roadmap.md)", "a b/r m.md", "[t](a%20b/r%20m.md)"),
        ("[t](./roadmap.md)", "x/r.md", "[t](./x/r.md)"),
        ("![i](roadmap.md)", "r.md", "![i](r.md)"),
        ("[![i](roadmap.md)](roadmap.md)", "r.md", "[![i](r.md)](r.md)"),
        # a bare name that still names the moved note alone is left as written
        ("[[roadmap]]", "archive/roadmap.md", "[[roadmap]]"),
    ],
)
def test_links_to_the_moved_note_follow_it(text, new, expected):
    assert moved(text, "roadmap.md", new) == expected


def test_relative_links_are_written_from_the_notes_folder():
    text = "[a](../roadmap.md) [b](<../my note.md>) [c](../my%20note.md)"
    out = moved(text, "roadmap.md", "notes/road.md", note="notes/a.md")
    assert out == "[a](road.md) [b](<../my note.md>) [c](../my%20note.md)"
    assert moved("[c](../my%20note.md)", "my note.md", "x/my ñote.md", note="notes/a.md") == (
        "[c](../x/my%20%C3%B1ote.md)"
    )


def test_a_link_from_the_root_stays_from_the_root():
    # In notes/a.md, `projects/plan.md` is read from the root (notes/projects/plan.md is none).
    out = moved("[p](projects/plan.md)", "projects/plan.md", "projects/q.md", note="notes/a.md")
    assert out == "[p](projects/q.md)"


def test_the_moved_note_keeps_its_own_links():
    out = moved("[a](a.md) [[plan]] [r](../roadmap.md)", "notes/a.md", "deep/er/a.md", "notes/a.md")
    assert out == "[a](a.md) [[plan]] [r](../../roadmap.md)"


def test_a_link_a_moved_note_would_capture_keeps_its_target():
    # [[plan]] leads to a/plan.md (the first of the two); old/plan.md moved to the root
    # would take the bare name, so the link names its note by path.
    paths = ["a/plan.md", "old/plan.md", "x.md"]
    out = rewrite(
        "[[plan]]", note_before="x.md", moves={"old/plan.md": "plan.md"}, paths_before=paths
    )
    assert out == "[[a/plan]]"


@pytest.mark.parametrize(
    "text",
    [
        "`[[roadmap]]` and ``[t](roadmap.md)``",
        "```\n[[roadmap]]\n```\n",
        "~~~md\n[t](roadmap.md)\n~~~\n",
        "para\n\n    [[roadmap]]\n",
        "\\[[roadmap]] \\[t](roadmap.md)",
        "[[missing]] [t](missing.md) [t](https://e.com/roadmap.md) roadmap.md",
        "[[roadmap]\n]",
    ],
)
def test_code_escapes_and_other_links_are_left_alone(text):
    assert moved(text, "roadmap.md", "plan-2027.md") == text


def test_line_endings_and_everything_around_a_link_stay_byte_for_byte():
    text = "---\ntitle: x\r\n---\r\n# [[roadmap]]\r\n\r\n- [ ] see [t](roadmap.md)\r\n日本 🙂\r\n"
    out = moved(text, "roadmap.md", "日記/計画.md")
    assert out == text.replace("[[roadmap]]", "[[計画]]").replace("(roadmap.md)", "(日記/計画.md)")


def test_a_link_that_cannot_lead_to_the_new_place_is_left_as_it_was():
    # a wikilink cannot name a note that does not end in .md
    assert moved("[[roadmap]]", "roadmap.md", "roadmap.txt") == "[[roadmap]]"


def test_mentions_is_a_cheap_superset():
    assert mentions("see [[Roadmap]]", "a/roadmap.md")
    assert mentions("see [x](my%20note.md)", "my note.md")
    assert not mentions("nothing here", "roadmap.md")


def test_paths_resolve_as_the_page_does():
    paths = Paths(["a/plan.md", "b/plan.md", "plan2.md"])
    assert paths.wikilink("b/x.md", "plan") == ("b/plan.md", True)
    assert paths.wikilink("c/x.md", "PLAN") == ("a/plan.md", True)
    assert paths.wikilink("c/x.md", "nope") == ("nope.md", False)
    assert paths.relative("a/x.md", "plan.md#h") == ("a/plan.md", True)
    assert paths.relative("c/x.md", "plan2.md") == ("plan2.md", True)
    assert paths.relative("c/x.md", "https://x/plan.md") == (None, False)


REFERENCES = "See [the map][m] and [x].\n\n[m]: roadmap.md 'T'\n> [x]: <roadmap.md>\n"


def test_reference_definitions_follow_the_note_as_inline_links_do():
    got = moved(REFERENCES, "roadmap.md", "archive/r.md")
    assert got == "See [the map][m] and [x].\n\n[m]: archive/r.md 'T'\n> [x]: <archive/r.md>\n"
    # a definition in code is no definition; one to a missing note is left as written
    text = "```\n[m]: roadmap.md\n```\n\n[y]: nowhere.md\n"
    assert moved(text, "roadmap.md", "archive/r.md") == text


def test_a_moved_notes_links_to_files_keep_reaching_them():
    before = Paths(["a/n.md", "top.md"], ["a/pic.png", "doc.pdf"])
    text = "![map](pic.png) [pdf](./../doc.pdf) ![gone](missing.png) ![root](doc.pdf)\n"
    got = rewrite(
        text,
        note_before="a/n.md",
        moves={"a/n.md": "b/c/n.md"},
        paths_before=before.known,
        before=before,
    )
    # the picture beside the note is now two folders up; `doc.pdf` from the top still
    # reaches the file (the page reads a plain name from the top too), so it stays
    assert (
        got
        == "![map](../../a/pic.png) [pdf](../../doc.pdf) ![gone](missing.png) ![root](doc.pdf)\n"
    )
    # a file link in a note that did not move is left alone
    assert (
        rewrite(
            text,
            note_before="top.md",
            moves={"a/n.md": "b/n.md"},
            paths_before=before.known,
            before=before,
        )
        == text
    )
