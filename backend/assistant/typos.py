"""Mistyped request words put right ("sumarize ths" → "summarize this") before a message is read.

Only the words the request grammar turns on are targets, and only with a typist's slip: one
dropped or swapped letter in a short word, one wrong letter in a word of 5–7 letters, two
when both words are longer. Real words that sit that close to a target ("his", "one", "how",
"quite") are never touched. The corrected text decides the intent only; payloads and search
terms are cut from the message as written (`Corrected.original` maps positions back).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import OSA, Indel


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


VOCABULARY = _set(
    """summarise summarize summary summaries recap overview gist outline this that note notes
    memo document documents file files current todo todos task tasks checklist done complete
    completed finished undone mark tick check cross uncheck untick reopen add create append
    heading section paragraph line list show read open describe find search mention mentions
    mentioned contain contains containing count words characters length many select selected
    selection highlighted quote help hello thanks translate rewrite rephrase explain compare
    merge what which please"""
)
# Real words one slip away from a target, and the little words every request uses.
_KEEP = _set(
    """a an and are as at be been but by can could did do does for from had has have he her his
    i if in into is it its just me my no not of on or our so than that the their them then
    there these they this to too up us was we were what when where which who will with would you
    your also about after all any before more most other over some such only very should how
    why whom whose one don ask pen red lit fin tic ark hat man lie new set see get put ready
    bread reading leading quite those thus thin node nodes noted votes tone cheek chick chuck
    court mount crate rewind last lost mask ticks marks lists"""
)
_TARGETS = sorted(VOCABULARY)
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


def _slip(token: str, word: str) -> int | None:
    """The edit distance when `token` is a plausible slip for `word`, else None."""
    distance = OSA.distance(token, word)
    if distance == 0:
        return 0
    if min(len(token), len(word)) <= 4:
        # Short words: a missing or swapped letter only; a wrong letter usually makes
        # another real word ("mask", "dome"), and an extra one too ("bread", "ready").
        swapped = len(token) == len(word) and sorted(token) == sorted(word)
        ok = distance == 1 and (len(token) == len(word) - 1 or swapped)
    elif min(len(token), len(word)) <= 7:
        ok = distance == 1
    else:
        ok = distance <= 2
    return distance if ok else None


@lru_cache(maxsize=4096)
def correct_word(token: str) -> str | None:
    """The target word `token` was meant to be, when exactly one fits best; else None."""
    folded = token.casefold()
    if len(folded) < 3 or folded in VOCABULARY or folded in _KEEP:
        return None
    scored = []
    # rapidfuzz finds the targets within two edits (no slip allowed is wider); _slip decides.
    near = process.extract(folded, _TARGETS, scorer=OSA.distance, score_cutoff=2, limit=None)
    for word, _, _ in near:
        distance = _slip(folded, word)
        if distance is not None:
            scored.append((distance, -Indel.normalized_similarity(folded, word), word))
    if not scored:
        return None
    scored.sort()
    if len(scored) > 1 and scored[0][:2] == scored[1][:2]:
        return None  # two targets fit equally: leave it as written
    return scored[0][2]


@dataclass(frozen=True)
class Corrected:
    """The message with its request words put right, and the corrections made."""

    text: str
    # (start in text, end in text, start in original, end in original) per corrected word
    spans: tuple[tuple[int, int, int, int], ...] = ()

    def original(self, pos: int) -> int:
        """The position in the message as written that `pos` in `text` stands for."""
        shift = 0
        for start, end, o_start, o_end in self.spans:
            if pos < start:
                break
            if pos < end:
                return o_start if pos == start else o_end
            shift = o_end - end
        return pos + shift


def correct(message: str) -> Corrected:
    """Put each mistyped request word right; everything else stays exactly as written."""
    out: list[str] = []
    spans: list[tuple[int, int, int, int]] = []
    last = 0
    length = 0
    for m in _WORD.finditer(message):
        word = correct_word(m.group())
        if word is None:
            continue
        out.append(message[last : m.start()])
        length += m.start() - last
        spans.append((length, length + len(word), m.start(), m.end()))
        out.append(word)
        length += len(word)
        last = m.end()
    out.append(message[last:])
    return Corrected("".join(out), tuple(spans))
