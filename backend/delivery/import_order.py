"""The order in which the page's entry point imports the bundle's modules, leaves first.

`from app import boot` imports about eighty modules in one go: on a phone's CPU that is one
task of about a second, during which the sign-in form, live before Python, answers no key.
The entry point (web/static/main.py) instead imports the modules one at a time in this order,
handing the browser its turn between them, so each import runs only its own module's body.

The order is the one Python itself would finish the modules in: a depth-first walk of the
imports each module runs when it is imported (its top level and class bodies, not functions,
not `if TYPE_CHECKING:`), in the order they appear. Only modules of the bundle are listed;
the standard library's are already in the snapshot or imported on first use. A cycle among
them would make the order differ from Python's own, so it is refused.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

MEMBER = "app/boot_imports.txt"  # in the bundle, read by web/app/imports.py
ROOT = "app.boot"
# What a window imports once it shows a workspace (app/chrome.py and app/boot.py import these
# inside functions): a sign-in page is ready without them and imports them once the person
# starts signing in. Their order, less what `ROOT` imports, is the bundle's LATER_MEMBER.
LATER_MEMBER = "app/workspace_imports.txt"
LATER_ROOTS = ("app.shell", "app.frames.popout")


class ImportCycle(ValueError):
    """Two modules of the bundle import each other when imported."""


def module_names(members: Mapping[str, bytes]) -> dict[str, str]:
    """Module name → member path, for each Python source of the bundle."""
    names = {}
    for path in members:
        if path.endswith(".py") and "/__pycache__/" not in path:
            parts = path[: -len(".py")].split("/")
            if parts[-1] == "__init__":
                parts.pop()
            names[".".join(parts)] = path
    return names


def _run_at_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a module that run when it is imported, in order."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _run_at_import(node.orelse)
            continue
        yield node
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _run_at_import([n for n in inner if isinstance(n, ast.stmt)])
        for handler in getattr(node, "handlers", []):
            yield from _run_at_import(handler.body)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(name: str, source: bytes, is_package: bool, known: set[str]) -> list[str]:
    """The bundle's modules `name` imports when imported, in order (parents before children)."""
    package = name if is_package else name.rpartition(".")[0]
    found: list[str] = []

    def add(module: str) -> None:
        parts = module.split(".")
        for end in range(1, len(parts) + 1):
            candidate = ".".join(parts[:end])
            if candidate in known and candidate not in found:
                found.append(candidate)

    for node in _run_at_import(ast.parse(source).body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            add(base)
            for alias in node.names:
                add(f"{base}.{alias.name}")  # `from package import module`
    return found


def import_order(members: Mapping[str, bytes], root: str = ROOT) -> list[str]:
    """Every bundle module importing `root` imports, each after the modules it imports (none
    when `root` is not in the bundle)."""
    names = module_names(members)
    if root not in names:
        return []
    known = set(names)
    order: list[str] = []
    state: dict[str, str] = {}

    def visit(module: str, trail: tuple[str, ...]) -> None:
        if state.get(module) == "done":
            return
        if state.get(module) == "open":
            if names[module].endswith("__init__.py"):
                return  # a package's own modules may use it while its __init__ runs
            raise ImportCycle(" → ".join((*trail[trail.index(module) :], module)))
        state[module] = "open"
        parent = module.rpartition(".")[0]
        if parent in known:  # Python runs a package's __init__ before its modules
            visit(parent, (*trail, module))
        path = names[module]
        for imported in imports_of(module, members[path], path.endswith("__init__.py"), known):
            if imported != module:
                visit(imported, (*trail, module))
        state[module] = "done"
        order.append(module)

    visit(root, ())
    return order


def later_order(members: Mapping[str, bytes], done: list[str]) -> list[str]:
    """The modules `LATER_ROOTS` import that `done` (the boot's order) does not, leaves first."""
    order: list[str] = []
    seen = set(done)
    for root in LATER_ROOTS:
        for module in import_order(members, root):
            if module not in seen:
                seen.add(module)
                order.append(module)
    return order
