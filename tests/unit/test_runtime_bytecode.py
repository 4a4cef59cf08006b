"""The page's Python ships as the build's bytecode, in place of the sources it was compiled from,
and without the sources the snapshot holds imported."""

import hashlib
import io
import sys
import zipfile
from pathlib import Path

import pytest

from backend.delivery.runtime import (
    CHECKOUT_WEB,
    python_bundle,
    read_bytecode,
    read_held,
    split_bundle,
    with_bytecode,
    without_held,
)
from backend.delivery.web import _runtime
from tests.unit.bytecode_helpers import checked_pyc, import_in, zip_of

TAG = sys.implementation.cache_tag
SOURCE = b"VALUE = 'from source'\n"


def _pyc(source: bytes, *, runs: str) -> bytes:
    return checked_pyc(source, runs=runs, filename="pkg/mod.py")


def _import_from(tmp_path: Path, bundle: bytes) -> str:
    zipfile.ZipFile(io.BytesIO(bundle)).extractall(tmp_path)
    return import_in(tmp_path, "pkg.mod")


def test_a_compiled_source_is_replaced_by_its_pyc_which_imports_without_it(tmp_path):
    table = {
        hashlib.sha256(SOURCE).hexdigest(): _pyc(SOURCE, runs="VALUE = 'from bytecode'"),
        hashlib.sha256(b"").hexdigest(): _pyc(b"", runs=""),
    }
    bundle = with_bytecode(zip_of({"pkg/__init__.py": b"", "pkg/mod.py": SOURCE}), table)
    names = zipfile.ZipFile(io.BytesIO(bundle)).namelist()
    assert names == ["pkg/__init__.pyc", "pkg/mod.pyc"]  # a package too imports without source
    assert _import_from(tmp_path, bundle) == "from bytecode"


def test_a_source_edited_since_the_build_gets_no_pyc_and_runs_from_source(tmp_path):
    table = {hashlib.sha256(SOURCE).hexdigest(): _pyc(SOURCE, runs="VALUE = 'from bytecode'")}
    edited = b"VALUE = 'edited'\n"
    bundle = with_bytecode(zip_of({"pkg/__init__.py": b"", "pkg/mod.py": edited}), table)
    names = zipfile.ZipFile(io.BytesIO(bundle)).namelist()
    assert names == ["pkg/__init__.py", "pkg/mod.py"]
    assert _import_from(tmp_path, bundle) == "edited"


def test_only_the_held_sources_with_the_bytes_the_snapshot_imported_leave_the_bundle():
    members = {"lib/__init__.py": b"", "lib/used.py": b"A = 1\n", "lib/lazy.py": b"B = 2\n"}
    held = {
        "lib/__init__.py": hashlib.sha256(b"").hexdigest(),
        "lib/used.py": hashlib.sha256(b"A = 0\n").hexdigest(),  # another version: kept
    }
    bundle = without_held(zip_of(members), held)
    assert zipfile.ZipFile(io.BytesIO(bundle)).namelist() == ["lib/used.py", "lib/lazy.py"]


def test_the_built_bytecode_and_snapshot_shape_the_served_bundle():
    """web/vendor/bytecode.zip is Pyodide's, and the server's bundle carries .pyc files from it,
    without markdown-it's sources, which the snapshot holds imported.

    Not every module: one edited since the last build is compiled in the page instead.
    """
    compiled = read_bytecode(CHECKOUT_WEB / "vendor")
    if compiled is None:
        pytest.fail("web/vendor/bytecode.zip is missing: run ./dev setup")
    tag, table = compiled
    assert tag.startswith("cpython-") and tag != TAG  # the page's interpreter, not the server's
    held = read_held(CHECKOUT_WEB / "vendor")
    assert "markdown_it/main.py" in held and "mdurl/__init__.py" in held
    served = without_held(python_bundle(CHECKOUT_WEB), held)
    served = with_bytecode(served, table)
    names = zipfile.ZipFile(io.BytesIO(served)).namelist()
    compiled_names = [name for name in names if name.endswith(".pyc")]
    assert compiled_names and not {name[:-1] for name in compiled_names} & set(names)
    assert "markdown_it/main.py" not in names
    assert "markdown_it/tree.py" in names  # imported by nothing at start: it stays


def _names(data: bytes) -> set[str]:
    return set(zipfile.ZipFile(io.BytesIO(data)).namelist())


def test_the_bundle_splits_into_what_a_window_starts_with_and_the_workspace() -> None:
    bundle = zip_of(
        {
            "app/__init__.pyc": b"pkg",
            "app/boot.pyc": b"boot",
            "app/notes/__init__.py": b"",
            "app/notes/note.pyc": b"note",
            "app/edited.py": b"source, edited since the build",
            "app/boot_imports.txt": b"app\napp.boot",
            "app/workspace_imports.txt": b"app.notes\napp.notes.note\napp.edited",
            "markdown_it/tree.py": b"x",
        }
    )
    start, workspace = split_bundle(bundle)
    assert _names(workspace) == {"app/notes/__init__.py", "app/notes/note.pyc", "app/edited.py"}
    assert _names(start) == {
        "app/__init__.pyc",
        "app/boot.pyc",
        "app/boot_imports.txt",
        "app/workspace_imports.txt",
        "markdown_it/tree.py",
    }
    # A bundle without the second list (an older one) starts with everything.
    assert _names(split_bundle(zip_of({"app/boot.pyc": b"b"}))[1]) == set()


def test_the_served_bundles_hold_each_import_list() -> None:
    runtime = _runtime(CHECKOUT_WEB)
    start = runtime.assets[runtime.prefixes["/py/app.zip"]][0].bodies[None]
    workspace = runtime.assets[runtime.prefixes["/py/workspace.zip"]][0].bodies[None]
    first = zipfile.ZipFile(io.BytesIO(start))
    later = first.read("app/workspace_imports.txt").decode().split()
    held = set(runtime.held)  # markdown-it's sources the snapshot restores imported: in neither
    for name in first.read("app/boot_imports.txt").decode().split():
        assert _member_of(name) & (_names(start) | held), name
    for name in later:
        assert _member_of(name) & (_names(workspace) | held), name
    assert "app/shell.pyc" in _names(workspace) and "app/shell.pyc" not in _names(start)
    assert runtime.sizes["/py/workspace.zip"] == 0  # not in a first visit's bytes
    assert runtime.signed_in_bytes >= len(workspace)


def _member_of(module: str) -> set[str]:
    path = module.replace(".", "/")
    return {f"{path}{end}" for end in (".py", ".pyc", "/__init__.py", "/__init__.pyc")}
