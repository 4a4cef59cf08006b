"""The inline command's offline answers (SPEC §9): the exact transforms, pure (no I/O)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from backend.assistant.language import language
from backend.assistant.messages import say

BULLET, NUMBERED, TODO = "bullet", "numbered", "todo"
SORT, DEDUPE, UPPER, LOWER, TITLE, JOIN = "sort", "dedupe", "upper", "lower", "title", "join"

# What each instruction says, in English and Japanese. The keywords do not overlap, so an
# instruction that matches two transforms really asks for two things.
_KEYWORDS: dict[str, str] = {
    BULLET: r"\bbullet(?:ed|s)?\b|箇条書き|ビュレット",
    NUMBERED: r"\bnumber(?:ed|s)?\b|\bordered list\b|番号",
    TODO: r"\bto-?dos?\b|\btasks?(?: list)?\b|\bcheck ?list\b|\bcheckbox(?:es)?\b"
    r"|タスク|チェックリスト|ToDo|TODO|やること",
    SORT: r"\bsort(?:ed)?\b|\balphabeti[sz]e\b|\balphabetical(?:ly)?\b"
    r"|並べ替え|並び替え|ソート|整列",
    DEDUPE: r"\bduplicates?\b|\bdedup(?:e|licate)?\b|\bunique\b|重複",
    UPPER: r"\bupper ?case\b|\ball caps\b|\bcapitals\b|(?<!先頭を)大文字",
    LOWER: r"\blower ?case\b|小文字",
    TITLE: r"\btitle ?case\b|\bcapitali[sz]e (?:each|every) word\b|タイトルケース|先頭を大文字",
    JOIN: r"\bjoin\b|\bmerge (?:the )?lines\b|\bone line\b|\bsingle line\b"
    r"|結合|1行に|一行に|つなげ",
}
_PATTERNS = {name: re.compile(rx, re.IGNORECASE) for name, rx in _KEYWORDS.items()}


@dataclass(frozen=True)
class Answer:
    replacement: str | None
    explanation: str | None


def transforms_for(instruction: str) -> list[str]:
    """The offline transforms an instruction names (in English or Japanese)."""
    return [name for name, pattern in _PATTERNS.items() if pattern.search(instruction)]


# -- lines -------------------------------------------------------------------------------------

# A line: indentation, a Markdown list marker, a task box, then the content.
_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?P<marker>(?:[-*+]|\d{1,9}[.)])[ \t]+)?"
    r"(?P<box>(?<=[ \t])\[[ xX]\][ \t]+)?(?P<content>.*)$"
)


def _split(text: str) -> tuple[list[str], str, str]:
    """(lines, line ending, trailing ending): CRLF is kept when the selection uses it."""
    eol = "\r\n" if "\r\n" in text else "\n"
    trailing = ""
    if text.endswith("\n"):
        trailing = eol
        text = text[: -2 if text.endswith("\r\n") else -1]
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines, eol, trailing


def _parts(line: str) -> tuple[str, str, str, str]:
    """(indent, marker, box, content); box is only read after a marker."""
    match = _ITEM.match(line)
    marker = match["marker"] or ""
    box = match["box"] or "" if marker else ""
    content = match["content"] if marker or not match["box"] else match["box"] + match["content"]
    return match["indent"], marker, box, content


def _is_bullet(marker: str) -> bool:
    return marker[:1] in ("-", "*", "+")


def _bullet(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        indent, marker, box, content = _parts(line)
        if not line.strip() or _is_bullet(marker):  # blank, or a bullet (or task) already
            out.append(line)
        else:
            out.append(f"{indent}- {box}{content}")
    return out


def _todo(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        indent, marker, box, content = _parts(line)
        if not line.strip() or (box and _is_bullet(marker)):
            out.append(line)
        else:
            out.append(f"{indent}- {box or '[ ] '}{content}")
    return out


def _numbered(lines: list[str]) -> list[str]:
    """Number items per indentation level: a deeper level restarts at 1 under each parent."""
    counters: list[tuple[int, int]] = []  # (indent width, last number), outermost first
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)  # a blank line keeps the numbering going (a loose list)
            continue
        indent, _marker, box, content = _parts(line)
        width = len(indent.expandtabs(4))
        while counters and counters[-1][0] > width:
            counters.pop()
        if counters and counters[-1][0] == width:
            counters[-1] = (width, counters[-1][1] + 1)
        else:
            counters.append((width, 1))
        out.append(f"{indent}{counters[-1][1]}. {box}{content}")
    return out


def _sort(lines: list[str]) -> list[str]:
    """Sort each block of non-blank lines on its own; blank lines stay where they are."""
    out: list[str] = []
    block: list[str] = []
    for line in [*lines, None]:
        if line is None or not line.strip():
            out += sorted(block, key=lambda s: (_parts(s)[3].casefold(), s))
            block = []
            if line is not None:
                out.append(line)
        else:
            block.append(line)
    return out


def _dedupe(lines: list[str]) -> list[str]:
    """Keep each line's first occurrence (trailing spaces ignored); blank lines always stay."""
    seen: set[str] = set()
    out = []
    for line in lines:
        key = line.rstrip()
        if key and key in seen:
            continue
        seen.add(key)
        out.append(line)
    return out


def _on_content(change: Callable[[str], str]) -> Callable[[list[str]], list[str]]:
    """Apply a case change to each line's content, leaving list markers and `[x]` alone."""

    def run(lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            indent, marker, box, content = _parts(line)
            out.append(f"{indent}{marker}{box}{change(content)}")
        return out

    return run


_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def _title(text: str) -> str:
    """Capitalise each word's first letter; the rest stays (so "NASA" and "don't" survive)."""
    return _WORD.sub(lambda m: m.group(0)[0].upper() + m.group(0)[1:], text)


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _join(lines: list[str]) -> list[str]:
    """One line: each line trimmed of indentation and list markers, joined by one space (none
    between Japanese or other wide characters, which are written without spaces)."""
    joined = ""
    for line in lines:
        content = _parts(line)[3].strip()
        if not content:
            continue
        if joined and not (_wide(joined[-1]) and _wide(content[0])):
            joined += " "
        joined += content
    return [joined]


_LINE_TRANSFORMS: dict[str, Callable[[list[str]], list[str]]] = {
    BULLET: _bullet,
    NUMBERED: _numbered,
    TODO: _todo,
    SORT: _sort,
    DEDUPE: _dedupe,
    UPPER: _on_content(str.upper),
    LOWER: _on_content(str.lower),
    TITLE: _on_content(_title),
    JOIN: _join,
}
TRANSFORMS = tuple(_LINE_TRANSFORMS)


def transform(name: str, text: str) -> str:
    """Apply one offline transform to `text`, keeping its line endings and final line break."""
    lines, eol, trailing = _split(text)
    return eol.join(_LINE_TRANSFORMS[name](lines)) + trailing


def offline(instruction: str, selection: str) -> Answer:
    """The offline agent: one named transform, done exactly; anything else is explained."""
    lang = language(instruction)
    names = transforms_for(instruction)
    if not names:
        return Answer(None, say("inline.none", lang))
    if len(names) > 1:
        return Answer(None, say("inline.many", lang))
    if not selection.strip():
        return Answer(None, say("inline.empty", lang))
    return Answer(transform(names[0], selection), None)
