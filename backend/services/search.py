"""Search a workspace's notes with the database's own text index (SQLite FTS5, pg_trgm).

`search()` is the one entry point: the search endpoint, the assistant and the MCP
`search_notes` tool all call it. It does not check membership; callers do that first.
The rules (words, short terms, line and snippet) are written down in docs/search.md.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from sqlalchemy import ColumnElement, Select, func, literal_column, select, table, text
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
_NO_POSITION = 2**31 - 1  # sorts after every real position; means "not found in SQL"
_WINDOW_BEFORE = SNIPPET_CHARS  # code points fetched before the match to find its line start


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


def search(db: Session, *, workspace_id: str, query: str, limit: int = MAX_RESULTS) -> list[dict]:
    """Notes of `workspace_id` containing every word of `query`, case-insensitively.

    Each result is `{"path", "line", "snippet"}`: `line` is the 1-based line of the first
    occurrence of any word, `snippet` a piece of that line (at most SNIPPET_CHARS code
    points). At most min(limit, MAX_RESULTS) results, most recently saved first. Raises
    InvalidQuery (a BadRequest) for an empty, oversized or unsearchable query.
    """
    terms = parse_query(query)
    limit = max(0, min(int(limit), MAX_RESULTS))
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
    places = _places(db, dialect, [hit.id for hit in hits], terms)
    results = []
    for hit in hits:
        line, snippet = places.get(hit.id) or _place_in_python(db, hit.id, terms)
        results.append({"path": hit.path, "line": line, "snippet": snippet})
    return results


def _like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _fts_phrase(term: str) -> str:
    """One FTS5 string: quoted, so AND, NEAR, *, ^, : and the like are just characters."""
    return '"' + term.replace('"', '""') + '"'


def _matching(dialect: str, workspace_id: str, terms: list[str]) -> Select[Any]:
    """SELECT id, path of the workspace's notes that contain every term."""
    stmt = select(Document.id, Document.path).where(Document.workspace_id == workspace_id)
    if dialect == "postgresql":
        # Each ILIKE is served by the trigram GIN index (terms under 3 characters by a scan).
        for term in terms:
            stmt = stmt.where(Document.content.ilike(_like_pattern(term), escape=_LIKE_ESCAPE))
        return stmt
    long_terms = [t for t in terms if len(t) >= TRIGRAM]
    short_terms = [t for t in terms if len(t) < TRIGRAM]
    if long_terms:
        fts = table(FTS_TABLE)
        phrases = " AND ".join(_fts_phrase(t) for t in long_terms)
        matched = (
            select(literal_column("rowid"))
            .select_from(fts)
            .where(text(f"{FTS_TABLE} MATCH :fts_query").bindparams(fts_query=phrases))
        )
        stmt = stmt.where(Document.id.in_(matched))
    for term in short_terms:
        # Trigrams cannot find 1-2 characters: LIKE within SQL, over the notes the index
        # left (all of the workspace's notes when every word is short).
        stmt = stmt.where(Document.content.like(_like_pattern(term), escape=_LIKE_ESCAPE))
    return stmt


def _position(dialect: str, terms: list[str]) -> ColumnElement[Any]:
    """1-based position of the first occurrence of any term in lower(content), or the marker."""
    find = func.strpos if dialect == "postgresql" else func.instr
    lowered = func.lower(Document.content)
    found = [
        func.coalesce(func.nullif(find(lowered, func.lower(term)), 0), _NO_POSITION)
        for term in terms
    ]
    if len(found) == 1:
        return found[0]
    earliest = func.least if dialect == "postgresql" else func.min
    return earliest(*found)


def _places(db: Session, dialect: str, ids: list[int], terms: list[str]) -> dict[int, tuple]:
    """Line and snippet of each hit, computed in SQL from a small window around the match."""
    positions = (
        select(Document.id.label("id"), _position(dialect, terms).label("pos"))
        .where(Document.id.in_(ids))
        .subquery()
    )
    later = func.greatest if dialect == "postgresql" else func.max
    start = later(1, positions.c.pos - _WINDOW_BEFORE)
    before = func.substr(Document.content, 1, positions.c.pos - 1)
    rows = db.execute(
        select(
            positions.c.id,
            positions.c.pos,
            func.length(before) - func.length(func.replace(before, "\n", "")) + 1,
            start,
            func.substr(Document.content, start, _WINDOW_BEFORE + SNIPPET_CHARS * 2),
        )
        .join(Document, Document.id == positions.c.id)
        .where(positions.c.pos < _NO_POSITION)
    ).all()
    return {
        doc_id: (int(line), snippet_at(window, pos - window_start))
        for doc_id, pos, line, window_start, window in rows
    }


def _place_in_python(db: Session, doc_id: int, terms: list[str]) -> tuple[int, str]:
    """Fallback for one hit the database's lower() could not place (a non-ASCII case
    difference that FTS5 folds but SQLite's lower() does not): find it in that note alone."""
    content = db.scalar(select(Document.content).where(Document.id == doc_id)) or ""
    lowered = content.lower()
    found = [i for i in (lowered.find(t.lower()) for t in terms) if i >= 0]
    if len(lowered) != len(content) or not found:
        # lower() changed the length (rare letters) or still no match: search line by line.
        for number, line in enumerate(content.split("\n"), start=1):
            folded = line.casefold()
            if any(t.casefold() in folded for t in terms):
                return number, snippet_at(line, 0)
        return 1, snippet_at(content.split("\n", 1)[0], 0)
    pos = min(found)
    return content.count("\n", 0, pos) + 1, snippet_at(content, pos)


def snippet_at(window: str, offset: int) -> str:
    """The part of the line around `window[offset]`, at most SNIPPET_CHARS code points.

    `window` is a slice of the note (or all of it). The cut never separates a character from
    its combining marks or a zero-width joiner.
    """
    offset = max(0, min(offset, len(window)))
    # With no line break before the match, the line starts at the window's start or before
    # it; either way the window's start is where the snippet may begin.
    line_start = window.rfind("\n", 0, offset) + 1
    line_end = window.find("\n", offset)
    if line_end < 0:
        line_end = len(window)
    begin = line_start
    if line_end - line_start > SNIPPET_CHARS:
        begin = max(line_start, min(offset - SNIPPET_LEAD, line_end - SNIPPET_CHARS))
    end = min(line_end, begin + SNIPPET_CHARS)
    while begin < end and _joins_previous(window[begin]):
        begin += 1
    while end > begin and end < line_end and (
        _joins_previous(window[end]) or window[end - 1] == "\u200d"
    ):
        end -= 1
    return window[begin:end].strip()


def _joins_previous(char: str) -> bool:
    """A combining mark, a variation selector or a zero-width joiner belongs to the character
    before it, so a cut must not fall right before it."""
    return bool(unicodedata.combining(char)) or char in "\u200d\ufe0e\ufe0f" or (
        unicodedata.category(char) == "Mn"
    )
