"""The page imports its modules one at a time, each after the modules it imports when loaded."""

import io
import json
import subprocess
import sys
import zipfile

import pytest

from backend.delivery.import_order import (
    LATER_MEMBER,
    MEMBER,
    ROOT,
    ImportCycle,
    import_order,
    imports_of,
    module_names,
)
from backend.delivery.runtime import package_files, python_bundle


def _tree(files: dict[str, str]) -> dict[str, bytes]:
    return {path: source.encode() for path, source in files.items()}


def _leaves_first(order: list[str], members: dict[str, bytes]) -> None:
    """Each module comes after every bundle module its import runs (a package may be open)."""
    names = module_names(members)
    seen: set[str] = set()
    for module in order:
        path = names[module]
        for imported in imports_of(module, members[path], path.endswith("__init__.py"), set(names)):
            packaged = names[imported].endswith("__init__.py") and module.startswith(imported + ".")
            assert imported in seen or imported == module or packaged, (module, imported)
        seen.add(module)


def test_the_served_bundle_lists_what_boot_imports_leaves_first() -> None:
    bundle = zipfile.ZipFile(io.BytesIO(python_bundle()))
    members = {name: bundle.read(name) for name in bundle.namelist()}
    order = bundle.read(MEMBER).decode().split()
    assert order[-1] == ROOT and len(order) == len(set(order))
    assert {"app.chrome", "app.api", "ambient.store"} <= set(order)
    _leaves_first(order, members)


def test_a_sign_in_page_is_ready_without_the_workspaces_modules() -> None:
    """app.boot imports the sign-in's modules; the workspace's (the Shell, a pop-out's frame,
    CodeMirror's users) come in a second list, which continues the first leaves first."""
    bundle = zipfile.ZipFile(io.BytesIO(python_bundle()))
    members = {name: bundle.read(name) for name in bundle.namelist()}
    boot = bundle.read(MEMBER).decode().split()
    later = bundle.read(LATER_MEMBER).decode().split()
    assert not {"app.shell", "app.frames.popout", "app.frames.inbox"} & set(boot)
    assert {"app.shell", "app.frames.popout", "app.frames.inbox"} <= set(later)
    assert not set(boot) & set(later) and len(later) == len(set(later))
    assert len(boot) * 3 < len(later)  # the sign-in page imports a fraction of the app
    _leaves_first(boot + later, members)
    # Every module of the app is in one list or the other: none waits for a click.
    app_modules = {name for name in module_names(members) if name.startswith("app")}
    assert app_modules <= set(boot) | set(later)


def test_the_page_reads_the_members_the_server_writes() -> None:
    from app import imports

    assert (imports.BOOT, imports.WORKSPACE) == (MEMBER, LATER_MEMBER)


def test_what_runs_at_import_counts_and_what_runs_later_does_not() -> None:
    members = _tree(
        {
            "pkg/__init__.py": "from .core import VALUE\n",
            "pkg/core.py": "VALUE = 1\n",
            "pkg/main.py": (
                "from typing import TYPE_CHECKING\n"
                "import pkg.util\n"
                "from . import helpers\n"
                "if TYPE_CHECKING:\n    from pkg import typed_only\n"
                "def later():\n    import pkg.lazy\n"
                "class Thing:\n    from pkg import in_class\n"
                "try:\n    import pkg.optional\nexcept ImportError:\n    pass\n"
            ),
            "pkg/util.py": "import json\n",
            "pkg/helpers.py": "",
            "pkg/typed_only.py": "",
            "pkg/lazy.py": "",
            "pkg/in_class.py": "",
            "pkg/optional.py": "",
        }
    )
    order = import_order(members, "pkg.main")
    assert order == [
        "pkg.core",
        "pkg",
        "pkg.util",
        "pkg.helpers",
        "pkg.in_class",
        "pkg.optional",
        "pkg.main",
    ]


def test_two_modules_that_import_each_other_are_refused_by_name() -> None:
    members = _tree({"a.py": "import b\n", "b.py": "from a import x\n"})
    with pytest.raises(ImportCycle, match="a → b → a"):
        import_order(members, "a")


def test_a_bundle_without_the_root_has_no_order_and_no_list(tmp_path) -> None:
    members = _tree({"lib/__init__.py": "", "lib/x.py": "import lib\n"})
    assert import_order(members, "app.boot") == []
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")  # a page with no app.boot
    names = zipfile.ZipFile(io.BytesIO(python_bundle(tmp_path))).namelist()
    assert "app/__init__.py" in names and MEMBER not in names


# A module of the bundle that needs no browser: CPython imports the same modules, and finishes
# each only after those it imports.
PROBE = """
import importlib, json, sys
before = set(sys.modules)
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize("root", ["ambient.capture", "ambient.store"])
def test_the_order_holds_exactly_the_modules_python_imports(root: str) -> None:
    members = {name: path.read_bytes() for name, path in package_files("ambient").items()}
    order = import_order(members, root)
    ran = subprocess.run(
        [sys.executable, "-c", PROBE, root], capture_output=True, text=True, check=True
    )
    imported = {m for m in json.loads(ran.stdout) if m == "ambient" or m.startswith("ambient.")}
    assert set(order) == imported
    _leaves_first(order, members)
