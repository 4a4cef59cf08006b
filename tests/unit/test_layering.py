"""The import rules that keep the core pure: ambient/ is standard library only (STYLE.md)."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BROWSER_ONLY = {"js", "pyodide", "pyscript", "pyodide_js"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_imports_only_the_standard_library_and_itself():
    modules = sorted((ROOT / "ambient").rglob("*.py"))
    assert len(modules) >= 5, "the core modules moved; update this test"
    for module in modules:
        outside = imported_roots(module) - set(sys.stdlib_module_names) - {"ambient", "__future__"}
        assert not outside, f"{module.relative_to(ROOT)} imports {sorted(outside)}"


def test_server_and_pure_page_models_never_import_browser_modules():
    modules = list((ROOT / "backend").rglob("*.py")) + list((ROOT / "web/app").glob("*_model.py"))
    assert modules
    for module in modules:
        assert not imported_roots(module) & BROWSER_ONLY, module.relative_to(ROOT)


def test_the_browser_layer_is_the_only_place_that_imports_js():
    users = {
        path.relative_to(ROOT).as_posix()
        for path in ROOT.rglob("*.py")
        if not {".venv", "node_modules", "vendor"} & set(path.parts)
        and imported_roots(path) & BROWSER_ONLY
    }
    assert users, "the browser layer should import js somewhere"
    assert all(path.startswith("web/app/") for path in users), sorted(users)
