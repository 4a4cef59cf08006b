"""Search results as every matching line, with the matches marked."""

from __future__ import annotations

from app.notes.search_model import (
    LINE_CHARS,
    MAX_LINES_PER_NOTE,
    from_snippet,
    matching_lines,
    summary,
    terms,
)


def test_every_line_with_any_word_is_listed_with_its_number() -> None:
    found = matching_lines("a.md", "Kiwi here\nnothing\nA KIWI and a pear\npear", "kiwi pear")
    assert [line.number for line in found.lines] == [1, 3, 4]
    assert found.total == 3
    assert found.lines[1].pieces == (
        ("A ", False),
        ("KIWI", True),
        (" and a ", False),
        ("pear", True),
    )


def test_the_pieces_give_the_text_back_and_markup_stays_text() -> None:
    line = "<b>kiwi</b> & <script>kiwi</script>"
    parts = matching_lines("x", line, "kiwi").lines[0].pieces
    assert "".join(text for text, _ in parts) == line
    assert [text for text, hit in parts if hit] == ["kiwi", "kiwi"]


def test_a_long_line_is_cut_around_the_first_match() -> None:
    line = "x" * 300 + " needle " + "y" * 300
    found = matching_lines("a.md", line, "needle").lines[0]
    shown = "".join(text for text, _ in found.pieces)
    assert len(shown) == LINE_CHARS and "needle" in shown


def test_many_lines_are_counted_but_not_all_listed() -> None:
    found = matching_lines("a.md", "hit\n" * (MAX_LINES_PER_NOTE + 5), "hit")
    assert len(found.lines) == MAX_LINES_PER_NOTE and found.total == MAX_LINES_PER_NOTE + 5


def test_words_are_distinct_regardless_of_case_and_regex_characters_are_plain() -> None:
    assert terms("Kiwi kiwi  PEAR") == ["Kiwi", "PEAR"]
    assert [n.number for n in matching_lines("a", "a.b\naxb\n", "a.b").lines] == [1]


def test_a_server_snippet_is_marked_the_same_way() -> None:
    note = from_snippet("a.md", 7, "the Zebra is here", "zebra")
    assert note.lines[0].number == 7
    assert note.lines[0].pieces[1] == ("Zebra", True)


def test_summary_counts_lines_and_notes() -> None:
    assert summary([]) == "No note contains that."
    assert summary([matching_lines("a", "k\nk", "k"), matching_lines("b", "k", "k")]) == (
        "3 lines in 2 notes"
    )
    assert summary([matching_lines("a", "k", "k")]) == "1 line in 1 note"
