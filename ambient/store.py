"""The renderer-local ambient store and its resolver (SPEC §2): one per window, no note text."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ambient.contract import INBOX


class Runtime(Protocol):
    """What a mounted Inbox view publishes: where it is and how to reach its live state.

    `snapshot()` reads the live editor at call time (byte length, SHA-256 prefix and, in edit
    view, the main selection); `flush()` saves whatever the frame has pending. An optional
    `dirty` attribute (False when everything is saved) lets a capture skip a clean frame.
    """

    frame_id: str
    path: str
    view: str

    def snapshot(self) -> Awaitable[dict[str, Any]]: ...

    def flush(self) -> Awaitable[object]: ...


Listener = Callable[[], None]


class AmbientStore:
    """Mounted Inbox runtimes, the Inbox activation order, and a workspace epoch."""

    def __init__(self) -> None:
        self._runtimes: dict[str, Runtime] = {}
        self._activated: list[str] = []  # Inbox frame ids, least to most recently activated
        self._epoch = 0
        self._listeners: list[Listener] = []

    # -- what frames report ------------------------------------------------------------
    def publish(self, runtime: Runtime) -> None:
        """Mount or update a frame's runtime (a new note or view replaces the old entry)."""
        self._runtimes.pop(runtime.frame_id, None)  # re-insert: publication order is a fallback
        self._runtimes[runtime.frame_id] = runtime
        self._changed()

    def withdraw(self, frame_id: str) -> None:
        """The frame closed, popped out or lost its note: it is no longer a candidate."""
        if self._runtimes.pop(frame_id, None) is not None:
            self._changed()

    def forget(self, frame_id: str) -> None:
        """The frame is gone for good: drop its runtime and its place in the activation order."""
        self.withdraw(frame_id)
        if frame_id in self._activated:
            self._activated.remove(frame_id)

    def activate(self, frame_id: str, kind: str) -> None:
        """Pointer-down, focus, or opening. Only Inbox frames move the choice; others keep it."""
        if kind != INBOX or (self._activated and self._activated[-1] == frame_id):
            return
        if frame_id in self._activated:
            self._activated.remove(frame_id)
        self._activated.append(frame_id)
        self._changed()

    def boundary(self) -> None:
        """Workspace switch or sign-out: forget everything and invalidate captures in flight."""
        self._runtimes.clear()
        self._activated.clear()
        self._epoch += 1
        self._changed()

    # -- what the assistant asks -------------------------------------------------------
    @property
    def epoch(self) -> int:
        return self._epoch

    def runtimes(self) -> list[Runtime]:
        return list(self._runtimes.values())

    def resolve(self) -> Runtime | None:
        """One mounted runtime → it; several → the most recently activated; none → None."""
        if not self._runtimes:
            return None
        if len(self._runtimes) == 1:
            return next(iter(self._runtimes.values()))
        for frame_id in reversed(self._activated):
            if frame_id in self._runtimes:
                return self._runtimes[frame_id]
        # Never activated (cannot happen through the UI, which activates on open): the newest.
        return next(reversed(self._runtimes.values()))

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` after every change (the chip re-renders); returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()
