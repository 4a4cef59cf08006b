"""Only the newest answer counts: a view's reads can come back late and out of order (a slow
link, a busy server), and an answer read before a change made here must not undo it."""

from __future__ import annotations

from collections.abc import Callable

Check = Callable[[], bool]


class Latest:
    """Counts the reads (or the changes) of one thing.

    `start()` begins a read and gives a check that stays true until the next `start()` or
    `move()`; the view draws the read's answer, or says its error, only while it holds.
    `since()` gives the same check without beginning anything (has anything moved since?).
    """

    __slots__ = ("_count",)

    def __init__(self) -> None:
        self._count = 0

    def move(self) -> None:
        """Something newer happened here: every check given so far turns false."""
        self._count += 1

    def since(self) -> Check:
        count = self._count
        return lambda: count == self._count

    def start(self) -> Check:
        self.move()
        return self.since()
