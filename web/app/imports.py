"""The app's modules, imported one at a time, leaves first, with the browser's turn between.

`from app import boot` in one go would be one task of about a second on a phone's CPU, during
which the sign-in form, live before Python, answers no key. The server writes into the bundle
the order Python itself would finish the modules in (backend/delivery/import_order.py): first
what a window needs to be ready (`app.boot`), then what its workspace needs besides, which
`app.boot` and `app.chrome` import only inside functions. A sign-in page is ready without the
second part and imports it once the person starts signing in (app/startup.py).
"""

from __future__ import annotations

import asyncio
from importlib import import_module
from pathlib import Path
from time import perf_counter

# The bundle's members (import_order.MEMBER and LATER_MEMBER; a unit test keeps them equal).
BOOT = "app/boot_imports.txt"
WORKSPACE = "app/workspace_imports.txt"

# Seconds of importing between two turns of the browser, timed on the device itself, so a
# slower phone takes as many turns per second of its own. 8 ms, not 25: Lighthouse's phone
# counts each task four times longer, and a 25 ms slice (30 with the module that crosses it)
# became a 100-120 ms task, over the 50 ms a person feels; the extra turns cost no time to
# the ready flag that we could measure (docs/benchmarks.md, "Import slices of 8 ms").
SLICE = 0.008


def order(member: str) -> list[str]:
    """The module names a member of the bundle lists (none when the bundle has no such list)."""
    path = Path(member)
    return path.read_text().split() if path.is_file() else []


async def import_in_slices(names: list[str]) -> None:
    """Import each module in turn, giving the browser a task boundary every `SLICE` seconds.

    Two of these may run at once (the background one and a sign-in that needs the rest now):
    an import already done is a dictionary lookup."""
    began = perf_counter()
    for name in names:
        import_module(name)
        if perf_counter() - began > SLICE:
            await asyncio.sleep(0)  # a new browser task: input and paint go first
            began = perf_counter()
