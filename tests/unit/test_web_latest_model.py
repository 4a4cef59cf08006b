"""web/app/latest_model.Latest: only the newest read's answer is drawn, and a change made here
makes every read already on its way stale."""

from __future__ import annotations

import asyncio

from app.latest_model import Latest


def test_a_read_is_current_until_the_next_one_starts() -> None:
    reads = Latest()
    first = reads.start()
    assert first()
    second = reads.start()
    assert second() and not first()


def test_a_change_made_here_makes_every_read_on_its_way_stale() -> None:
    reads = Latest()
    read, unchanged = reads.start(), reads.since()
    reads.move()
    assert not read() and not unchanged()
    assert reads.since()()  # what is asked from now on is current again


def test_two_reads_answering_out_of_order_draw_only_the_newer_one() -> None:
    reads, drawn = Latest(), []

    async def read(answer: str, delay: float) -> None:
        latest = reads.start()
        await asyncio.sleep(delay)
        if latest():
            drawn.append(answer)

    async def both() -> None:
        await asyncio.gather(read("older", 0.02), read("newer", 0.0))

    asyncio.run(both())
    assert drawn == ["newer"]
