"""A roving-tabindex list's keyboard, decided here (pure): one Tab stop, arrows inside.

The note tree and the conversation list share it; each adds its own keys (the tree's ← →
folding, a conversation row's → to its delete button) in its own model.
"""

from __future__ import annotations


def position(keys: list[str], current: str) -> int:
    """Where the row `current` is; an unknown row (gone meanwhile) counts as the first."""
    return keys.index(current) if current in keys else 0


def step(keys: list[str], current: str, key: str) -> str | None:
    """The row ↓ ↑ (next, previous; they stop at the ends), Home and End (first, last) go to
    from `current`; None for any other key, or when there are no rows."""
    if not keys:
        return None
    index = position(keys, current)
    if key == "ArrowDown":
        return keys[min(index + 1, len(keys) - 1)]
    if key == "ArrowUp":
        return keys[max(index - 1, 0)]
    if key == "Home":
        return keys[0]
    if key == "End":
        return keys[-1]
    return None


def tab_stop(keys: list[str], *preferred: str | None) -> str | None:
    """The one row in the Tab order: the first of `preferred` still listed (the last focused,
    then e.g. the open one), else the first row; None when there are none."""
    for candidate in preferred:
        if candidate in keys:
            return candidate
    return keys[0] if keys else None


def after_delete(keys: list[str], deleted: str) -> str | None:
    """The row the keyboard goes to once `deleted` is gone: the next one, else the one above."""
    if deleted not in keys:
        return None
    index = keys.index(deleted)
    rest = keys[:index] + keys[index + 1 :]
    if not rest:
        return None
    return rest[min(index, len(rest) - 1)]
