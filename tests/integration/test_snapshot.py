"""A Pyodide snapshot whose inputs changed stops the server instead of being served."""

import json
from pathlib import Path

import pytest

from backend.snapshot import StaleSnapshot, check_snapshot
from backend.web import CHECKOUT_WEB

VENDOR = CHECKOUT_WEB / "vendor"


def _vendor_copy(tmp_path: Path, edit) -> Path:
    """tmp vendor/ linking the built runtime and snapshot, with an edited manifest."""
    (tmp_path / "snapshot").mkdir()
    (tmp_path / "pyodide").symlink_to(VENDOR / "pyodide")
    manifest = json.loads((VENDOR / "snapshot" / "manifest.json").read_text())
    (tmp_path / "snapshot" / manifest["file"]).symlink_to(VENDOR / "snapshot" / manifest["file"])
    edit(manifest)
    (tmp_path / "snapshot" / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path


def test_the_built_snapshot_matches_its_inputs():
    check_snapshot(VENDOR)


def test_a_changed_runtime_file_is_stale(tmp_path):
    vendor = _vendor_copy(
        tmp_path, lambda m: m["inputs"]["runtime"].update({"pyodide.asm.wasm": "0" * 64})
    )
    with pytest.raises(StaleSnapshot, match="pyodide.asm.wasm"):
        check_snapshot(vendor)


def test_a_changed_package_file_is_stale(tmp_path):
    vendor = _vendor_copy(
        tmp_path, lambda m: m["inputs"]["python"].update({"markdown_it/main.py": "0" * 64})
    )
    with pytest.raises(StaleSnapshot, match="markdown_it/main.py"):
        check_snapshot(vendor)


def test_a_missing_snapshot_is_refused(tmp_path):
    (tmp_path / "pyodide").symlink_to(VENDOR / "pyodide")
    with pytest.raises(StaleSnapshot, match="missing"):
        check_snapshot(tmp_path)
