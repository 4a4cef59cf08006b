"""A proposal's unified diff as the two texts a diff view compares (pure).

The server's `diff` (SPEC §8) is a unified diff; the page shows it with CodeMirror's own
merge view, which compares two texts. Each hunk contributes its old and new lines; hunks are
separated by a "⋯" line on both sides (unchanged, so it is not highlighted). The marker
"\\ No newline at end of file" is not shown: it takes the line break off the line before.
"""

from __future__ import annotations

GAP = "⋯\n"


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
