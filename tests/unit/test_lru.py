"""backend.services.lru.Lru: bounded by the summed cost, least recently used dropped first."""

from __future__ import annotations

from backend.services.lru import Lru


def test_putting_a_key_again_replaces_its_value_and_its_cost():
    cache: Lru[str, str] = Lru(10, cost=len)
    cache.put("a", "12345")
    cache.put("a", "123")
    assert cache.get("a") == "123" and cache.used == 3


def test_the_least_recently_used_goes_first_and_an_oversized_value_is_not_kept():
    cache: Lru[int, str] = Lru(2)
    cache.put(1, "one")
    cache.put(2, "two")
    assert cache.get(1) == "one"  # 2 is now the least recently used
    cache.put(3, "three")
    assert (cache.get(1), cache.get(2), cache.get(3)) == ("one", None, "three")
    big: Lru[str, str] = Lru(3, cost=len)
    assert big.put("k", "four") == "four" and big.get("k") is None and big.used == 0
