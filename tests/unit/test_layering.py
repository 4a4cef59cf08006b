"""The import rules that keep the core pure: ambient/ is standard library only, the browser
layer alone imports js, and lower layers never reach up into the API (docs/architecture.md)."""

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


# The one exception: ambient/markdown.py reads notes with markdown-it-py (pure Python, a
# server dependency, shipped to the page) so the page and the agent parse as CommonMark does.
PURE_THIRD_PARTY = {"ambient/markdown.py": {"markdown_it"}}


def test_core_imports_only_the_standard_library_and_itself():
    modules = sorted((ROOT / "ambient").rglob("*.py"))
    assert len(modules) >= 5, "the core modules moved; update this test"
    for module in modules:
        name = module.relative_to(ROOT).as_posix()
        outside = imported_roots(module) - set(sys.stdlib_module_names) - {"ambient", "__future__"}
        assert not outside - PURE_THIRD_PARTY.get(name, set()), f"{name} imports {sorted(outside)}"


def test_server_and_pure_page_models_never_import_browser_modules():
    modules = list((ROOT / "backend").rglob("*.py")) + list((ROOT / "web/app").rglob("*_model.py"))
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


def _sources(*folders: str) -> list[Path]:
    return [path for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))]


def test_backend_and_the_page_never_import_each_other():
    for module in _sources("backend"):
        assert not imported_roots(module) & {"app", "web"}, module.relative_to(ROOT)
    for module in _sources("web/app"):
        assert "backend" not in imported_roots(module), module.relative_to(ROOT)


def _spellings(tree: ast.AST):
    """String literals, and the string members of literal tuples/lists/sets/dict keys."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield "str", node.value
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            yield "group", frozenset(e.value for e in node.elts if isinstance(e, ast.Constant))
        elif isinstance(node, ast.Dict):
            yield "group", frozenset(k.value for k in node.keys if isinstance(k, ast.Constant))
        elif (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", "") for t in node.targets] == ["kind"]
            and isinstance(node.value, ast.Constant)
        ):
            yield "kind", node.value.value


def test_the_contract_constants_are_spelled_once():
    from ambient import contract

    headers = {contract.HEADER_NAME.lower(), contract.KEY_SESSION_HEADER.lower()}
    groups = {frozenset(contract.VIEWS), frozenset(contract.FRAME_KINDS)}
    home = ROOT / "ambient" / "contract.py"
    for module in _sources("ambient", "backend", "web/app"):
        if module == home:
            continue
        for what, value in _spellings(ast.parse(module.read_text(encoding="utf-8"))):
            where = module.relative_to(ROOT)
            if what == "str":
                assert value.lower() not in headers, f"{where} spells {value!r}: import it"
            elif what == "group":
                assert not any(group <= value for group in groups), f"{where} lists {value}"
            else:
                assert value not in contract.FRAME_KINDS, f"{where}: kind = {value!r}"


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_lower_layers_never_reach_up_into_the_api():
    lower = _sources("backend/services", "backend/assistant", "backend/outside_agents")
    lower += [ROOT / "backend/limits/throttle.py", ROOT / "backend/tool_arguments.py"]
    for module in lower:
        reaching = {name for name in _imported_modules(module) if name.startswith("backend.api")}
        assert not reaching, f"{module.relative_to(ROOT)} imports {sorted(reaching)}"


def test_the_version_is_spelled_once_in_pyproject():
    import tomllib

    from backend import VERSION

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert VERSION == version
    for module in _sources("backend", "ambient"):
        assert f'"{version}"' not in module.read_text(encoding="utf-8"), module.relative_to(ROOT)


# The page's rooms by feature, lowest first: a room imports the page's base modules (the
# top-level ones but the three below) and rooms below it, never one above it. `chrome`,
# `shell` and `boot` compose the rooms: boot imports chrome (the sign-in), chrome imports
# shell once signed in and shell extends chrome; nothing imports boot.
PAGE_ROOMS = ["live", "notes", "chat", "agents", "frames", "people", "transfer"]
PAGE_COMPOSERS = {"chrome", "shell", "boot"}
COMPOSED = {("boot", "chrome"), ("chrome", "shell"), ("shell", "chrome")}


def _room_of(module: str) -> str:
    """`app.chat.assistant` -> "chat"; a top-level module -> its own name."""
    return module.split(".")[1] if module.count(".") >= 1 else ""


def test_the_page_rooms_import_only_rooms_below_them():
    app = ROOT / "web/app"
    rooms = {p.name for p in app.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms == set(PAGE_ROOMS), f"a room came or went: {sorted(rooms)}; order it here"
    for module in _sources("web/app"):
        rel = module.relative_to(app).parts
        here = rel[0] if len(rel) > 1 else module.stem
        for name in _imported_modules(module):
            if not name.startswith("app."):
                continue
            there = _room_of(name)
            if there == here:
                continue
            where = f"{module.relative_to(ROOT)} imports {name}"
            assert there not in PAGE_COMPOSERS or (here, there) in COMPOSED, where
            if here in PAGE_COMPOSERS:
                continue
            if here not in PAGE_ROOMS:  # a base module
                assert there not in PAGE_ROOMS, f"{where}: a base module reaches into a room"
            elif there in PAGE_ROOMS:
                assert PAGE_ROOMS.index(there) < PAGE_ROOMS.index(here), f"{where}: a room above"


def test_the_page_folder_keeps_few_loose_modules():
    loose = sorted((ROOT / "web/app").glob("*.py"))
    assert len(loose) <= 15, f"web/app/ holds {len(loose)} modules: give them rooms"
