"""A proposal's unified diff as the two texts a diff view compares (pure).

The server's `diff` (SPEC §8) is a unified diff; the page shows it with CodeMirror's own
merge view, which compares two texts. Each hunk contributes its old and new lines; hunks are
separated by a "…" line on both sides (unchanged, so it is not highlighted; U+2026 is in
nearly every font, unlike the merge view's own "⦚"). The marker "\\ No newline at end of
file" is not shown: it takes the line break off the line before.

The view numbers its lines with the note's own numbers (`line_numbers`, from each hunk's
"@@ -a,b +c,d @@" header), and after a reload a card tells whether the note still holds an
applied proposal (`holds`).
"""

from __future__ import annotations

import re

GAP = "…\n"
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
HOLDS, UNDONE, CHANGED = "holds", "undone", "changed"


def diff_sides(diff: str) -> tuple[str, str]:
    """(old, new) texts of the hunks of a unified diff; ("", "") when it has none."""
    old: list[str] = []
    new: list[str] = []
    last = ""  # the kind of the previous body line: " ", "-" or "+"
    hunks = 0
    for line in diff.split("\n"):
        if line.startswith("@@"):
            hunks += 1
            if hunks > 1:
                old.append(GAP)
                new.append(GAP)
            last = ""
            continue
        if not hunks:  # the "--- a/…" and "+++ b/…" headers
            continue
        kind, body = line[:1], line[1:]
        if kind == "\\":  # "\ No newline at end of file": about the line just before
            for side, applies in ((old, last in " -"), (new, last in " +")):
                if applies and last and side and side[-1].endswith("\n"):
                    side[-1] = side[-1][:-1]
            continue
        if kind not in (" ", "-", "+"):
            continue
        if kind in " -":
            old.append(body + "\n")
        if kind in " +":
            new.append(body + "\n")
        last = kind
    return "".join(old), "".join(new)


def line_numbers(diff: str) -> list[str]:
    """The note's own number of each line of the new side of `diff_sides` (the text the view
    shows), as text; "" for a gap line between hunks."""
    labels: list[str] = []
    number = 0
    hunks = 0
    for line in diff.split("\n"):
        header = HUNK.match(line)
        if header:
            hunks += 1
            if hunks > 1:
                labels.append("")
            number = int(header.group(1))
            continue
        if hunks and line[:1] in (" ", "+"):
            labels.append(str(number))
            number += 1
    return labels


def _hunks(diff: str) -> list[tuple[list[str], list[str]]]:
    """Each hunk's (old lines, new lines), context included, without their line breaks."""
    hunks: list[tuple[list[str], list[str]]] = []
    for line in diff.split("\n"):
        if line.startswith("@@"):
            hunks.append(([], []))
        elif hunks and line[:1] in (" ", "-", "+"):
            kind, body = line[:1], line[1:]
            if kind in " -":
                hunks[-1][0].append(body)
            if kind in " +":
                hunks[-1][1].append(body)
    return [(old, new) for old, new in hunks if old != new]


def _contains(lines: list[str], block: list[str]) -> bool:
    if not block:
        return True
    return any(lines[i : i + len(block)] == block for i in range(len(lines) - len(block) + 1))


def holds(diff: str, text: str) -> str:
    """Whether the note's `text` holds the proposal's edit: HOLDS (every hunk's new lines are
    there), UNDONE (every hunk's old lines are there instead: undone, or never applied) or
    CHANGED (neither: the note changed since)."""
    hunks = _hunks(diff)
    lines = text.split("\n")
    if all(_contains(lines, new) for _, new in hunks):
        return HOLDS
    if all(_contains(lines, old) for old, _ in hunks):
        return UNDONE
    return CHANGED
