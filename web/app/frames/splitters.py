"""Splitters between frames: drag or arrow keys move width from one frame to its neighbour."""

from __future__ import annotations

from app.dom import Listeners, h
from app.frames.layout_model import MIN_FRAME_PX, flex_of, key_delta, resize, share


class Splitters:
    """Keeps one focusable `role="separator"` between each two frames of a frameset."""

    def __init__(self, frameset) -> None:
        self.frameset = frameset
        self.listeners = Listeners()
        self._order: tuple[str, ...] = ()
        self._drag: tuple[int, float, list[float]] | None = None  # index, start x, widths
        frameset.el.style.setProperty("--frame-min", f"{MIN_FRAME_PX}px")
        frameset.on_change(self.sync)

    def sync(self) -> None:
        """After frames open or close: a splitter after every frame but the last."""
        frames = self.frameset.frames()
        order = tuple(frame.id for frame in frames)
        if order == self._order:
            self._label()
            return
        self._order = order
        self.listeners.clear()
        for frame in frames:
            frame.el.style.removeProperty("flex")  # a frame more or less: share the row evenly
        for old in list(self.frameset.el.querySelectorAll(":scope > .splitter")):
            old.remove()
        for index, frame in enumerate(frames[:-1]):
            bar = h(
                "div",
                {
                    "class": "splitter",
                    "role": "separator",
                    "tabindex": "0",
                    "aria-orientation": "vertical",
                    "aria-valuemin": "0",
                    "aria-valuemax": "100",
                    "data-testid": "frame-splitter",
                    "data-index": index,
                    "title": "Drag, or use ← and →, to share the width",
                },
            )
            frame.el.after(bar)
            self.listeners.on(bar, "pointerdown", lambda event, i=index: self._start(event, i))
            self.listeners.on(bar, "pointermove", self._move)
            self.listeners.on(bar, "pointerup", self._end)
            self.listeners.on(bar, "pointercancel", self._end)
            self.listeners.on(bar, "keydown", lambda event, i=index: self._key(event, i))
        self._label()

    def _widths(self) -> list[float]:
        return [float(f.el.getBoundingClientRect().width) for f in self.frameset.frames()]

    def _apply(self, widths: list[float]) -> None:
        for frame, width in zip(self.frameset.frames(), widths, strict=False):
            frame.el.style.flex = flex_of(width)
        self._label(widths)

    def _label(self, widths: list[float] | None = None) -> None:
        frames = self.frameset.frames()
        widths = widths or self._widths()
        for bar in self.frameset.el.querySelectorAll(":scope > .splitter"):
            index = int(bar.dataset.index)
            if index + 1 >= len(frames):
                continue
            left, right = frames[index], frames[index + 1]
            names = (
                left.heading.textContent or left.title,
                right.heading.textContent or right.title,
            )
            bar.setAttribute("aria-label", f"Width of {names[0]} and {names[1]}")
            bar.setAttribute("aria-valuenow", str(share(widths, index)))

    def _start(self, event, index: int) -> None:
        if event.button != 0:
            return
        event.preventDefault()  # no text selection while dragging
        event.currentTarget.setPointerCapture(event.pointerId)
        self._drag = (index, float(event.clientX), self._widths())

    def _move(self, event) -> None:
        if self._drag is None:
            return
        index, start, widths = self._drag
        self._apply(resize(widths, index, float(event.clientX) - start))

    def _end(self, event) -> None:
        self._drag = None

    def _key(self, event, index: int) -> None:
        widths = self._widths()
        delta = key_delta(str(event.key), bool(event.shiftKey), widths, index)
        if delta is None:
            return
        event.preventDefault()
        self._apply(resize(widths, index, delta))

    def destroy(self) -> None:
        self.listeners.clear()
