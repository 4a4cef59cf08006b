"""Workspace-relative note paths: one rule set for the document API and the pointer codec."""

from __future__ import annotations

MAX_PATH_BYTES = 4096
MAX_SEGMENT_BYTES = 255


class PathError(ValueError):
    """A path that breaks the rules; the message is safe to show and never echoes the path."""


def check_path(path: object) -> str:
    """Return `path` unchanged when it is a valid workspace-relative POSIX path, else raise.

    Rules (SPEC §3, §6): a non-empty string, no leading `/`, no `.`/`..` or empty segments,
    no backslash, no NUL or other control character (so it can never smuggle a CR/LF into a
    header or a log line), at most 4,096 UTF-8 bytes, each segment at most 255.
    """
    if not isinstance(path, str):
        raise PathError("The path must be a string.")
    if not path:
        raise PathError("The path is empty.")
    if path.startswith("/"):
        raise PathError("The path must be relative to the workspace (no leading '/').")
    if "\\" in path:
        raise PathError("The path must use '/' as its separator, not '\\'.")
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in path):
        raise PathError("The path contains a control character.")
    if _utf8_len(path) > MAX_PATH_BYTES:
        raise PathError(f"The path is longer than {MAX_PATH_BYTES} bytes.")
    for segment in path.split("/"):
        if segment in ("", ".", ".."):
            raise PathError("The path has an empty, '.' or '..' segment.")
        if _utf8_len(segment) > MAX_SEGMENT_BYTES:
            raise PathError(f"A path segment is longer than {MAX_SEGMENT_BYTES} bytes.")
    return path


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
