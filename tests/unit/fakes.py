"""Stand-ins for what the page publishes: a frame runtime over a plain string 'editor'."""

from __future__ import annotations

import asyncio
import hashlib
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
