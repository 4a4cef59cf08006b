"""What the offline assistant can do with a note's text: pure functions, no I/O, no database."""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from ambient import markdown as md
from ambient.edits import occurrences
from backend.assistant import matching as md_matching

MAX_SECTIONS = 6
SENTENCES_PER_SECTION = 2  # at least; a note with few sections gets more per section
SENTENCE_BUDGET = 8  # about how many sentences a summary carries in all
MAX_SENTENCES_PER_SECTION = 5
MAX_SENTENCE_CHARS = 220
SHORT_LIST = 3  # a list this short is kept whole in a summary

_STOP_WORDS = """a an and are as at be been but by can could did do does for from had has have he
her his i if in into is it its just me my no not of on or our so than that the their them then
there these they this to too up us was we were what when where which who will with would you
your also about after all any before more most other over some such only very should"""
_EN_STOP = frozenset(_STOP_WORDS.split())
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“(])|(?<=[。！？])")
_LATIN_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_CJK_TERM = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf々〆]{2,}|[\u30a0-\u30ff]{2,}")
_INLINE = [
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # images → alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # links → their text
    (re.compile(r"`([^`]*)`"), r"\1"),
    (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"),
    (re.compile(r"(?<![\w*])[*_](?!\s)(.+?)(?<!\s)[*_](?![\w*])"), r"\1"),
    (re.compile(r"~~(.+?)~~"), r"\1"),
]


@dataclass
class Section:
    """A heading (None before the first one) and the key sentences chosen under it."""

    heading: str | None
    level: int
    sentences: list[str] = field(default_factory=list)


@dataclass
class Summary:
    """An extractive summary: the title, the sections in document order, and counts."""

    title: str | None
    sections: list[Section]
    words: int
    chars: int


def plain(text: str) -> str:
    """Inline Markdown reduced to its visible text."""
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text.strip()


def _terms(sentence: str) -> list[str]:
    norm = unicodedata.normalize("NFKC", sentence).casefold()
    terms = [w for w in _LATIN_WORD.findall(norm) if len(w) > 2 and w not in _EN_STOP]
    terms = [t for t in terms if not _CJK_TERM.fullmatch(t)]
    for run in _CJK_TERM.findall(norm):
        # Japanese has no spaces: a kanji/katakana run stands for a term, and its bigrams let
        # compounds that share a part reinforce each other.
        terms.append(run)
        terms.extend(run[i : i + 2] for i in range(len(run) - 1) if len(run) > 2)
    return terms


def _split_sentences(block: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(block) if s and s.strip()]


def _sections(text: str) -> list[tuple[str | None, int, list[str], set[int]]]:
    """Split the note into (heading, level, sentences, leads), reading blocks as CommonMark
    does. The leads are the sentences a summary always keeps: the section's first one and the
    first item of each list (a short first bullet must not lose to its longer neighbours)."""
    found: list[tuple[str | None, int, list[str], set[int]]] = [(None, 0, [], set())]
    run: list[int] = []  # the indexes of the list being read
    for block in md.blocks(text):
        sentences, leads = found[-1][2], found[-1][3]
        if block.kind != "item" or not block.text:
            _lead_list(run, leads)
            run = []
        if block.kind == "heading":
            found.append((plain(block.text), block.level, [], set()))
        elif block.kind == "item" and block.text:
            run.append(len(sentences))
            sentences.append(plain(block.text))
        elif block.kind == "paragraph":
            sentences.extend(_split_sentences(plain(block.text)))
        # tasks are reported by todo_report instead
    _lead_list(run, found[-1][3])
    for _, _, sentences, leads in found:
        if sentences:
            leads.add(0)
    return [s for s in found if s[0] is not None or s[2]]


def _lead_list(run: list[int], leads: set[int]) -> None:
    """A list's first item always leads; a short list (SHORT_LIST items or fewer) all of it."""
    leads.update(run if len(run) <= SHORT_LIST else run[:1])


def _clip(sentence: str) -> str:
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    return sentence[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"


def summarize(text: str) -> Summary:
    """A deterministic extractive summary that follows the headings and their key sentences.

    Each sentence scores the document-wide frequency of its content words (English words
    minus stop words; kanji/katakana runs and their bigrams for Japanese), normalised by its
    length; the first sentence of a section gets a bonus. Each section keeps its best
    sentences in their original order. Ties go to the earlier sentence.
    """
    sections = _sections(text)
    freq = Counter(t for _, _, sents, _ in sections for s in sents for t in set(_terms(s)))
    title = None
    if sections and sections[0][0] is not None and sections[0][1] == 1:
        title = sections[0][0]
    chosen: list[Section] = []
    with_text = sum(1 for _, _, sents, _ in sections if sents) or 1
    per_section = max(
        SENTENCES_PER_SECTION, min(MAX_SENTENCES_PER_SECTION, SENTENCE_BUDGET // with_text)
    )
    for heading, level, sentences, leads in sections:
        if heading is not None and heading == title and not sentences and len(sections) > 1:
            continue
        scored = []
        for index, sentence in enumerate(sentences):
            terms = _terms(sentence)
            score = sum(freq[t] for t in set(terms)) / math.sqrt(len(terms) + 1)
            if index == 0:
                score *= 1.25
            scored.append((index not in leads, -score, index, sentence))
        best = sorted(scored)[: max(per_section, len(leads))]
        picked = [_clip(s) for _, _, _, s in sorted(best, key=lambda item: item[2])]
        chosen.append(Section(heading=heading, level=level, sentences=picked))
    if len(chosen) > MAX_SECTIONS:
        # Keep the top levels first so a long note still shows its overall structure.
        ranked = sorted(range(len(chosen)), key=lambda i: (chosen[i].level or 1, i))
        keep = sorted(ranked[:MAX_SECTIONS])
        chosen = [chosen[i] for i in keep]
    return Summary(
        title=title, sections=chosen, words=md.word_count(text), chars=md.char_count(text)
    )


@dataclass(frozen=True)
class TodoReport:
    """The note's task items split into open and done."""

    open: list[md.TodoItem]
    done: list[md.TodoItem]


def todo_report(text: str) -> TodoReport:
    items = md.todos(text)
    return TodoReport(open=[i for i in items if not i.done], done=[i for i in items if i.done])


@dataclass(frozen=True)
class Counts:
    """Sizes of a text: words (CJK-aware), characters with and without spaces, lines, bytes."""

    words: int
    chars: int
    chars_no_spaces: int
    lines: int
    bytes: int


def counts(text: str) -> Counts:
    return Counts(
        words=md.word_count(text),
        chars=md.char_count(text),
        chars_no_spaces=md.char_count(text, spaces=False),
        lines=len(md.lines(text)) if text else 0,
        bytes=len(text.encode("utf-8")),
    )


def quote_selection(text: str, anchor: int, head: int) -> str:
    """The selected text for a CodeMirror selection.

    `anchor` and `head` are CodeMirror positions, which count UTF-16 code units, not Python
    code points: an emoji or other non-BMP character is two units. They are converted with
    `ambient.markdown.from_cm` (clamped to the text, never splitting a character); the order
    of anchor and head does not matter. An empty selection gives "".
    """
    start, end = sorted((anchor, head))
    return text[md.from_cm(text, start) : md.from_cm(text, end)]


def line_of(text: str, pos: int) -> int:
    """1-based line number of a CodeMirror position."""
    index = md.from_cm(text, pos)
    return text.count("\n", 0, index) + 1


@dataclass(frozen=True)
class Mention:
    """A note that mentions a term: how often, and the first line that does."""

    path: str
    count: int
    line: int
    snippet: str


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def find_mentions(documents: dict[str, str], term: str) -> list[Mention]:
    """Notes whose text mentions `term` (case- and width-insensitive), most mentions first.

    An ASCII word term matches whole words only ("cat" does not match "category"); any other
    term (Japanese, or with punctuation) matches as a substring.
    """
    needle = _fold(term.strip())
    if not needle:
        return []
    if re.fullmatch(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", needle):
        pattern = re.compile(r"(?<![^\W_])" + re.escape(needle) + r"(?![^\W_])")
    else:
        pattern = re.compile(re.escape(needle))
    found = []
    for path, text in documents.items():
        folded_lines = [_fold(line) for line in md.lines(text)]
        total = 0
        first = 0
        for number, line in enumerate(folded_lines, start=1):
            hits = len(pattern.findall(line))
            if hits and not first:
                first = number
            total += hits
        if total:
            snippet = _clip(plain(md.lines(text)[first - 1].strip()))
            found.append(Mention(path=path, count=total, line=first, snippet=snippet))
    return sorted(found, key=lambda m: (-m.count, m.path))


# --- Edits the offline assistant proposes (pure: they become propose_edit arguments) --------

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_ORDERED = re.compile(r"^(\s*)(\d{1,9})([.)])")
_HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|$)")


def _split_keep(text: str) -> list[str]:
    """The lines of `text` with their endings (numbered like ambient.markdown.lines)."""
    return _LINE.findall(text)


def _content(line: str) -> str:
    return line.rstrip("\r\n")


def _eol(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _unique_window(text: str, lines: list[str], index: int) -> tuple[int, int, str]:
    """The smallest run of whole lines around `index` whose text occurs once in `text`.

    Lines keep their endings, so a line that was extended since ("buy milk" → "buy milk and
    eggs") no longer matches: an edit never lands on a line it did not see whole.
    """
    first = last = index
    grow_down = True
    while True:
        window = "".join(lines[first : last + 1])
        if window and len(occurrences(text, window)) == 1:
            return first, last, window
        if (grow_down and last + 1 < len(lines)) or first == 0:
            last += 1
        else:
            first -= 1
        grow_down = not grow_down
        if first < 0 or last >= len(lines):  # cannot happen: the whole text occurs once
            raise ValueError("no unique window")


def _replace_line(text: str, index: int, new_content: str) -> dict:
    """A find/replace edit that replaces the content of line `index` (0-based)."""
    lines = _split_keep(text)
    first, _, window = _unique_window(text, lines, index)
    start = sum(len(line) for line in lines[first:index])
    old = _content(lines[index])
    return {"find": window, "replace": window[:start] + new_content + window[start + len(old) :]}


def _insert_after_line(text: str, index: int, new_content: str) -> dict:
    """A find/replace edit that adds a line after line `index` (0-based)."""
    lines = _split_keep(text)
    first, _, window = _unique_window(text, lines, index)
    at = sum(len(line) for line in lines[first:index]) + len(_content(lines[index]))
    return {"find": window, "replace": window[:at] + _eol(text) + new_content + window[at:]}


def _ends_line(text: str) -> bool:
    return not text or text.endswith(("\n", "\r"))


def _block(text: str, addition: str, *, paragraph: bool) -> str:
    """What to append so `addition` becomes a new line (or paragraph) at the end of the note.

    The append rule already starts a new line; a paragraph also gets a blank line before it.
    A note that ends with a line break keeps ending with one.
    """
    eol = _eol(text)
    lead = ""
    if paragraph and text.strip() and not text.endswith(("\n\n", "\r\n\r\n", "\r\r")):
        lead = eol  # with the break the append rule (or the note) gives, a blank line
    trail = eol if _ends_line(text) else ""
    return lead + addition.replace("\r\n", "\n").replace("\n", eol) + trail


@dataclass(frozen=True)
class TodoEdit:
    """The edits for adding a todo, and the line of the task it goes after (None: the end)."""

    edits: list[dict]
    after: md.TodoItem | None
    line: str


def add_todo(text: str, task: str) -> TodoEdit:
    """A new open task after the note's last task line (same marker), else at the end."""
    items = md.todos(text)
    task = " ".join(task.split())
    if not items:
        line = f"- [ ] {task}"
        return TodoEdit([{"append": _block(text, line, paragraph=False)}], None, line)
    last = items[-1]
    content = _content(_split_keep(text)[last.line - 1])
    parsed = md.parse_item(content)
    assert parsed is not None  # a todo line is an item
    prefix = content[: parsed[3] - 1]
    ordered = _ORDERED.match(prefix)
    if ordered:
        number = int(ordered.group(2)) + 1
        prefix = f"{ordered.group(1)}{number}{ordered.group(3)}{prefix[ordered.end() :]}"
    line = f"{prefix}[ ] {task}"
    return TodoEdit([_insert_after_line(text, last.line - 1, line)], last, line)


@dataclass(frozen=True)
class MarkResult:
    """Marking a todo: `edits` when exactly one matches; else why not.

    `outcome` is "ok", "none" (no task matches), "already" (only tasks already in that
    state match) or "ambiguous" (several match: `candidates` names them).
    """

    outcome: str
    edits: list[dict] = field(default_factory=list)
    item: md.TodoItem | None = None
    candidates: list[md.TodoItem] = field(default_factory=list)


def mark_todo(text: str, query: str, *, done: bool) -> MarkResult:
    """Tick (or untick) the one task `query` means (matching.py: exact text, a part of it,
    its words in any order, then words close enough). Several matches are never guessed
    between; when every match is already in that state, it says so."""
    matching = md_matching.best(query, md.todos(text), lambda item: plain(item.text))
    wanted = [i for i in matching if i.done != done]
    if not wanted:
        return MarkResult("already" if matching else "none", candidates=matching)
    if len(wanted) > 1:
        return MarkResult("ambiguous", candidates=wanted)
    item = wanted[0]
    content = _content(_split_keep(text)[item.line - 1])
    column = md.parse_item(content)[3]  # type: ignore[index]
    ticked = content[:column] + ("x" if done else " ") + content[column + 1 :]
    return MarkResult("ok", [_replace_line(text, item.line - 1, ticked)], item)


def append_text(text: str, addition: str, *, paragraph: bool = False) -> list[dict]:
    """Append a line (or a paragraph, after a blank line) at the end of the note."""
    return [{"append": _block(text, addition.strip(), paragraph=paragraph)}]


def add_heading(text: str, title: str) -> tuple[list[dict], str]:
    """A heading at the end, one level below a lone title (## by default): (edits, line)."""
    levels = [
        len(m.group(1)) for _, line in md.visible_lines(text) if (m := _HEADING_LINE.match(line))
    ]
    if levels and levels[0] == 1:
        levels = levels[1:]
    level = min(levels) if levels else 2
    line = f"{'#' * level} {' '.join(title.split())}"
    return [{"append": _block(text, line, paragraph=True)}], line
