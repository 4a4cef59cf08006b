"""ambient.paths: the one rule set for note paths (document API and pointer codec)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ambient.paths import (
    INVISIBLE_CHARS,
    MAX_PATH_BYTES,
    MAX_SEGMENT_BYTES,
    PathError,
    character_problem,
    check_path,
    is_valid_path,
    normalize_path,
)

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
    "right-to-left override": "evil\u202egpj.md",
    "left-to-right embedding": "a\u202ab.md",
    "pop directional formatting": "a\u202cb.md",
    "first strong isolate": "a\u2068b.md",
    "pop directional isolate": "a\u2069b.md",
    "zero-width space": "caf\u200be.md",
    "zero-width non-joiner": "a\u200cb.md",
    "zero-width joiner": "a\u200db.md",
    "word joiner": "a\u2060b.md",
    "byte order mark": "\ufeffa.md",
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


@given(
    st.lists(
        st.text(
            alphabet=st.characters(
                min_codepoint=0x20,
                blacklist_characters="/\\\x7f",
                blacklist_categories=("Cs", "Cc", "Cf"),
            ),
            min_size=1,
            max_size=20,
        ),
        min_size=1,
        max_size=8,
    )
)
def test_joined_ordinary_segments_are_valid(segments):
    path = "/".join(segments)
    if any(s in (".", "..") for s in segments):
        assert not is_valid_path(path)
    else:
        assert check_path(path) == path


def test_the_invisible_set_is_exactly_the_contract():
    expected = {
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        0x200B,
        0x200C,
        0x200D,
        0x2060,
        0xFEFF,
    }
    assert {ord(ch) for ch in INVISIBLE_CHARS} == expected
    for code in expected:
        with pytest.raises(PathError, match="invisible"):
            normalize_path(f"notes/a{chr(code)}b.md")


def test_nfd_and_nfc_spellings_normalise_to_one_path():
    nfc, nfd = "caf\u00e9/r\u00e9sum\u00e9.md", "cafe\u0301/re\u0301sume\u0301.md"
    assert nfc != nfd
    assert normalize_path(nfd) == normalize_path(nfc) == nfc
    assert check_path(nfd) is nfd  # validation alone leaves the spelling as it is
    assert normalize_path("hangul \u1100\u1161.md") == "hangul \uac00.md"


def test_normalize_checks_the_nfc_form_and_refuses_what_check_refuses():
    with pytest.raises(PathError):
        normalize_path("a\ud800.md")
    with pytest.raises(PathError):
        normalize_path(b"a.md")
    for path in INVALID.values():
        with pytest.raises(PathError):
            normalize_path(path)
    # 256 bytes as e + combining accent (3 bytes each) but 170 bytes in NFC: accepted
    long_nfd = "e\u0301" * 85 + "x"
    assert len(long_nfd.encode()) == 256
    assert normalize_path(long_nfd) == "\u00e9" * 85 + "x"


@given(st.text(max_size=64))
def test_normalize_is_idempotent_and_gives_nfc(text):
    try:
        once = normalize_path(text)
    except PathError:
        return
    assert unicodedata.is_normalized("NFC", once)
    assert normalize_path(once) == once


def test_a_folder_reaches_only_the_notes_under_it():
    from ambient.paths import normalize_folder, under_folder

    folder = normalize_folder("projects/cafe\u0301/")
    assert folder == "projects/caf\u00e9"
    assert under_folder("projects/caf\u00e9/plan.md", folder)
    assert under_folder("projects/caf\u00e9/a/b.md", folder)
    assert not under_folder("projects/caf\u00e9.md", folder)
    assert not under_folder("projects/caf\u00e9x/plan.md", folder)
    assert not under_folder("other/plan.md", folder)
    assert under_folder("anything.md", None)
    for bad in ("", "/abs", "a/../b", "a//b", 5):
        with pytest.raises(PathError):
            normalize_folder(bad)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Claude Code", None),
        ("caf\u00e9 \u65e5\u672c \U0001f916", None),
        ("a\x00b", "a control character"),
        ("a\x1fb", "a control character"),
        ("a\x7fb", "a control character"),
        ("a\x9fb", "a control character"),
        ("a\u202eb", "an invisible character (a bidirectional control or a zero-width character)"),
        ("a\u200bb", "an invisible character (a bidirectional control or a zero-width character)"),
    ],
)
def test_the_character_policy_is_shared_with_other_names(text, problem):
    # Token names (shown to other members) follow the paths' character policy.
    assert character_problem(text) == problem
    assert is_valid_path(text) is (problem is None)
