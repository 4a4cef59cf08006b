"""Edit proposals' text rules (find exactly once, append after a line break): stdlib only.

One pure API shared by the server (propose_edit, apply) and the page (Apply in the live editor):

- `check_edits(edits)` validates the shape: a list of 1..MAX_EDITS objects, each
  `{"find": str, "replace": str}` with a non-empty `find`, or `{"append": str}`.
- `plan(text, edits)` gives the changes as `(start, end, insert)` Python string indexes,
  sorted and non-overlapping, all relative to `text` (so the page can dispatch them as ONE
  CodeMirror transaction after `to_cm`). `cm_changes` gives them in CodeMirror positions.
- `apply_edits(text, edits)` returns the new text.

Every `find` is located in the original text (not in the result of earlier edits) and must
occur there exactly once, counting overlapping occurrences. Two finds may not overlap. The
`append` edits go, in order, at the end: each after a line break when the text so far does
not end with one (an empty note gets no leading break). The break is "\\r\\n" when the note
already uses "\\r\\n", else "\\n". Failures raise EditError naming the edit (1-based).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ambient.contract import MAX_NOTE_BYTES
from ambient.markdown import to_cm

MAX_EDITS = 20
MAX_RESULT_BYTES = MAX_NOTE_BYTES

NOT_FOUND = "not_found"
AMBIGUOUS = "ambiguous"
OVERLAP = "overlap"
BAD_EDIT = "bad_edit"
TOO_LARGE = "too_large"


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


def check_edits(edits: object) -> list[dict[str, str]]:
    """The edits as a list of plain dicts, or EditError(reason=BAD_EDIT) with a plain message."""
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
        elif keys == {"find", "replace"} and all(isinstance(edit[k], str) for k in keys):
            if not edit["find"]:
                raise EditError(number, BAD_EDIT, f"Edit {number} has an empty 'find'.")
            out.append({"find": edit["find"], "replace": edit["replace"]})
        else:
            raise EditError(
                number,
                BAD_EDIT,
                f"Edit {number} must be either {{\"find\", \"replace\"}} or {{\"append\"}}, "
                "with string values.",
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


def plan(text: str, edits: object) -> list[Change]:
    """The changes the edits make to `text`, sorted; EditError when one cannot apply."""
    checked = check_edits(edits)
    changes: list[tuple[Change, int]] = []
    tail = ""
    for number, edit in enumerate(checked, start=1):
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


def apply_edits(text: str, edits: object, *, max_bytes: int = MAX_RESULT_BYTES) -> str:
    """The text after the edits; EditError (reason TOO_LARGE) when it exceeds `max_bytes`."""
    result = apply_changes(text, plan(text, edits))
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
