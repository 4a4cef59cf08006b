"""Todo items, the outline, summary blocks and counts, read from markdown-it-py's token stream.

Shared by the page and the agent, so both see the note as CommonMark does (markdown-it-py is
pure Python: the server depends on it and the page ships it). Conventions (docs/assistant.md):
- Line numbers are 1-based, like CodeMirror's `doc.line(n)`; markdown-it's `map` gives them.
- Offsets handed to the editor are CodeMirror positions, i.e. UTF-16 code units; `to_cm` and
  `from_cm` convert between them and Python string indexes (code points), which differ only
  for characters outside the Basic Multilingual Plane (emoji, rare kanji).
- Code (fenced or indented) hides todos and headings; a task may sit in a quote or a nested
  list; setext headings (underlined with === or ---) count like ATX ones.
- A task item is a list item whose first paragraph starts with `[ ]`, `[x]` or `[X]` followed
  by a space or the end of the line (GitHub's rule).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # markdown-it is imported on first use only (see _parser)
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_THEMATIC = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)([-*+]|[0-9]{1,9}[.)])(?:[ \t]+(.*))?$")
_CHECKBOX = re.compile(r"^\[([ xX])\](?=[ \t]|$)[ \t]*")
_QUOTES = re.compile(r"^(?: {0,3}> ?)*")


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # Imported on first use: the page loads markdown-it only when a view or toggle needs it.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


@lru_cache(maxsize=4)
def _tokens(text: str) -> tuple[Token, ...]:
    """markdown-it's block tokens for `text` (a Todo redraw and a toggle share one parse)."""
    return tuple(_parser().parse(text))


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

    def to_dict(self) -> dict[str, Any]:
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


def visible_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield (line_number, line) for lines outside code blocks (fenced or indented)."""
    hidden: set[int] = set()
    for token in _tokens(text):
        if token.type in ("fence", "code_block") and token.map:
            hidden.update(range(token.map[0] + 1, token.map[1] + 1))
    for number, line in enumerate(lines(text), start=1):
        if number not in hidden:
            yield number, line


def heading_lines(text: str) -> list[tuple[int, int, str]]:
    """(line, level, source line) of every heading, ATX or setext, outside code blocks."""
    source = lines(text)
    return [
        (token.map[0] + 1, int(token.tag[1]), source[token.map[0]])
        for token in _tokens(text)
        if token.type == "heading_open" and token.map
    ]


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


@dataclass(frozen=True)
class _Task:
    line: int
    done: bool
    text: str
    column: int  # Python index of "[" in the line


def _first_paragraph(tokens: tuple[Token, ...], index: int) -> Token | None:
    """The inline token of the paragraph that opens the list item at `index`, or None."""
    opener = tokens[index]
    if index + 2 < len(tokens) and tokens[index + 1].type == "paragraph_open":
        inline = tokens[index + 2]
        if inline.type == "inline" and inline.level == opener.level + 2 and inline.map:
            return inline
    return None


def _task(source: list[str], inline: Token) -> _Task | None:
    """The task an item's first paragraph holds, located in its source line."""
    first = inline.content.split("\n", 1)[0]
    box = _CHECKBOX.match(first)
    if not box or inline.map is None:
        return None
    number = inline.map[0] + 1
    line = source[number - 1].rstrip()
    # The paragraph's first line is the tail of its source line (container markers and
    # indentation cut off), so the checkbox sits where that tail begins.
    column = len(line) - len(first.rstrip())
    return _Task(number, box.group(1) != " ", first[box.end() :].rstrip(), column)


def _tasks(text: str) -> list[_Task]:
    tokens, source = _tokens(text), lines(text)
    found = []
    for index, token in enumerate(tokens):
        if token.type == "list_item_open" and (inline := _first_paragraph(tokens, index)):
            task = _task(source, inline)
            if task is not None:
                found.append(task)
    return found


def todos(text: str) -> list[TodoItem]:
    """Every task-list item (`- [ ]`, `- [x]`, `* [X]`, `1. [ ]`, in quotes too) outside code."""
    source = lines(text)
    return [
        TodoItem(
            line=task.line,
            done=task.done,
            text=task.text,
            indent=_indent_width(_leading(source[task.line - 1])),
        )
        for task in _tasks(text)
    ]


def _leading(line: str) -> str:
    """The indentation before a list marker, after any quote markers."""
    quotes = _QUOTES.match(line)  # the pattern matches every line (it may match nothing)
    rest = line[quotes.end() if quotes else 0 :]
    return rest[: len(rest) - len(rest.lstrip(" \t"))]


def toggle_todo(text: str, line: int) -> tuple[int, int, str]:
    """The minimal edit that ticks or unticks the todo on `line`: (from, to, insert).

    `from`/`to` are CodeMirror positions (UTF-16 code units) so the page can dispatch them
    as one change; the edit replaces only the character between the brackets.
    Raises ValueError when that line is not a todo item (or is inside code).
    """
    for task in _tasks(text):
        if task.line == line:
            pos = to_cm(text, _line_start_index(text, line) + task.column + 1)
            return pos, pos + 1, " " if task.done else "x"
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
    """The heading tree (ATX and setext) with list items nested under their heading.

    List items nest as their lists do; a heading closes the lists above it in the tree.
    """
    tokens = _tokens(text)
    root = OutlineNode(kind="root", level=0, title="")
    headings: list[OutlineNode] = [root]
    items: list[OutlineNode] = []  # the open list items, outermost first
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map:
            level = int(token.tag[1])
            title = tokens[index + 1].content.strip() if index + 1 < len(tokens) else ""
            node = OutlineNode(kind="heading", level=level, title=title, line=token.map[0] + 1)
            while headings[-1].level >= level:
                headings.pop()
            headings[-1].children.append(node)
            headings.append(node)
            items = []
        elif token.type == "list_item_open" and token.map:
            inline = _first_paragraph(tokens, index)
            first = inline.content.split("\n", 1)[0] if inline else ""
            box = _CHECKBOX.match(first)
            node = OutlineNode(
                kind="item",
                level=7,
                line=token.map[0] + 1,
                title=(first[box.end() :] if box else first).strip(),
                done=(box.group(1) != " ") if box else None,
            )
            parent = items[-1] if items else headings[-1]
            node.level = parent.level + 1 if parent.kind == "item" else 7
            parent.children.append(node)
            items.append(node)
        elif token.type == "list_item_close" and items:
            items.pop()
    return root


@dataclass(frozen=True)
class Block:
    """A block a summary reads: a heading, a paragraph, a list item or a task (code skipped).

    `text` is the block's inline Markdown on one line; `level` is a heading's level (else 0).
    A list item's first paragraph is its "item" or "task"; its later paragraphs are
    paragraphs. Quoted blocks count like the others.
    """

    kind: str  # "heading", "paragraph", "item" or "task"
    text: str
    line: int
    level: int = 0
    done: bool | None = None


def blocks(text: str) -> list[Block]:
    """The note's headings, paragraphs and list items in order, as CommonMark reads them."""
    tokens = _tokens(text)
    firsts = {
        id(inline)
        for index, token in enumerate(tokens)
        if token.type == "list_item_open" and (inline := _first_paragraph(tokens, index))
    }
    found = []
    for index, token in enumerate(tokens):
        if token.type != "inline" or not token.map or index == 0:
            continue
        line, one_line = token.map[0] + 1, " ".join(token.content.split("\n")).strip()
        opener = tokens[index - 1]
        if opener.type == "heading_open":
            found.append(Block("heading", one_line, line, level=int(opener.tag[1])))
        elif id(token) in firsts:
            box = _CHECKBOX.match(one_line)
            if box:
                found.append(
                    Block("task", one_line[box.end() :].strip(), line, done=box.group(1) != " ")
                )
            else:
                found.append(Block("item", one_line, line))
        else:
            found.append(Block("paragraph", one_line, line))
    return found


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
