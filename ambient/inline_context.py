"""The inline command's bounded context (SPEC §9): one cut for the page, one check for the server.

The page builds `before` and `after` with `bounded()` from the text around the selection; the
server refuses anything over the same limits with `check()`. Limits are UTF-8 bytes. Cuts are
made just after a line break, and a line break is one byte that never occurs inside a
multi-byte UTF-8 character, so no cut can split a character.
"""

from __future__ import annotations

SELECTION_BYTES = 16_384  # the most selected text one request may carry
CONTEXT_BYTES = 2_048  # the most text before, and after, the selection

_NL = b"\n"


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: the unit of CodeMirror's positions (`selection.to - from`)."""
    return len(text.encode("utf-16-le")) // 2


def cut_before(text: str, limit: int = CONTEXT_BYTES) -> str:
    """The longest tail of `text` that fits in `limit` bytes and starts at a line's start.

    `text` is everything before the selection, so its tail is the nearest context; the tail
    starts at the beginning of `text` or just after one of its line breaks.
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    first = len(data) - limit  # the earliest byte the tail may start at
    newline = data.find(_NL, first - 1)  # a break at first-1 lets the tail start at first
    return "" if newline < 0 else data[newline + 1 :].decode("utf-8")


def cut_after(text: str, limit: int = CONTEXT_BYTES) -> str:
    """The longest head of `text` that fits in `limit` bytes and ends after a line break.

    `text` is everything after the selection; the head is all of it when it fits.
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    newline = data.rfind(_NL, 0, limit)
    return "" if newline < 0 else data[: newline + 1].decode("utf-8")


def bounded(text_before: str, text_after: str) -> tuple[str, str]:
    """(before, after) for a request, from all the note's text before and after the selection."""
    return cut_before(text_before), cut_after(text_after)


def around(document: str, start: int, end: int) -> tuple[str, str]:
    """`bounded()` for a selection given as Python string indices into `document`."""
    return bounded(document[:start], document[end:])


def check(selection: str, before: str, after: str) -> str | None:
    """Why a request is over the limits, in a plain sentence without the text; None if fine."""
    size = utf8_len(selection)
    if size > SELECTION_BYTES:
        return (
            f"The selection is {size:,} bytes; the inline command takes at most "
            f"{SELECTION_BYTES:,} bytes (UTF-8). Select less text."
        )
    for name, part in (("before", before), ("after", after)):
        size = utf8_len(part)
        if size > CONTEXT_BYTES:
            return (
                f"The context {name} the selection is {size:,} bytes; at most "
                f"{CONTEXT_BYTES:,} bytes (UTF-8) are allowed."
            )
    return None
