"""The live merge (SPEC §13): replace, clean three-way merge or conflict, and minimal changes."""

from __future__ import annotations

import pytest
from app.live.merge_model import (
    CONFLICT,
    KEEP,
    MERGED,
    REPLACE,
    SAME,
    apply_changes,
    changes_between,
    reconcile,
)


def test_no_unsaved_keystrokes_take_the_new_copy() -> None:
    assert reconcile("a\n", "a\nb\n", "a\n") == (REPLACE, "a\nb\n")


def test_the_screen_already_holding_their_text_is_the_same() -> None:
    assert reconcile("a\n", "b\n", "b\n").kind == SAME


def test_an_unchanged_saved_copy_keeps_the_screen() -> None:
    assert reconcile("a\n", "a\n", "a\nmine\n") == (KEEP, "a\nmine\n")


def test_edits_on_different_lines_merge() -> None:
    base = "title\n\nfirst\nsecond\nthird\n"
    mine = "title\n\nfirst, typed here\nsecond\nthird\n"
    theirs = "title\n\nfirst\nsecond\nthird, changed elsewhere\n"
    assert reconcile(base, theirs, mine) == (
        MERGED,
        "title\n\nfirst, typed here\nsecond\nthird, changed elsewhere\n",
    )


def test_the_same_line_changed_on_both_sides_is_a_conflict_that_keeps_mine() -> None:
    assert reconcile("a\nb\n", "a\nB\n", "a\nb!\n") == (CONFLICT, "a\nb!\n")


def test_typing_after_a_last_line_without_a_break_is_no_conflict() -> None:
    # "b" → "b\nc" would otherwise look like a change of the line "b".
    assert reconcile("a\n\nb", "A\n\nb", "a\n\nb\nc") == (MERGED, "A\n\nb\nc")


@pytest.mark.parametrize(
    ("base", "theirs", "mine", "merged"),
    [
        ("a\n\nb", "a\n\nb\n", "A\n\nb", "A\n\nb\n"),  # they added the final break
        ("a\n\nb\n", "A\n\nb\n", "a\n\nb", "A\n\nb"),  # I removed it
    ],
)
def test_the_final_line_break_follows_the_side_that_changed_it(base, theirs, mine, merged) -> None:
    assert reconcile(base, theirs, mine) == (MERGED, merged)


def test_crlf_notes_merge_line_by_line() -> None:
    base = "a\r\nb\r\nc\r\n"
    assert reconcile(base, "A\r\nb\r\nc\r\n", "a\r\nb\r\nC\r\n") == (MERGED, "A\r\nb\r\nC\r\n")


def test_changes_are_small_and_in_codemirror_positions() -> None:
    old = "🙂 one\ntwo\nthree\n"
    new = "🙂 one\ntwo, more\nthree\n"
    changes = changes_between(old, new)
    # "🙂" is two UTF-16 units: the insert lands after "two" at unit 10, not index 9.
    assert changes == [(10, 10, ", more")]
    assert apply_changes(old, changes) == new


def test_no_change_no_changes() -> None:
    assert changes_between("same\n", "same\n") == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("", "x"),
        ("x", ""),
        ("a\nb\nc\n", "c\nb\na\n"),
        ("𝄞\n𝄞\n", "𝄞x\n\n𝄞"),
        ("a\r\n", "a\n"),
    ],
)
def test_changes_rebuild_the_new_text(old, new) -> None:
    assert apply_changes(old, changes_between(old, new)) == new


def test_a_change_never_covers_characters_both_texts_keep() -> None:
    """This window typed " pass"; the other one added "Big " before it and " buy" after it in
    one save. Two insertions, so this window's Ctrl+Z (mapped through them) removes " pass"
    only, not "Big Rail pass buy" as one replacement that swallowed it."""
    old, new = "Rail pass\nnext\n", "Big Rail pass buy\nnext\n"
    changes = changes_between(old, new)
    assert changes == [(0, 0, "Big "), (9, 9, " buy")]
    assert apply_changes(old, changes) == new


def test_changes_across_lines_of_one_block_are_character_exact() -> None:
    old, new = "one\ntwo\n", "one!\n2 two\n"
    assert changes_between(old, new) == [(3, 3, "!"), (4, 4, "2 ")]


def test_a_huge_changed_block_is_one_replacement_trimmed_at_both_ends() -> None:
    old = "keep\n" + "a b " * 600 + "\nend\n"
    new = "keep\n" + "b a " * 600 + "\nend\n"
    changes = changes_between(old, new)
    assert len(changes) == 1
    assert apply_changes(old, changes) == new


def test_character_changes_keep_utf16_positions() -> None:
    old, new = "🙂 x 🙂 y\n", "🙂 x! 🙂 y?\n"
    changes = changes_between(old, new)
    assert changes == [(4, 4, "!"), (9, 9, "?")]
    assert apply_changes(old, changes) == new
