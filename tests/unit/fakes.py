"""Stand-ins for what the page publishes: a frame runtime over a plain string 'editor'."""

from __future__ import annotations

import asyncio
import hashlib
import sys
from dataclasses import dataclass, field


@dataclass
class FakeRuntime:
    frame_id: str
    path: str
    view: str = "edit"
    text: str = ""
    selection: dict | None = None
    flush_delay: float = 0.0
    flush_ok: bool = True
    dirty: bool = True
    flushes: int = 0
    reads: int = field(default=0)

    async def snapshot(self) -> dict:
        self.reads += 1
        data = self.text.encode("utf-8")
        return {
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest()[:16],
            "selection": self.selection,
        }

    async def flush(self) -> bool:
        await asyncio.sleep(self.flush_delay)
        self.flushes += 1
        return self.flush_ok


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop with an injected clock: time moves only when every task waits, and then
    jumps straight to the next timer. Delays, debounces and timeouts are tested without
    sleeping, and the outcome cannot depend on how loaded the machine is."""

    def __init__(self) -> None:
        super().__init__()
        self._virtual_now = 0.0
        select = self._selector.select

        def jump(timeout: float | None = None):  # the loop asks to wait this long: skip it
            if timeout is not None and timeout > 0:
                self._virtual_now += timeout
                timeout = 0
            return select(timeout)

        self._selector.select = jump

    def time(self) -> float:
        return self._virtual_now


def run_virtual(coro):
    """asyncio.run on a VirtualTimeLoop (inside Pyodide, on its own browser loop, which has no
    selector to drive: the same tests then take their few real milliseconds)."""
    if sys.platform == "emscripten":
        return asyncio.run(coro)
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(coro)
