"""The conversation log's keyboard, decided here (pure): ONE Tab stop for the whole log, as the
note tree and the conversation list have, so the Tab count to the chat box does not grow with
every message (issue 34).

The Tab stop is always a message (never a link or button inside one: a card's button may be
disabled or hidden, and a log without a Tab stop could not be entered). ↓ ↑ move through the
log's stops in reading order: each message, then the links and buttons inside it; Home and
End go to the first and the last. The key moves shared with the other lists are
app.notes.roving_model's.
"""

from __future__ import annotations

from app.notes.roving_model import step

KEYS = ("ArrowDown", "ArrowUp", "Home", "End")


def move(count: int, current: int, key: str) -> int | None:
    """The stop (an index in reading order) `key` goes to from `current`; None for another
    key or an empty log. An unknown `current` (-1: gone meanwhile) counts as the first."""
    if key not in KEYS:
        return None
    keys = [str(index) for index in range(count)]
    target = step(keys, str(current), key)
    return None if target is None else int(target)


def tab_stop(messages: int, focused: int | None) -> int | None:
    """Which message holds the log's Tab stop: the one last focused (or holding the last
    focused link), else the newest, the one a reader wants first; None for an empty log."""
    if messages <= 0:
        return None
    if focused is not None and 0 <= focused < messages:
        return focused
    return messages - 1
