# Entry point PyScript runs in every window; the app itself lives in the bundled `app` package.
# Its modules are imported one at a time, leaves first (the order the server wrote into the
# bundle: backend/delivery/import_order.py), handing the browser its turn every few tens of
# milliseconds, so the sign-in form and the early note keep answering keys while Python loads
# on a slow phone (a task over 50 ms is one a person can feel).
import asyncio
from importlib import import_module
from pathlib import Path
from time import perf_counter

# Seconds of importing between two turns of the browser, timed on the device itself, so a
# slower phone takes as many turns per second of its own. 8 ms, not 25: Lighthouse's phone
# counts each task four times longer, and a 25 ms slice (30 with the module that crosses it)
# became a 100-120 ms task, over the 50 ms a person feels; the extra turns cost no time to
# the ready flag that we could measure (docs/benchmarks.md, "Import slices of 8 ms").
SLICE = 0.008


async def start() -> None:
    began = perf_counter()
    for name in Path("app/boot_imports.txt").read_text().split():
        import_module(name)
        if perf_counter() - began > SLICE:
            await asyncio.sleep(0)  # a new browser task: input and paint go first
            began = perf_counter()
    from app import boot

    await boot.main()


await start()  # noqa: F704, PLE1142 - PyScript runs this module with top-level await
