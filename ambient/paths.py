"""Workspace-relative note paths: one rule set for the document API and the pointer codec."""

from __future__ import annotations

import unicodedata

MAX_PATH_BYTES = 4096
MAX_SEGMENT_BYTES = 255
# Characters that make two different paths look alike, or reorder what a reader sees:
# bidirectional embeddings/overrides (U+202A-U+202E) and isolates (U+2066-U+2069), and the
# zero-width space, non-joiner, joiner, word joiner and BOM.
INVISIBLE_CHARS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
)


class PathError(ValueError):
    """A path that breaks the rules; the message is safe to show and never echoes the path."""


def check_path(path: object) -> str:
    """Return `path` unchanged when it is a valid workspace-relative POSIX path, else raise.

    Rules (SPEC §3, §6, §12): a non-empty string, no leading `/`, no `.`/`..` or empty
    segments, no backslash, no NUL or other control character (so it can never smuggle a
    CR/LF into a header or a log line), no bidirectional control or zero-width character (so
    two paths cannot look alike), at most 4,096 UTF-8 bytes, each segment at most 255.
    Validation only: `normalize_path` is what the document store uses (NFC).
    """
    if not isinstance(path, str):
        raise PathError("The path must be a string.")
    if not path:
        raise PathError("The path is empty.")
    if path.startswith("/"):
        raise PathError("The path must be relative to the workspace (no leading '/').")
    if "\\" in path:
        raise PathError("The path must use '/' as its separator, not '\\'.")
    problem = character_problem(path)
    if problem is not None:
        raise PathError(f"The path contains {problem}.")
    if _utf8_len(path) > MAX_PATH_BYTES:
        raise PathError(f"The path is longer than {MAX_PATH_BYTES} bytes.")
    for segment in path.split("/"):
        if segment in ("", ".", ".."):
            raise PathError("The path has an empty, '.' or '..' segment.")
        if _utf8_len(segment) > MAX_SEGMENT_BYTES:
            raise PathError(f"A path segment is longer than {MAX_SEGMENT_BYTES} bytes.")
    return path


def character_problem(text: str) -> str | None:
    """The paths' character policy, for any name shown to people: None when `text` holds no
    NUL or other C0/C1 control character and no bidirectional control or zero-width
    character, else what it holds ("a control character"), to end a sentence with."""
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in text):
        return "a control character"
    if not INVISIBLE_CHARS.isdisjoint(text):
        return "an invisible character (a bidirectional control or a zero-width character)"
    return None


def normalize_path(path: object) -> str:
    """The path in Unicode NFC after `check_path`'s rules: how notes are stored and looked up.

    `café.md` typed as e + U+0301 and as U+00E9 is one note. The rules are checked on the
    NFC form, so the limits apply to what is stored.
    """
    if not isinstance(path, str):
        raise PathError("The path must be a string.")
    _utf8_len(path)  # refuse lone surrogates before normalising
    return check_path(unicodedata.normalize("NFC", path))


def normalize_folder(folder: object) -> str:
    """A workspace-relative folder as stored for a token's reach: `normalize_path`'s rules,
    without a trailing '/'."""
    if isinstance(folder, str) and folder.endswith("/"):
        folder = folder[:-1]
    return normalize_path(folder)


def under_folder(path: str, folder: str | None) -> bool:
    """Is the (normalized) note `path` inside `folder` (None: anywhere)?"""
    return folder is None or path.startswith(folder + "/")


def is_valid_path(path: object) -> bool:
    try:
        check_path(path)
    except PathError:
        return False
    return True


def _utf8_len(text: str) -> int:
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:  # lone surrogates cannot be stored or sent
        raise PathError("The path is not valid Unicode text.") from None
