"""Drops the docstrings of everything imported before the page's memory snapshot is taken.

web/snapshot.mjs runs `strip_docstrings()` in the snapshot's interpreter, after the standard
library's modules and markdown-it are imported: what `python -OO` would have left out of
them, some 0.7 MB of text every first visit downloaded inside the snapshot and no window
reads (the app's own modules are imported in the page and keep theirs). The standard
library runs under -OO, so its code does not depend on its docstrings; `help()` in the page's
console shows signatures without text.

A function's docstring is its code object's first constant, which is replaced by None in a
copy of the code (recursively, so nested functions made later have none either); classes,
modules and properties hold theirs in `__doc__`. A code object whose body also loads that
first constant keeps it, since the constant is shared.
"""

from __future__ import annotations

import dis
import gc
import inspect
import types

CO_NEWLOCALS = 0x0002  # a function's code, not a module's or a class body's
# CPython 3.14 marks a code object whose first constant is its docstring; before, a
# function's first constant was its docstring or None.
CO_HAS_DOCSTRING = getattr(inspect, "CO_HAS_DOCSTRING", None)
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time, whose __doc__ can be set


def _has_docstring(code: types.CodeType) -> bool:
    if CO_HAS_DOCSTRING is not None:
        flagged = bool(code.co_flags & CO_HAS_DOCSTRING)
    else:
        flagged = bool(code.co_flags & CO_NEWLOCALS) and code.co_name != "<lambda>"
    if not flagged or not code.co_consts or not isinstance(code.co_consts[0], str):
        return False
    loads_it = any(i.arg == 0 and i.opcode in dis.hasconst for i in dis.get_instructions(code))
    return not loads_it


def _without_docstrings(code: types.CodeType, done: dict) -> types.CodeType:
    """`code` with its own and its nested functions' docstrings replaced by None."""
    if id(code) in done:
        return done[id(code)][1]
    consts = [
        _without_docstrings(c, done) if isinstance(c, types.CodeType) else c for c in code.co_consts
    ]
    if _has_docstring(code):
        consts[0] = None
    changed = any(new is not old for new, old in zip(consts, code.co_consts, strict=True))
    stripped = code.replace(co_consts=tuple(consts)) if changed else code
    done[id(code)] = (code, stripped)  # the old code kept alive, so its id is not reused
    return stripped


def strip_docstrings() -> int:
    """Set every docstring reachable from a live function, class or module to None.

    Returns how many characters of docstrings were let go.
    """
    done: dict[int, tuple[types.CodeType, types.CodeType]] = {}
    dropped: dict[int, int] = {}

    def drop(owner: object) -> None:
        doc = getattr(owner, "__doc__", None)
        if isinstance(doc, str):
            try:
                owner.__doc__ = None  # type: ignore[misc]
            except (AttributeError, TypeError):  # a built-in or immutable type keeps its own
                return
            dropped[id(doc)] = len(doc)

    for owner in gc.get_objects():
        if isinstance(owner, types.FunctionType):
            owner.__code__ = _without_docstrings(owner.__code__, done)
            drop(owner)
        elif isinstance(owner, type):
            if owner.__flags__ & HEAP_TYPE and "__doc__" in owner.__dict__:
                drop(owner)
        elif isinstance(owner, types.ModuleType | property):
            drop(owner)
    done.clear()
    gc.collect()
    return sum(dropped.values())
