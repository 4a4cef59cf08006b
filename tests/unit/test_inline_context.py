"""The inline command's bounded context on concrete texts (ambient.inline_context)."""

from __future__ import annotations

from ambient.inline_context import (
    CONTEXT_BYTES,
    SELECTION_BYTES,
    around,
    bounded,
    check,
    cut_after,
    cut_before,
    utf16_len,
)


def test_short_context_is_sent_whole():
    assert bounded("# Title\nsome ", " rest\nlast") == ("# Title\nsome ", " rest\nlast")
    assert around("abc", 1, 2) == ("a", "c")


def test_ascii_cut_falls_on_line_starts_and_ends():
    lines = [f"line {n:04}\n" for n in range(400)]  # 10 bytes each
    text = "".join(lines)
    before = cut_before(text)
    assert before == "".join(lines[-204:]) and len(before) == 2_040
    after = cut_after(text)
    assert after == "".join(lines[:204])


def test_a_boundary_exactly_at_the_limit_is_kept():
    text = "x" * 10 + "\n" + "y" * (CONTEXT_BYTES - 1) + "\n"
    assert cut_before(text) == "y" * (CONTEXT_BYTES - 1) + "\n"
    assert cut_after("z" * (CONTEXT_BYTES - 1) + "\nmore") == "z" * (CONTEXT_BYTES - 1) + "\n"


def test_japanese_and_emoji_are_counted_in_bytes_and_never_split():
    line = "日本語のメモ🙂\n"  # 6 x 3 + 4 + 1 = 23 bytes
    text = line * 100
    before = cut_before(text)
    assert before == line * (CONTEXT_BYTES // 23)
    assert len(before.encode()) <= CONTEXT_BYTES
    assert cut_after(text) == line * (CONTEXT_BYTES // 23)


def test_a_line_longer_than_the_limit_gives_no_context():
    assert cut_before("あ" * 1_000) == ""
    assert cut_after("あ" * 1_000) == ""
    assert cut_before("a\n" + "あ" * 1_000) == ""


def test_check_messages_and_utf16_positions():
    assert check("a" * SELECTION_BYTES, "b" * CONTEXT_BYTES, "c" * CONTEXT_BYTES) is None
    assert "16,384" in check("é" * (SELECTION_BYTES // 2 + 1), "", "")
    assert "before" in check("", "b" * (CONTEXT_BYTES + 1), "")
    assert "after" in check("", "", "c" * (CONTEXT_BYTES + 1))
    assert utf16_len("a日🙂") == 4  # the emoji is a surrogate pair in CodeMirror's positions
