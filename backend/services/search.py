"""Search a workspace's notes with the database's own text index (SQLite FTS5, pg_trgm).

`search()` is the one entry point: the search endpoint, the assistant and the MCP
`search_notes` tool all call it. It does not check membership; callers do that first.
The rules (words, short terms, line and snippet) are written down in docs/search.md.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from sqlalchemy import Select, literal_column, or_, select, table, text
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import UnaryExpression
from sqlalchemy.sql.operators import custom_op

from backend.db import storable
from backend.errors import BadRequest
from backend.models import Document

MAX_RESULTS = 50
MAX_QUERY_CHARS = 200
MAX_TERMS = 10
SNIPPET_CHARS = 120  # longest snippet, in code points
SNIPPET_LEAD = 40  # code points of context kept before the match, when the line is long
TRIGRAM = 3  # FTS5's trigram tokenizer only indexes terms of 3 or more characters
FTS_TABLE = "documents_fts"  # SQLite only; created by migration 0005_search
PG_TRGM_INDEX = "ix_documents_content_trgm"  # PostgreSQL only; created by migration 0005_search

_LIKE_ESCAPE = "\\"
_STREAM_ROWS = 4  # notes held in memory at once while placing matches (each up to 1 MiB)


class InvalidQuery(BadRequest):
    """The search text is empty, too long or cannot be searched for (message safe to show)."""


def parse_query(query: object) -> list[str]:
    """The distinct words of `query` (split on any whitespace), or InvalidQuery."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidQuery("Type at least one word to search for.")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidQuery(f"The search is longer than {MAX_QUERY_CHARS} characters.")
    if not storable(query):
        raise InvalidQuery("The search contains a character that cannot be searched for.")
    # NFC, like paths: "café" typed with a composed é or as e + U+0301 is one word.
    query = unicodedata.normalize("NFC", query)
    terms: list[str] = []
    seen: set[str] = set()
    for word in query.split():
        key = word.casefold()
        if key not in seen:
            seen.add(key)
            terms.append(word)
    if len(terms) > MAX_TERMS:
        raise InvalidQuery(f"Search for at most {MAX_TERMS} words at a time.")
    return terms


def search(
    db: Session, *, workspace_id: str, query: str, limit: int = MAX_RESULTS
) -> list[dict[str, Any]]:
    """Notes of `workspace_id` containing every word of `query`, case-insensitively.

    Each result is `{"path", "line", "snippet"}`: `line` is the 1-based line of the first
    occurrence of any word, `snippet` a piece of that line (at most SNIPPET_CHARS code
    points). At most min(limit, MAX_RESULTS) results, most recently saved first. Raises
    InvalidQuery (a BadRequest) for an empty, oversized or unsearchable query.
    """
    terms = parse_query(query)
    limit = max(0, min(limit, MAX_RESULTS)) if isinstance(limit, int) else MAX_RESULTS
    if limit == 0 or not storable(workspace_id, max_length=64):
        return []
    dialect = db.get_bind().dialect.name
    hits = db.execute(
        _matching(dialect, workspace_id, terms)
        .order_by(Document.updated_at.desc(), Document.id.desc())
        .limit(limit)
    ).all()
    if not hits:
        return []
    # Only the matched notes are read, streamed a few at a time, to place the match: measured
    # faster than SQL string functions over large notes (docs/search.md).
    places: dict[int, tuple[int, str]] = {}
    contents = db.execute(
        select(Document.id, Document.content).where(Document.id.in_([hit.id for hit in hits])),
        execution_options={"yield_per": _STREAM_ROWS},
    )
    for doc_id, content in contents:
        places[doc_id] = place(content, terms)
    return [
        {"path": hit.path, "line": places[hit.id][0], "snippet": places[hit.id][1]}
        for hit in hits
        if hit.id in places  # a note deleted between the two statements is left out
    ]


def _like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _fts_phrase(term: str) -> str:
    """One FTS5 string: quoted, so AND, NEAR, *, ^, : and the like are just characters."""
    return '"' + term.replace('"', '""') + '"'


def _matching(dialect: str, workspace_id: str, terms: list[str]) -> Select[int, str]:
    """SELECT id, path of the workspace's notes that contain every term.

    Notes are stored as typed, so each (NFC) term is looked for in NFC and in NFD: a note
    that spells "café" with e + U+0301 is found by "café" and the other way round.
    """
    stmt = select(Document.id, Document.path)
    fts_groups: list[str] = []
    for term in terms:
        forms = unicode_forms(term)
        long_forms = [f for f in forms if len(f) >= TRIGRAM]
        # Trigrams cannot find 1-2 characters: LIKE within SQL over the notes the index left
        # (all of the workspace's notes when every word is short), once per spelling of the
        # word's case, since neither database folds letters beyond ASCII in LIKE (Ω and ω).
        found = [
            Document.content.like(_like_pattern(spelling), escape=_LIKE_ESCAPE)
            for form in forms
            if len(form) < TRIGRAM
            for spelling in case_spellings(form)
        ]
        if dialect == "postgresql":
            # Each ILIKE is served by the trigram GIN index.
            found += [
                Document.content.ilike(_like_pattern(form), escape=_LIKE_ESCAPE)
                for form in long_forms
            ]
        elif long_forms:
            group = "(" + " OR ".join(_fts_phrase(f) for f in long_forms) + ")"
            if len(found) == 0:
                fts_groups.append(group)  # one MATCH for all such words, below
            else:
                found.append(Document.id.in_(_fts_rowids(group)))
        if found:
            stmt = stmt.where(or_(*found))
    if not fts_groups:
        return stmt.where(Document.workspace_id == workspace_id)
    # Start from the FTS5 matches, not from the workspace. Without statistics (the app runs no
    # ANALYZE) SQLite prefers the workspace's index and walks every note of the workspace,
    # checking each against the matches: 55 ms for a word in 1,000 of 100,000 notes, 6.8 ms
    # from the matches (docs/benchmarks.md, "Search over 100,000 notes"). The unary + keeps
    # the workspace test but takes the index away from it.
    in_workspace = UnaryExpression(
        Document.workspace_id.expression, operator=custom_op("+"), type_=Document.workspace_id.type
    )
    return stmt.where(
        in_workspace == workspace_id,
        Document.id.in_(_fts_rowids(" AND ".join(fts_groups))),
    )


def _fts_rowids(fts_query: str) -> Select[Any]:
    return (
        select(literal_column("rowid"))
        .select_from(table(FTS_TABLE))
        .where(text(f"{FTS_TABLE} MATCH :fts_query").bindparams(fts_query=fts_query))
    )


def unicode_forms(term: str) -> list[str]:
    """`term` in NFC and, when it differs, in NFD: the two ways a note may store it."""
    nfc = unicodedata.normalize("NFC", term)
    nfd = unicodedata.normalize("NFD", term)
    return [nfc] if nfd == nfc else [nfc, nfd]


def case_spellings(term: str) -> list[str]:
    """Every spelling of a short `term` in upper, lower and title case, letter by letter
    (ω → ω, Ω; ς → ς, Σ, σ), so a case-sensitive LIKE finds the word in any case."""
    spellings = [""]
    for char in term:
        forms = {char, char.lower(), char.upper(), char.title(), char.casefold()}
        forms |= {f.lower() for f in forms} | {f.upper() for f in forms}
        spellings = [s + form for s in spellings for form in sorted(forms)]
    return spellings


def place(content: str, terms: list[str]) -> tuple[int, str]:
    """The line (1-based) and snippet of the earliest occurrence of any term in `content`.

    Terms and note are compared in NFC; the snippet is cut from the note as stored.
    """
    terms = [unicodedata.normalize("NFC", t) for t in terms]
    lowered = content.lower()
    if unicodedata.is_normalized("NFC", content):
        found = [i for i in (lowered.find(t.lower()) for t in terms) if i >= 0]
        if found and len(lowered) == len(content):
            pos = min(found)
            return content.count("\n", 0, pos) + 1, snippet_at(content, pos)
    # lower() changed the length (a few letters such as İ do), the database folded a letter
    # that lower() does not, or the note is not in NFC: look line by line with casefold() in
    # NFC (which never joins or splits lines, so the numbers stay the note's own).
    lines = content.split("\n")
    for number, line in enumerate(lines, start=1):
        shown = unicodedata.normalize("NFC", line)
        offset = _find_folded(shown, terms)
        if offset is not None:
            return number, snippet_at(line, _stored_offset(line, shown, offset))
        offset = _find_folded(line, terms)  # "e" is in e + U+0301 as stored, not in its NFC é
        if offset is not None:
            return number, snippet_at(line, offset)
    return 1, snippet_at(lines[0], 0)


def _find_folded(line: str, terms: list[str]) -> int | None:
    """Where the earliest term occurs in `line`, case-folded (0 when folding changed the
    length, so positions no longer line up), or None."""
    folded = line.casefold()
    at = [i for i in (folded.find(t.casefold()) for t in terms) if i >= 0]
    if not at:
        return None
    return min(at) if len(folded) == len(line) else 0


def _stored_offset(line: str, nfc_line: str, offset: int) -> int:
    """The offset in `line` of what is at `offset` in its NFC form `nfc_line`.

    Walks the line a character and its combining marks at a time (near enough where NFC
    joins two starters, as in Hangul: the snippet cut is kept off marks anyway)."""
    if line == nfc_line:
        return offset
    stored = shown = 0
    while stored < len(line):
        end = stored + 1
        while end < len(line) and unicodedata.combining(line[end]):
            end += 1
        shown += len(unicodedata.normalize("NFC", line[stored:end]))
        if shown > offset:
            return stored
        stored = end
    return len(line)


def snippet_at(window: str, offset: int) -> str:
    """The part of the line around `window[offset]`, at most SNIPPET_CHARS code points.

    `window` is the note or one line of it. The cut never separates a character from its
    combining marks or a zero-width joiner.
    """
    offset = max(0, min(offset, len(window)))
    line_start = window.rfind("\n", 0, offset) + 1
    line_end = window.find("\n", offset)
    if line_end < 0:
        line_end = len(window)
    begin = line_start
    if line_end - line_start > SNIPPET_CHARS:
        begin = max(line_start, min(offset - SNIPPET_LEAD, line_end - SNIPPET_CHARS))
    end = min(line_end, begin + SNIPPET_CHARS)
    # Move a mid-line cut off a character that belongs to the one before it.
    while line_start < begin < end and (
        _joins_previous(window[begin]) or window[begin - 1] == "\u200d"
    ):
        begin += 1
    while (
        end > begin
        and end < line_end
        and (_joins_previous(window[end]) or window[end - 1] == "\u200d")
    ):
        end -= 1
    return window[begin:end].strip()


def _joins_previous(char: str) -> bool:
    """A combining mark, a variation selector or a zero-width joiner belongs to the character
    before it, so a cut must not fall right before it."""
    return (
        bool(unicodedata.combining(char))
        or char in "\u200d\ufe0e\ufe0f"
        or (unicodedata.category(char) == "Mn")
    )
