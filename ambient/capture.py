"""Per-turn capture (SPEC §3): resolve afresh, bounded flush, read the live state, encode."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from ambient.contract import EDIT
from ambient.pointer import Pointer, Selection, encode, now_iso
from ambient.store import AmbientStore, Runtime

FLUSH_LIMIT_SECONDS = 1.5


class Flushable(Protocol):
    """Anything with pending saves: a frame's runtime, or a closed frame's saver."""

    def flush(self) -> Awaitable[object]: ...


@dataclass(frozen=True)
class Capture:
    """The outcome of one capture: the header value to send (or None) and why."""

    header: str | None
    pointer: Pointer | None
    outcome: str  # "sent", "disabled", "no-note", "too-large", "discarded", "invalid"


async def capture(
    store: AmbientStore,
    *,
    enabled: bool = True,
    since_epoch: int | None = None,
    also_flush: Iterable[Flushable] = (),
    flush_limit: float = FLUSH_LIMIT_SECONDS,
    now: Callable[[], str] = now_iso,
) -> Capture:
    """Build this turn's X-Ambient-Note value from the store, or say why there is none.

    `since_epoch` is the store's epoch when the send began (the caller may await other things
    first, such as a key session); a workspace boundary since then voids the capture.
    `also_flush` are the workspace's other pending saves (frames closed with text still
    saving), prepared within the same bound.
    """
    if not enabled:
        return Capture(None, None, "disabled")
    epoch = store.epoch if since_epoch is None else since_epoch
    runtime = store.resolve()
    if store.epoch != epoch:
        return Capture(None, None, "discarded")
    if runtime is None:
        return Capture(None, None, "no-note")
    frame_id, path = runtime.frame_id, runtime.path

    def still_current() -> Runtime | None:
        """The runtime now resolved, if it is still the same note in the same workspace."""
        current = store.resolve()
        if store.epoch == epoch and current is not None and current.frame_id == frame_id:
            return current if current.path == path else None
        return None

    # A workspace boundary, or another note resolving, while we wait: this capture is void and
    # the turn goes without the header (it never fails because of it).
    flushed = await flush_all([*store.runtimes(), *also_flush], limit=flush_limit)
    if still_current() is None:
        return Capture(None, None, "discarded")
    try:
        snapshot = await runtime.snapshot()  # the live editor state now, never an earlier one
    except Exception:  # noqa: BLE001 - the frame went away mid-read: same as a note change
        return Capture(None, None, "discarded")
    runtime = still_current()  # the frame may have re-published itself (a view switch)
    if runtime is None:
        return Capture(None, None, "discarded")

    selection = snapshot.get("selection") if runtime.view == EDIT else None
    pointer = Pointer(
        path=runtime.path,
        view=runtime.view,
        frame_id=runtime.frame_id,
        bytes=int(snapshot["bytes"]),
        sha256=str(snapshot["sha256"]),
        flushed=flushed,
        captured_at=now(),
        selection=Selection(int(selection["anchor"]), int(selection["head"]))
        if selection
        else None,
    )
    try:
        header = encode(pointer)
    except ValueError:  # a field the ingress would refuse: send nothing rather than junk
        return Capture(None, None, "invalid")
    return Capture(header, pointer, "sent" if header else "too-large")


async def flush_all(pending: Iterable[Flushable], *, limit: float) -> bool:
    """Flush every pending save of the workspace; True when all succeeded within `limit`.

    A flush that overruns is left running (never cancelled: it carries the user's keystrokes);
    the turn just goes without waiting for it.
    """
    # A frame with nothing unsaved has nothing to prepare: skipping it spares the send a few
    # event-loop turns (each one a browser task under Pyodide).
    dirty = [item for item in pending if getattr(item, "dirty", True)]
    if not dirty:
        return True
    tasks = [asyncio.ensure_future(item.flush()) for item in dirty]
    done, _ = await asyncio.wait(tasks, timeout=limit)
    # A flush that failed (raised, or answered False: the server refused or was unreachable)
    # did not complete the preparation either.
    return len(done) == len(tasks) and all(
        not task.cancelled() and task.exception() is None and task.result() is not False
        for task in done
    )
