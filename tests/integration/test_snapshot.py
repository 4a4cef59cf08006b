"""A Pyodide snapshot whose inputs changed stops the server instead of being served; the
served snapshot is masked and unmasks, the way the page does it, to the original; the stdlib
zip served beside it holds what the snapshot lacks."""

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from backend.delivery.runtime import CHECKOUT_WEB
from backend.snapshot import StaleSnapshot, check_snapshot

VENDOR = CHECKOUT_WEB / "vendor"
MASK_CHECK = CHECKOUT_WEB / "snapshot_mask.mjs"


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


def test_an_unmasked_snapshot_is_refused(tmp_path):
    vendor = _vendor_copy(tmp_path, lambda m: m.pop("mask"))
    with pytest.raises(StaleSnapshot, match="not masked"):
        check_snapshot(vendor)


def _check_mask(folder: Path) -> subprocess.CompletedProcess[str]:
    """Restore the snapshot in `folder` in a fresh Pyodide in Node, through the page's unmask."""
    node = shutil.which("node")
    assert node, "Node.js is needed to restore the snapshot"
    command = [node, str(MASK_CHECK), "--verify", str(folder)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_the_served_snapshot_is_masked_and_unmasks_to_the_original():
    manifest = json.loads((VENDOR / "snapshot" / "manifest.json").read_text())
    served = (VENDOR / "snapshot" / manifest["file"]).read_bytes()
    assert hashlib.sha256(served).hexdigest() != manifest["mask"]["unmasked_sha256"]
    result = _check_mask(VENDOR / "snapshot")
    assert result.returncode == 0, result.stderr
    assert "restores to the original" in result.stdout


def test_a_snapshot_that_does_not_unmask_to_the_original_fails_the_check(tmp_path):
    manifest = json.loads((VENDOR / "snapshot" / "manifest.json").read_text())
    served = bytearray((VENDOR / "snapshot" / manifest["file"]).read_bytes())
    image = int.from_bytes(served[4:8], "little")  # where Pyodide's header says memory starts
    served[image + manifest["mask"]["bytes"] // 2] ^= 1  # one bit, inside the masked region
    (tmp_path / manifest["file"]).write_bytes(served)
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    result = _check_mask(tmp_path)
    assert result.returncode != 0
    assert "does not give the original back" in result.stderr


# Restores the built snapshot in Node with the served standard library, unmasked as the page
# does it, then imports a module the start zip keeps (pyodide.http), one only the rest holds
# (csv: fetched once, through the page's hook, here read from disk) and reloads one the
# snapshot holds (json: a stub). The snapshot's modules carry no docstrings and still run.
RESTORE = """
import { readFileSync } from "node:fs";
const [vendor] = process.argv.slice(1);
const { loadPyodide } = await import(`${vendor}/pyodide/pyodide.mjs`);
const factory = (await import(`${vendor}/pyodide/pyodide.asm.mjs`)).default;
const { unmaskingModule } = await import(`${vendor}/../static/snapshot-mask.mjs`);
const bytes = new Uint8Array(readFileSync(`${vendor}/snapshot/pyodide.snapshot`));
const snapshot = Promise.resolve(bytes);
const asked = globalThis.asked = [];
globalThis.anaStdlibRest = (name) => {
  asked.push(name);
  return new Uint8Array(readFileSync(`${vendor}/pyodide/python_stdlib_rest.zip`));
};
const pyodide = await loadPyodide({ indexURL: `${vendor}/pyodide/`, _loadSnapshot: snapshot,
  createPyodideModule: unmaskingModule(factory, snapshot) });
console.log(pyodide.runPython(`
import importlib, js, json, sys
import pyodide.http
before = str(js.asked.length)
import csv, csv as again
try:
    importlib.reload(json)
    reloaded = "reloaded"
except ImportError as error:
    reloaded = str(error)
docs = str([json.__doc__, json.dumps.__doc__, json.JSONEncoder.__doc__, json.dumps([1])])
"\\\\n".join([pyodide.http.__file__, before, csv.__file__, str("json" in sys.modules), reloaded,
             docs])
`));
console.log(JSON.stringify(asked));
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
    lines = done.stdout.strip().splitlines()
    http_file, before, csv_file, json_loaded, reloaded, docs, asked = lines
    assert http_file.endswith(".zip/pyodide/http/__init__.py") and "rest" not in http_file
    assert before == "0"  # the start zip's own modules fetch nothing
    assert csv_file.endswith("/python_stdlib_rest.zip/csv.py")  # from the rest, in full
    assert asked == '["csv"]'  # fetched once, for the module that needed it
    assert json_loaded == "True"  # restored with the snapshot, never read from the zip
    assert reloaded == (
        "json/__init__.py: its module is imported in the Pyodide snapshot, the source was left out"
    )
    assert docs == "[None, None, None, '[1]']"  # web/strip_docstrings.py, run by the build
