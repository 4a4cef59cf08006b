"""Search results as lines: every matching line of a note, with the matches marked (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass

DEBOUNCE_SECONDS = 0.25  # results as you type, once the typing pauses this long
LINE_CHARS = 120  # the longest line shown, in code points
LEAD_CHARS = 40  # context kept before the first match when a line is cut
MAX_LINES_PER_NOTE = 20  # more lines of one note are counted, not listed


@dataclass(frozen=True)
class Line:
    """One matching line: its 1-based number and its text in pieces, `(text, is_match)`."""

    number: int
    pieces: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class NoteLines:
    """A note's matching lines (at most MAX_LINES_PER_NOTE) and how many matched in all."""

    path: str
    lines: tuple[Line, ...]
    total: int


def terms(query: str) -> list[str]:
    """The distinct words of the query, as the server splits them (any whitespace)."""
    seen: set[str] = set()
    out = []
    for word in query.split():
        if word.casefold() not in seen:
            seen.add(word.casefold())
            out.append(word)
    return out


def _pattern(words: list[str]) -> re.Pattern[str] | None:
    if not words:
        return None
    ordered = sorted(words, key=len, reverse=True)  # the longer word wins where both match
    return re.compile("|".join(re.escape(w) for w in ordered), re.IGNORECASE)


def pieces(line: str, pattern: re.Pattern[str] | None) -> tuple[tuple[str, bool], ...]:
    """`line` cut around its matches (case-insensitive), trimmed to LINE_CHARS around the
    first one; the pieces joined give the shown text back."""
    spans = [m.span() for m in pattern.finditer(line)] if pattern else []
    spans = [(a, b) for a, b in spans if b > a]
    begin = 0
    if len(line) > LINE_CHARS and spans:
        begin = max(0, min(spans[0][0] - LEAD_CHARS, len(line) - LINE_CHARS))
    end = min(len(line), begin + LINE_CHARS)
    out: list[tuple[str, bool]] = []
    at = begin
    for a, b in spans:
        a, b = max(a, begin), min(b, end)
        if a >= b:
            continue
        if a > at:
            out.append((line[at:a], False))
        out.append((line[a:b], True))
        at = b
    if at < end:
        out.append((line[at:end], False))
    return tuple(out)


def matching_lines(path: str, text: str, query: str) -> NoteLines:
    """Every line of `text` that contains any word of `query`, case-insensitively."""
    pattern = _pattern(terms(query))
    lines: list[Line] = []
    total = 0
    if pattern is not None:
        for number, line in enumerate(text.split("\n"), start=1):
            if pattern.search(line):
                total += 1
                if len(lines) < MAX_LINES_PER_NOTE:
                    lines.append(Line(number, pieces(line, pattern)))
    return NoteLines(path, tuple(lines), total)


def from_snippet(path: str, line: int, snippet: str, query: str) -> NoteLines:
    """A note whose text was not read: the one line the server placed, marked the same way."""
    return NoteLines(path, (Line(line, pieces(snippet, _pattern(terms(query)))),), 1)


def summary(notes: list[NoteLines]) -> str:
    """The status line under the box: how many lines in how many notes."""
    if not notes:
        return "No note contains that."
    lines = sum(note.total for note in notes)
    return (
        f"{lines} line{'s' if lines != 1 else ''} in {len(notes)} "
        f"note{'s' if len(notes) != 1 else ''}"
    )
