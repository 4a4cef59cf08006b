"""A Pyodide snapshot whose inputs changed stops the server; the stdlib zip served beside it."""

import json
import shutil
import subprocess
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


# Restores the built snapshot in Node with the served standard library, as the page does, then
# imports a module the snapshot does not hold (csv, from the zip) and reloads one it does.
RESTORE = """
import { readFileSync } from "node:fs";
const [vendor] = process.argv.slice(1);
const { loadPyodide } = await import(`${vendor}/pyodide/pyodide.mjs`);
const pyodide = await loadPyodide({ indexURL: `${vendor}/pyodide/`,
  _loadSnapshot: readFileSync(`${vendor}/snapshot/pyodide.snapshot`) });
console.log(pyodide.runPython(`
import csv, importlib, json, sys
try:
    importlib.reload(json)
    reloaded = "reloaded"
except ImportError as error:
    reloaded = str(error)
"\\\\n".join([csv.__file__, str("json" in sys.modules), reloaded])
`));
"""


def test_the_served_stdlib_imports_what_the_snapshot_lacks_and_refuses_its_modules():
    node = shutil.which("node")
    assert node, "Node.js runs Pyodide here"
    done = subprocess.run(
        [node, "--input-type=module", "-e", RESTORE, str(VENDOR)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    csv_file, json_loaded, reloaded = done.stdout.strip().splitlines()
    assert csv_file.endswith(".zip/csv.py")  # read from the zip, in full
    assert json_loaded == "True"  # restored with the snapshot, never read from the zip
    assert reloaded == (
        "json/__init__.py: its module is imported in the Pyodide snapshot, the source was left out"
    )
