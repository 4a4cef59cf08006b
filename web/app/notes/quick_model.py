"""Fuzzy matching of note paths for the quick switcher (pure)."""

from __future__ import annotations

_WORD_STARTS = "/-_ ."


def score(query: str, path: str) -> int | None:
    """How well `query` matches `path` as a subsequence, case-insensitively; None if not.

    Letters that follow each other, that start a word, or that fall in the note's own name
    (not its folders) count more; a shorter path wins a tie.
    """
    q = query.casefold().replace(" ", "")
    p = path.casefold()
    if not q:
        return 0
    name_start = p.rfind("/") + 1
    best = None
    start = p.find(q[0])
    while start >= 0:  # the first letter may match in several places: keep the best run
        points = _run(q, p, start, name_start)
        if points is None:
            break  # no later start can match all letters either
        best = points if best is None else max(best, points)
        start = p.find(q[0], start + 1)
    if best is None:
        return None
    if q in p[name_start:]:
        best += 10  # the query as typed appears in the name
    return best * 100 - len(path)


def _run(q: str, p: str, start: int, name_start: int) -> int | None:
    """Points for matching `q` greedily in `p` from `start`; None when the letters run out."""
    total, at, previous = 0, start, -2
    for char in q:
        found = p.find(char, at)
        if found < 0:
            return None
        points = 1
        if found == previous + 1:
            points += 5  # consecutive letters
        if found == 0 or p[found - 1] in _WORD_STARTS:
            points += 4  # the start of a word or of a folder
        if found >= name_start:
            points += 2  # in the name itself
        total += points
        previous, at = found, found + 1
    return total


def rank(query: str, paths: list[str], recent: list[str] = (), limit: int = 30) -> list[str]:
    """The best matches first; with an empty query the recently opened notes, then A→Z."""
    if not query.strip():
        seen = [p for p in recent if p in set(paths)]
        rest = sorted((p for p in paths if p not in set(seen)), key=str.casefold)
        return (seen + rest)[:limit]
    scored = [(s, p) for p in paths if (s := score(query, p)) is not None]
    scored.sort(key=lambda item: (-item[0], item[1].casefold()))
    return [p for _, p in scored[:limit]]


def move(index: int, step: int, count: int) -> int:
    """Arrow keys over `count` items: wraps around; -1 when there is nothing to select."""
    if count <= 0:
        return -1
    return (index + step) % count
