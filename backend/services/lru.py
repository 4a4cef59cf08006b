"""A small thread-safe least-recently-used map, bounded by the summed cost of its values.

Three per-process caches hold things that never change once written (the history store's
keyframe texts and listed histories by version, and a note revision's text hash in the
documents service); they differ only in what they hold and what an entry costs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most `limit` of summed `cost` (1 per value unless told); least recently used go first.
    A value that alone costs more than the limit is handed back but not kept."""

    def __init__(self, limit: int, cost: Callable[[V], int] = lambda _value: 1) -> None:
        self.limit = limit
        self.used = 0
        self._cost = cost
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> V:
        cost = self._cost(value)
        with self._lock:
            if cost > self.limit:
                return value
            old = self._entries.pop(key, None)
            if old is not None:
                self.used -= self._cost(old)
            self._entries[key] = value
            self.used += cost
            while self.used > self.limit:
                _, dropped = self._entries.popitem(last=False)
                self.used -= self._cost(dropped)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.used = 0
