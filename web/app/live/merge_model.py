"""What a note changed elsewhere does to the text on screen: replace, merge or conflict (pure).

`reconcile(base, theirs, mine)` decides, line by line with `merge3` (a pure-Python three-way
merge that also runs in Pyodide): base = the saved copy the editor last knew, theirs = the new
saved copy, mine = the editor's text now. `changes_between(old, new)` gives the few
CodeMirror changes that turn the screen into the decided text, so the cursor and the undo
history map through them instead of being reset by a whole-document swap. They are
character-exact: a replacement spanning text this window typed would swallow it, and its
Ctrl+Z would then remove characters of the other window's text.
"""

from __future__ import annotations

from typing import NamedTuple

from merge3 import Merge3

SAME = "same"  # the screen already holds the new saved copy: only the revision moves on
KEEP = "keep"  # the saved copy did not change (our own save): nothing to do
REPLACE = "replace"  # no unsaved keystrokes: the new saved copy replaces the screen
MERGED = "merged"  # unsaved keystrokes merged cleanly with the other change: save the result
CONFLICT = "conflict"  # the same lines changed on both sides: nothing changes on screen


class Outcome(NamedTuple):
    """The decision, and the text the editor should hold afterwards (mine for a conflict)."""

    kind: str
    text: str


def _lines(text: str) -> list[str]:
    # Every side ends with a line break while merging, so an edit after a last line without
    # one does not look like a change of that line (which would be a false conflict).
    return (text if not text or text.endswith("\n") else text + "\n").splitlines(keepends=True)


def _ends(text: str) -> bool:
    return not text or text.endswith("\n")


def reconcile(base: str, theirs: str, mine: str) -> Outcome:
    """Decide what a new saved copy `theirs` does to the screen's `mine` (see module doc)."""
    if theirs == mine:
        return Outcome(SAME, mine)
    if theirs == base:
        return Outcome(KEEP, mine)
    if mine == base:
        return Outcome(REPLACE, theirs)
    merged: list[str] = []
    for group in Merge3(_lines(base), _lines(mine), _lines(theirs)).merge_groups():
        if group[0] == "conflict":
            return Outcome(CONFLICT, mine)
        merged.extend(group[1])
    text = "".join(merged)
    # The final line break follows the side that changed it (mine first, like any line).
    wanted = _ends(mine) if _ends(mine) != _ends(base) else _ends(theirs)
    if not wanted and text.endswith("\n"):
        text = text[:-1]
    return Outcome(MERGED, text)


# A changed block longer than this (removed plus inserted characters, after trimming what
# both ends share) is one replacement: a character diff costs O(n·m) in Pyodide.
CHAR_DIFF_LIMIT = 4000


def changes_between(old: str, new: str) -> list[tuple[int, int, str]]:
    """Changes `(from, to, insert)` in CodeMirror positions (UTF-16) that turn `old` into `new`.

    Lines first (difflib on lines), then each changed block down to the characters that
    differ (difflib on characters), so a change never covers a character both texts keep;
    a block above `CHAR_DIFF_LIMIT` stays one replacement, trimmed at both ends. Sorted and
    non-overlapping, all relative to `old` (one transaction applies them at once).
    """
    import difflib  # here, not at start: compiling it (~0.1 s) would delay every window's boot

    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    spans: list[tuple[int, int, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end, insert = starts[i1], starts[i2], "".join(b[j1:j2])
        removed = old[start:end]
        head = len(_common_prefix(removed, insert))
        tail = len(_common_prefix(removed[head:][::-1], insert[head:][::-1]))
        start, removed, insert = (
            start + head,
            removed[head : len(removed) - tail],
            insert[head : len(insert) - tail],
        )
        if not removed or not insert or len(removed) + len(insert) > CHAR_DIFF_LIMIT:
            spans.append((start, start + len(removed), insert))
            continue
        chars = difflib.SequenceMatcher(None, removed, insert, autojunk=False)
        for op, c1, c2, d1, d2 in chars.get_opcodes():
            if op != "equal":
                spans.append((start + c1, start + c2, insert[d1:d2]))
    return _to_utf16(old, spans)


def apply_changes(old: str, changes: list[tuple[int, int, str]]) -> str:
    """Apply `changes_between`'s output to `old` (what CodeMirror does; for tests and checks)."""
    units = old.encode("utf-16-le")
    out, at = [], 0
    for start, end, insert in changes:
        out.append(units[at * 2 : start * 2].decode("utf-16-le"))
        out.append(insert)
        at = end
    out.append(units[at * 2 :].decode("utf-16-le"))
    return "".join(out)


def _common_prefix(a: str, b: str) -> str:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return a[:n]


def _to_utf16(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Python indexes → UTF-16 positions, in one pass over the text (spans are sorted)."""
    out, extra, at = [], 0, 0

    def pos(index: int) -> int:
        nonlocal extra, at
        extra += sum(1 for ch in text[at:index] if ord(ch) > 0xFFFF)
        at = index
        return index + extra

    for start, end, insert in spans:
        out.append((pos(start), pos(end), insert))
    return out
