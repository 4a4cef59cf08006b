"""Which task a request means, from words the user remembers rather than the task's exact text.

Tiers, tried in order; the first that finds any task decides: the whole text, a part of it
(case- and width-insensitive), the same words in any order, then words close enough
(rapidfuzz: a slip of a letter or two, "backup" for "back up", "renewal" for "Renew"). So
"tick off the laptop backup" finds "Back up the laptop", and "buy milk" still prefers "buy
milk" over "buy milk and eggs". Several tasks in the deciding tier are never guessed between.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import TypeVar

from rapidfuzz.distance import OSA

T = TypeVar("T")

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "my",
        "our",
        "your",
        "this",
        "that",
        "to",
        "of",
        "on",
        "in",
        "for",
        "and",
        "or",
        "with",
        "at",
        "by",
        "is",
        "be",
        "it",
        "its",
        "do",
        "task",
        "todo",
        "item",
        "one",
        "please",
    ]
)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff々〆ー]")


def fold(text: str) -> str:
    """Case- and width-insensitive text with runs of spaces made one."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _words(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def _close(a: str, b: str) -> bool:
    """Two words a slip apart, or one the start of the other ("renew", "renewal")."""
    if a == b:
        return True
    if _CJK.search(a) or _CJK.search(b):
        return a in b or b in a
    shorter = min(len(a), len(b))
    if shorter >= 4 and (a.startswith(b) or b.startswith(a)):
        return True
    if shorter < 4:
        return False
    return OSA.distance(a, b) <= (1 if max(len(a), len(b)) <= 6 else 2)


def _same(a: str, b: str) -> bool:
    """A word written as two ("back up") against one ("backup"): equal, or one slip apart."""
    return a == b or (min(len(a), len(b)) >= 6 and OSA.distance(a, b) <= 1)


def _covered(query: list[str], task: list[str], close: Callable[[str, str], bool]) -> bool:
    """Is every content word of the query found in the task (two task words may make one:
    "backup" is "back up"; two query words may make one task word)?"""
    joined = [a + b for a, b in pairwise(task)]
    candidates = [w for w in task if w not in _STOP] + joined
    wanted = [w for w in query if w not in _STOP]
    if not wanted:
        return False
    pairs = list(pairwise(query))
    for word in wanted:
        if any(close(word, c) for c in candidates):
            continue
        if any(word in pair and any(_same("".join(pair), c) for c in task) for pair in pairs):
            continue
        return False
    return True


def tiers(query: str) -> list[Callable[[str], bool]]:
    """The tests a task's text must pass, strictest first."""
    needle = fold(query)
    words = _words(query)
    return [
        lambda text: fold(text) == needle,
        lambda text: needle in fold(text),
        lambda text: _covered(words, _words(text), lambda a, b: a == b),
        lambda text: _covered(words, _words(text), _close),
    ]


def best(query: str, items: Sequence[T], text_of: Callable[[T], str]) -> list[T]:
    """The items of the first tier that matches any, in order (empty when none does)."""
    if not fold(query):
        return []
    for test in tiers(query):
        found = [item for item in items if test(text_of(item))]
        if found:
            return found
    return []
