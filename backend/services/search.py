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
    """SELECT id, path of the workspace's notes that contain every term."""
    stmt = select(Document.id, Document.path).where(Document.workspace_id == workspace_id)
    long_terms = [t for t in terms if len(t) >= TRIGRAM]
    short_terms = [t for t in terms if len(t) < TRIGRAM]
    for term in short_terms:
        # Trigrams cannot find 1-2 characters: LIKE within SQL over the notes the index left
        # (all of the workspace's notes when every word is short), once per spelling of the
        # word's case, since neither database folds letters beyond ASCII in LIKE (Ω and ω).
        stmt = stmt.where(
            or_(
                *(
                    Document.content.like(_like_pattern(spelling), escape=_LIKE_ESCAPE)
                    for spelling in case_spellings(term)
                )
            )
        )
    if dialect == "postgresql":
        # Each ILIKE is served by the trigram GIN index.
        for term in long_terms:
            stmt = stmt.where(Document.content.ilike(_like_pattern(term), escape=_LIKE_ESCAPE))
        return stmt
    if long_terms:
        fts = table(FTS_TABLE)
        phrases = " AND ".join(_fts_phrase(t) for t in long_terms)
        matched: Select[Any] = (
            select(literal_column("rowid"))
            .select_from(fts)
            .where(text(f"{FTS_TABLE} MATCH :fts_query").bindparams(fts_query=phrases))
        )
        stmt = stmt.where(Document.id.in_(matched))
    return stmt


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
    """The line (1-based) and snippet of the earliest occurrence of any term in `content`."""
    lowered = content.lower()
    found = [i for i in (lowered.find(t.lower()) for t in terms) if i >= 0]
    if found and len(lowered) == len(content):
        pos = min(found)
        return content.count("\n", 0, pos) + 1, snippet_at(content, pos)
    # lower() changed the length (a few letters such as İ do), or the database folded a
    # letter that lower() does not: look line by line with casefold().
    lines = content.split("\n")
    for number, line in enumerate(lines, start=1):
        folded = line.casefold()
        at = [i for i in (folded.find(t.casefold()) for t in terms) if i >= 0]
        if at:
            return number, snippet_at(line, min(at) if len(folded) == len(line) else 0)
    return 1, snippet_at(lines[0], 0)


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
