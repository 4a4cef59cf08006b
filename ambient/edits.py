"""Edit proposals' text rules (find exactly once, append after a line break): stdlib only.

One pure API shared by the server (propose_edit, apply) and the page (Apply in the live editor):

- `check_edits(edits)` validates the shape: a list of 1..MAX_EDITS objects, each
  `{"find": str, "replace": str}` with a non-empty `find`, or `{"append": str}`; with
  `headings=True` (an outside agent's `edit_note`) also `{"heading": str, "append": str}`.
- `plan(text, edits)` gives the changes as `(start, end, insert)` Python string indexes,
  sorted and non-overlapping, all relative to `text` (so the page can dispatch them as ONE
  CodeMirror transaction after `to_cm`). `cm_changes` gives them in CodeMirror positions.
- `apply_edits(text, edits)` returns the new text.

Every `find` is located in the original text (not in the result of earlier edits) and must
occur there exactly once, counting overlapping occurrences. Two finds may not overlap. The
`append` edits go, in order, at the end: each after a line break when the text so far does
not end with one (an empty note gets no leading break). The break is "\\r\\n" when the note
already uses "\\r\\n", else "\\n". Failures raise EditError naming the edit (1-based).

A heading edit adds its text at the end of the section under the one ATX heading line equal
to `heading` (compared without trailing spaces or tabs; lines inside code blocks are not
headings): before the next heading of the same or a higher level, after the section's last
non-blank line. A heading that does not occur, or occurs more than once, is an EditError:
the text never lands anywhere else.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from ambient.contract import MAX_NOTE_BYTES
from ambient.markdown import heading_lines, to_cm

MAX_EDITS = 20
MAX_RESULT_BYTES = MAX_NOTE_BYTES

NOT_FOUND = "not_found"
AMBIGUOUS = "ambiguous"
OVERLAP = "overlap"
BAD_EDIT = "bad_edit"
TOO_LARGE = "too_large"
HEADING_MISSING = "heading_missing"
HEADING_REPEATED = "heading_repeated"

_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


class EditError(ValueError):
    """An edit cannot be applied; `index` is 1-based (0 when it concerns the list itself)."""

    def __init__(self, index: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Change:
    """Replace text[start:end] with `insert` (Python string indexes into the original text)."""

    start: int
    end: int
    insert: str


def check_edits(edits: object, *, headings: bool = False) -> list[dict[str, str]]:
    """The edits as a list of plain dicts, or EditError(reason=BAD_EDIT) with a plain message.

    `headings` also allows `{"heading": str, "append": str}` (a non-empty heading).
    """
    if not isinstance(edits, list) or not edits:
        raise EditError(0, BAD_EDIT, "'edits' must be a non-empty list of edits.")
    if len(edits) > MAX_EDITS:
        raise EditError(
            0, BAD_EDIT, f"There are {len(edits)} edits; at most {MAX_EDITS} are allowed."
        )
    out = []
    for number, edit in enumerate(edits, start=1):
        if not isinstance(edit, dict):
            raise EditError(number, BAD_EDIT, f"Edit {number} is not an object.")
        keys = set(edit)
        if keys == {"append"} and isinstance(edit["append"], str):
            out.append({"append": edit["append"]})
        elif (
            headings
            and keys == {"heading", "append"}
            and all(isinstance(edit[k], str) for k in keys)
        ):
            if not edit["heading"].strip():
                raise EditError(number, BAD_EDIT, f"Edit {number} has an empty 'heading'.")
            out.append({"heading": edit["heading"], "append": edit["append"]})
        elif keys == {"find", "replace"} and all(isinstance(edit[k], str) for k in keys):
            if not edit["find"]:
                raise EditError(number, BAD_EDIT, f"Edit {number} has an empty 'find'.")
            out.append({"find": edit["find"], "replace": edit["replace"]})
        else:
            raise EditError(
                number,
                BAD_EDIT,
                f'Edit {number} must be either {{"find", "replace"}}'
                + (', {"heading", "append"}' if headings else "")
                + ' or {"append"}, with string values.',
            )
    return out


def occurrences(text: str, find: str, limit: int = 2) -> list[int]:
    """Start indexes of `find` in `text`, overlapping ones included, at most `limit` of them."""
    found: list[int] = []
    start = text.find(find)
    while start != -1 and len(found) < limit:
        found.append(start)
        start = text.find(find, start + 1)
    return found


def _line_break(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _section_end(text: str, heading: str, number: int) -> int:
    """Where text appended to the section under `heading` goes (a string index into `text`)."""
    wanted = heading.rstrip(" \t")
    found = heading_lines(text)
    hits = [
        (line, level)
        for line, level, source in found
        if _ATX.match(source) and source.rstrip(" \t") == wanted
    ]
    if not hits:
        raise EditError(
            number,
            HEADING_MISSING,
            f"Edit {number}: no heading line in the note equals the given heading, so there is "
            "no section to add to.",
        )
    if len(hits) > 1:
        raise EditError(
            number,
            HEADING_REPEATED,
            f"Edit {number}: the given heading occurs {len(hits)} times in the note; it must "
            "occur exactly once.",
        )
    line, level = hits[0]
    starts = _line_starts(text)
    end_line = next(
        (other for other, other_level, _ in found if other > line and other_level <= level),
        len(starts) + 1,
    )
    # Back over the blank lines that end the section, but never above the heading itself.
    last = end_line - 1
    while last > line and not _line_text(text, starts, last).strip():
        last -= 1
    return starts[last] if last < len(starts) else len(text)


def _line_starts(text: str) -> list[int]:
    """starts[n-1] is where line n begins; starts[n] where the line after it begins."""
    starts = [0]
    for match in re.finditer(r"\r\n|\r|\n", text):
        starts.append(match.end())
    return starts


def _line_text(text: str, starts: list[int], line: int) -> str:
    end = starts[line] if line < len(starts) else len(text)
    return text[starts[line - 1] : end]


def _heading_insert(text: str, at: int, append: str) -> str:
    """`append` as inserted at `at`: on its own line, ending with a break when text follows."""
    brk = _line_break(text)
    before = brk if at > 0 and not text[:at].endswith(("\n", "\r")) else ""
    after = brk if at < len(text) and not append.endswith(("\n", "\r")) else ""
    return before + append + after


def plan(text: str, edits: object, *, headings: bool = False) -> list[Change]:
    """The changes the edits make to `text`, sorted; EditError when one cannot apply."""
    checked = check_edits(edits, headings=headings)
    changes: list[tuple[Change, int]] = []
    tail = ""
    for number, edit in enumerate(checked, start=1):
        if "heading" in edit:
            at = _section_end(text, edit["heading"], number)
            if at == len(text):  # the last section: the same as a plain append
                edit = {"append": edit["append"]}
            else:
                insert = _heading_insert(text, at, edit["append"])
                changes.append((Change(at, at, insert), number))
                continue
        if "append" in edit:
            so_far = text + tail
            if so_far and not so_far.endswith(("\n", "\r")):
                tail += _line_break(text)
            tail += edit["append"]
            continue
        hits = occurrences(text, edit["find"])
        if not hits:
            raise EditError(
                number, NOT_FOUND, f"Edit {number}: the text to find does not occur in the note."
            )
        if len(hits) > 1:
            raise EditError(
                number,
                AMBIGUOUS,
                f"Edit {number}: the text to find occurs more than once in the note; "
                "it must occur exactly once.",
            )
        start = hits[0]
        changes.append((Change(start, start + len(edit["find"]), edit["replace"]), number))
    changes.sort(key=lambda item: (item[0].start, item[0].end))
    for (before, first), (after, second) in itertools.pairwise(changes):
        if after.start < before.end:
            raise EditError(
                second,
                OVERLAP,
                f"Edit {second}: the text to find overlaps the text of edit {first}.",
            )
    result = [change for change, _ in changes]
    if tail:
        result.append(Change(len(text), len(text), tail))
    return result


def apply_changes(text: str, changes: list[Change]) -> str:
    """Apply sorted, non-overlapping changes (as `plan` gives them) to `text`."""
    out, last = [], 0
    for change in changes:
        out.append(text[last : change.start])
        out.append(change.insert)
        last = change.end
    out.append(text[last:])
    return "".join(out)


def apply_edits(
    text: str, edits: object, *, max_bytes: int = MAX_RESULT_BYTES, headings: bool = False
) -> str:
    """The text after the edits; EditError (reason TOO_LARGE) when it exceeds `max_bytes`."""
    result = apply_changes(text, plan(text, edits, headings=headings))
    size = len(result.encode("utf-8"))
    if size > max_bytes:
        raise EditError(
            0,
            TOO_LARGE,
            f"The note would be {size:,} bytes after these edits; the limit is {max_bytes:,}.",
        )
    return result


def cm_changes(text: str, edits: object) -> list[tuple[int, int, str]]:
    """The changes as (from, to, insert) CodeMirror positions (UTF-16 code units)."""
    return [(to_cm(text, c.start), to_cm(text, c.end), c.insert) for c in plan(text, edits)]


def changed_message(exc: EditError) -> str:
    """Plain words for an edit that no longer applies to the note as it is now."""
    if exc.reason == NOT_FOUND:
        return (
            f"Edit {exc.index}: the text it would change is no longer in the note (it was "
            "edited since the proposal was made); nothing was changed."
        )
    if exc.reason == AMBIGUOUS:
        return (
            f"Edit {exc.index}: the text it would change now occurs more than once in the note, "
            "so it is not clear where to apply it; nothing was changed."
        )
    return f"{exc.message} Nothing was changed."
