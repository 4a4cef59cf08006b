"""Links that survive a rename (SPEC §18): rewrite a note's links after notes moved (pure).

A link is rewritten only when the move changes where it leads: `[[name]]`, `[[name|alias]]`,
`[[name#heading]]`, `![[name]]`, relative Markdown links (`[t](../plan.md#h)`, `<…>` and
%-encoded forms, reference definitions `[ref]: ../plan.md`) and links to the workspace's files
(`![](pics/map.png)`, `[pdf](a.pdf)`, which must keep reaching the file from a moved note) are
resolved exactly as the page resolves them (web/app/notes/links_model.py,
preview_model.resolve_link: a test checks that the two agree), before the move from the note's
old place and after it from its new one. When the same text still reaches the same note, it
stays as written (so a `[[plan]]` whose note moved to another folder, still the one `plan`
in the workspace, is left alone, as Obsidian keeps the shortest form); otherwise the link's
target is replaced by the shortest form that reaches it: the bare name when that is unique
enough, else the path from the root; a relative link stays relative to the note's folder (or
from the root when it was written so). Nothing else changes: not code (fenced, indented or
inline), not alias or link text, not headings, not links whose target is missing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")
_EOL = re.compile(r"\r\n|\r|\n")
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# Characters a bare (not <…>) Markdown link destination cannot hold as they are, or that the
# page's resolver would read as something else (`#`, `?` end the path; `%` starts an escape).
_UNSAFE = frozenset(" \t()<>%#?\\")


# -- resolving, as the page does -------------------------------------------------------------


def resolve_link(note_path: str, href: str, *, notes: bool = True) -> str | None:
    """A relative link in a note (`../b.md`, `c.md#x`) → the workspace path it names, or None
    (with `notes` False, a path of any file: `pics/map.png`)."""
    if not href or href.startswith(("#", "/", "?")) or _SCHEME.match(href.lower()):
        return None
    target = unquote(href.split("#", 1)[0].split("?", 1)[0])
    if notes and not target.endswith(".md"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(note_path), target))
    if joined.startswith(("..", "/")):
        return None
    return joined


def _with_md(name: str) -> str:
    return name if name.lower().endswith(".md") else name + ".md"


class Paths:
    """The workspace's note paths, indexed so that resolving a link costs no scan of them."""

    def __init__(self, paths: Iterable[str], files: Iterable[str] = ()) -> None:
        self.known = frozenset(paths)
        self.files = frozenset(files)  # the workspace's attachments (they do not move)
        ordered = sorted(self.known, key=lambda p: (p.count("/"), p))
        self._by_path: dict[str, list[str]] = {}
        self._by_name: dict[str, list[str]] = {}
        for path in ordered:
            self._by_path.setdefault(path.casefold(), []).append(path)
            self._by_name.setdefault(posixpath.basename(path).casefold(), []).append(path)

    def wikilink(self, note_path: str, name: str) -> tuple[str, bool]:
        """`[[name]]` → (path, exists): the exact path, else the note of that name anywhere
        (case-insensitively), the note's own folder first, then the shortest path."""
        wanted = _with_md(name.split("#", 1)[0].strip().strip("/"))
        if wanted in self.known:
            return wanted, True
        index = self._by_path if "/" in wanted else self._by_name
        matches = index.get(wanted.casefold(), [])
        if not matches:
            return wanted, False
        here = posixpath.dirname(note_path)
        near = [p for p in matches if posixpath.dirname(p) == here]
        return (near or matches)[0], True

    def relative(self, note_path: str, href: str) -> tuple[str | None, bool]:
        """A Markdown link → (path, exists): from the note's folder, else from the root; a
        note's path, or a file's (as the page resolves a picture: web/app/notes/attach_model)."""
        target = resolve_link(note_path, href)
        known = self.known
        if target is None:
            target, known = resolve_link(note_path, href, notes=False), self.files
            if target is None:
                return None, False
        if target in known:
            return target, True
        plain = href.split("#", 1)[0].split("?", 1)[0]
        if not plain.startswith(("./", "../")):
            from_root = resolve_link("", href, notes=known is self.known)
            if from_root in known:
                return from_root, True
        # As the page's resolver: a missing note is still a note's path, a missing file none.
        return (target if known is self.known else None), False


# -- finding the links -------------------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """A link found in the text: `start:end` is the part naming the target (a wikilink's name
    without heading or alias; a Markdown link's destination, without `<>` when `angle`)."""

    wiki: bool
    start: int
    end: int
    angle: bool = False


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # The page's block rules (CommonMark, raw HTML off, tables): only block structure is read.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _regions(text: str, env: dict[str, object]) -> list[tuple[int, int]]:
    """(start, end) offsets of the runs of lines outside code blocks and blank lines, where
    inline Markdown (and so a link) can be; `env` receives the parser's reference definitions."""
    code: set[int] = set()
    for token in _parser().parse(text, env):
        if token.type in ("fence", "code_block") and token.map:
            code.update(range(*token.map))
    regions: list[tuple[int, int]] = []
    start = None
    offset = 0
    number = 0
    for match in [*_EOL.finditer(text), None]:
        end = match.start() if match else len(text)
        line_end = match.end() if match else len(text)
        inline = number not in code and text[offset:end].strip() != ""
        if inline and start is None:
            start = offset
        if not inline and start is not None:
            regions.append((start, offset))
            start = None
        offset, number = line_end, number + 1
    if start is not None:
        regions.append((start, len(text)))
    return regions


def _backticks(s: str, i: int, end: int) -> int:
    """After a code span opening at `i` (or after the backtick run when it has no closer)."""
    n = 1
    while i + n < end and s[i + n] == "`":
        n += 1
    j = i + n
    while j < end:
        if s[j] != "`":
            j += 1
            continue
        k = j
        while k < end and s[k] == "`":
            k += 1
        if k - j == n:
            return k
        j = k
    return i + n


def _label_end(s: str, i: int, end: int) -> int | None:
    """The index of the `]` closing the link label opened at `i`, or None."""
    depth = 0
    j = i
    while j < end:
        c = s[j]
        if c == "\\" and j + 1 < end and s[j + 1] in _PUNCT:
            j += 2
            continue
        if c == "`":
            j = _backticks(s, j, end)
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def _space(s: str, j: int, end: int, newlines: int = 1) -> int:
    while j < end and s[j] in " \t\r\n":
        if s[j] in "\r\n":
            if newlines == 0:
                break
            if s[j] == "\r" and j + 1 < end and s[j + 1] == "\n":
                j += 1
            newlines -= 1
        j += 1
    return j


def _destination(s: str, j: int, end: int) -> tuple[int, int, bool, int] | None:
    """A link's `(destination title)` starting after `(` at `j` → (dest start, dest end,
    angle, index after `)`), or None when it is no inline link."""
    j = _space(s, j, end)
    if j < end and s[j] == "<":
        k = j + 1
        while k < end and s[k] not in "<>\r\n":
            k += 2 if s[k] == "\\" and k + 1 < end and s[k + 1] in _PUNCT else 1
        if k >= end or s[k] != ">":
            return None
        start, stop, angle, k = j + 1, k, True, k + 1
    else:
        k, depth = j, 0
        while k < end:
            c = s[k]
            if c == "\\" and k + 1 < end and s[k + 1] in _PUNCT:
                k += 2
                continue
            if c in " \t\r\n" or ord(c) < 0x20 or c == "\x7f":
                break
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            k += 1
        if depth:
            return None
        start, stop, angle = j, k, False
    k = _space(s, k, end)
    if k < end and s[k] in "\"'(" and k > stop:
        close = ")" if s[k] == "(" else s[k]
        m = k + 1
        while m < end and s[m] != close:
            m += 2 if s[m] == "\\" else 1
        if m >= end:
            return None
        k = _space(s, m + 1, end)
    if k < end and s[k] == ")":
        return start, stop, angle, k + 1
    return None


def _scan(s: str, i: int, end: int, found: list[Link]) -> None:
    while i < end:
        c = s[i]
        if c == "\\" and i + 1 < end and s[i + 1] in _PUNCT:
            i += 2
        elif c == "`":
            i = _backticks(s, i, end)
        elif c == "[" and s.startswith("[[", i):
            # The page's wikilink rule: `[[target]]` or `[[target|label]]` on one line.
            close = s.find("]]", i + 2, end)
            inner = s[i + 2 : close] if close >= 0 else ""
            target = inner.partition("|")[0]
            if close >= 0 and target.strip() and not any(x in inner for x in "[]\r\n"):
                name = target.split("#", 1)[0]
                lead = len(name) - len(name.lstrip())
                start = i + 2 + lead
                found.append(Link(True, start, start + len(name.strip())))
                i = close + 2
            else:
                i = _link(s, i, end, found)
        elif c == "[":
            i = _link(s, i, end, found)
        else:
            i += 1


def _link(s: str, i: int, end: int, found: list[Link]) -> int:
    close = _label_end(s, i, end)
    if close is None or close + 1 >= end or s[close + 1] != "(":
        return i + 1
    dest = _destination(s, close + 2, end)
    if dest is None:
        return i + 1
    start, stop, angle, after = dest
    inner: list[Link] = []
    _scan(s, i + 1, close, inner)  # an image inside a link's text is a link too
    found.extend(link for link in inner if not link.wiki)
    found.append(Link(False, start, stop, angle))
    return after


def _definition(s: str, line: int, stop: int) -> Link | None:
    """The destination of the reference definition `[ref]: dest "title"` starting on the
    line at offset `line` (inside a quote or a list item too), or None."""
    i = s.find("[", line, stop)
    close = _label_end(s, i, stop) if i >= 0 else None
    if close is None or not s.startswith(":", close + 1):
        return None
    j = _space(s, close + 2, stop)
    if j < stop and s[j] == "<":
        k = s.find(">", j + 1, stop)
        return Link(False, j + 1, k, angle=True) if k > j else None
    k = j
    while k < stop and s[k] not in " \t\r\n" and ord(s[k]) >= 0x20:
        k += 1
    return Link(False, j, k) if k > j else None


def find_links(text: str) -> list[Link]:
    """Every wikilink, inline Markdown link and reference definition outside code, in no
    particular order."""
    found: list[Link] = []
    env: dict[str, object] = {}
    for start, end in _regions(text, env):
        _scan(text, start, end, found)
    references = env.get("references")
    if isinstance(references, dict) and references:
        starts = [0] + [m.end() for m in _EOL.finditer(text)] + [len(text)]
        for ref in references.values():
            first, last = ref["map"]
            link = _definition(text, starts[first], starts[min(last, len(starts) - 1)])
            if link is not None:
                found.append(link)
    return found


def _unescape(raw: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", raw)


# -- rewriting ---------------------------------------------------------------------------------


def _wiki_forms(raw: str, target: str) -> list[str]:
    keep_md = raw.lower().endswith(".md")
    full = target if keep_md or not target.endswith(".md") else target[: -len(".md")]
    if "/" in raw.strip("/"):
        return [full]
    return [posixpath.basename(full), full]


def _encode(path: str, raw: str, angle: bool) -> str:
    if angle and not any(c in path for c in "<>\\#?%"):
        return path
    if "%" in raw:
        return quote(path, safe="/")
    return "".join(quote(c) if c in _UNSAFE or ord(c) < 0x20 else c for c in path)


def _md_forms(
    raw: str, target: str, note_before: str, note_after: str, before: str
) -> list[tuple[str, str]]:
    """(path, the `#…`/`?…` kept after it) to try, the link's own style (relative to the
    note's folder or from the root) first."""
    cut = min((raw.index(c) for c in "#?" if c in raw), default=len(raw))
    folder = posixpath.dirname(note_after) or "."
    relative = posixpath.relpath(target, folder)
    if raw.startswith("./") and not relative.startswith("../"):
        relative = "./" + relative
    from_folder = resolve_link(note_before, raw, notes=False) == before
    order = [relative, target] if from_folder else [target, relative]
    return [(p, raw[cut:]) for p in dict.fromkeys(order)]


def rewrite(
    text: str,
    *,
    note_before: str,
    moves: Mapping[str, str],
    paths_before: Iterable[str],
    after: Paths | None = None,
    before: Paths | None = None,
) -> str:
    """`text`, the note at `note_before`, with each link that led to a note in `moves` (old
    path → new path) leading to its new path, and each link that the moves would send
    elsewhere (the note itself moved, or a moved note now takes its name) leading where it
    did. Links that cannot be made to lead there are left as they are."""
    before = before or Paths(paths_before)
    after = after or Paths((moves.get(p, p) for p in before.known), before.files)
    note_after = moves.get(note_before, note_before)
    edits: list[tuple[int, int, str]] = []
    for link in find_links(text):
        raw = text[link.start : link.end]
        if link.wiki:
            was, exists = before.wikilink(note_before, raw)
        else:
            found, exists = before.relative(note_before, _unescape(raw))
            was = found or ""
        if not exists:
            continue
        target = moves.get(was, was)
        if _leads(after, note_after, raw, link) == target:
            continue
        if link.wiki:
            forms = _wiki_forms(raw, target)
        else:
            hrefs = _md_forms(_unescape(raw), target, note_before, note_after, was)
            forms = [_encode(path, raw, link.angle) + rest for path, rest in hrefs]
        for form in forms:
            if _leads(after, note_after, form, link) == target:
                edits.append((link.start, link.end, form))
                break
    for start, end, form in sorted(edits, reverse=True):
        text = text[:start] + form + text[end:]
    return text


def _leads(paths: Paths, note: str, raw: str, link: Link) -> str | None:
    if link.wiki:
        if any(c in raw for c in "[]|#\r\n") or not raw.strip():
            return None
        path, exists = paths.wikilink(note, raw)
    else:
        if link.angle and any(c in raw for c in "<>\r\n"):
            return None
        found, exists = paths.relative(note, _unescape(raw))
        path = found or ""
    return path if exists else None


def mentions(text: str, path: str) -> bool:
    """Whether `text` may hold a link to the note at `path` (its name appears, plain or
    %-encoded): a cheap test before `rewrite`, which parses."""
    stem = posixpath.basename(path)
    stem = stem[: -len(".md")] if stem.lower().endswith(".md") else stem
    folded = text.casefold()
    return stem.casefold() in folded or quote(stem).casefold() in folded
