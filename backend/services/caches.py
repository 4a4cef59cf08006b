"""The app's caches: one `Caches` per app (on `app.state.caches`), reached from any Session
its sessionmaker made, so tests and server processes never share hidden state.

What is cached never changes once written (a note revision's text hash, the kept part of a
listed history by its version, a history keyframe's text), so a miss only costs a read. A
Session made elsewhere (a script's own) gets an empty, unshared set: correct, just uncached.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from cachetools import LRUCache
from sqlalchemy.orm import Session

K = TypeVar("K")
V = TypeVar("V")
INFO_KEY = "ana_caches"  # in every Session.info of the app's sessionmaker


class Bounded(Generic[K, V]):
    """A least-recently-used map bounded by the summed `cost` of its values (1 each unless
    told), safe across threads (cachetools' caches are not). A value that alone costs more
    than the limit is handed back but not kept."""

    def __init__(self, limit: int, cost: Callable[[V], int] | None = None) -> None:
        self._cache: LRUCache[K, V] = LRUCache(maxsize=limit, getsizeof=cost)
        self._lock = threading.Lock()

    @property
    def used(self) -> float:
        return self._cache.currsize

    @property
    def limit(self) -> float:
        return self._cache.maxsize

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._cache.get(key)

    def put(self, key: K, value: V) -> V:
        with self._lock:
            try:
                self._cache[key] = value
            except ValueError:  # larger than the whole cache
                self._cache.pop(key, None)
        return value

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()


class Caches:
    """Named bounded maps, each made on first use with its limit and cost."""

    def __init__(self) -> None:
        self._maps: dict[str, Bounded[Any, Any]] = {}
        self._lock = threading.Lock()

    def map(
        self, name: str, limit: int, cost: Callable[[Any], int] | None = None
    ) -> Bounded[Any, Any]:
        with self._lock:
            found = self._maps.get(name)
            if found is None:
                found = self._maps[name] = Bounded(limit, cost)
            return found

    def clear(self) -> None:
        with self._lock:
            for cache in self._maps.values():
                cache.clear()


def of(db: Session) -> Caches:
    """The caches of the app that made `db`; an empty unshared set for any other Session."""
    found = db.info.get(INFO_KEY)
    if isinstance(found, Caches):
        return found
    db.info[INFO_KEY] = found = Caches()
    return found
