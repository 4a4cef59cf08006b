"""A proposal's unified diff becomes the two texts the page's coloured diff view compares."""

from __future__ import annotations

import difflib

from app.chat.diff_model import GAP, diff_sides


def unified(old: str, new: str, n: int = 3) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), "a/n.md", "b/n.md", n=n
    )
    out = []
    for line in lines:  # what the server's diff does for a last line without a break
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def test_one_hunk_gives_its_old_and_new_lines() -> None:
    old, new = "# Errands\n- [ ] buy milk\n", "# Errands\n- [x] buy milk\n"
    assert diff_sides(unified(old, new)) == (old, new)


def test_no_newline_marker_is_not_shown_and_drops_the_break() -> None:
    old, new = "a\nb", "a\nb\nc"
    sides = diff_sides(unified(old, new))
    assert sides == (old, new)
    assert "No newline" not in sides[0] + sides[1]


def test_hunks_are_separated_by_an_unchanged_gap_line() -> None:
    old = "".join(f"line {i}\n" for i in range(20))
    new = old.replace("line 1\n", "line one\n").replace("line 18\n", "line eighteen\n")
    before, after = diff_sides(unified(old, new, n=1))
    assert before.count(GAP) == after.count(GAP) == 1
    assert "line one\n" in after and "line 1\n" in before and "line eighteen\n" in after


def test_no_hunks_no_text() -> None:
    assert diff_sides("") == ("", "")
