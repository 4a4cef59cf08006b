"""The history store's keyframe cache (backend.services.revisions.keyframes, each app's made
as _keyframe_cache makes one): bounded by bytes, least recently used dropped first, and its
compressor gives the same delta as a fresh dictionary would."""

from __future__ import annotations

import zstandard

from backend.services import revisions


def _text(n: int, size: int = 10_000) -> bytes:
    return (f"keyframe {n} " * size)[:size].encode()


def test_the_cache_stays_under_its_byte_bound_and_drops_the_least_recently_used():
    cache = revisions._keyframe_cache(3 * 30_000)  # three 10 kB texts (each counts 3×)
    for n in range(3):
        cache.put((n, "u", n, "s"), revisions._Keyframe(_text(n)))
    assert cache.get((0, "u", 0, "s")) is not None  # 0 is now the most recently used
    cache.put((3, "u", 3, "s"), revisions._Keyframe(_text(3)))
    assert cache.used <= cache.limit
    assert cache.get((1, "u", 1, "s")) is None  # the least recently used went
    assert [cache.get((n, "u", n, "s")) is not None for n in (0, 2, 3)] == [True, True, True]
    assert cache.get((0, "u", 0, "other hash")) is None  # the key is the row and its text


def test_a_text_larger_than_the_bound_is_used_but_not_kept():
    cache = revisions._keyframe_cache(1000)
    entry = cache.put((1, "u", 1, "s"), revisions._Keyframe(_text(1)))
    assert entry.text == _text(1)
    assert cache.get((1, "u", 1, "s")) is None and cache.used == 0


def test_a_delta_against_a_cached_keyframe_reads_back_with_a_fresh_dictionary():
    base = _text(7, 50_000)
    entry = revisions._keyframe_cache(1 << 20).put((1, "u", 1, "s"), revisions._Keyframe(base))
    changed = base[:20_000] + b"an edit" + base[20_000:]
    body = revisions._compress(changed, entry)
    assert len(body) < 200  # a delta, not a whole text
    fresh = zstandard.ZstdCompressionDict(base, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    assert zstandard.ZstdDecompressor(dict_data=fresh).decompress(body) == changed
    assert revisions._decompress(body, base) == changed
