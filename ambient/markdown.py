"""Todo items, the heading/list outline and counts: stdlib-only, shared by the page and the agent.

Conventions (see docs/assistant.md):
- Line numbers are 1-based, like CodeMirror's `doc.line(n)`.
- Offsets handed to the editor are CodeMirror positions, i.e. UTF-16 code units; `to_cm` and
  `from_cm` convert between them and Python string indexes (code points), which differ only
  for characters outside the Basic Multilingual Plane (emoji, rare kanji).
- Fenced code blocks (``` or ~~~) hide todos and headings inside them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)([-*+]|[0-9]{1,9}[.)])(?:[ \t]+(.*))?$")
_CHECKBOX = re.compile(r"^\[([ xX])\](?=[ \t]|$)[ \t]*")


@dataclass(frozen=True)
class TodoItem:
    """A task-list item: its 1-based line, whether it is ticked, its text and its indent."""

    line: int
    done: bool
    text: str
    indent: int


@dataclass
class OutlineNode:
    """A heading (level 1-6) or a list item (kind "item") with its children."""

    kind: str  # "root", "heading" or "item"
    level: int
    title: str
    line: int = 0
    done: bool | None = None  # for todo items
    children: list[OutlineNode] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "level": self.level,
            "title": self.title,
            "line": self.line,
            "done": self.done,
            "children": [c.to_dict() for c in self.children],
        }


def lines(text: str) -> list[str]:
    """The document's lines without their endings (CodeMirror's view of them)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def visible_lines(text: str):
    """Yield (line_number, line) for lines outside fenced code blocks."""
    fence: str | None = None
    for number, line in enumerate(lines(text), start=1):
        m = _FENCE.match(line)
        if fence is None:
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence = m.group(1)
                continue
            yield number, line
        elif (
            m
            and m.group(1)[0] == fence[0]
            and len(m.group(1)) >= len(fence)
            and not m.group(2).strip()
        ):
            fence = None


def _indent_width(prefix: str) -> int:
    return sum(4 if ch == "\t" else 1 for ch in prefix)


def parse_item(line: str) -> tuple[int, str, bool | None, int] | None:
    """(indent, text, done or None, column of the checkbox mark) for a list item line."""
    if _THEMATIC.match(line):
        return None
    m = _ITEM.match(line)
    if not m:
        return None
    indent = _indent_width(m.group(1))
    body = m.group(3) or ""
    body_col = m.start(3) if m.group(3) is not None else len(line)
    box = _CHECKBOX.match(body)
    if box:
        return indent, body[box.end() :].rstrip(), box.group(1) != " ", body_col + 1
    return indent, body.rstrip(), None, -1


def todos(text: str) -> list[TodoItem]:
    """Every task-list item (`- [ ]`, `- [x]`, `* [X]`, `1. [ ]`, ...) outside fenced code."""
    found = []
    for number, line in visible_lines(text):
        parsed = parse_item(line)
        if parsed and parsed[2] is not None:
            indent, body, done, _ = parsed
            found.append(TodoItem(line=number, done=done, text=body, indent=indent))
    return found


def toggle_todo(text: str, line: int) -> tuple[int, int, str]:
    """The minimal edit that ticks or unticks the todo on `line`: (from, to, insert).

    `from`/`to` are CodeMirror positions (UTF-16 code units) so the page can dispatch them
    as one change; the edit replaces only the character between the brackets.
    Raises ValueError when that line is not a todo item (or is inside a fenced block).
    """
    for number, source in visible_lines(text):
        if number != line:
            continue
        parsed = parse_item(source)
        if not parsed or parsed[2] is None:
            break
        done, column = parsed[2], parsed[3]
        pos = to_cm(text, _line_start_index(text, line) + column)
        return pos, pos + 1, " " if done else "x"
    raise ValueError("That line is not a todo item.")


def _line_start_index(text: str, line: int) -> int:
    """Python index of the first character of 1-based `line`, honouring \\r\\n endings."""
    index = 0
    for _ in range(line - 1):
        nl = text.find("\n", index)
        cr = text.find("\r", index)
        if cr != -1 and (nl == -1 or cr < nl):
            index = cr + (2 if text.startswith("\r\n", cr) else 1)
        elif nl != -1:
            index = nl + 1
        else:
            raise ValueError("No such line.")
    return index


def apply_change(text: str, change: tuple[int, int, str]) -> str:
    """Apply a (from, to, insert) change given in CodeMirror positions; used by tests and views."""
    start, end, insert = change
    a, b = from_cm(text, start), from_cm(text, end)
    return text[:a] + insert + text[b:]


def to_cm(text: str, index: int) -> int:
    """Python string index (code points) → CodeMirror position (UTF-16 code units)."""
    return index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)


def from_cm(text: str, pos: int) -> int:
    """CodeMirror position (UTF-16 code units) → Python string index, clamped to the text.

    A position that falls between the two halves of a surrogate pair rounds down to the
    start of that character, so a slice never splits it.
    """
    if pos <= 0:
        return 0
    units = 0
    for index, ch in enumerate(text):
        width = 2 if ord(ch) > 0xFFFF else 1
        if units + width > pos:
            return index
        units += width
        if units == pos:
            return index + 1
    return len(text)


def outline(text: str) -> OutlineNode:
    """The heading tree (ATX `#`..`######`) with list items nested under their heading.

    Setext headings (underlined with === or ---) are not recognised; list items nest by
    indentation under the nearest heading above them.
    """
    root = OutlineNode(kind="root", level=0, title="")
    headings: list[OutlineNode] = [root]
    items: list[tuple[int, OutlineNode]] = []  # (indent, node) of the open list
    for number, line in visible_lines(text):
        m = _ATX.match(line)
        if m:
            level = len(m.group(1))
            node = OutlineNode(
                kind="heading", level=level, title=(m.group(2) or "").strip(), line=number
            )
            while headings[-1].level >= level:
                headings.pop()
            headings[-1].children.append(node)
            headings.append(node)
            items = []
            continue
        parsed = parse_item(line)
        if parsed is None:
            if line.strip() and not line.startswith((" ", "\t")):
                items = []  # a paragraph ends the list
            continue
        indent, body, done, _ = parsed
        node = OutlineNode(kind="item", level=7, title=body, line=number, done=done)
        while items and items[-1][0] >= indent:
            items.pop()
        parent = items[-1][1] if items else headings[-1]
        node.level = parent.level + 1 if parent.kind == "item" else 7
        parent.children.append(node)
        items.append((indent, node))
    return root


def _is_han(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x3FFFF
        or 0xF900 <= cp <= 0xFAFF
        or ch in "々〆〇"
    )


def _script(ch: str) -> str:
    cp = ord(ch)
    if 0x3040 <= cp <= 0x309F:
        return "hiragana"
    if 0x30A0 <= cp <= 0x30FF or 0x31F0 <= cp <= 0x31FF or 0xFF66 <= cp <= 0xFF9F:
        return "katakana"
    if _is_han(ch):
        return "han"
    if ch.isalnum() or unicodedata.category(ch) in ("Mn", "Mc"):
        return "word"
    if ch in "'’-_":
        return "joiner"
    return "other"


def word_count(text: str) -> int:
    """Words, counting CJK sensibly.

    Rule: a run of letters/digits (with inner apostrophes, hyphens or underscores) is one word;
    each Han character (kanji/hanzi) is one word; a run of hiragana is one word and a run of
    katakana (with ー) is one word. Markdown markers and punctuation are not words, and task
    checkboxes (`[ ]`, `[x]`) are skipped.
    """
    count = 0
    for line in lines(text):
        parsed = parse_item(line)
        if parsed and parsed[2] is not None:
            line = parsed[1]
        prev = "other"
        for ch in line:
            kind = _script(ch)
            if kind == "joiner":
                kind = "word" if prev == "word" else "other"
                # a trailing joiner does not start a word; it only continues one
                prev = kind
                continue
            starts_word = kind in ("hiragana", "katakana", "word") and kind != prev
            if kind == "han" or starts_word:
                count += 1
            prev = kind
    return count


def char_count(text: str, *, spaces: bool = True) -> int:
    """Characters as Unicode code points, not counting line breaks; `spaces=False` skips all
    whitespace. (Combining marks count separately: grapheme clusters need more than the stdlib.)
    """
    if spaces:
        return sum(1 for ch in text if ch not in "\r\n")
    return sum(1 for ch in text if not ch.isspace())
