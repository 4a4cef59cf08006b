"""DOM building and event wiring; every handler runs behind one error edge that shows words."""

from __future__ import annotations

import asyncio
import inspect
import traceback
from collections.abc import Callable

from js import console, document
from pyodide.ffi import create_proxy

from app.api_model import describe

_report: Callable[[str], None] = lambda message: console.error(message)


def set_reporter(report: Callable[[str], None]) -> None:
    """Where handler failures go: the app's alert line (set at boot)."""
    global _report
    _report = report


def report(exc: BaseException) -> None:
    """Show an exception as a sentence; the traceback goes to the console only."""
    console.error("".join(traceback.format_exception(exc)))
    _report(describe(exc))


def spawn(coro) -> asyncio.Task:
    """Run a coroutine in the background; its failure is reported, never lost."""
    task = asyncio.ensure_future(coro)
    task.add_done_callback(_done)
    return task


def _done(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        report(task.exception())


def guard(fn: Callable) -> Callable:
    """Wrap an event handler: sync or async, its exceptions become a shown message."""

    def handler(*args):
        try:
            result = fn(*args)
            if inspect.isawaitable(result):
                spawn(result)
            return result if not inspect.isawaitable(result) else None
        except Exception as exc:  # noqa: BLE001 - the edge: failures become words, not tracebacks
            report(exc)
            return None

    return handler


def h(tag: str, attrs: dict | None = None, *children):
    """Create an element: `text` sets textContent, `class` the class; None/False skip."""
    el = document.createElement(tag)
    for key, value in (attrs or {}).items():
        if value is None or value is False:
            continue
        if key == "text":
            el.textContent = str(value)
        elif key == "class":
            el.className = value
        else:
            el.setAttribute(key, "" if value is True else str(value))
    for child in children:
        if child is None:
            continue
        el.append(document.createTextNode(child) if isinstance(child, str) else child)
    return el


def clear(el) -> None:
    el.replaceChildren()


class Listeners:
    """Event listeners owned by one component, removed (and their proxies freed) together."""

    def __init__(self) -> None:
        self._items: list[tuple[object, str, object]] = []

    def on(self, el, event: str, fn: Callable, capture: bool = False, prevent: bool = False):
        """Listen; `prevent` calls preventDefault() synchronously (an async handler runs too
        late for that: a form would already have been submitted)."""
        handler = guard(fn)
        if prevent:

            def handler(event, _inner=handler):
                event.preventDefault()
                return _inner(event)

        proxy = create_proxy(handler)
        el.addEventListener(event, proxy, capture)
        self._items.append((el, event, proxy))
        return proxy

    def clear(self) -> None:
        for el, event, proxy in self._items:
            el.removeEventListener(event, proxy)
            el.removeEventListener(event, proxy, True)
            proxy.destroy()
        self._items = []


def column_heads(*labels: str, actions: str | None = None) -> list:
    """A table's column headers; `actions` names the buttons' column for screen readers only
    (an empty header is announced as nothing at all)."""
    heads = [h("th", {"scope": "col"}, label) for label in labels]
    if actions:
        heads.append(h("th", {"scope": "col"}, h("span", {"class": "visually-hidden"}, actions)))
    return heads
