"""A proposal's unified diff becomes the two texts the page's coloured diff view compares."""

from __future__ import annotations

import difflib

from app.chat.diff_model import CHANGED, GAP, HOLDS, UNDONE, diff_sides, holds, line_numbers


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


def test_line_numbers_are_the_notes_own_across_hunks() -> None:
    old = "".join(f"line {i}\n" for i in range(1, 21))
    new = old.replace("line 3\n", "line three\n").replace("line 18\n", "line eighteen\n")
    diff = unified(old, new, n=1)
    _, shown = diff_sides(diff)
    labels = line_numbers(diff)
    assert len(labels) == shown.count("\n")
    # hunk 1 shows lines 2-4, a gap line, hunk 2 shows lines 17-19
    assert labels == ["2", "3", "4", "", "17", "18", "19"]
    assert shown.split("\n")[labels.index("18")] == "line eighteen"


def test_line_numbers_count_added_lines_and_not_removed_ones() -> None:
    old = "".join(f"l{i}\n" for i in range(1, 9))
    new = old.replace("l5\n", "").replace("l6\n", "l6\nadded\n")
    diff = unified(old, new, n=1)
    _, shown = diff_sides(diff)
    numbered = dict(zip(line_numbers(diff), shown.split("\n"), strict=False))
    assert numbered == {"4": "l4", "5": "l6", "6": "added", "7": "l7"}


def test_holds_tells_applied_from_undone_from_changed() -> None:
    note = "# Errands\n\n- [ ] buy milk\n- [ ] call the bank\n"
    applied = note.replace("[ ] buy", "[x] buy")
    diff = unified(note, applied)
    assert holds(diff, applied) == HOLDS
    assert holds(diff, note) == UNDONE  # Ctrl+Z took it back
    assert holds(diff, "# Errands\n\n- [ ] buy oat milk\n") == CHANGED


def test_holds_an_appended_line_only_while_it_is_there() -> None:
    note = "# Trip\n- [ ] passport\n"
    appended = note + "- [ ] tickets\n"
    diff = unified(note, appended)
    assert holds(diff, appended) == HOLDS
    assert holds(diff, note) == UNDONE
