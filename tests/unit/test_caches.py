"""backend.services.caches: bounded by the summed cost, least recently used dropped first, and
one set per app (a Session of another maker shares nothing)."""

from __future__ import annotations

from sqlalchemy import create_engine

from backend.db import build_sessionmaker
from backend.services import caches
from backend.services.caches import Bounded, Caches


def test_putting_a_key_again_replaces_its_value_and_its_cost():
    cache: Bounded[str, str] = Bounded(10, cost=len)
    cache.put("a", "12345")
    cache.put("a", "123")
    assert cache.get("a") == "123" and cache.used == 3


def test_the_least_recently_used_goes_first_and_an_oversized_value_is_not_kept():
    cache: Bounded[int, str] = Bounded(2)
    cache.put(1, "one")
    cache.put(2, "two")
    assert cache.get(1) == "one"  # 2 is now the least recently used
    cache.put(3, "three")
    assert (cache.get(1), cache.get(2), cache.get(3)) == ("one", None, "three")
    big: Bounded[str, str] = Bounded(3, cost=len)
    assert big.put("k", "four") == "four" and big.get("k") is None and big.used == 0


def test_each_app_has_its_own_caches_reached_from_its_sessions():
    engine = create_engine("sqlite://")
    first, second = Caches(), Caches()
    maker_a = build_sessionmaker(engine, info={caches.INFO_KEY: first})
    maker_b = build_sessionmaker(engine, info={caches.INFO_KEY: second})
    with maker_a() as a1, maker_a() as a2, maker_b() as b:
        caches.of(a1).map("m", 4).put("k", "v")
        assert caches.of(a2).map("m", 4).get("k") == "v"  # the same app: shared
        assert caches.of(b).map("m", 4).get("k") is None  # another app: nothing
    with build_sessionmaker(engine)() as stray:
        assert caches.of(stray) is not first and caches.of(stray).map("m", 4).get("k") is None
    engine.dispose()
