"""Frames side by side: the width each gets when a splitter between two of them moves (pure)."""

from __future__ import annotations

MIN_FRAME_PX = 225  # narrower than this a frame's toolbar and chat stop being usable
STEP_PX = 24  # one arrow-key press on a splitter
BIG_STEP_PX = 120  # Shift+arrow, and Page Up / Page Down


def resize(
    widths: list[float], index: int, delta: float, minimum: float = MIN_FRAME_PX
) -> list[float]:
    """Move the splitter after frame `index` by `delta` px: that frame grows by what its right
    neighbour gives up, neither below `minimum`. Other frames and the total stay as they are.

    A pair already narrower than two minimums is split evenly instead (the window is too
    narrow for both, and the row scrolls sideways).
    """
    if not 0 <= index < len(widths) - 1:
        return list(widths)
    left, right = widths[index], widths[index + 1]
    pair = left + right
    if pair <= 2 * minimum:
        new_left = pair / 2
    else:
        new_left = min(max(left + delta, minimum), pair - minimum)
    out = list(widths)
    out[index], out[index + 1] = new_left, pair - new_left
    return out


def key_delta(
    key: str, shift: bool, widths: list[float], index: int, minimum: float = MIN_FRAME_PX
) -> float | None:
    """How far a key moves the splitter after frame `index` (px), or None if not its key.

    ← and → (↑ and ↓ too) by a step, Shift or Page Up/Down by a big step, Home and End to
    the narrowest and widest the left frame can be.
    """
    step = BIG_STEP_PX if shift else STEP_PX
    moves = {
        "ArrowLeft": -step,
        "ArrowUp": -step,
        "ArrowRight": step,
        "ArrowDown": step,
        "PageUp": -BIG_STEP_PX,
        "PageDown": BIG_STEP_PX,
    }
    if key in moves:
        return float(moves[key])
    if key in ("Home", "End") and 0 <= index < len(widths) - 1:
        pair = widths[index] + widths[index + 1]
        return (minimum if key == "Home" else pair - minimum) - widths[index]
    return None


def share(widths: list[float], index: int) -> int:
    """The splitter's value for assistive technology: the left frame's share of the pair, %."""
    if not 0 <= index < len(widths) - 1:
        return 50
    pair = widths[index] + widths[index + 1]
    return round(100 * widths[index] / pair) if pair > 0 else 50


def flex_of(width: float) -> str:
    """The CSS `flex` that keeps a frame at `width` px while the window keeps its size, and
    in proportion when it does not (grow by the width, shrink by the basis)."""
    width = max(round(width, 1), 1.0)
    return f"{width:g} 1 {width:g}px"
