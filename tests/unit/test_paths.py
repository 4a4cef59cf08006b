"""ambient.paths: the one rule set for note paths (document API and pointer codec)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ambient.paths import MAX_PATH_BYTES, MAX_SEGMENT_BYTES, PathError, check_path, is_valid_path

VALID = [
    "a.md",
    "notes/a.md",
    "日記/今日のメモ.md",
    "a..b.md",
    ".hidden",
    "...",
    "with space.md",
    "emoji 😀.md",
    "x" * MAX_SEGMENT_BYTES,
    "/".join(["y" * 255] * 16),  # 4,095 bytes
    "あ" * 85,  # 255 bytes
]

INVALID = {
    "not a string": 5,
    "none": None,
    "bytes": b"a.md",
    "empty": "",
    "absolute": "/a.md",
    "root": "/",
    "dot": "./a.md",
    "dotdot": "../a.md",
    "inner dotdot": "a/../b.md",
    "trailing dotdot": "a/..",
    "only dot": ".",
    "only dotdot": "..",
    "empty segment": "a//b.md",
    "trailing slash": "a/",
    "backslash": "a\\b.md",
    "nul": "a\x00b",
    "newline": "a\nb",
    "carriage return": "a\rb",
    "tab": "a\tb",
    "escape": "a\x1bb",
    "del": "a\x7fb",
    "c1 control": "a\x85b",
    "lone surrogate": "a\ud800b",
    "segment too long": "x" * (MAX_SEGMENT_BYTES + 1),
    "segment too long in utf-8": "あ" * 86,  # 258 bytes, 86 characters
    "path too long": "/".join(["y" * 255] * 16) + "/zz",  # 4,098 bytes
}


@pytest.mark.parametrize("path", VALID)
def test_valid_paths_pass_unchanged(path):
    assert check_path(path) is path
    assert is_valid_path(path)


@pytest.mark.parametrize("path", list(INVALID.values()), ids=list(INVALID))
def test_invalid_paths_raise(path):
    with pytest.raises(PathError):
        check_path(path)
    assert not is_valid_path(path)


def test_path_error_is_a_value_error():
    assert issubclass(PathError, ValueError)


def test_limit_is_in_bytes_not_characters():
    exactly = "/".join(["y" * 255] * 16) + "/"  # 4,096 bytes with a trailing slash...
    assert len(exactly.encode()) == MAX_PATH_BYTES
    with pytest.raises(PathError):  # ...is refused for its empty segment, not its length
        check_path(exactly)
    longest = "/".join(["y" * 255] * 15 + ["あ" * 66, "z" * 57])  # 3,825 + 198 + 57 + 16
    assert len(longest.encode()) == MAX_PATH_BYTES
    assert check_path(longest) == longest


@pytest.mark.parametrize("path", ["/secret\nvalue", "secret-💥/..", "x" * 5000])
def test_messages_never_echo_the_path(path):
    with pytest.raises(PathError) as info:
        check_path(path)
    assert path not in str(info.value)
    assert "secret" not in str(info.value)


@given(st.text(max_size=64))
def test_never_raises_anything_but_path_error(text):
    try:
        assert check_path(text) == text
    except PathError:
        pass


@given(st.lists(st.text(alphabet=st.characters(min_codepoint=0x20, blacklist_characters="/\\\x7f",
                                                 blacklist_categories=("Cs", "Cc")),
                        min_size=1, max_size=20), min_size=1, max_size=8))
def test_joined_ordinary_segments_are_valid(segments):
    path = "/".join(segments)
    if any(s in (".", "..") for s in segments):
        assert not is_valid_path(path)
    else:
        assert check_path(path) == path
